#!/usr/bin/env python3
"""gemm_probe_small.py - fit data for issue 11's small, short-K and skinny
GEMM misses: which kernels cuBLAS runs (name, grid, block, mean duration
under torch.profiler) and the single-call time, measured exactly as
gemm_heldout.py measures its rows (a sleep kernel, a 256 MiB fill that
evicts the L2, an event pair around ONE call; median of 7 after 2 untimed).

Shapes: the fit half's rows (tests/gpu/results/h200/heldout/gemm.json,
"split": "fit") of the classes that miss (tf32 with short K or small
outputs, fp64 random, int8 and 16-bit llm with m <= 128, fp32 with tiny K),
re-timed beside their kernels, plus new probe shapes around them. No shape
of the held-out half, nor any shape gemm_heldout.py's cases() draws and
assigns to it, is ever run: such a shape is dropped before the GPU is
touched (the list is checked against both).

    python3 tests/gpu/heldout/gemm_probe_small.py --out probe_small.json [--list]

Writes rows shaped as gemm_probe.json's (with "kernels" and "split": "fit").
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import gemm_heldout  # noqa: E402

HELDOUT = os.path.join(HERE, "..", "results", "h200", "heldout", "gemm.json")

NEW = [
    # fp32 (and tf32, bf16) with K = 1..8 and wide outputs
    ("fp32", 1024, 8192, 1), ("fp32", 4096, 4096, 1), ("fp32", 256, 16384, 1), ("fp32", 2048, 2048, 1),
    ("fp32", 1024, 8192, 2), ("fp32", 1024, 8192, 4), ("fp32", 1024, 8192, 8), ("tf32", 1024, 8192, 1),
    ("fp32", 64, 16384, 1), ("fp32", 16384, 64, 1),
    # tf32 small outputs and short K
    ("tf32", 32, 32, 32), ("tf32", 64, 64, 64), ("tf32", 128, 128, 128), ("tf32", 16, 256, 256),
    ("tf32", 16, 16, 1024), ("tf32", 4096, 8192, 16), ("tf32", 4096, 8192, 64), ("tf32", 4096, 8192, 128),
    ("tf32", 4096, 8192, 256), ("tf32", 64, 4096, 4096), ("tf32", 256, 4096, 4096), ("tf32", 128, 8192, 4096),
    # int8 skinny with long K
    ("int8", 128, 8192, 8192), ("int8", 128, 8192, 16384), ("int8", 64, 8192, 28672), ("int8", 256, 8192, 28672),
    ("int8", 128, 4096, 28672),
    # 16-bit, m = 128 and wide N
    ("bf16", 128, 28672, 8192), ("fp16", 128, 32768, 4096), ("bf16", 128, 16384, 8192), ("bf16", 64, 28672, 4096),
    ("bf16", 256, 28672, 4096),
    # fp64: small m*n with long K, skinny n
    ("fp64", 2048, 16, 4096), ("fp64", 2048, 32, 4096), ("fp64", 4096, 19, 4096), ("fp64", 1024, 1024, 16),
    ("fp64", 512, 2048, 16), ("fp64", 64, 16, 8192), ("fp64", 16, 64, 2048),
]

FIT_CLASSES = {"tf32", "fp64/random", "fp64/random_aligned"}


def wanted_fit(r):
    """fit rows of the missing classes"""
    d, cls = r["dtype"], r["shape_class"]
    if d == "tf32":
        return r["k"] <= 256 or r["m"] <= 128 or r["m"] * r["n"] <= 65536
    if d == "fp64":
        return cls.startswith("random")
    if d == "int8" or d in ("fp16", "bf16"):
        return cls == "llm" and r["m"] <= 128
    if d == "fp32":
        return r["k"] <= 64 or r["m"] <= 64
    return False


def shape_list():
    with open(HELDOUT) as f:
        rows = json.load(f)["runs"]
    heldout = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] != "fit"}
    fit = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] == "fit"}
    # a drawn case that is not a fit row is treated as held out too
    drawn = {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases()}
    forbidden = heldout | (drawn - fit)
    out = []
    for r in rows:
        if r["split"] == "fit" and wanted_fit(r):
            out.append(("%s" % r["name"], r["dtype"], r["m"], r["n"], r["k"], r["shape_class"]))
    for (d, m, n, k) in NEW:
        if (d, m, n, k) in forbidden or (d, m, n, k) in fit:
            continue
        out.append(("probe_%s_%dx%dx%d" % (d, m, n, k), d, m, n, k, "probe_small"))
    assert not any((c[1], c[2], c[3], c[4]) in forbidden for c in out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="probe_small.json")
    ap.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU)")
    ap.add_argument("--budget-s", type=float, default=200.0, help="stop starting new shapes after this")
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
                   "calls for the kernels (gemm_heldout.kernels_of). Shapes: fit rows of the missing classes "
                   "re-timed (their names) and new probe shapes (probe_*); no held-out shape "
                   "(gemm_probe_small.py); fit data." % (torch.__version__, sleep_cycles)),
    })
    with open(args.out, "w") as f:
        json.dump({"gpu": "h200-sxm", "meta": meta, "runs": runs, "skipped": skipped}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))


if __name__ == "__main__":
    main()
