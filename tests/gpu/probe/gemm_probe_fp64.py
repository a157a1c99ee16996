#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_fp64.py - fit data for issue 11's FP64 GEMMs on
the H200: which kernels cuBLAS runs (name, grid, block, registers, shared
memory, mean duration under torch.profiler) and the single-call GPU time,
measured as gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep
kernel, a 256 MiB fill that evicts the L2, an event pair around ONE call;
median of 7 after 2 untimed).

Shape groups, in the order they run (a time budget cuts the tail):
  refit   a few fit rows of tests/gpu/results/h200/heldout/gemm.json
          re-timed (reproducibility);
  small   small outputs (m, n in 1..128) against K in 128..16384: when
          cuBLAS splits K, how many ways, and how the pieces are reduced;
  shortk  short K (1..64) with large outputs: the per-wave and epilogue cost
          of the DMMA tiles when there is almost no math;
  large   a few large and skinny (LLM-like) shapes: the DMMA rate of a
          single call;
  ksweep  one output against K: a DMMA tile's cost per K step.
Shapes the earlier probes (gemm_probe*.json) timed are not run again.
No shape of the held-out half, nor any shape gemm_heldout.py's cases() draws
and does not assign to the fit half, is ever run: such a shape is dropped
before the GPU is touched (checked against both).

    python3 tests/gpu/probe/gemm_probe_fp64.py --out gemm_probe_fp64.json [--list]
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


def groups():
    """[(group, m, n, k)] in running order"""
    out = []
    # small outputs against long K
    for (m, n) in [(32, 16), (16, 32), (32, 32), (64, 16), (16, 64), (48, 16), (64, 64), (128, 32),
                   (32, 128), (128, 128), (8, 8), (1, 64), (64, 1), (16, 16)]:
        for k in [128, 512, 1024, 2048, 4096, 16384]:
            out.append(("small", m, n, k))
    # short K, large outputs
    for (m, n) in [(1024, 1024), (4096, 4096), (8192, 8192), (256, 8192), (8192, 256)]:
        for k in [1, 8, 16, 32, 64]:
            out.append(("shortk", m, n, k))
    # large and skinny
    out += [("large", 4096, 4096, 4096), ("large", 8192, 8192, 8192), ("large", 2048, 8192, 4096),
            ("large", 4, 16384, 4096), ("large", 16, 16384, 4096), ("large", 64, 16384, 4096),
            ("large", 128, 16384, 4096), ("large", 4, 4096, 16384), ("large", 16, 4096, 16384),
            ("large", 256, 8192, 8192), ("large", 1, 8192, 8192), ("large", 8192, 16, 8192)]
    # a DMMA tile's cost per K step: one wave of 128 blocks (64x128 tiles) and
    # about four waves
    for k in [32, 128, 256, 512, 2048, 4096]:
        out.append(("ksweep", 1024, 1024, k))
    for k in [128, 512, 2048]:
        out.append(("ksweep", 2048, 2048, k))
    return out


def probed_before():
    """fp64 shapes the earlier probes timed (gemm_probe*.json): not run again"""
    seen = set()
    for f in ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json"):
        with open(os.path.join(GPU_DIR, "results", "h200", f)) as fh:
            seen |= {(r["m"], r["n"], r["k"]) for r in json.load(fh)["runs"] if r["dtype"] == "fp64"}
    return seen


REFIT = ["fp64_random_450x1910x14", "fp64_random_2432x19x5360", "fp64_llm_4x28672x4096",
         "fp64_random_aligned_16x2592x848", "fp64_llm_16x8192x28672"]


def shape_list():
    with open(HELDOUT) as f:
        rows = json.load(f)["runs"]
    heldout = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] != "fit"}
    fit = {(r["dtype"], r["m"], r["n"], r["k"]) for r in rows if r["split"] == "fit"}
    drawn = {(c[1], c[2], c[3], c[4]) for c in gemm_heldout.cases()}
    forbidden = heldout | (drawn - fit)
    out, refused = [], []
    by_name = {r["name"]: r for r in rows}
    for name in REFIT:
        r = by_name[name]
        assert r["split"] == "fit"
        out.append((name, "fp64", r["m"], r["n"], r["k"], "refit"))
    before = probed_before()
    for (g, m, n, k) in groups():
        if (m, n, k) in before:
            continue
        key = ("fp64", m, n, k)
        if key in forbidden:
            refused.append("fp64_%dx%dx%d" % (m, n, k))
            continue
        out.append(("probe_fp64_%dx%dx%d" % (m, n, k), "fp64", m, n, k, g))
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
    ap.add_argument("--out", default="gemm_probe_fp64.json")
    ap.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU)")
    ap.add_argument("--budget-s", type=float, default=130.0, help="stop starting new shapes after this")
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
    gen.manual_seed(64)
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
                     "timing": "cold", "shape_class": "probe_fp64_" + grp if grp != "refit" else "refit",
                     "split": "fit", "kernels": kernels_of(fn)})
        del fn, keep
        print("%4d/%d %-34s %10.2f us  (%.0f s)" % (i, len(cs), name, med * 1e6, time.time() - t_start),
              flush=True)
    meta = gpu_meta.base_meta(before)
    meta.update({
        "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "clocks_after": gpu_meta.clocks(gpu_meta.smi()),
        "method": ("cuBLAS through PyTorch %s, torch.mm on fp64 randn inputs (gemm_bench.make); each repeat "
                   "torch.cuda._sleep(%d cycles), a 256 MiB fill (evicts the L2), an event pair around ONE "
                   "call; 2 untimed, 7 timed, measured_s the median (tests/gpu/torch_cold.py); then "
                   "torch.profiler over three back-to-back calls for the kernels (name, grid, block, "
                   "registers, shared memory, blocks per SM, mean duration). Shapes: new probe shapes "
                   "(probe_fp64_*) and five fit rows re-timed (their names); no held-out shape "
                   "(tests/gpu/probe/gemm_probe_fp64.py); fit data." % (torch.__version__, sleep_cycles)),
        "refused_heldout": refused,
    })
    with open(args.out, "w") as f:
        json.dump({"gpu": "h200-sxm", "meta": meta, "runs": runs, "skipped": skipped}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))


if __name__ == "__main__":
    main()
