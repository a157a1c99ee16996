#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_int8m.py - fit data for int8 GEMMs of 64 to
256 rows against B of 8192 to 65536 columns at K = 2048 and 8192 on the
H200 (torch._int_mm): which kernels cuBLAS runs there (the Ampere-generation
mma.sync tiles cutlass_80 i16832 128x64, 128x128, 128x256 ...; name, grid,
block, registers, shared memory, blocks per SM) and the single-call GPU
time, measured as gemm_heldout.py measures its rows (torch_cold.cold_times:
a sleep kernel, a 256 MiB fill that evicts the L2, an event pair around ONE
call; median of 7 after 2 untimed). Which tile cuBLAS picks for weight-
streaming int8 of m = 64..256 is what model/gemm_mma_sync.c needs.
No shape of the held-out half or of the confirmation set, nor any shape
gemm_heldout.py's cases() draws and does not assign to the fit half, is
ever run (tests/gpu/gemm_probe.py's guard).

    python3 tests/gpu/probe/gemm_probe_int8m.py --out gemm_probe_int8m.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    shapes = [("", "int8", m, n, k)
              for m in (64, 96, 128, 160, 192, 256)
              for n in (8192, 16384, 32768, 49152, 65536)
              for k in (2048, 8192)]
    return gemm_probe.select(shapes, "probe_int8m")


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_int8m.json", seed=3333, budget_s=200.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="int8 with m = 64..256 against n = 8192..65536, K = 2048 and 8192 (probe_*) "
                           "(tests/gpu/probe/gemm_probe_int8m.py)")


if __name__ == "__main__":
    main()
