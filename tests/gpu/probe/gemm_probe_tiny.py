#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_tiny.py - fit data for issue 11's tiny and
short-K GEMMs (fp32, tf32, bf16, fp16) on the H200: which kernels cuBLAS runs
(name, grid, block, registers, shared memory, blocks per SM, mean duration
under torch.profiler) and the single-call GPU time, measured as
gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep kernel, a
256 MiB fill that evicts the L2, an event pair around ONE call; median of 7
after 2 untimed).

Shape groups, in the order they run (a time budget cuts the tail):
  tiny     outputs of 4 to 2^16 elements, K from 1 to 512, aligned and not:
           the kernel family, whether a reduction kernel runs behind it, and
           the fixed cost of one call;
  shortk   K of 1 to 64 at outputs of 2^20 to 2^24: the per-wave and per-K
           step cost of each family's kernels;
  unalign  16-bit and fp32 small outputs with long odd K: the fallback
           kernels' split and reduction.
Shapes the earlier probes (gemm_probe*.json) timed are not run again.
No shape of the held-out half, nor any shape gemm_heldout.py's cases() draws
and does not assign to the fit half, is ever run: such a shape is dropped
before the GPU is touched (checked against both).

    python3 tests/gpu/probe/gemm_probe_tiny.py --out gemm_probe_tiny.json [--list]
"""

import argparse
import json
import os
import statistics
import sys
import time


def repo_root():
    """the checkout holding tests/gpu (the script also runs from a copy)"""
    d = os.path.dirname(os.path.abspath(__file__))
    while d != "/":
        if os.path.exists(os.path.join(d, "tests", "gpu", "torch_cold.py")):
            return d
        d = os.path.dirname(d)
    raise SystemExit("tests/gpu not found above " + __file__)


ROOT = repo_root()
GPU_DIR = os.path.join(ROOT, "tests", "gpu")
sys.path.insert(0, os.path.join(GPU_DIR, "heldout"))
sys.path.insert(0, GPU_DIR)
import gemm_heldout  # noqa: E402

HELDOUT = os.path.join(GPU_DIR, "results", "h200", "heldout", "gemm.json")
DTYPES = ("fp32", "tf32", "bf16", "fp16")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    tiny = [(2, 2, 2), (4, 4, 4), (16, 16, 16), (32, 32, 32), (64, 64, 64), (128, 128, 128), (8, 8, 64),
            (16, 16, 1), (64, 64, 1), (128, 128, 8), (256, 256, 16), (32, 32, 512), (5, 7, 9), (13, 11, 7),
            (24, 40, 3), (100, 100, 100), (256, 256, 1)]
    for (m, n, k) in tiny:
        for d in DTYPES:
            out.append(("tiny", d, m, n, k))
    for (m, n) in [(2048, 2048), (4096, 4096)]:
        for k in [1, 2, 4, 8, 16, 32, 64]:
            for d in DTYPES:
                out.append(("shortk", d, m, n, k))
    for (m, n, k) in [(6, 7, 1001), (6, 7, 3001), (12, 20, 2001), (30, 30, 999), (6, 82, 501)]:
        for d in DTYPES:
            out.append(("unalign", d, m, n, k))
    return out


def probed_before():
    """(dtype, m, n, k) the earlier probes timed (gemm_probe*.json): not run again"""
    seen = set()
    for f in ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json"):
        with open(os.path.join(GPU_DIR, "results", "h200", f)) as fh:
            seen |= {(r["dtype"], r["m"], r["n"], r["k"]) for r in json.load(fh)["runs"]}
    return seen


def shape_list():
    with open(HELDOUT) as f:
        rows = json.load(f)["runs"]
    heldout = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] != "fit"}
    fit = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] == "fit"}
    drawn = {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases()}
    forbidden = heldout | (drawn - fit)
    out, refused = [], []
    before = probed_before()
    for (g, d, m, n, k) in groups():
        key = (d, m, n, k)
        if key in before:
            continue
        if key in forbidden:
            refused.append("%s_%dx%dx%d" % key)
            continue
        out.append(("probe_%s_%dx%dx%d" % key, d, m, n, k, g))
    assert not any((c[1], c[2], c[3], c[4]) in forbidden for c in out)
    return out, refused


def kernels_of(fn):
    """the kernels and memsets three calls of fn launch, with what the
    profiler says of each (grid, block, registers, shared memory, blocks per
    SM) and their mean duration"""
    import tempfile
    import torch
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    found = {}
    for ev in trace.get("traceEvents", []):
        if ev.get("cat") not in ("kernel", "gpu_memset"):
            continue
        a = ev.get("args", {})
        key = (ev.get("name", ""), str(a.get("grid")), str(a.get("block")))
        k_ = found.setdefault(key, {"name": ev.get("name", "")[:240], "grid": a.get("grid"),
                                    "block": a.get("block"), "registers": a.get("registers per thread"),
                                    "shared_bytes": a.get("shared memory"),
                                    "blocks_per_sm": a.get("blocks per SM"), "durations_us": []})
        k_["durations_us"].append(float(ev.get("dur", 0.0)))
    out = []
    for k_ in found.values():
        d = k_.pop("durations_us")
        k_["count"] = len(d)
        k_["mean_us"] = sum(d) / len(d)
        out.append(k_)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gemm_probe_tiny.json")
    ap.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU)")
    ap.add_argument("--budget-s", type=float, default=150.0, help="stop starting new shapes after this")
    args = ap.parse_args()
    cs, refused = shape_list()
    if args.list:
        for c in cs:
            print(c)
        print(len(cs), "shapes,", len(refused), "refused:", refused)
        print("estimated GPU time %.1f s" % sum(gemm_heldout.est_s(c[1], *c[2:5]) * 12 for c in cs))
        return
    import torch
    import gemm_bench  # noqa: E402
    import gpu_meta  # noqa: E402
    from torch_cold import cold_times  # noqa: E402  the house cold-call timing

    before = gpu_meta.smi()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1111)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    sleep_cycles = int(100e-6 * 1.98e9)
    runs, skipped = [], []
    t_start = time.time()
    for i, (name, dt, m, n, k, grp) in enumerate(cs):
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
                     "timing": "cold", "shape_class": "probe_tiny_" + grp, "split": "fit",
                     "kernels": kernels_of(fn)})
        del fn, keep
        print("%4d/%d %-34s %10.2f us  (%.0f s)" % (i, len(cs), name, med * 1e6, time.time() - t_start),
              flush=True)
    meta = gpu_meta.base_meta(before)
    meta.update({
        "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "clocks_after": gpu_meta.clocks(gpu_meta.smi()),
        "method": ("cuBLAS through PyTorch %s, torch.mm on randn inputs (gemm_bench.make: fp32 with TF32 "
                   "off, tf32 = fp32 with TF32 on, fp16, bf16); each repeat torch.cuda._sleep(%d cycles), a "
                   "256 MiB fill (evicts the L2), an event pair around ONE call; 2 untimed, 7 timed, "
                   "measured_s the median (tests/gpu/torch_cold.py); then torch.profiler over three "
                   "back-to-back calls for the kernels (name, grid, block, registers, shared memory, blocks "
                   "per SM, mean duration). Shapes: new tiny and short-K probe shapes (probe_*); no "
                   "held-out shape (tests/gpu/probe/gemm_probe_tiny.py); fit data."
                   % (torch.__version__, sleep_cycles)),
        "refused_heldout": refused,
    })
    with open(args.out, "w") as f:
        json.dump({"gpu": "h200-sxm", "meta": meta, "runs": runs, "skipped": skipped}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))


if __name__ == "__main__":
    main()
