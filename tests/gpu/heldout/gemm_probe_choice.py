#!/usr/bin/env python3
"""gemm_probe_choice.py - fit data for issue 11's question of which tile
cuBLAS chooses where it is not the least-time one: int8 (torch._int_mm)
skinny m with long and shorter K, fp32 small m with long K, 16-bit m <= 128
with wide n. New probe shapes only, timed and profiled exactly as
gemm_probe_small.py does (its shape guard: no held-out shape, nor any shape
gemm_heldout.py draws for the held-out half, is ever run).

    python3 tests/gpu/heldout/gemm_probe_choice.py --out probe_choice.json [--list]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gemm_probe_small  # noqa: E402

gemm_probe_small.NEW = [
    # int8: where the 128x128 tile starts (K, m, output size)
    ("int8", 128, 8192, 1024), ("int8", 128, 8192, 2048), ("int8", 128, 8192, 4096), ("int8", 96, 16384, 8192),
    ("int8", 256, 4096, 8192), ("int8", 128, 12288, 8192), ("int8", 64, 32768, 4096), ("int8", 1024, 1024, 8192),
    ("int8", 512, 2048, 8192), ("int8", 128, 16384, 2048), ("int8", 192, 8192, 8192), ("int8", 64, 16384, 2048),
    # fp32 small m, long K: split-K of the SIMT sgemm kernels
    ("fp32", 16, 1024, 4096), ("fp32", 16, 2048, 8192), ("fp32", 32, 1024, 8192), ("fp32", 8, 1024, 8192),
    ("fp32", 16, 512, 16384), ("fp32", 48, 1024, 4096), ("fp32", 64, 1024, 8192), ("fp32", 24, 1312, 4096),
    ("fp32", 16, 4096, 2048), ("fp32", 32, 2048, 4096),
    # 16-bit, m <= 128, wide n
    ("bf16", 128, 20480, 4096), ("bf16", 128, 36864, 4096), ("fp16", 96, 28672, 4096), ("bf16", 128, 22528, 4096),
    ("fp16", 128, 40960, 4096), ("bf16", 128, 14336, 4096), ("fp16", 64, 40960, 4096), ("bf16", 128, 28672, 2048),
]
gemm_probe_small.wanted_fit = lambda r: False

if __name__ == "__main__":
    gemm_probe_small.main()
