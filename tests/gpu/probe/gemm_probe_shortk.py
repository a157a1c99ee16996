#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_shortk.py - fit data for issue 11's short-K
GEMMs at small and mid outputs (fp32, tf32, bf16) on the H200: which kernels
cuBLAS runs (name, grid, block, registers, shared memory, blocks per SM,
mean duration under torch.profiler) and the single-call GPU time, measured
as gemm_heldout.py measures its rows (gemm_probe.main: a sleep kernel, a
256 MiB fill that evicts the L2, an event pair around ONE call; median of 7
after 2 untimed).

Shape groups, in the order they run (a time budget cuts the tail):
  square   outputs of 2^12 to 2^20 elements (64^2 to 1024^2) at K of 4 to 64,
           every dtype: the tile, the resident blocks and the per-tile cost
           of each family's short-K kernels as the output grows;
  skinny   outputs of 2^15 with n or m of 16 and 32 at K of 16 and 32;
  unalign  tf32 with n not a multiple of 4 (no 16-byte rows) at K of 12 to
           24 and outputs of 2^14 to 2^18: the fallback kernels;
  k1       fp32 at K = 1, outputs of 2^16 to 2^22 in several aspects;
  aspect   outputs of 2^16 and 2^18 as 64x1024, 1024x64, 128x2048,
           2048x128, 256x4096, 4096x256 at K of 8 to 64: the tile's
           orientation.
Shapes the earlier probes (gemm_probe*.json, gemm_probe_tiny.json) timed are
not run again. No shape of the held-out half, of the confirmation set, nor
any shape gemm_heldout.py's cases() draws and does not assign to the fit
half, is ever run: such a shape is dropped before the GPU is touched
(gemm_probe.guard, gemm_probe.check).

    python3 tests/gpu/probe/gemm_probe_shortk.py --out gemm_probe_shortk.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

DTYPES = ("tf32", "fp32", "bf16")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    for (m, n) in [(64, 64), (128, 128), (256, 256), (512, 512), (1024, 1024)]:
        for k in [4, 8, 16, 32, 64]:
            for d in DTYPES:
                out.append(("square", d, m, n, k))
    for (m, n) in [(2048, 16), (4096, 16), (1024, 32), (16, 2048), (32, 1024)]:
        for k in [16, 32]:
            for d in DTYPES:
                out.append(("skinny", d, m, n, k))
    for (m, n) in [(128, 126), (256, 254), (512, 510), (1000, 250), (250, 1000)]:
        for k in [12, 16, 20, 24]:
            out.append(("unalign", "tf32", m, n, k))
    for (m, n) in [(256, 256), (1024, 1024), (512, 8192), (8192, 512), (2048, 1024), (1000, 3000)]:
        out.append(("k1", "fp32", m, n, 1))
    for (m, n) in [(64, 1024), (1024, 64), (128, 2048), (2048, 128), (256, 4096), (4096, 256)]:
        for k in [8, 16, 32, 64]:
            for d in DTYPES:
                out.append(("aspect", d, m, n, k))
    return out


def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_shortk_", ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json",
                              "gemm_probe_tiny.json", "gemm_probe_wide.json"))


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_shortk.json", seed=2222, budget_s=200.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="short-K probe shapes at small and mid outputs (probe_*) "
                    "(tests/gpu/probe/gemm_probe_shortk.py)")


if __name__ == "__main__":
    main()
