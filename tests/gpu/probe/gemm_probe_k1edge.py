#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_k1edge.py - fit data for where cuBLAS's FP64
outer-product kernel (gemmk1_kernel, model/gemm_k1.c) stops: fp64 GEMMs with
K = 1 whose m or n is under 14, the least side the fit data had seen it run
(gemm_probe_classes.json: m = 17 to 16384 by n = 14 to 8192), and K = 2
beside them. For each shape: which kernels cuBLAS runs (name, grid, block,
registers, shared memory, blocks per SM) and the single-call GPU time,
measured as gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep
kernel, a 256 MiB fill that evicts the L2, an event pair around ONE call;
median of 7 after 2 untimed). Runs on an H200 or an H100 SXM (same GH100
die, same cuBLAS: the kernel cuBLAS picks is the finding; the card is in the
file). No shape of the held-out half or of a confirmation set, nor any shape
gemm_heldout.py's cases() draws and does not assign to the fit half, is ever
run (tests/gpu/gemm_probe.py's guard): those are refused by name.

    python3 tests/gpu/probe/gemm_probe_k1edge.py --out gemm_probe_k1edge.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    sides = (1, 2, 3, 4, 8, 13)
    long_sides = (14, 100, 1000, 8192)
    shapes = []
    for k in (1, 2):
        for short in sides:
            for long_ in long_sides:
                shapes.append(("k%d" % k, "fp64", long_, short, k))
                shapes.append(("k%d" % k, "fp64", short, long_, k))
    for a in sides:
        for b in sides:
            shapes.append(("k1small", "fp64", a, b, 1))
    seen, out = set(), []
    for s in shapes:
        if s[1:] not in seen:
            seen.add(s[1:])
            out.append(s)
    return gemm_probe.select(out, "probe_k1edge_")


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_k1edge.json", seed=1111, budget_s=120.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="fp64 with K = 1, 2 and m or n of 1 to 13 (probe_*) "
                           "(tests/gpu/probe/gemm_probe_k1edge.py)")


if __name__ == "__main__":
    main()
