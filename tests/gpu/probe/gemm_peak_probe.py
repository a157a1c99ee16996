#!/usr/bin/env python3
"""tests/gpu/probe/gemm_peak_probe.py - why does torch.mm reach more bf16
TFLOP/s on the H200 than the cuBLASLt calibration?  Times large bf16 and fp8
GEMMs through PyTorch with the calibration's input distribution (uniform
[-1, 1)) and PyTorch's usual one (randn), in the NN and TN layouts, cold (a
sleep kernel and a 256 MiB L2 flush before ONE call between CUDA events) and
sustained (20 back-to-back calls between one event pair after 0.5 s of the
same GEMM), sampling SM clock and power with nvidia-smi meanwhile.
Writes JSON to --out."""
import argparse, json, os, statistics, subprocess, sys, time
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_cold import cold_times, sustained_time  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
args = ap.parse_args()
dev = "cuda"
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
SLEEP = int(100e-6 * 1.98e9)


def inputs(dist, shape, dt):
    g = torch.Generator(device=dev)
    g.manual_seed(7)
    if dist == "randn":
        x = torch.randn(shape, device=dev, generator=g)
    else:
        x = torch.rand(shape, device=dev, generator=g) * 2 - 1
    return x.to(dt)


def make(dt, layout, dist, m, n, k):
    if dt == "fp8":
        a = inputs(dist, (m, k), torch.float8_e4m3fn)
        b = inputs(dist, (n, k), torch.float8_e4m3fn).t()
        one = torch.ones((), device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    t = torch.bfloat16
    if layout == "NN":
        a, b = inputs(dist, (m, k), t), inputs(dist, (k, n), t)
    elif layout == "TN":  # A stored k x m (column-major m x k), B k x n
        a, b = inputs(dist, (k, m), t).t(), inputs(dist, (k, n), t)
    else:  # NT
        a, b = inputs(dist, (m, k), t), inputs(dist, (n, k), t).t()
    return lambda: torch.mm(a, b)


def cold(fn, reps=9):
    return statistics.median(cold_times(fn, reps, flush, SLEEP))


def sustained(fn, count=20, reps=5):
    return sustained_time(fn, count, reps, sleep_cycles=SLEEP)


smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader", "-lms", "200"], stdout=subprocess.PIPE, text=True)
rows = []
for dt, layout, dist, (m, n, k) in [
        ("bf16", "NN", "randn", (8192, 8192, 8192)), ("bf16", "NN", "uniform", (8192, 8192, 8192)),
        ("bf16", "TN", "randn", (8192, 8192, 8192)), ("bf16", "TN", "uniform", (8192, 8192, 8192)),
        ("bf16", "NT", "uniform", (8192, 8192, 8192)),
        ("bf16", "NN", "randn", (16384, 16384, 8192)), ("bf16", "TN", "uniform", (16384, 16384, 8192)),
        ("bf16", "NN", "randn", (4096, 4096, 4096)), ("bf16", "TN", "uniform", (4096, 4096, 4096)),
        ("fp8", "TN", "randn", (8192, 8192, 8192)), ("fp8", "TN", "uniform", (8192, 8192, 8192))]:
    fn = make(dt, layout, dist, m, n, k)
    fn(); torch.cuda.synchronize()
    t0 = time.time()
    c = cold(fn)
    s = sustained(fn)
    flops = 2.0 * m * n * k
    rows.append({"dtype": dt, "layout": layout, "dist": dist, "m": m, "n": n, "k": k, "cold_s": c,
                 "sustained_s": s, "cold_tflops": flops / c / 1e12, "sustained_tflops": flops / s / 1e12,
                 "t_start": t0, "t_end": time.time()})
    print("%-5s %s %-8s %5dx%5dx%5d cold %7.1f  sustained %7.1f TFLOP/s" %
          (dt, layout, dist, m, n, k, rows[-1]["cold_tflops"], rows[-1]["sustained_tflops"]), flush=True)
smi.terminate()
samples = smi.stdout.read().strip().splitlines()
json.dump({"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
           "rows": rows, "smi_samples": samples}, open(args.out, "w"), indent=1)
clk = [float(s.split(",")[1].split()[0]) for s in samples if "MHz" in s]
pw = [float(s.split(",")[2].split()[0]) for s in samples if " W" in s]
print("SM clock MHz min/median/max %s; power W median/max %s" %
      ((min(clk), statistics.median(clk), max(clk)) if clk else "-", (statistics.median(pw), max(pw)) if pw else "-"))
