#!/usr/bin/env python3
"""gemm_probe_wide.py - fit data for issue 11's skinny GEMMs that stream a
wide, long weight (m <= 128, n*k >= 2^24): which kernels cuBLAS runs (name,
grid, block, mean duration under torch.profiler: the tile, its pipeline
stages and its cluster are in the name) and the single-call time, measured
exactly as gemm_heldout.py measures its rows (a sleep kernel, a 256 MiB
fill that evicts the L2, an event pair around ONE call; median of 7 after 2
untimed; tests/gpu/torch_cold.py).

Shapes: new probe shapes of the class in every dtype, around the fit rows
that miss (16-bit 128x28672 runs a 448x64 tile of 2 stages). No shape of
the held-out half, nor any shape gemm_heldout.py's cases() draws and
assigns to it, is ever run: such a shape is dropped before the GPU is
touched (the list is checked against both), and so is any shape outside
the class.

    python3 tests/gpu/probe/gemm_probe_wide.py --out probe_wide.json [--list]

Writes rows shaped as gemm_probe_small.json's (with "kernels" and "split":
"fit"), through tests/gpu/gemm_probe.py."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

NEW = [
    # 16-bit, m = 128: the n at which cuBLAS splits m into two 64-row tiles
    # of a cluster (448x64, 320x64) or keeps one 128-row tile; K long and short
    ("fp16", 128, 28672, 1024), ("fp16", 128, 28672, 16384), ("bf16", 128, 12288, 4096),
    ("bf16", 128, 18432, 4096), ("bf16", 128, 26624, 4096), ("bf16", 128, 30720, 4096),
    ("bf16", 128, 43008, 4096), ("bf16", 128, 53248, 4096), ("fp16", 128, 57344, 4096),
    ("bf16", 112, 28672, 4096), ("bf16", 80, 28672, 4096), ("bf16", 48, 28672, 4096),
    ("fp16", 128, 14336, 8192), ("bf16", 128, 28672, 6144), ("fp16", 128, 20480, 8192),
    # fp8: the same shapes
    ("fp8", 128, 20480, 4096), ("fp8", 128, 28672, 8192), ("fp8", 64, 28672, 4096),
    ("fp8", 128, 14336, 4096), ("fp8", 128, 57344, 4096),
    # int8: m = 128 with wide n and long K, and m of 64..112
    ("int8", 128, 28672, 4096), ("int8", 128, 20480, 8192), ("int8", 112, 16384, 8192),
    ("int8", 128, 4096, 8192), ("int8", 128, 8192, 6144), ("int8", 128, 24576, 4096),
    ("int8", 96, 28672, 4096), ("int8", 64, 57344, 4096),
    # tf32 and fp32 (FMA): m = 128 and below with wide n
    ("tf32", 128, 28672, 4096), ("tf32", 64, 28672, 4096), ("tf32", 16, 28672, 4096),
    ("fp32", 128, 28672, 4096), ("fp32", 32, 28672, 4096), ("fp32", 128, 16384, 2048),
    ("fp64", 128, 16384, 2048), ("fp64", 32, 28672, 2048),
    # fit rows of the class whose kernels were never recorded (re-timed)
    ("fp8", 128, 28672, 4096), ("fp8", 128, 10240, 8192), ("fp64", 4, 28672, 4096), ("fp32", 128, 10240, 8192),
]


def in_class(m, n, k):
    return 1 <= m <= 128 and n * k >= (1 << 24)


def shape_list():
    forbidden, _ = gemm_probe.guard()
    out = []
    for (d, m, n, k) in NEW:
        if (d, m, n, k) in forbidden or not in_class(m, n, k):
            print("refused:", d, m, n, k, file=sys.stderr)
            continue
        out.append(("probe_%s_%dx%dx%d" % (d, m, n, k), d, m, n, k, "probe_wide"))
    gemm_probe.check(out, forbidden)
    return out


def main():
    gemm_probe.main(shape_list(), "probe_wide.json",
                    shapes="new probe shapes of the class m <= 128, n*k >= 2^24 in every dtype "
                    "(gemm_probe_wide.py)")


if __name__ == "__main__":
    main()
