#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_smalln.py - fit data for fp32 GEMMs of few rows
(m = 2 to 32) against B of 1024 to 32768 columns and K of 256 to 8192 on the
H200: which kernel cuBLAS runs (gemmSN_NN_kernel, sgemm_largek_lds64,
CUTLASS's split SIMT SGEMM, sm80_xmma FMA kernels; name, grid, block,
registers, shared memory, blocks per SM) and the single-call GPU time,
measured as gemm_heldout.py measures its rows (torch_cold.cold_times: a
sleep kernel, a 256 MiB fill that evicts the L2, an event pair around ONE
call; median of 7 after 2 untimed). Where gemmSN runs beyond m = 4 and
where sgemm_largek takes over is what model/gemm_small_n.c needs.
No shape of the held-out half or of the confirmation set, nor any shape
gemm_heldout.py's cases() draws and does not assign to the fit half, is
ever run (tests/gpu/gemm_probe.py's guard).

    python3 tests/gpu/probe/gemm_probe_smalln.py --out gemm_probe_smalln.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    shapes = [("", "fp32", m, n, k)
              for m in (2, 4, 8, 12, 16, 32)
              for n in (1024, 2048, 4096, 8192, 16384, 32768)
              for k in (256, 1024, 4096, 8192)]
    return gemm_probe.select(shapes, "probe_smalln")


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_smalln.json", seed=2222, budget_s=200.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="fp32 with m = 2..32 against n = 1024..32768, K = 256..8192 (probe_*) "
                           "(tests/gpu/probe/gemm_probe_smalln.py)")


if __name__ == "__main__":
    main()
