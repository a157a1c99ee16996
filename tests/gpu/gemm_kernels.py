#!/usr/bin/env python3
"""gemm_kernels.py - which kernels cuBLAS runs for a GEMM shape (issue 5
evidence for the GEMM model): the same products as gemm_bench.py (its
make() and set_tf32()), each called a few times under torch.profiler; for
every GPU kernel and memset launched per product: name, grid, block,
registers per thread, shared memory, and mean duration from the profiler
trace. --quick takes a few small shapes and also times each by CUDA-graph
replay (gemm_bench's time_call), to set the kernels beside what the bench
measures.

    python3 tests/gpu/gemm_kernels.py --out gemm_kernels.json [--quick]

Writes {"meta": {...}, "cases": [{"dtype","m","n","k","kernels_per_call",
"kernels": [{"name","category","grid","block","registers","shared_bytes",
"mean_us","count"}], "graph"}]}. Results: tests/gpu/results/h200/
gemm_kernels.json (all shapes; recorded before memsets were kept) and
gemm_kernels_quick.json."""

import argparse
import json
import os
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemm_bench  # noqa: E402
import gpu_meta  # noqa: E402

CALLS = 10
TIME_GRAPH = False


def quick_cases():
    c = []
    for d in ["tf32", "bf16", "fp64", "fp32"]:
        for n in [256, 512, 1024]:
            c.append((d, n, n, n))
    c += [("tf32", 2048, 2048, 2048), ("tf32", 1025, 1025, 1025), ("tf32", 8192, 8192, 64), ("tf32", 128, 8192, 8192)]
    return c


def cases():
    c = []
    for d in ["tf32", "bf16", "fp16", "fp32", "fp64", "fp8"]:
        for n in [256, 512, 1024, 2048]:
            c.append((d, n, n, n))
    for d in ["tf32", "bf16", "fp32"]:
        c.append((d, 1025, 1025, 1025))
        c.append((d, 2049, 2049, 2049))
    c.append(("tf32", 4095, 4095, 4095))
    for m in [1, 2, 4, 8, 16, 32, 64, 128, 256]:
        c.append(("fp32", m, 8192, 8192))
    for m in [2, 8, 64, 128]:
        c.append(("tf32", m, 8192, 8192))
        c.append(("fp64", m, 8192, 8192))
    for k in [16, 64, 128, 256]:
        for d in ["fp32", "tf32", "fp8", "bf16", "fp64"]:
            c.append((d, 8192, 8192, k))
    for n in [1024, 4096]:
        c.append(("int8", n, n, n))
    return c


def profile_case(d, m, n, k, gen):
    fn, bufs = gemm_bench.make(d, m, n, k, gen)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    kernels = {}
    for ev in trace.get("traceEvents", []):
        if ev.get("cat") not in ("kernel", "gpu_memset", "gpu_memcpy"):
            continue
        a = ev.get("args", {})
        key = (ev.get("name", ""), str(a.get("grid")), str(a.get("block")))
        k_ = kernels.setdefault(key, {"name": ev.get("name", ""), "category": ev.get("cat"), "grid": a.get("grid"), "block": a.get("block"),
                                      "registers": a.get("registers per thread"),
                                      "shared_bytes": a.get("shared memory"),
                                      "blocks_per_sm": a.get("blocks per SM"),
                                      "warps_per_sm": a.get("warps per SM"),
                                      "occupancy_pct": a.get("est. achieved occupancy %"),
                                      "durations_us": []})
        k_["durations_us"].append(float(ev.get("dur", 0.0)))
    out = []
    total = 0
    for k_ in kernels.values():
        durs = k_.pop("durations_us")
        k_["count"] = len(durs)
        k_["mean_us"] = sum(durs) / len(durs)
        total += len(durs)
        out.append(k_)
    graph = None
    if TIME_GRAPH:
        med, mn, mx, reps, calls, single, how = gemm_bench.time_call(fn, 0.1)
        graph = {"measured_s": med, "min_s": mn, "max_s": mx, "calls_per_graph": calls, "timing": how}
    del fn, bufs
    return {"dtype": d, "m": m, "n": n, "k": k, "kernels_per_call": total / CALLS, "kernels": out,
            "graph": graph}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gemm_kernels.json")
    ap.add_argument("--quick", action="store_true",
                    help="a few small shapes, each also timed by CUDA-graph replay (gemm_bench's time_call)")
    args = ap.parse_args()
    global TIME_GRAPH
    TIME_GRAPH = args.quick
    smi = gpu_meta.smi()
    t0 = time.time()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    res = []
    for (d, m, n, k) in (quick_cases() if args.quick else cases()):
        try:
            r = profile_case(d, m, n, k, gen)
        except Exception as e:  # noqa: BLE001 - record and go on
            r = {"dtype": d, "m": m, "n": n, "k": k, "error": str(e)[:300]}
        res.append(r)
        if r.get("graph"):
            print("%-5s %5d %5d %5d  graph replay %.2f us per call, %.1f operations per call" %
                  (d, m, n, k, r["graph"]["measured_s"] * 1e6, r["kernels_per_call"]), flush=True)
        for kk in r.get("kernels", []):
            print("%-5s %5d %5d %5d  %-10s %6.1f us  grid %-16s block %-12s regs %s smem %s  %s" %
                  (d, m, n, k, kk["category"], kk["mean_us"], kk["grid"], kk["block"], kk["registers"], kk["shared_bytes"],
                   kk["name"][:110]), flush=True)
    meta = gpu_meta.base_meta(smi)
    meta.update({"torch": torch.__version__, "cuda": torch.version.cuda, "cublas": gemm_bench.cublas_version(),
                 "elapsed_s": time.time() - t0,
                 "method": "torch.profiler (CUPTI) around %d back-to-back calls after 3 warm-up calls; the "
                           "products are gemm_bench.py's make(); durations are the profiler's kernel spans, "
                           "not CUDA-graph replay" % CALLS})
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "cases": res}, f, indent=1)


if __name__ == "__main__":
    main()
