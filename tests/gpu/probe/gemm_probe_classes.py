#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_classes.py - fit data for six classes of GEMM
that the model priced worst on the H200 after the 2026-12-02 fits (issue 11),
each a grid of fresh shapes: which kernels cuBLAS runs (name, grid, block,
registers, shared memory, blocks per SM) and the single-call GPU time,
measured as gemm_heldout.py measures its rows (torch_cold.cold_times: a
sleep kernel, a 256 MiB fill that evicts the L2, an event pair around ONE
call; median of 7 after 2 untimed).

  largek  fp32, m = 2, 4, 8 against n = 2048..8192 at K = 2048..24576:
          sgemm_largek_lds64's split of K and its rate (model/gemm_small_n.c)
  sn      fp32, m = 6, 10, 16 against n = 4096..12288 at K = 1536..6144:
          where gemmSN_NN runs for m of 5 to 16
  bf16u   bf16 (and fp16 at m = 17 and 651) with odd n: the unaligned
          16-bit kernels of small outputs
  tf32    tf32 aligned 1024..2048 squared at K = 128..512, and m = 1
  int8    int8 of m = 32..512 against n = 16..512 at K = 4096..12288:
          long K over few output tiles
  fp64    fp64 at K = 1, 2, 3
  tallk   fp32 of m = 512..4096 against n = 16..64 at K = 4096..16384
          (a second call, the same day)
  longk16 fp16 and bf16 of m = 64..256 against n = 4096 and 8192 at K =
          16384..32768 (with tallk)
  tf32mid tf32 of m = 1344..1600 against n = 1152..1280 at K = 192..320:
          outputs that are not whole 128-wide tiles (a third call)
  gemv    fp32 of m = 1 against n = 256..8192 at K = 32..2048, and tf32 at
          a few of them: which GEMV kernel cuBLAS runs (threads a row, rows
          a block) and how long K's walk takes when few rows leave DRAM's
          latency exposed (a fourth call, 2026-12-02)
  tallu   fp32 of m = 1024..4096 against n = 16..64 at odd K of 4095 to
          16383: tall, narrow, long-K outputs whose rows are not 16-byte
          aligned (with gemv)
  gemv2   fp32 of m = 1: K of 4 mod 8 (where gemv2N ran), odd K (a walk
          whose K is not whole float4s), and n not a multiple of 4 at
          aligned K (a fifth call)
  gemv3   fp32 of m = 1: n of 8 to 192 at the K where gemv2N and the
          two-thread gemvx ran, and n at the edges of the two-thread
          kernel's range (a sixth call)
  tinykf  fp32 of m = 300..3000 against n = 200..3000 at K = 3..24
  bf16s   bf16 of m = 2..8 against odd n = 15..99 at K = 255..2047
  fp64m   fp64 of m = 4096..16384 against n = 256..2000 at K = 32..128
  tf32t   tf32 of m = 8..32 against n = 100..1000 at K = 16..100
          (the four: the classes of the second confirmation set's rows
          past 30%, fresh shapes, a seventh call)
  shortkm fp32 of one side 80 to 160 against 300 to 1200 at K = 8 to 24:
          where the split form with its reduction kernel stops (an eighth)
  largek2 fp32 of m = 3..5 against n = 9216..12288 at K = 6144..10240:
          which of gemmSN, sgemm_largek and the tiles runs past n = 8192
  tf32tall tf32 of m = 4096..12288 against n = 64..128 at K = 32..96
  tf32u   tf32 of m = 1000..5000 against n = 3..7 at K = 3 and 5
  fp64u   fp64 of m = 4096..16384 against odd n (and even n at odd K) of
          501 to 2001 at K = 32..128: the unaligned DMMA kernels at short K
  fp32k   fp32 of m = 600..1200 against n = 2000..5000 at K = 12..20:
          where cutlass's SIMT 128x32 runs at K of two or three stages
  fp32n8  fp32 of m = 8192..16384 against n = 4..12 at K = 4096..12288
  fp64sk .. fp32w  the classes of the third confirmation set's blind rows
          past 20% (2026-12-02), fresh shapes around each: fp64 of few
          outputs at long K, bf16 of n = 3..14, tf32 at K = 1 and 2, fp32
          GEMV of n = 2..16 at long K, fp32 of 8..32 rows at K = 64..200,
          tf32 of n = 8..24 at short K, fp32 and bf16 of 1..7 columns at
          long K, fp32 of 2..6 columns at mid K, fp64 of 2..5 columns,
          fp64 of odd n below 4096 rows, fp32 of 16..48 rows at long K
  h16sk   bf16 and fp16 of m = 4096..16384 against n = 4096..14336 at K =
          32..256: large outputs at short K (a LoRA up-projection's shape)
  h100t   on an H100 SXM (2026-12-07): fresh shapes around its blind
          seed-2030 rows past 40%: fp32 of 64..128 rows against 2 or 3
          columns at K = 3000..5000, fp16 and bf16 of 3 or 6 rows against
          2..26 columns at K = 500..2500, fp64 of 10000 or 14000 rows against
          2..4 columns at K = 2 and 3

The group is chosen with --group (default all, in that order).
No shape of the held-out half or of the confirmation set, nor any shape
gemm_heldout.py's cases() draws and does not assign to the fit half, is
ever run (tests/gpu/gemm_probe.py's guard).

    python3 tests/gpu/probe/gemm_probe_classes.py --out gemm_probe_classes.json [--list]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

GROUPS = ("largek", "sn", "bf16u", "tf32", "int8", "fp64", "tallk", "longk16", "tf32mid", "gemv", "tallu", "gemv2", "gemv3", "tinykf", "bf16s", "fp64m", "tf32t", "shortkm", "largek2", "tf32tall", "tf32u", "fp64u", "fp32k", "fp32n8",
          "fp64sk", "bf16n6", "tf32k1", "fp32gv", "fp32m16", "tf32n16", "fp32n2", "bf16n4", "fp32n4k", "fp64n3",
          "fp64u2", "fp32w", "h16sk", "h100t")


def groups():
    """(group, dtype, m, n, k) of every group, in running order"""
    g = {name: [] for name in GROUPS}
    g["largek"] = [("largek", "fp32", m, n, k) for m in (2, 4, 8) for n in (2048, 4096, 8192)
                   for k in (2048, 6144, 10240, 12288, 14336, 16384, 24576)]
    g["sn"] = [("sn", "fp32", m, n, k) for m in (6, 10, 16) for n in (4096, 6144, 8192, 12288)
               for k in (1536, 3072, 4096, 6144)]
    g["bf16u"] = [("bf16u", "bf16", m, n, k) for m in (17, 56, 160, 651) for n in (85, 201, 515, 1904)
                  for k in (8, 49, 101, 200)]
    g["bf16u"] += [("bf16u", "fp16", m, n, k) for m in (17, 651) for n in (85, 201, 515, 1904)
                   for k in (8, 49, 101, 200)]
    g["tf32"] = [("tf32", "tf32", m, n, k) for m in (1024, 1536, 2048) for n in (1024, 1536, 2048)
                 for k in (128, 256, 512)]
    g["tf32"] += [("tf32", "tf32", 1, n, k) for n in (600, 1100, 3000) for k in (100, 191, 400, 1000)]
    g["int8"] = [("int8", "int8", m, n, k) for m in (32, 112, 256, 368, 512) for n in (16, 128, 320, 512)
                 for k in (4096, 8192, 12288)]
    g["fp64"] = [("fp64", "fp64", m, n, k) for m in (17, 300, 4096, 16384) for n in (14, 146, 1000)
                 for k in (1, 2, 3)]
    g["tallk"] = [("tallk", "fp32", m, n, k) for m in (512, 1024, 2048, 3072, 4096) for n in (16, 32, 48, 64)
                  for k in (4096, 8192, 16384)]
    g["longk16"] = [("longk16", d, m, n, k) for d in ("fp16", "bf16") for m in (64, 128, 256) for n in (4096, 8192)
                    for k in (16384, 24576, 32768)]
    g["tf32mid"] = [("tf32mid", "tf32", m, n, k) for m in (1344, 1408, 1472, 1600) for n in (1152, 1216, 1280)
                    for k in (192, 256, 320)]
    g["gemv"] = [("gemv", "fp32", 1, n, k) for n in (256, 512, 768, 1024, 1536, 2048, 4096, 8192)
                 for k in (32, 64, 100, 128, 160, 192, 224, 256, 320, 512, 1024, 2048)]
    g["gemv"] += [("gemv", "tf32", 1, n, k) for n in (512, 1024, 2048) for k in (128, 192, 256, 512)]
    g["tallu"] = [("tallu", "fp32", m, n, k) for m in (1024, 2048, 2500, 3072, 4096) for n in (16, 32, 40, 48, 64)
                  for k in (4095, 8191, 10999, 16383)]
    g["gemv2"] = [("gemv2", "fp32", 1, n, k) for n in (256, 1024, 4096)
                  for k in (36, 44, 68, 76, 84, 92, 108, 116, 132, 196, 260, 516)]
    g["gemv2"] += [("gemv2", "fp32", 1, n, k) for n in (512, 1024, 2048)
                   for k in (63, 65, 127, 129, 189, 193, 255, 383, 511, 1023)]
    g["gemv2"] += [("gemv2", "fp32", 1, n, k) for n in (1030, 1062, 1102, 2050) for k in (192, 256, 512)]
    g["gemv3"] = [("gemv3", "fp32", 1, n, k) for n in (8, 16, 32, 64, 128, 192)
                  for k in (68, 84, 100, 191, 255, 383, 512, 1023)]
    g["gemv3"] += [("gemv3", "fp32", 1, n, k) for n in (896, 960) for k in (383, 512, 1023)]
    g["gemv3"] += [("gemv3", "fp32", 1, n, k) for n in (2560, 3072, 3584) for k in (383, 512, 700)]
    g["tinykf"] = [("tinykf", "fp32", m, n, k) for m in (300, 500, 800, 1500, 3000) for n in (200, 500, 1000, 3000)
                   for k in (3, 6, 9, 16, 24)]
    g["bf16s"] = [("bf16s", "bf16", m, n, k) for m in (2, 4, 8) for n in (15, 27, 45, 99)
                  for k in (255, 543, 1023, 2047)]
    g["fp64m"] = [("fp64m", "fp64", m, n, k) for m in (4096, 8192, 16384) for n in (256, 512, 1000, 2000)
                  for k in (32, 64, 128)]
    g["tf32t"] = [("tf32t", "tf32", m, n, k) for m in (8, 16, 32) for n in (100, 336, 1000) for k in (16, 48, 100)]
    g["shortkm"] = [("shortkm", "fp32", m, n, k) for m in (80, 112, 160) for n in (300, 700, 1200)
                    for k in (8, 16, 24)]
    g["shortkm"] += [("shortkm", "fp32", m, n, 16) for m in (300, 700, 1200) for n in (80, 112, 160)]
    g["largek2"] = [("largek2", "fp32", m, n, k) for m in (3, 4, 5) for n in (9216, 10240, 11264, 12288)
                    for k in (6144, 8192, 10240)]
    g["tf32tall"] = [("tf32tall", "tf32", m, n, k) for m in (4096, 8192, 12288) for n in (64, 96, 128)
                     for k in (32, 64, 96)]
    g["tf32u"] = [("tf32u", "tf32", m, n, k) for m in (1000, 2500, 5000) for n in (3, 5, 7) for k in (3, 5)]
    g["fp64u"] = [("fp64u", "fp64", m, n, k) for m in (4096, 9001, 16384) for n in (501, 1001, 2001)
                  for k in (32, 64, 128)]
    g["fp64u"] += [("fp64u", "fp64", m, n, k) for m in (4096, 16384) for n in (512, 2000) for k in (33, 63, 127)]
    g["fp32k"] = [("fp32k", "fp32", m, n, k) for m in (600, 784, 1000, 1200) for n in (2000, 2896, 4000, 5000)
                  for k in (12, 16, 20)]
    g["fp32n8"] = [("fp32n8", "fp32", m, n, k) for m in (8192, 12087, 16384) for n in (4, 8, 12)
                   for k in (4096, 8878, 12288)]
    # the classes of the third confirmation set's blind rows past 20%
    # (2026-12-02): fresh shapes around them, never the rows
    g["fp64sk"] = [("fp64sk", "fp64", m, n, k) for m in (8, 17, 24, 40) for n in (9, 31, 48)
                   for k in (1000, 2000, 3000, 5000)]
    g["bf16n6"] = [("bf16n6", "bf16", m, n, k) for m in (20, 33, 50, 80) for n in (3, 6, 10, 14)
                   for k in (1000, 1500, 2500)]
    g["tf32k1"] = [("tf32k1", "tf32", m, n, k) for m in (500, 1000, 1700, 3000) for n in (50, 100, 200, 400)
                   for k in (1, 2)]
    g["fp32gv"] = [("fp32gv", "fp32", 1, n, k) for n in (2, 3, 5, 7, 9, 16) for k in (3000, 6000, 8000, 12000)]
    g["fp32m16"] = [("fp32m16", "fp32", m, n, k) for m in (8, 12, 16, 24, 32) for n in (500, 900, 1500)
                    for k in (64, 100, 128, 200)]
    g["tf32n16"] = [("tf32n16", "tf32", m, n, k) for m in (1000, 1700, 2500, 4000) for n in (8, 16, 24)
                    for k in (16, 32, 48)]
    g["fp32n2"] = [("fp32n2", "fp32", m, n, k) for m in (2000, 3600, 6000) for n in (1, 2, 3, 4)
                   for k in (8000, 13000, 16000)]
    g["bf16n4"] = [("bf16n4", "bf16", m, n, k) for m in (200, 300, 600) for n in (2, 4, 7)
                   for k in (4000, 8000, 12000)]
    g["fp32n4k"] = [("fp32n4k", "fp32", m, n, k) for m in (800, 1300, 2000) for n in (2, 4, 6)
                    for k in (64, 120, 200, 300)]
    g["fp64n3"] = [("fp64n3", "fp64", m, n, k) for m in (2000, 4400, 8000) for n in (2, 3, 5)
                   for k in (2000, 4400, 8000)]
    g["fp64u2"] = [("fp64u2", "fp64", m, n, k) for m in (1000, 2000, 3000) for n in (501, 1301, 2001)
                   for k in (64, 96, 128)]
    g["fp32w"] = [("fp32w", "fp32", m, n, k) for m in (16, 32, 48) for n in (7000, 16, 28000)
                  for k in (1800, 4000, 6400)]
    # 16-bit aligned, large outputs at short K (LoRA-like up-projections)
    g["h16sk"] = [("h16sk", d, m, n, k) for d in ("bf16", "fp16") for m in (4096, 8192, 16384)
                  for n in (4096, 8192, 14336) for k in (32, 64, 128, 256)]
    # the H100's blind seed-2030 rows past 40% (fp32 87x2x4405, fp16
    # 3x23x2689, bf16 6x2x557, fp64 12805x3x2): fresh shapes around each,
    # never the rows, to see which kernels cuBLAS runs on that card
    g["h100t"] = [("h100t", "fp32", m, n, k) for m in (64, 96, 128) for n in (2, 3) for k in (3000, 4000, 5000)]
    g["h100t"] += [("h100t", d, m, n, k) for d in ("fp16", "bf16") for m in (3, 6) for n in (2, 20, 26)
                   for k in (500, 700, 2500)]
    g["h100t"] += [("h100t", "fp64", m, n, k) for m in (10000, 14000) for n in (2, 3, 4) for k in (2, 3)]
    return g


def shape_list(which):
    """the cases and the held-out shapes refused"""
    g = groups()
    shapes = [s for name in GROUPS if which in ("all", name) for s in g[name]]
    return gemm_probe.select(shapes, "probe_")


def main():
    which = "all"
    if "--group" in sys.argv:
        i = sys.argv.index("--group")
        which = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    if which != "all" and which not in GROUPS:
        raise SystemExit("--group: one of all, " + ", ".join(GROUPS))
    cases, refused = shape_list(which)
    gemm_probe.main(cases, "gemm_probe_classes.json", seed=4444, budget_s=250.0,
                    extra_meta={"refused_heldout": refused, "group": which},
                    shapes="group %s of tests/gpu/probe/gemm_probe_classes.py (probe_*)" % which)


if __name__ == "__main__":
    main()
