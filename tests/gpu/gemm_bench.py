#!/usr/bin/env python3
"""gemm_bench.py - cuBLAS GEMM through PyTorch on one GPU (issue 5): torch.mm
for fp16, bf16, tf32 (fp32 inputs with TF32 tensor-core math allowed), fp32
(TF32 off) and fp64; torch._scaled_mm for fp8 (e4m3 inputs, bf16 output,
unit scales); torch._int_mm for int8 (int32 output). Random data, CUDA events
around each call, warm-up, median of repeats. Shapes: squares 256..16384,
sizes one past a 128 tile (aligned and not), misaligned dimensions (8191),
skinny M 1..512 with N = K = 8192, small K, two rectangles.

    python3 tests/gpu/gemm_bench.py --out gemm.json [--budget-s 200] [--dtypes fp16,bf16]

Writes {"meta": {...}, "runs": [{"m","n","k","dtype","batch","measured_s",
"tflops",...}], "skipped": [...], "checks": [...]}. A shape a dtype cannot run
(fp8 needs dimensions divisible by 16, int8 M > 16 ...) goes to "skipped"
with PyTorch's message."""

import argparse
import glob
import json
import os
import statistics
import sys
import time
import ctypes

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_meta  # noqa: E402

DTYPES = ["bf16", "fp16", "fp8", "tf32", "fp32", "fp64", "int8"]
TORCH_DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
            "fp32": torch.float32, "fp64": torch.float64}


def shapes():
    s = []
    for n in [256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384]:
        s.append((n, n, n, "square"))
    for n in [1025, 2049, 4097, 8193]:
        s.append((n, n, n, "one_past_tile_misaligned"))
    for n in [4104, 8200]:
        s.append((n, n, n, "one_past_tile_aligned"))
    s += [(4095, 4095, 4095, "misaligned"), (8191, 8191, 8191, "misaligned"),
          (8191, 8192, 8192, "misaligned_m"), (8192, 8191, 8192, "misaligned_n"),
          (8192, 8192, 8191, "misaligned_k")]
    for m in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]:
        s.append((m, 8192, 8192, "skinny_m"))
    for k in [16, 64, 128, 256, 512]:
        s.append((8192, 8192, k, "small_k"))
    s += [(4096, 16384, 4096, "rectangle"), (16384, 4096, 8192, "rectangle")]
    return s


def set_tf32(on):
    """TF32 for float32 matmuls on or off, through whichever switch this torch has"""
    m = torch.backends.cuda.matmul
    if hasattr(m, "fp32_precision"):
        m.fp32_precision = "tf32" if on else "ieee"
    else:
        m.allow_tf32 = on


def make(dtype, m, n, k, gen, fast_accum=False):
    """(callable doing one product, its input tensors)"""
    dev = "cuda"
    if dtype in TORCH_DT:
        dt = TORCH_DT[dtype]
        a = torch.randn(m, k, device=dev, dtype=torch.float32, generator=gen).to(dt)
        b = torch.randn(k, n, device=dev, dtype=torch.float32, generator=gen).to(dt)
        set_tf32(dtype == "tf32")
        return (lambda: torch.mm(a, b)), (a, b)
    if dtype == "fp8":
        a = torch.randn(m, k, device=dev, generator=gen).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev, generator=gen).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=dev, dtype=torch.float32)
        return (lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                         out_dtype=torch.bfloat16,
                                         use_fast_accum=fast_accum)), (a, b)
    if dtype == "int8":
        a = torch.randint(-128, 127, (m, k), device=dev, dtype=torch.int8, generator=gen)
        b = torch.randint(-128, 127, (n, k), device=dev, dtype=torch.int8, generator=gen).t()
        return (lambda: torch._int_mm(a, b)), (a, b)
    raise ValueError(dtype)


def time_call(fn, budget_s):
    """GPU time of one product: (median, min, max, repeats, calls per graph,
    single-call time, timing method). One call is first timed alone between
    two events (that time includes PyTorch's host-side dispatch, tens of
    microseconds, which dominates small shapes); then R calls are captured
    in a CUDA graph and the graph replayed 3..20 times between events: time
    per call = replay / R, the median replay is the answer. Falls back to
    the single-call events when capture fails."""
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)

    def once():
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        return e0.elapsed_time(e1) * 1e-3

    once()
    once()
    single = statistics.median([once() for _ in range(3)])
    calls = int(max(1, min(100, 2e-3 / max(single, 1e-7))))
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
            fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        reps = int(max(3, min(20, budget_s / max(calls * single, 1e-6))))
        t = []
        for _ in range(reps):
            e0.record()
            graph.replay()
            e1.record()
            e1.synchronize()
            t.append(e0.elapsed_time(e1) * 1e-3 / calls)
        del graph
        return statistics.median(t), min(t), max(t), reps, calls, single, "cuda_graph"
    except Exception:  # noqa: BLE001 - capture refused: plain events
        torch.cuda.synchronize()
        reps = int(max(3, min(30, budget_s / max(single, 1e-6))))
        t = [once() for _ in range(reps)]
        return statistics.median(t), min(t), max(t), reps, 1, single, "events"


def check(dtype, gen):
    """relative error of a 512x384x256 product against float64 on the GPU"""
    m, n, k = 512, 384, 256
    fn, (a, b) = make(dtype, m, n, k, gen)
    out = fn().double()
    ref = a.double() @ b.double()
    err = (torch.linalg.norm(out - ref) / torch.linalg.norm(ref)).item()
    return {"dtype": dtype, "m": m, "n": n, "k": k, "rel_error_vs_fp64": err}


def cublas_version():
    """version of the libcublas this process has loaded, via cublasGetProperty"""
    path = None
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "libcublas.so" in line:
                    path = line.split()[-1]
                    break
    except OSError:
        pass
    if not path:
        for d in sys.path:
            hits = glob.glob(os.path.join(d, "nvidia", "**", "libcublas.so*"), recursive=True)
            if hits:
                path = hits[0]
                break
    if not path:
        return None
    try:
        lib = ctypes.CDLL(path)
        v = []
        for prop in (0, 1, 2):
            x = ctypes.c_int(0)
            if lib.cublasGetProperty(prop, ctypes.byref(x)) != 0:
                return {"path": path}
            v.append(x.value)
        return {"version": "%d.%d.%d" % tuple(v), "path": path}
    except OSError:
        return {"path": path}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gemm.json")
    ap.add_argument("--budget-s", type=float, default=200.0,
                    help="stop starting new shapes after this many seconds")
    ap.add_argument("--per-shape-s", type=float, default=0.25)
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    args = ap.parse_args()

    smi_before = gpu_meta.smi()
    t_start = time.time()
    torch.manual_seed(0)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    dtypes = [d for d in args.dtypes.split(",") if d]
    runs, skipped, checks = [], [], []
    for d in dtypes:
        try:
            checks.append(check(d, gen))
        except Exception as e:  # noqa: BLE001 - record and go on
            checks.append({"dtype": d, "error": str(e)[:300]})
    print("checks:", json.dumps(checks), flush=True)
    for d in dtypes:
        for (m, n, k, cls) in shapes():
            if time.time() - t_start > args.budget_s:
                skipped.append({"m": m, "n": n, "k": k, "dtype": d, "reason": "time budget"})
                continue
            try:
                fn, bufs = make(d, m, n, k, gen)
                med, mn, mx, reps, calls, single, how = time_call(fn, args.per_shape_s)
            except Exception as e:  # noqa: BLE001
                msg = str(e).strip().splitlines()[0][:300] if str(e).strip() else repr(e)
                skipped.append({"m": m, "n": n, "k": k, "dtype": d, "reason": msg})
                print("  %-5s %6d %6d %6d  skipped: %s" % (d, m, n, k, msg), flush=True)
                torch.cuda.synchronize()
                continue
            del bufs, fn
            flops = 2.0 * m * n * k
            runs.append({"m": m, "n": n, "k": k, "dtype": d, "batch": 1,
                         "measured_s": med, "tflops": flops / med / 1e12,
                         "min_s": mn, "max_s": mx, "repeats": reps, "calls_per_graph": calls,
                         "single_call_event_s": single, "timing": how, "shape_class": cls})
            print("  %-5s %6d %6d %6d  %10.1f us  %8.1f TFLOP/s" %
                  (d, m, n, k, med * 1e6, flops / med / 1e12), flush=True)
        torch.cuda.empty_cache()
    # fp8 with fast accumulation (what float8 training recipes use in the forward
    # pass): a few squares, kept apart from "runs" since it is not an API dtype
    extra = []
    if "fp8" in dtypes:
        for n in (4096, 8192, 16384):
            try:
                fn, bufs = make("fp8", n, n, n, gen, fast_accum=True)
                med, mn, mx, reps, calls, single, how = time_call(fn, args.per_shape_s)
                del fn, bufs
                extra.append({"m": n, "n": n, "k": n, "dtype": "fp8", "use_fast_accum": True,
                              "batch": 1, "measured_s": med, "tflops": 2.0 * n ** 3 / med / 1e12,
                              "min_s": mn, "max_s": mx, "repeats": reps, "timing": how})
                print("  fp8 fast-accum %d^3: %.1f TFLOP/s" % (n, 2.0 * n ** 3 / med / 1e12), flush=True)
            except Exception as e:  # noqa: BLE001
                extra.append({"m": n, "n": n, "k": n, "dtype": "fp8", "use_fast_accum": True,
                              "error": str(e)[:300]})
    smi_after = gpu_meta.smi()
    meta = gpu_meta.base_meta(smi_before)
    meta.update({
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cublas": cublas_version(),
        "device_name_torch": torch.cuda.get_device_name(0),
        "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
        "clocks": {"before": gpu_meta.clocks(smi_before), "after": gpu_meta.clocks(smi_after)},
        "elapsed_s": time.time() - t_start,
        "method": (
            "cuBLAS through PyTorch on one H200: torch.mm (row-major A[m,k] @ B[k,n]) for fp16, "
            "bf16 (fp32 accumulate, output in the input type), tf32 (float32 tensors with TF32 "
            "matmul allowed), fp32 (TF32 off) and fp64; torch._scaled_mm for fp8 (A e4m3 row-major, "
            "B e4m3 column-major, unit fp32 scales, bf16 output, use_fast_accum False; "
            "extra_runs has a few squares with it True); torch._int_mm for int8 (int32 "
            "output). Inputs torch.randn (int8: uniform -128..126), drawn once per shape. Each shape: "
            "two warm-up calls, three calls timed alone between CUDA events (single_call_event_s, "
            "which includes PyTorch's host dispatch), then R back-to-back calls (R = 2 ms / single "
            "call, 1..100) captured in a CUDA graph and replayed 3..20 times (about %.2f s) between "
            "events; measured_s is the median replay / R: the GPU time of one product as a "
            "stream of them sees it. The same inputs are reused across calls, as a framework's "
            "GEMM would find them (small shapes partly hit L2). "
            "tflops = 2*m*n*k / measured_s / 1e12 (int8: tera-ops). Clocks left as found."
            % args.per_shape_s),
    })
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "runs": runs, "skipped": skipped, "checks": checks,
                   "extra_runs": extra}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out,
                                                         time.time() - t_start))


if __name__ == "__main__":
    main()
