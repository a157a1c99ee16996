#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_windows.py - fit data for three classes where
cuBLAS runs a slower kernel than its neighbours run and the model prices the
neighbours' (README, "Accuracy against a real H200"):
 - fp32, m of 8 to 20, n of 600 to 1600, K of 80 to 176: at 12 and 16 rows,
   900 columns and K 100 to 128 an H200 ran sm80_xmma 32x64 or 32x128 FFMA
   tiles (5.4 to 9.3 us a kernel) where 16 x 1500 ran gemmSN in 3.0 us
   (gemm_probe_classes_fp32m16.json); the edges of that window are unknown.
   The sixty shapes of that file come first, to show whether this card
   picks the kernels the H200 picked;
 - tf32 at small K (8 to 64) and outputs of 16 to 512 by 128 to 2048;
 - fp8 of moderate outputs (256 to 768 a side) at long K (4096 to 16384).
For each shape: which kernels cuBLAS runs (name, grid, block, registers,
shared memory, blocks per SM) and the single-call GPU time, measured as
gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep kernel, a
256 MiB fill that evicts the L2, an event pair around ONE call; median of 7
after 2 untimed). Runs on an H200 or an H100 SXM (same GH100 die, same
cuBLAS; the card is in the file). No shape of the held-out half, of a
confirmation set (the blind seed-2030 set's too, through its H100 run), nor
any shape gemm_heldout.py's cases() draws and does not assign to the fit
half, is ever run (tests/gpu/gemm_probe.py's guard): those are refused by
name.

    python3 tests/gpu/probe/gemm_probe_windows.py --out gemm_probe_windows.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    shapes = []
    for m in (8, 12, 16, 24, 32):  # the H200's fp32m16 file, for the kernel choice
        for n in (500, 900, 1500):
            for k in (64, 100, 128, 200):
                shapes.append(("fp32m16", "fp32", m, n, k))
    for m in (8, 10, 12, 14, 16, 20):
        for n in range(600, 1601, 100):
            for k in (80, 96, 112, 128, 144, 160, 176):
                shapes.append(("fp32win", "fp32", m, n, k))
    for m in (16, 32, 64, 128, 288, 512):
        for n in (128, 176, 256, 512, 1216, 2048):
            for k in (8, 16, 32, 48, 64):
                shapes.append(("tf32smallk", "tf32", m, n, k))
    for m in (256, 368, 512, 768):
        for n in (256, 384, 512, 768):
            for k in (4096, 8192, 16384):
                shapes.append(("fp8longk", "fp8", m, n, k))
    seen, out = set(), []
    for s in shapes:
        if s[1:] not in seen:
            seen.add(s[1:])
            out.append(s)
    return gemm_probe.select(out, "probe_windows_")


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_windows.json", seed=1212, budget_s=300.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="fp32 of 8 to 32 rows by 500 to 1600 columns at K 64 to 200; tf32 at K 8 to 64; "
                           "fp8 of 256 to 768 a side at K 4096 to 16384 (probe_*) "
                           "(tests/gpu/probe/gemm_probe_windows.py)")


if __name__ == "__main__":
    main()
