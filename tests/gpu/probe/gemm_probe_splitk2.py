#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_splitk2.py - fit data for issue 11's tiny
outputs against K, second round (gemm_probe_splitk.py's sequel), on the
H200: cuBLAS's kernel and split (grid) where the first round left gaps,
timed as gemm_heldout.py times its rows (through gemm_probe.main(): a sleep
kernel, a 256 MiB fill that evicts the L2, an event pair around ONE call;
median of 7 after 2 untimed; then torch.profiler for the kernels, grids).

Shape groups, in the order they run (a time budget cuts the tail):
  align1   fp16 and bf16 at 6x7 and 3x9 against K not a multiple of 8 from
           8193 to 16383: where the align1 kernels' split (pieces of 8 up to
           a block cap) gives way to the 86..256-way kernels seen from 16384;
  tf32     tf32 outputs of one tile (7x61, 33x20, 5x100) against unaligned
           K = 2001 .. 7001: the large-tile kernels' split;
  fp32     fp32 outputs of a few hundred elements or less (6x82, 16x96,
           4x300, 16x48, 16x80) against K of 48 to 1000: gemmSN, the gemv-
           like kernels or the split SIMT SGEMM, and its split.
No shape of the held-out half or the confirmation set, nor any shape
gemm_heldout.py's cases() draws that is not a fit row, is ever run
(gemm_probe.guard()); shapes the earlier probes ran are not run again.

    python3 tests/gpu/probe/gemm_probe_splitk2.py --out gemm_probe_splitk2.json [--list]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for root in (os.path.join(HERE, ".."), os.path.join(os.getcwd(), "tests", "gpu")):
    sys.path.insert(0, root)
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

EARLIER = ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json", "gemm_probe_tiny.json",
           "gemm_probe_splitk.json", "gemm_probe_shortk.json")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    for k in [8193, 8705, 9217, 10001, 11001, 12289, 13001, 14337, 15001, 16383]:
        for d in ("fp16", "bf16"):
            out.append(("align1", d, 6, 7, k))
    for k in [9001, 12001]:
        for d in ("fp16", "bf16"):
            out.append(("align1", d, 3, 9, k))
    for (m, n) in [(7, 61), (33, 20), (5, 100)]:
        for k in [2001, 3001, 4001, 5001, 6001, 7001]:
            out.append(("tf32", "tf32", m, n, k))
    for (m, n) in [(6, 82), (16, 96), (4, 300), (16, 48), (16, 80)]:
        for k in [48, 131, 256, 401, 640, 1000]:
            out.append(("fp32", "fp32", m, n, k))
    return out


def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_splitk2_", EARLIER)


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_splitk2.json", budget_s=150.0, seed=2323,
                    extra_meta={"refused_heldout": refused},
                    shapes="tiny outputs against K, second round (probe_*) "
                           "(tests/gpu/probe/gemm_probe_splitk2.py)")


if __name__ == "__main__":
    main()
