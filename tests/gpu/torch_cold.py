"""tests/gpu/torch_cold.py - the house timing of GPU work called through
PyTorch, written once for the probe and held-out scripts: GPU time without
CPU gaps.

cold_times: before each call a sleep kernel (so the host has queued the
events and the call before the GPU reaches them) and a fill of `flush` (a
buffer larger than L2: the call starts with a cold L2), then a CUDA event
pair around ONE call; the first `warmup` calls are not kept.

sustained_time: the work run back to back for `warm_s` seconds, then `count`
calls between one event pair, time over count; the median of `reps`. With
sleep_cycles, the queue drains after the warm-up and each window starts
behind a sleep kernel; without, the windows follow the warm-up's queue."""
import statistics
import time

import torch


def cold_times(fn, repeats, flush, sleep_cycles, warmup=2):
    """Seconds of each of `repeats` cold calls of fn, in order."""
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    t = []
    for r in range(warmup + repeats):
        torch.cuda._sleep(sleep_cycles)
        flush.fill_(r & 0xff)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        if r >= warmup:
            t.append(e0.elapsed_time(e1) * 1e-3)
    return t


def sustained_time(fn, count=20, reps=3, warm_s=0.5, sleep_cycles=0):
    """Seconds per call of fn run back to back after warm_s of it."""
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    w = time.time()
    while time.time() - w < warm_s:
        fn()
    if sleep_cycles:
        torch.cuda.synchronize()
    t = []
    for _ in range(reps):
        if sleep_cycles:
            torch.cuda._sleep(sleep_cycles)
        e0.record()
        for _ in range(count):
            fn()
        e1.record()
        e1.synchronize()
        t.append(e0.elapsed_time(e1) * 1e-3 / count)
    return statistics.median(t)
