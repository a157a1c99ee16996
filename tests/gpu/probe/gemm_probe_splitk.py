#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_splitk.py - fit data for issue 11's tiny
outputs against a long K (fp32, tf32, fp16, bf16; a few fp64 and int8) on
the H200: how far cuBLAS splits K (the split is the kernel's grid.z, or
grid.x/y beyond the output tiles), whether a splitKreduce kernel or a memset
(in-kernel atomics) goes with it, and the single-call GPU time, measured as
gemm_heldout.py measures its rows (through gemm_probe.main(): a sleep kernel,
a 256 MiB fill that evicts the L2, an event pair around ONE call; median of
7 after 2 untimed; then torch.profiler for the kernels and their grids).

Shape groups, in the order they run (a time budget cuts the tail):
  ksweep   outputs of 8x8 and 7x5 against K = 256 .. 65536: the split as a
           function of K alone;
  tiles    K = 8192 (and 2048) at outputs from 32x32 to 1024x1024, aligned
           and not: the split as a function of the output tile count;
  oddk     6x7 and 33x20 against odd K: the unaligned fallback kernels;
  wide     fp64 and int8 at a few tiny outputs and long K.
Shapes the earlier probes timed are not run again. No shape of the
held-out half or the confirmation set, nor any shape gemm_heldout.py's
cases() draws that is not a fit row, is ever run (gemm_probe.guard()).

    python3 tests/gpu/probe/gemm_probe_splitk.py --out gemm_probe_splitk.json [--list]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for root in (os.path.join(HERE, ".."), os.path.join(os.getcwd(), "tests", "gpu")):
    sys.path.insert(0, root)
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

DTYPES = ("fp32", "tf32", "bf16", "fp16")
EARLIER = ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json", "gemm_probe_tiny.json")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    for (m, n) in [(8, 8), (7, 5)]:
        for k in [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]:
            for d in DTYPES:
                out.append(("ksweep", d, m, n, k))
    for (m, n) in [(32, 32), (64, 64), (128, 128), (256, 256), (512, 512), (1024, 1024), (16, 256),
                   (16, 1024), (64, 512), (31, 33), (100, 100), (250, 250), (1000, 1000)]:
        for d in DTYPES:
            out.append(("tiles", d, m, n, 8192))
    for (m, n) in [(64, 64), (256, 256), (16, 1024)]:
        for d in DTYPES:
            out.append(("tiles", d, m, n, 2048))
    for (m, n) in [(6, 7), (33, 20)]:
        for k in [511, 2047, 8191, 32767]:
            for d in DTYPES:
                out.append(("oddk", d, m, n, k))
    for (m, n, k) in [(16, 16, 4096), (32, 32, 32768), (128, 128, 8192)]:
        for d in ("fp64", "int8"):
            out.append(("wide", d, m, n, k))
    return out


def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_splitk_", EARLIER)


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_splitk.json", budget_s=230.0, seed=2222,
                    extra_meta={"refused_heldout": refused},
                    shapes="tiny outputs against long K (probe_*) (tests/gpu/probe/gemm_probe_splitk.py)")


if __name__ == "__main__":
    main()
