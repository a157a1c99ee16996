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

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


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



REFIT = ["fp64_random_450x1910x14", "fp64_random_2432x19x5360", "fp64_llm_4x28672x4096",
         "fp64_random_aligned_16x2592x848", "fp64_llm_16x8192x28672"]


def shape_list():
    """the cases and the held-out shapes refused"""
    forbidden, _ = gemm_probe.guard()
    out, refused = [], []
    by_name = {r["name"]: r for r in gemm_probe.heldout_rows()}
    for name in REFIT:
        r = by_name[name]
        assert r["split"] == "fit"
        out.append((name, "fp64", r["m"], r["n"], r["k"], "refit"))
    before = gemm_probe.probed_before()
    for (g, m, n, k) in groups():
        key = ("fp64", m, n, k)
        if key in before:
            continue
        if key in forbidden:
            refused.append("fp64_%dx%dx%d" % (m, n, k))
            continue
        out.append(("probe_fp64_%dx%dx%d" % (m, n, k), "fp64", m, n, k, "probe_fp64_" + g))
    gemm_probe.check(out, forbidden)
    return out, refused


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_fp64.json", budget_s=130.0, seed=64,
                    extra_meta={"refused_heldout": refused},
                    shapes="new probe shapes (probe_fp64_*) and five fit rows re-timed (their names) "
                    "(tests/gpu/probe/gemm_probe_fp64.py)")


if __name__ == "__main__":
    main()
