#!/usr/bin/env python3
"""gemm_heldout.py - the held-out H200 GEMM set (issue 11 item 5): cuBLAS
through PyTorch (torch.mm for fp64, fp32 (TF32 off), tf32, fp16, bf16;
torch._scaled_mm for fp8 e4m3 with bf16 out; torch._int_mm for int8), on
shapes drawn here with a fixed seed:

  - random: m, n, k each log-uniform over 1..16384 (an estimated time cap
    keeps fp64/fp32 within budget), some rounded to multiples of 16 and
    some left as drawn (unaligned K or N);
  - unaligned: K or N deliberately not a multiple of 8/16 at several sizes;
  - llm: Llama-3 8B/70B projections (K x N = 4096x6144, 4096x4096,
    4096x28672, 14336x4096, 8192x10240, 8192x57344, 28672x8192) with
    M = tokens in 1..8192.

Timing: GPU time of ONE call without CPU gaps. Each repeat enqueues
torch.cuda._sleep (long enough to cover the host's queueing of what
follows), a 256 MiB write that flushes the 60 MB L2, then an event pair
around a single call; 2 untimed, then 7 timed (5 or 3 for calls over
10 / 50 ms); the row's measured_s is the median. Rows shaped as
tests/gpu/results/h200/gemm.json's runs (m, n, k, dtype, batch,
measured_s, tflops, min_s, max_s, repeats, timing, shape_class) plus
"name". A shape PyTorch refuses goes to "skipped" with its message.

    python3 tests/gpu/heldout/gemm_heldout.py --out gemm-raw.json [--list] [--limit N] [--sleep-us 100]

--probe times, the same way, a fixed list of shapes chosen to settle the
physics of the classes the held-out set exposed (tiny outputs with long K,
skinny M, tiny K, tiny everything; none of them a held-out row's shape),
and records for each the kernels cuBLAS runs (torch.profiler over three
calls: name, grid, block, mean duration), as fit data
(tests/gpu/results/h200/gemm_probe.json).
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time

DTYPES = ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"]
# rough sustained rates (flop/s) for the time estimate that caps shapes and repeats
RATE = {"fp64": 5.5e13, "fp32": 5e13, "tf32": 3.5e14, "fp16": 6.5e14, "bf16": 6.5e14,
        "fp8": 1.2e15, "int8": 9e14}
ELEM = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}
LLM = [(4096, 6144), (4096, 4096), (4096, 28672), (14336, 4096),
       (8192, 10240), (8192, 57344), (28672, 8192)]  # (K, N)
TOKENS = [1, 4, 16, 32, 128, 512, 1024, 2048, 4096, 8192]
MAX_EST_S = 0.06     # a shape whose estimated time is over this is drawn again


def est_s(dtype, m, n, k):
    flops = 2.0 * m * n * k
    byts = (m * k + k * n) * ELEM[dtype] + m * n * 4
    return max(flops / RATE[dtype], byts / 4.0e12) + 5e-6


def log_uniform(rng, lo=1, hi=16384):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def cases(seed=11):
    """[(name, dtype, m, n, k, shape_class)]: deterministic (seed 11 is the
    held-out set; another seed draws a confirmation set the same way, less
    every shape the seed-11 set has)"""
    rng = random.Random(seed)
    out = []
    for dt in DTYPES:
        # random shapes: 30 per dtype, half rounded to 16, half as drawn
        got = 0
        while got < 30:
            m, n, k = log_uniform(rng), log_uniform(rng), log_uniform(rng)
            if got % 2 == 0:
                m, n, k = (max(16, (v + 15) // 16 * 16) for v in (m, n, k))
            if est_s(dt, m, n, k) > MAX_EST_S:
                continue
            cls = "random_aligned" if got % 2 == 0 else "random"
            out.append(("%s_%s_%dx%dx%d" % (dt, cls, m, n, k), dt, m, n, k, cls))
            got += 1
        # unaligned: K or N not a multiple of 8 or 16
        for (m, n, k) in [(3000, 5000, 700), (2048, 2048, 2047), (4096, 4100, 4096), (1024, 1000, 1024),
                          (8192, 8192, 4100), (512, 3001, 2048), (1536, 1536, 1540), (4096, 4096, 1001)]:
            if est_s(dt, m, n, k) > MAX_EST_S:
                continue
            out.append(("%s_unaligned_%dx%dx%d" % (dt, m, n, k), dt, m, n, k, "unaligned"))
        # LLM projections: every (K, N) at 3 token counts drawn per dtype
        for (k, n) in LLM:
            for m in rng.sample(TOKENS, 3):
                if est_s(dt, m, n, k) > MAX_EST_S:
                    m = 512
                out.append(("%s_llm_%dx%dx%d" % (dt, m, n, k), dt, m, n, k, "llm"))
    # unique names; a confirmation set leaves out the held-out set's shapes,
    # and a later one (seed 2027 on) those of seed 2026's set and every
    # shape a fit probe timed too
    seen, uniq = set() if seed == 11 else {c[0] for c in cases(11)}, []
    probed = set()
    if seed not in (11, 2026):
        seen |= {c[0] for c in cases(2026)}
        probed = probed_shapes(seed)
    if seed > 2027:
        probed |= confirmed_shapes()
    for c in out:
        if c[0] not in seen and (c[1], c[2], c[3], c[4]) not in probed:
            seen.add(c[0])
            uniq.append(c)
    return uniq


def confirmed_shapes():
    """(dtype, m, n, k) of every row of the confirmation sets measured so far
    (results/h200/confirm/gemm*.json): a later set leaves them out"""
    import glob
    here = os.path.dirname(os.path.abspath(__file__))
    shapes = set()
    for f in glob.glob(os.path.join(here, "..", "results", "h200", "confirm", "gemm*.json")):
        with open(f) as fh:
            shapes |= {(r["dtype"], r["m"], r["n"], r["k"]) for r in json.load(fh)["runs"]}
    return shapes


def probed_shapes(seed):
    """(dtype, m, n, k) of every row of the fit probes' result files (both
    cards' from seed 2031 on: the H100's probes and the checks of rules
    came later than the sets before it)"""
    import glob
    here = os.path.dirname(os.path.abspath(__file__))
    shapes = set()
    pattern = ["h200/gemm_probe*.json"] + (["h100/gemm_probe*.json", "h*/gemm_check_rules.json"]
                                           if seed >= 2031 else [])
    files = [f for p in pattern for f in glob.glob(os.path.join(here, "..", "results", p))]
    for f in files:
        with open(f) as fh:
            shapes |= {(r["dtype"], r["m"], r["n"], r["k"]) for r in json.load(fh)["runs"]}
    return shapes


def probe_cases():
    """[(name, dtype, m, n, k, shape_class)]: the --probe shapes"""
    c = []
    for k in [512, 1024, 2048, 4096, 8192, 16384]:
        c.append(("fp64", 16, 16, k, "long_k"))
    for k in [1024, 1600, 1792, 2048, 4096]:
        c.append(("fp64", 32, 16, k, "long_k"))
    c += [("fp64", 32, 32, 2048, "long_k"), ("fp64", 64, 64, 4096, "long_k"), ("fp64", 96, 192, 8192, "long_k"),
          ("fp32", 16, 1024, 8192, "long_k"), ("fp32", 16, 1024, 2048, "long_k"), ("fp32", 32, 512, 8192, "long_k"),
          ("tf32", 64, 256, 8192, "long_k"), ("bf16", 16, 16, 8192, "long_k"), ("bf16", 32, 64, 16384, "long_k")]
    for m in [4, 8, 16, 32, 64]:
        c.append(("fp32", m, 16384, 4096, "skinny"))
    c.append(("fp32", 4, 32768, 4096, "skinny"))
    for m in [16, 64, 128, 256]:
        c.append(("bf16", m, 16384, 4096, "skinny"))
    c += [("bf16", 128, 24576, 8192, "skinny"), ("fp16", 128, 16384, 4096, "skinny"),
          ("fp8", 128, 16384, 4096, "skinny")]
    for m in [32, 64, 128]:
        c.append(("int8", m, 16384, 8192, "skinny"))
    c.append(("int8", 48, 8192, 6144, "skinny"))
    c += [("tf32", 1024, 1024, 16, "tiny_k"), ("tf32", 1024, 8192, 16, "tiny_k"), ("tf32", 2048, 8192, 96, "tiny_k"),
          ("tf32", 1000, 300, 24, "tiny_k"), ("tf32", 4096, 4096, 32, "tiny_k"), ("fp32", 1024, 8192, 16, "tiny_k"),
          ("bf16", 1024, 8192, 16, "tiny_k")]
    c += [("bf16", 8, 32, 4, "tiny"), ("bf16", 16, 64, 2, "tiny"), ("fp32", 1, 16, 64, "tiny"),
          ("fp32", 2, 32, 128, "tiny"), ("fp16", 8, 8, 8, "tiny"), ("tf32", 8, 8, 8, "tiny")]
    return [("probe_%s_%dx%dx%d" % (d, m, n, k), d, m, n, k, cls) for (d, m, n, k, cls) in c]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gemm-raw.json")
    ap.add_argument("--list", action="store_true", help="print the cases and exit (no GPU)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--sleep-us", type=float, default=100.0, help="sleep kernel before each timed call")
    ap.add_argument("--probe", action="store_true", help="the probe shapes, with the kernels cuBLAS runs")
    ap.add_argument("--seed", type=int, default=11,
                    help="11: the held-out set; 2026: the confirmation set, drawn the same way less its "
                         "shapes; another: a later confirmation set, less those two sets' shapes and every "
                         "fit probe's (after 2027, less every confirmation set's too)")
    args = ap.parse_args()
    cs = probe_cases() if args.probe else cases(args.seed)
    if args.list:
        by = {}
        for c in cs:
            by.setdefault((c[1], c[5]), 0)
            by[(c[1], c[5])] += 1
        for key in sorted(by):
            print(key, by[key])
        print(len(cs), "cases; estimated GPU time %.1f s" % sum(est_s(c[1], *c[2:5]) * 9 for c in cs))
        return
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import gemm_bench  # noqa: E402  make(): the same products as gemm.json's
    import gpu_meta  # noqa: E402
    from torch_cold import cold_times  # noqa: E402  the house cold-call timing
    import gemm_probe  # noqa: E402  kernels_of: the kernels cuBLAS ran (--probe)

    before = gpu_meta.smi()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    # cycles of the sleep kernel at the clock read under load (1.98 GHz)
    sleep_cycles = int(args.sleep_us * 1e-6 * 1.98e9)
    runs, skipped = [], []
    t_start = time.time()
    for i, (name, dt, m, n, k, cls) in enumerate(cs):
        if args.limit and i >= args.limit:
            break
        try:
            fn, keep = gemm_bench.make(dt, m, n, k, gen)
            fn()
            torch.cuda.synchronize()
        except Exception as ex:  # noqa: BLE001 - PyTorch refuses the shape: recorded
            skipped.append({"name": name, "m": m, "n": n, "k": k, "dtype": dt, "reason": str(ex)[:300]})
            torch.cuda.synchronize()
            continue
        e = est_s(dt, m, n, k)
        reps = 7 if e < 0.01 else (5 if e < 0.05 else 3)
        t = cold_times(fn, reps, flush, sleep_cycles)
        med = statistics.median(t)
        runs.append({"name": name, "m": m, "n": n, "k": k, "dtype": dt, "batch": 1, "measured_s": med,
                     "tflops": 2.0 * m * n * k / med / 1e12, "min_s": min(t), "max_s": max(t),
                     "repeats": reps, "timing": "cold", "shape_class": cls})
        if args.probe:
            runs[-1]["split"] = "fit"
            runs[-1]["kernels"] = gemm_probe.kernels_of(fn)
        del fn, keep
        if i % 25 == 0:
            print("%4d/%d %-40s %10.2f us  (%.0f s)" % (i, len(cs), name, med * 1e6, time.time() - t_start),
                  flush=True)
    after = gpu_meta.smi()
    meta = gpu_meta.base_meta(before)
    meta.update({
        "torch": torch.__version__, "torch_cuda": torch.version.cuda,
        "cublas": str(torch.backends.cuda.preferred_blas_library()) if hasattr(torch.backends.cuda, "preferred_blas_library") else "",
        "device": torch.cuda.get_device_name(0),
        "clocks_after": gpu_meta.clocks(after),
        "method": ("cuBLAS through PyTorch %s: torch.mm (fp64; fp32 with TF32 off; tf32 = fp32 inputs with TF32 "
                   "on; fp16; bf16), torch._scaled_mm (fp8 e4m3 inputs, unit scales, bf16 out), torch._int_mm "
                   "(int8 in, int32 out); random inputs. Each repeat: torch.cuda._sleep(%d cycles) "
                   "so the host has queued what follows, a 256 MiB fill (evicts the 60 MB L2), then an event "
                   "pair around ONE call: GPU time without CPU gaps, cold L2. 2 untimed, then 7 timed (5 over "
                   "10 ms, 3 over 50 ms estimated); measured_s is the median. Shapes drawn with seed %d "
                   "(gemm_heldout.py)%s." % (torch.__version__, sleep_cycles, args.seed,
                                             "" if args.seed == 11 else ", less every shape of the seed-11 "
                                             "held-out set: a confirmation set")) +
                  (" --probe: the fixed probe shapes instead (probe_cases()), each with the kernels cuBLAS runs "
                   "for it (torch.profiler over three back-to-back calls after the timing); fit data."
                   if args.probe else ""),
    })
    with open(args.out, "w") as f:
        json.dump({"gpu": "h200-sxm", "meta": meta, "runs": runs, "skipped": skipped}, f, indent=1)
    print("wrote %d runs (%d skipped) to %s in %.0f s" % (len(runs), len(skipped), args.out, time.time() - t_start))


if __name__ == "__main__":
    main()
