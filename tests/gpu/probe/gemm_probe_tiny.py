#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_tiny.py - fit data for issue 11's tiny and
short-K GEMMs (fp32, tf32, bf16, fp16) on the H200: which kernels cuBLAS runs
(name, grid, block, registers, shared memory, blocks per SM, mean duration
under torch.profiler) and the single-call GPU time, measured as
gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep kernel, a
256 MiB fill that evicts the L2, an event pair around ONE call; median of 7
after 2 untimed).

Shape groups, in the order they run (a time budget cuts the tail):
  tiny     outputs of 4 to 2^16 elements, K from 1 to 512, aligned and not:
           the kernel family, whether a reduction kernel runs behind it, and
           the fixed cost of one call;
  shortk   K of 1 to 64 at outputs of 2^20 to 2^24: the per-wave and per-K
           step cost of each family's kernels;
  unalign  16-bit and fp32 small outputs with long odd K: the fallback
           kernels' split and reduction.
Shapes the earlier probes (gemm_probe*.json) timed are not run again.
No shape of the held-out half, nor any shape gemm_heldout.py's cases() draws
and does not assign to the fit half, is ever run: such a shape is dropped
before the GPU is touched (checked against both).

    python3 tests/gpu/probe/gemm_probe_tiny.py --out gemm_probe_tiny.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run
DTYPES = ("fp32", "tf32", "bf16", "fp16")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    tiny = [(2, 2, 2), (4, 4, 4), (16, 16, 16), (32, 32, 32), (64, 64, 64), (128, 128, 128), (8, 8, 64),
            (16, 16, 1), (64, 64, 1), (128, 128, 8), (256, 256, 16), (32, 32, 512), (5, 7, 9), (13, 11, 7),
            (24, 40, 3), (100, 100, 100), (256, 256, 1)]
    for (m, n, k) in tiny:
        for d in DTYPES:
            out.append(("tiny", d, m, n, k))
    for (m, n) in [(2048, 2048), (4096, 4096)]:
        for k in [1, 2, 4, 8, 16, 32, 64]:
            for d in DTYPES:
                out.append(("shortk", d, m, n, k))
    for (m, n, k) in [(6, 7, 1001), (6, 7, 3001), (12, 20, 2001), (30, 30, 999), (6, 82, 501)]:
        for d in DTYPES:
            out.append(("unalign", d, m, n, k))
    return out



def shape_list():
    """the cases and the held-out shapes refused"""
    return gemm_probe.select(groups(), "probe_tiny_", ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json"))


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_tiny.json", seed=1111, extra_meta={"refused_heldout": refused},
                    shapes="new tiny and short-K probe shapes (probe_*) (tests/gpu/probe/gemm_probe_tiny.py)")


if __name__ == "__main__":
    main()
