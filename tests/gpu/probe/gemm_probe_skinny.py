#!/usr/bin/env python3
"""tests/gpu/probe/gemm_probe_skinny.py - fit data for issue 11's skinny
memory-bound GEMMs on the H200: few rows (m = 1..256) against a large n x k
weight (4096 x 4096 to 57344 x 8192), and the transposed case (few columns
n against a large m x k operand), in every dtype. For each: the kernels
cuBLAS runs (name, grid, block, registers, shared memory, blocks per SM,
mean duration under torch.profiler) and the single-call GPU time, measured
as gemm_heldout.py measures its rows (torch_cold.cold_times: a sleep
kernel, a 256 MiB fill that evicts the L2, an event pair around ONE call;
median of 7 after 2 untimed). Such a GEMM's time should be its big
operand's bytes over DRAM's rate: the grids and tiles say why a kernel
runs below it.

Shape groups, in the order they run (a time budget cuts the tail):
  fitrow   three skinny fit rows of the held-out set, for their kernels;
  m57344   m = 1..256 against the 8192 x 57344 weight, every dtype;
  m16384   the same against 8192 x 16384;
  trans    n = 16, 64, 128 against a 57344 x 8192 A;
  m4096    m = 8..256 against 4096 x 4096.
Shapes the earlier probes (gemm_probe*.json) timed are not run again. No
shape of the held-out half or of the confirmation set, nor any shape
gemm_heldout.py's cases() draws and does not assign to the fit half, is
ever run: such a shape is dropped before the GPU is touched.

    python3 tests/gpu/probe/gemm_probe_skinny.py --out gemm_probe_skinny.json [--list]
    SKINNY_GROUPS=rounds python3 tests/gpu/probe/gemm_probe_skinny.py --out gemm_probe_skinny_rounds.json
        (int8 grids of whole and part rounds, the 448x64 tile's K slope)
    python3 tests/gpu/probe/gemm_probe_skinny.py --one DTYPE M N K
        (three calls of one allowed shape, nothing timed: for ncu)
"""

import os
import sys

# tests/gpu from this file's place in the repository, or from the
# repository root it is run in (a copy of this script outside tests/gpu)
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run

DTYPES = ("bf16", "int8", "fp32", "fp16", "fp8", "tf32", "fp64")
EARLIER = ("gemm_probe.json", "gemm_probe_small.json", "gemm_probe_choice.json", "gemm_probe_wide.json",
           "gemm_probe_tiny.json", "gemm_probe_fp64.json")


def groups():
    """[(group, dtype, m, n, k)] in running order"""
    out = []
    # fit rows of the held-out set (split "fit") whose kernels were not recorded
    for (d, m, n, k) in [("bf16", 12, 6928, 1372), ("fp32", 16, 1312, 9200), ("bf16", 6, 82, 1306)]:
        out.append(("fitrow", d, m, n, k))
    for (n, k, group) in [(57344, 8192, "m57344"), (16384, 8192, "m16384")]:
        for m in (1, 8, 16, 32, 64, 128, 256):
            for d in DTYPES:
                out.append((group, d, m, n, k))
    for n in (16, 64, 128):
        for d in DTYPES:
            out.append(("trans", d, 57344, n, 8192))
    for m in (8, 32, 128, 256):
        for d in DTYPES:
            out.append(("m4096", d, m, 4096, 4096))
    return out


def rounds_groups():
    """[(group, dtype, m, n, k)]: SKINNY_GROUPS=rounds. int8's 128x64_128x3
    kernel (3 blocks an SM, 396 slots on an H200) and 128x128_128x5 (one an
    SM) at grids of whole and part rounds (m = 64: n / 128 blocks; m = 128:
    twice that), and the 448x64 two-stage tile's K slope at m = 64"""
    out = []
    for n in (49152, 50688, 53248, 61440, 65536, 76032, 101376):
        out.append(("rounds", "int8", 64, n, 4096))
    for n in (25344, 26624, 32768, 38016, 50688):
        out.append(("rounds", "int8", 128, n, 4096))
    for n in (16896, 33792, 50688, 65536):
        out.append(("rounds", "int8", 64, n, 8192))
    for k in (2048, 4096, 16384):
        out.append(("rounds", "bf16", 64, 57344, k))
    return out

SEED = 1212  # the generator of the operands, the timed run's and --one's


def shape_list():
    """the cases and the held-out shapes refused"""
    rounds = os.environ.get("SKINNY_GROUPS") == "rounds"
    chosen = rounds_groups() if rounds else groups()
    return gemm_probe.select(chosen, "probe_skinny_", EARLIER)  # the rounds shapes are none of the first run's


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        gemm_probe.profile_one(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), SEED)
        return
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_probe_skinny.json", seed=SEED, extra_meta={"refused_heldout": refused},
                    shapes="skinny GEMMs against a large weight, and transposed (probe_*) "
                           "(tests/gpu/probe/gemm_probe_skinny.py)")


if __name__ == "__main__":
    main()
