#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_windows2.py - fit data for the classes behind
the worst rows the third and fourth confirmation sets still have (README,
"Accuracy against a real H200"), on fresh shapes around them:
 - 16-bit of few columns (n = 2 to 8, not 16-byte multiples: the fallback
   kernels) at long K (2000 to 8000, even and odd: K odd takes the align1
   kernels, whose split for several tiles no fit row shows) and 256 to 512
   rows (bf16 317x4x7967 +37%);
 - 16-bit at K of 24 to 47 (odd K: the fallback kernels) against wide
   outputs (bf16 383x5712x31 +37%);
 - 16-bit of a few columns against many rows at short K (fp16 13327x3x28
   +31%);
 - fp64 of 2 to 5 columns at long K (fp64 4360x3x4339 -31%);
 - fp8 of 128 to 1024 a side at K = 8192: which nvjet tile cuBLAS takes
   (fp8 368x384x16320 -36%);
 - and the worst classes of the seed-2030 set as the H100 ran it (its
   shapes themselves refused): fp32 of 1 to 4 columns at K 2000 to 8000,
   16-bit of 2 to 8 rows by 2 to 24 columns at K 500 to 3000, fp64 of 2 to
   5 columns against 4000 to 16000 rows at K 2 to 4.
For each shape: its kernels and its single-call GPU time, measured and
guarded as gemm_probe_windows.py says (tests/gpu/gemm_probe.py: a sleep
kernel, a 256 MiB L2 flush, an event pair around ONE call, median of 7;
held-out and confirmation shapes refused by name).

    python3 tests/gpu/probe/gemm_probe_windows2.py --out gemm_probe_windows2.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    shapes = []
    for dt in ("bf16", "fp16"):
        for m in (256, 300, 400, 512):
            for n in (2, 3, 4, 5, 6, 8):
                for k in (2000, 4000, 6000, 8000, 2001, 4001, 7999):
                    shapes.append(("fewcols", dt, m, n, k))
        for m in (256, 384, 512):
            for n in (2048, 4096, 5700, 8192):
                for k in (24, 31, 33, 40, 47):
                    shapes.append(("oddk", dt, m, n, k))
        for m in (4000, 8000, 13000, 16000):
            for n in (2, 3, 4, 6):
                for k in (20, 28, 36, 44):
                    shapes.append(("tallfew", dt, m, n, k))
    for m in (2000, 4000, 8000):
        for n in (2, 3, 4, 5):
            for k in (1000, 2000, 4000, 8000):
                shapes.append(("fp64n", "fp64", m, n, k))
    # the H100's blind seed-2030 set's worst classes (fp32 87x2x4405 -69%,
    # fp16 3x23x2689 +65%, bf16 6x2x557 +61%, fp64 12805x3x2 -42%)
    for m in (50, 64, 100, 150, 200):
        for n in (1, 2, 3, 4):
            for k in (2000, 4000, 6000, 8000):
                shapes.append(("fp32fewcols", "fp32", m, n, k))
    for dt in ("fp16", "bf16"):
        for m in (2, 3, 4, 6, 8):
            for n in (2, 4, 8, 16, 24):
                for k in (500, 1000, 2000, 3000, 1001, 2001, 2999):
                    shapes.append(("tinylongk", dt, m, n, k))
    for m in (4000, 8000, 12000, 16000):
        for n in (2, 3, 4, 5):
            for k in (2, 3, 4):
                shapes.append(("fp64tallk2", "fp64", m, n, k))
    sides = (128, 192, 256, 320, 384, 448, 512, 640, 768, 1024)
    for m in sides:
        for n in sides:
            shapes.append(("fp8tile", "fp8", m, n, 8192))
    seen, out = set(), []
    for s in shapes:
        if s[1:] not in seen:
            seen.add(s[1:])
            out.append(s)
    return gemm_probe.select(out, "probe_windows2_")


def main():
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_windows2.json", seed=1313, budget_s=300.0,
                    extra_meta={"refused_heldout": refused},
                    shapes="16-bit of 2 to 8 columns at K 2000 to 8000 (odd K too), at odd K 24 to 47, tall at K 20 to 44; "
                           "fp64 of 2 to 5 columns at K 1000 to 8000; fp8 of 128 to 1024 a side at K 8192; "
                           "fp32 of 1 to 4 columns at K 2000 to 8000; 16-bit of 2 to 8 rows by 2 to 24 "
                           "columns at K 500 to 3000 (odd K too); fp64 of 2 to 5 columns at K 2 to 4 "
                           "(probe_*) (tests/gpu/probe/gemm_probe_windows2.py)")


if __name__ == "__main__":
    main()
