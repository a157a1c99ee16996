#!/usr/bin/env python3
"""tests/gpu/probe/power_ramp_probe.py - how long does a tensor-core GEMM run
at the clock it starts with before the board's power limit pulls the clock
down?  For each dtype (as the held-out set calls it: torch.mm, fp32 inputs
with TF32 on for tf32, torch._scaled_mm for fp8 e4m3, torch._int_mm for int8;
randn inputs) a mid-size GEMM is launched N times back to back after the GPU
has idled for a gap (host sleep, then a 100 us sleep kernel so the host has
queued everything before the GPU reaches it), with a CUDA event between
every two calls: per-call GPU time without CPU gaps, in order. Also: the
held-out method's cold single call (sleep kernel, 256 MiB L2 flush, one call
between events) at 8192^3 (fp64 4096^3) and the sustained rate (0.5 s of
the GEMM, then 20 calls between one event pair). nvidia-smi samples SM clock
and power every 20 ms meanwhile. Writes JSON to --out."""
import argparse, json, os, statistics, subprocess, sys, time
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_cold import cold_times, sustained_time  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--long", action="store_true",
                help="instead: 1500 calls after 1 s idle (bf16, fp8, fp16, tf32), to see when the rate falls")
args = ap.parse_args()
dev = "cuda"
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
SLEEP = int(100e-6 * 1.98e9)


def make(dt, m, n, k):
    g = torch.Generator(device=dev)
    g.manual_seed(11)
    if dt == "fp8":
        a = torch.randn((m, k), device=dev, generator=g).to(torch.float8_e4m3fn)
        b = torch.randn((n, k), device=dev, generator=g).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    if dt == "int8":
        a = torch.randint(-128, 127, (m, k), device=dev, dtype=torch.int8, generator=g)
        b = torch.randint(-128, 127, (k, n), device=dev, dtype=torch.int8, generator=g)
        return lambda: torch._int_mm(a, b)
    t = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32, "fp64": torch.float64}[dt]
    a = torch.randn((m, k), device=dev, generator=g, dtype=torch.float32).to(t)
    b = torch.randn((k, n), device=dev, generator=g, dtype=torch.float32).to(t)
    return lambda: torch.mm(a, b)


def ramp(fn, gap, count):
    torch.cuda.synchronize()
    time.sleep(gap)
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(count + 1)]
    torch.cuda._sleep(SLEEP)
    ev[0].record()
    for i in range(count):
        fn()
        ev[i + 1].record()
    ev[-1].synchronize()
    return [ev[i].elapsed_time(ev[i + 1]) * 1e-3 for i in range(count)]


def cold(fn, reps=7):
    return statistics.median(cold_times(fn, reps, flush, SLEEP))


def sustained(fn, count=20, reps=3):
    return sustained_time(fn, count, reps)


def long_ramps():
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "long_rows": []}
    for dt, (m, n, k) in [("bf16", (4096, 4096, 4096)), ("fp8", (8192, 4096, 4096)),
                          ("fp16", (4096, 4096, 4096)), ("tf32", (4096, 4096, 2048))]:
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        fn = make(dt, m, n, k)
        fn(); torch.cuda.synchronize()
        flops = 2.0 * m * n * k
        calls = ramp(fn, 2.0, 1500)
        out["long_rows"].append({"dtype": dt, "m": m, "n": n, "k": k, "gap_s": 2.0, "call_s": calls})
        cum, line = 0.0, []
        for i, t in enumerate(calls):
            cum += t
            if i % 50 == 0 or i == len(calls) - 1:
                line.append("%.0fms:%.0f" % (cum * 1e3, flops / t / 1e12))
        print(dt, " ".join(line), flush=True)
    return out


torch.backends.cuda.matmul.allow_tf32 = False
if args.long:
    res = long_ramps()
    res["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                   capture_output=True, text=True).stdout.strip()
    json.dump(res, open(args.out, "w"), indent=1)
    raise SystemExit(0)
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader", "-lms", "20"], stdout=subprocess.PIPE, text=True)
# ramp shapes: about 0.2-0.4 ms a call; big: the held-out cold single call
plan = [("bf16", (4096, 4096, 4096), (8192, 8192, 8192)), ("fp16", (4096, 4096, 4096), (8192, 8192, 8192)),
        ("fp8", (8192, 4096, 4096), (8192, 8192, 8192)), ("int8", (8192, 4096, 4096), (8192, 8192, 8192)),
        ("tf32", (4096, 4096, 2048), (8192, 8192, 8192)), ("fp64", (2048, 2048, 2048), (4096, 4096, 4096))]
out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": []}
for dt, (m, n, k), (bm, bn, bk) in plan:
    torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
    fn = make(dt, m, n, k)
    fn(); torch.cuda.synchronize()
    flops = 2.0 * m * n * k
    row = {"dtype": dt, "m": m, "n": n, "k": k, "ramps": [], "t_start": time.time()}
    for gap in (1e-4, 1e-3, 1e-2, 1e-1, 1.0):
        runs = [ramp(fn, gap, 60) for _ in range(3)]
        med = [statistics.median(x) for x in zip(*runs)]
        row["ramps"].append({"gap_s": gap, "call_s": med, "runs_s": runs})
        cum, pts = 0.0, []
        for i, t in enumerate(med):
            cum += t
            if i in (0, 1, 2, 4, 7, 11, 19, 39, 59):
                pts.append("%d:%.2fms=%.0f" % (i, cum * 1e3, flops / t / 1e12))
        print("%-5s %5dx%5dx%5d gap %6.4f s  %s" % (dt, m, n, k, gap, " ".join(pts)), flush=True)
    s = sustained(fn)
    row["sustained_s"] = s
    big = make(dt, bm, bn, bk)
    big(); torch.cuda.synchronize()
    c = cold(big)
    bs = sustained(big)
    bflops = 2.0 * bm * bn * bk
    row.update({"big": [bm, bn, bk], "big_cold_s": c, "big_sustained_s": bs, "t_end": time.time()})
    print("%-5s ramp shape sustained %.0f TFLOP/s; %dx%dx%d cold %.0f sustained %.0f" %
          (dt, flops / s / 1e12, bm, bn, bk, bflops / c / 1e12, bflops / bs / 1e12), flush=True)
    out["rows"].append(row)
    del fn, big
    torch.cuda.empty_cache()
smi.terminate()
out["smi_samples"] = smi.stdout.read().strip().splitlines()
out["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True).stdout.strip()
json.dump(out, open(args.out, "w"), indent=1)
