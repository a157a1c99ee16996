#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_skinny2.py - fit data for issue 11's skinny
GEMMs on the H200, the questions gemm_probe_skinny.json left open:

  fp32m    which kernel (tile, split-K grid) cuBLAS runs for FP32 with
           m = 24..48 against 8192 x 32768..65536 weights (m = 16 ran the
           32x128 tile, m = 64 the 64x128 one at n = 57344);
  int8k    int8's 128x64_128x3 kernel (three blocks an SM, 396 slots) at
           whole and part rounds with K = 2048 (half the K loop of the
           gemm_probe_skinny_rounds.json grids: does a part round cost in
           proportion to its K loop) and part rounds of 4, 40 and 60 blocks
           at K = 4096.

Timed as gemm_probe.py times (a sleep kernel, a 256 MiB fill that evicts
the L2, an event pair around ONE call; median of 7 after 2 untimed), with
the kernels' names and grids from torch.profiler. No shape of the held-out
half or of the confirmation set is run (gemm_probe.guard()).

    python3 tests/gpu/probe/gemm_probe_skinny2.py --out gemm_probe_skinny2.json [--list]
    python3 tests/gpu/probe/gemm_probe_skinny2.py --one DTYPE M N K
        (three calls of one allowed shape, nothing timed: for ncu)
"""

import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

EARLIER = ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json", "gemm_probe_wide.json",
           "gemm_probe_tiny.json", "gemm_probe_fp64.json", "gemm_probe_skinny.json",
           "gemm_probe_skinny_rounds.json")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    for n in (50688, 61440, 76032):  # 396, 480, 594 blocks
        out.append(("int8k", "int8", 64, n, 2048))
    for n in (51200, 55808, 58368):  # 400, 436, 456 blocks
        out.append(("int8k", "int8", 64, n, 4096))
    for n in (32768, 65536, 49152):
        for m in (32, 24, 48, 40):
            out.append(("fp32m", "fp32", m, n, 8192))
    return out

SEED = 1313  # the generator of the operands, the timed run's and --one's


def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_skinny2_", EARLIER)


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        gemm_probe.profile_one(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), SEED)
        return
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_skinny2.json", seed=SEED, extra_meta={"refused_heldout": refused},
                    shapes="fp32 m = 24..48 against 8192 x 32768..65536, int8 part rounds at K = 2048 and "
                           "4096 (probe_*) (tests/gpu/probe/gemm_probe_skinny2.py)")


if __name__ == "__main__":
    main()
