#!/usr/bin/env python3
"""gemm_probe.py - what every GEMM probe shares (tests/gpu/probe/gemm_probe_*.py,
tests/gpu/heldout/gemm_probe_small.py and gemm_probe_choice.py, and
gemm_heldout.py --probe): the guard that keeps the held-out half off the
GPU, the kernels cuBLAS ran for a call, and the timed run that writes a
probe's rows as fit data.

Timing is gemm_heldout.py's (torch_cold.cold_times: a sleep kernel, a 256 MiB
fill that evicts the L2, an event pair around ONE call; 2 untimed, 7 timed,
measured_s the median); then torch.profiler over three back-to-back calls
for the kernels. A probe module gives its cases as
(name, dtype, m, n, k, shape_class) and calls main()."""

import argparse
import glob
import json
import os
import statistics
import sys
import time

GPU_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(GPU_DIR, "heldout"))
sys.path.insert(0, GPU_DIR)
import gemm_heldout  # noqa: E402

HELDOUT = os.path.join(GPU_DIR, "results", "h200", "heldout", "gemm.json")
CONFIRM = os.path.join(GPU_DIR, "results", "h200", "confirm", "gemm.json")
CONFIRM2 = os.path.join(GPU_DIR, "results", "h200", "confirm", "gemm2.json")
RESULTS = os.path.join(GPU_DIR, "results", "h200")


def gpu_id(device_name):
    """the hwdb id of the card a probe ran on (the probes ran on H200s and
    H100 SXMs)"""
    return "h100-sxm" if "H100" in device_name else "h200-sxm"


def heldout_rows():
    with open(HELDOUT) as f:
        return json.load(f)["runs"]


def guard():
    """(forbidden, fit): (dtype, m, n, k) a probe must never run (a held-out
    row, a row of the confirmation set, or a shape gemm_heldout.py's cases()
    draws that is not a fit row), and the fit rows' shapes"""
    rows = heldout_rows()
    heldout = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] != "fit"}
    fit = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] == "fit"}
    drawn = {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases()}
    # a confirmation set predicted and not yet measured (predict_blind.py's
    # gemm6): its shapes are as forbidden as a measured one's
    drawn |= {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases(2031)}
    confirm = set()
    for path in ([CONFIRM, CONFIRM2] + sorted(glob.glob(os.path.join(RESULTS, "confirm", "gemm[3-9]*.json"))) +
                 sorted(glob.glob(os.path.join(GPU_DIR, "results", "h100", "confirm", "gemm*.json")))):
        with open(path) as f:
            confirm |= {(r["dtype"], r["m"], r["n"], r["k"]) for r in json.load(f)["runs"]}
    return heldout | confirm | (drawn - fit), fit


def check(cases, forbidden):
    """refuses to go on if a case is a forbidden shape"""
    bad = [c[0] for c in cases if (c[1], c[2], c[3], c[4]) in forbidden]
    if bad:
        raise SystemExit("held-out shapes in the probe list: " + ", ".join(bad))


def probed_before(files=("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json")):
    """(dtype, m, n, k) earlier probes timed: not run again"""
    seen = set()
    for f in files:
        with open(os.path.join(RESULTS, f)) as fh:
            seen |= {(r["dtype"], r["m"], r["n"], r["k"]) for r in json.load(fh)["runs"]}
    return seen


def select(groups, class_prefix, earlier=()):
    """(cases, refused) of a probe from its groups, (group, dtype, m, n, k)
    in running order: a shape one of the earlier probe files ran is dropped,
    a forbidden one (guard()) refused and named in refused, the rest become
    cases ("probe_<dtype>_<m>x<n>x<k>", dtype, m, n, k, class_prefix +
    group), checked again by check()."""
    forbidden, _ = guard()
    before = probed_before(earlier) if earlier else set()
    out, refused = [], []
    for (g, d, m, n, k) in groups:
        key = (d, m, n, k)
        if key in before:
            continue
        if key in forbidden:
            refused.append("%s_%dx%dx%d" % key)
            continue
        out.append(("probe_%s_%dx%dx%d" % key, d, m, n, k, class_prefix + g))
    check(out, forbidden)
    return out, refused


def profile_one(dtype, m, n, k, seed):
    """three calls of one shape (the guard applies), for a profiler such as
    ncu run around the script"""
    forbidden, _ = guard()
    check([("one", dtype, m, n, k)], forbidden)
    import torch
    import gemm_bench
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    fn, keep = gemm_bench.make(dtype, m, n, k, gen)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    del keep


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


def main(cases, default_out, shapes, budget_s=150.0, seed=1234, extra_meta=None, split="fit"):
    """--list prints the cases; else times each (cold, 7 repeats) with its
    kernels and writes {"gpu", "meta", "runs", "skipped"} to --out. shapes
    says in the method which shapes these are and which script ran; split
    names the rows' half ("fit", or "check" for a set that judges rules
    committed before it ran and is never fitted)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU)")
    ap.add_argument("--budget-s", type=float, default=budget_s, help="stop starting new shapes after this")
    args = ap.parse_args()
    if args.list:
        for c in cases:
            print(c)
        print(len(cases), "shapes; estimated GPU time %.1f s"
              % sum(gemm_heldout.est_s(c[1], *c[2:5]) * 12 for c in cases))
        return
    import torch
    import gemm_bench  # products as gemm_heldout.py's
    import gpu_meta
    from torch_cold import cold_times  # the house cold-call timing

    before = gpu_meta.smi()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    sleep_cycles = int(100e-6 * 1.98e9)
    runs, skipped = [], []
    t_start = time.time()
    for i, (name, dt, m, n, k, cls) in enumerate(cases):
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
                     "timing": "cold", "shape_class": cls, "split": split, "kernels": kernels_of(fn)})
        del fn, keep
        print("%4d/%d %-40s %10.2f us  (%.0f s)" % (i, len(cases), name, med * 1e6, time.time() - t_start),
              flush=True)
    meta = gpu_meta.base_meta(before)
    meta.update({
        "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "clocks_after": gpu_meta.clocks(gpu_meta.smi()),
        "method": ("cuBLAS through PyTorch %s, products as gemm_bench.make() (gemm_heldout.py's); each repeat "
                   "torch.cuda._sleep(%d cycles), a 256 MiB fill (evicts the L2), an event pair around ONE "
                   "call; 2 untimed, 7 timed, measured_s the median (tests/gpu/torch_cold.py); then "
                   "torch.profiler over three back-to-back calls for the kernels (name, grid, block, "
                   "registers, shared memory, blocks per SM, mean duration; tests/gpu/gemm_probe.py). "
                   "Shapes: %s; no held-out shape; %s." % (torch.__version__, sleep_cycles, shapes,
                                                            "fit data" if split == "fit" else
                                                            "a check of rules committed before it ran, "
                                                            "never fitted")),
    })
    meta.update(extra_meta or {})
    with open(args.out, "w") as f:
        json.dump({"gpu": gpu_id(torch.cuda.get_device_name(0)), "meta": meta, "runs": runs, "skipped": skipped},
                  f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))
