#!/usr/bin/env python3
"""gemm_probe_wide.py - fit data for issue 11's skinny GEMMs that stream a
wide, long weight (m <= 128, n*k >= 2^24): which kernels cuBLAS runs (name,
grid, block, mean duration under torch.profiler: the tile, its pipeline
stages and its cluster are in the name) and the single-call time, measured
exactly as gemm_heldout.py measures its rows (a sleep kernel, a 256 MiB
fill that evicts the L2, an event pair around ONE call; median of 7 after 2
untimed; tests/gpu/torch_cold.py).

Shapes: new probe shapes of the class in every dtype, around the fit rows
that miss (16-bit 128x28672 runs a 448x64 tile of 2 stages). No shape of
the held-out half, nor any shape gemm_heldout.py's cases() draws and
assigns to it, is ever run: such a shape is dropped before the GPU is
touched (the list is checked against both), and so is any shape outside
the class.

    python3 tests/gpu/probe/gemm_probe_wide.py --out probe_wide.json [--list]

Run from the repository root (it imports tests/gpu/heldout/gemm_heldout.py,
tests/gpu/gemm_bench.py, gpu_meta.py and torch_cold.py). Writes rows shaped
as gemm_probe_small.json's (with "kernels" and "split": "fit")."""

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu", "heldout"))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import gemm_heldout  # noqa: E402

HELDOUT = os.path.join(ROOT, "tests", "gpu", "results", "h200", "heldout", "gemm.json")

NEW = [
    # 16-bit, m = 128: the n at which cuBLAS splits m into two 64-row tiles
    # of a cluster (448x64, 320x64) or keeps one 128-row tile; K long and short
    ("fp16", 128, 28672, 1024), ("fp16", 128, 28672, 16384), ("bf16", 128, 12288, 4096),
    ("bf16", 128, 18432, 4096), ("bf16", 128, 26624, 4096), ("bf16", 128, 30720, 4096),
    ("bf16", 128, 43008, 4096), ("bf16", 128, 53248, 4096), ("fp16", 128, 57344, 4096),
    ("bf16", 112, 28672, 4096), ("bf16", 80, 28672, 4096), ("bf16", 48, 28672, 4096),
    ("fp16", 128, 14336, 8192), ("bf16", 128, 28672, 6144), ("fp16", 128, 20480, 8192),
    # fp8: the same shapes
    ("fp8", 128, 20480, 4096), ("fp8", 128, 28672, 8192), ("fp8", 64, 28672, 4096),
    ("fp8", 128, 14336, 4096), ("fp8", 128, 57344, 4096),
    # int8: m = 128 with wide n and long K, and m of 64..112
    ("int8", 128, 28672, 4096), ("int8", 128, 20480, 8192), ("int8", 112, 16384, 8192),
    ("int8", 128, 4096, 8192), ("int8", 128, 8192, 6144), ("int8", 128, 24576, 4096),
    ("int8", 96, 28672, 4096), ("int8", 64, 57344, 4096),
    # tf32 and fp32 (FMA): m = 128 and below with wide n
    ("tf32", 128, 28672, 4096), ("tf32", 64, 28672, 4096), ("tf32", 16, 28672, 4096),
    ("fp32", 128, 28672, 4096), ("fp32", 32, 28672, 4096), ("fp32", 128, 16384, 2048),
    ("fp64", 128, 16384, 2048), ("fp64", 32, 28672, 2048),
    # fit rows of the class whose kernels were never recorded (re-timed)
    ("fp8", 128, 28672, 4096), ("fp8", 128, 10240, 8192), ("fp64", 4, 28672, 4096), ("fp32", 128, 10240, 8192),
]


def in_class(m, n, k):
    return 1 <= m <= 128 and n * k >= (1 << 24)


def shape_list():
    with open(HELDOUT) as f:
        rows = json.load(f)["runs"]
    heldout = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] != "fit"}
    fit = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] == "fit"}
    # a drawn case that is not a fit row is treated as held out too
    drawn = {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases()}
    forbidden = heldout | (drawn - fit)
    out = []
    for (d, m, n, k) in NEW:
        if (d, m, n, k) in forbidden or not in_class(m, n, k):
            print("refused:", d, m, n, k, file=sys.stderr)
            continue
        out.append(("probe_%s_%dx%dx%d" % (d, m, n, k), d, m, n, k, "probe_wide"))
    assert not any((c[1], c[2], c[3], c[4]) in forbidden for c in out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="probe_wide.json")
    ap.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU)")
    ap.add_argument("--budget-s", type=float, default=150.0, help="stop starting new shapes after this")
    args = ap.parse_args()
    cs = shape_list()
    if args.list:
        for c in cs:
            print(c)
        print(len(cs), "shapes; estimated GPU time %.1f s" % sum(gemm_heldout.est_s(c[1], *c[2:5]) * 9 for c in cs))
        return
    import torch
    import gemm_bench  # noqa: E402
    import gpu_meta  # noqa: E402
    from torch_cold import cold_times  # noqa: E402  the house cold-call timing

    before = gpu_meta.smi()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    sleep_cycles = int(100e-6 * 1.98e9)
    runs, skipped = [], []
    t_start = time.time()
    for i, (name, dt, m, n, k, cls) in enumerate(cs):
        if time.time() - t_start > args.budget_s:
            skipped.append({"name": name, "reason": "time budget"})
            continue
        try:
            fn, keep = gemm_bench.make(dt, m, n, k, gen)
            fn()
            torch.cuda.synchronize()
        except Exception as ex:  # noqa: BLE001 - PyTorch refuses the shape: recorded
            skipped.append({"name": name, "reason": str(ex)[:300]})
            torch.cuda.synchronize()
            continue
        t = cold_times(fn, 7, flush, sleep_cycles)
        med = statistics.median(t)
        runs.append({"name": name, "m": m, "n": n, "k": k, "dtype": dt, "batch": 1, "measured_s": med,
                     "tflops": 2.0 * m * n * k / med / 1e12, "min_s": min(t), "max_s": max(t), "repeats": 7,
                     "timing": "cold", "shape_class": cls, "split": "fit",
                     "kernels": gemm_heldout.kernels_of(fn)})
        del fn, keep
        print("%4d/%d %-40s %10.2f us  (%.0f s)" % (i, len(cs), name, med * 1e6, time.time() - t_start), flush=True)
    meta = gpu_meta.base_meta(before)
    meta.update({
        "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "clocks_after": gpu_meta.clocks(gpu_meta.smi()),
        "method": ("cuBLAS through PyTorch %s, products as gemm_bench.make() (gemm_heldout.py's); each repeat "
                   "torch.cuda._sleep(%d cycles), a 256 MiB fill (evicts the L2), an event pair around ONE call; "
                   "2 untimed, 7 timed, measured_s the median; then torch.profiler over three back-to-back "
                   "calls for the kernels (gemm_heldout.kernels_of). Shapes: new probe shapes of the class "
                   "m <= 128, n*k >= 2^24 in every dtype; no held-out shape (gemm_probe_wide.py); fit data."
                   % (torch.__version__, sleep_cycles)),
    })
    with open(args.out, "w") as f:
        json.dump({"gpu": "h200-sxm", "meta": meta, "runs": runs, "skipped": skipped}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))


if __name__ == "__main__":
    main()
