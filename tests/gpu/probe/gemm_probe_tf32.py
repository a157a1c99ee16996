#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_tf32.py - fit data for issue 11's tf32 and
16-bit GEMMs at short K and narrow outputs on the H200: which kernels cuBLAS
runs (name, grid, block, registers, shared memory, blocks per SM, mean
duration under torch.profiler) and the single-call GPU time, measured as
gemm_heldout.py measures its rows (gemm_probe.main: a sleep kernel, a 256 MiB
fill that evicts the L2, an event pair around ONE call; median of 7 after 2
untimed).

Shape groups, in the order they run (a time budget cuts the tail):
  wgmma    tf32 at K of 4, 8 and 12 for outputs of 2^19 to 2^21.2 around
           1024^2 (where gemm_probe_shortk.json saw Hopper's wgmma kernel at
           K = 4 and 8, and mma.sync at 512^2 and 2048^2): which outputs
           get the wgmma kernel at K under one stage;
  reduce   aligned tf32 at K = 16 for outputs of 8 to 32 tiles of 64x64 one
           or two tile columns or rows wide: where cuBLAS's split-K form
           (the reduction kernel behind) runs;
  rows     tf32 with 16 to 64 rows at K of 160 to 320 and n of 2048 and
           8192: mma.sync or wgmma, split or not, as K passes 128;
  narrow   bf16 with K not a multiple of 8 and 12 to 24 rows, n of 3464 to
           13856: the align2 fallback's tile, split and time as the output
           and K grow.
Shapes the earlier probes timed are not run again. No shape of the held-out
half, of the confirmation set, nor any shape gemm_heldout.py's cases() draws
and does not assign to the fit half, is ever run: such a shape is dropped
before the GPU is touched (gemm_probe.guard, gemm_probe.check).

    python3 tests/gpu/probe/gemm_probe_tf32.py --out gemm_probe_tf32.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    for (m, n) in [(1024, 1024), (768, 768), (1024, 512), (512, 1024), (896, 1024), (1280, 1280),
                   (1024, 2048), (2048, 1024), (1536, 1536)]:
        for k in [4, 8, 12]:
            out.append(("wgmma", "tf32", m, n, k))
    for (m, n) in [(48, 1024), (1024, 48), (96, 1024), (1024, 96), (1024, 128), (512, 64), (64, 512),
                   (128, 1024), (1024, 16), (16, 1024)]:
        out.append(("reduce", "tf32", m, n, 16))
    for m in [16, 32, 64]:
        for n in [2048, 8192]:
            for k in [160, 192, 320]:
                out.append(("rows", "tf32", m, n, k))
    for (m, n, k) in [(12, 3464, 1372), (12, 13856, 1372), (24, 6928, 1372), (12, 6928, 686),
                      (12, 6928, 2746), (16, 6928, 1372), (12, 6928, 1376)]:
        out.append(("narrow", "bf16", m, n, k))
    return out


def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_tf32_", ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json",
                              "gemm_probe_tiny.json", "gemm_probe_wide.json", "gemm_probe_shortk.json",
                              "gemm_probe_skinny.json"))


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_tf32.json", seed=3333, budget_s=150.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="tf32 short-K, split-form and few-row probe shapes and unaligned narrow bf16 "
                    "(probe_*) (tests/gpu/probe/gemm_probe_tf32.py)")


if __name__ == "__main__":
    main()
