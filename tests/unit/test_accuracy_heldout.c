/* test_accuracy_heldout.c - simtd's current model against the held-out H200
 * set (tests/gpu/results/h200/heldout/: gemm.json, cuBLAS through PyTorch;
 * kernels.json, everyday kernels and microbenchmarks with the /v1/kernel
 * body each one's author would write), in-process, no GPU needed.
 *
 * Every row carries "split": "fit" or "heldout", assigned by a hash of its
 * name before anything was fitted (tests/gpu/heldout/split.py). The test
 * prints both halves separately, per class (GEMM, microbenchmark kernels,
 * everyday kernels): count, median and worst |error|, and the held-out
 * half's worst cases; beside them the issue's bars (issue 11: GEMM median
 * <= 10% worst <= 30%; micro median <= 8% worst <= 25%; everyday median
 * <= 15% worst <= 35%), which it does not assert yet.
 *
 * What it asserts: a regression ceiling per class on the HELD-OUT half, set
 * from what the model got when the set was committed (the figures in the
 * table below, a little above those), so the model may improve but not
 * slip. The kernel model reads every field the requests carry (int_ops,
 * repeats, distinct_addresses, l2_warm); a request field it ever refuses
 * as unknown is dropped from the request, and the test prints one line per
 * field name with the number of requests it was dropped from.
 * SIMT_HELDOUT_DUMP=file writes every row there for study.
 *
 * A third half, "confirm" (tests/gpu/results/h200/confirm/gemm.json), is a
 * GEMM set drawn and measured the same way after the models were fitted
 * (gemm_heldout.py --seed 2026, none of the seed-11 shapes): never fitted
 * or studied, reported beside the held-out half under the same bars and
 * held to a ceiling of its own. A fourth, "confirm2" (confirm/gemm2.json,
 * --seed 2027), was drawn blind to everything before it: none of the
 * seed-11 or seed-2026 shapes nor any fit probe's, measured (three runs,
 * the median of their medians) and first compared with the model after
 * the GEMV walk and the tall narrow FP32 rule were committed. A fifth,
 * "confirm3" (confirm/gemm3.json, --seed 2028), the same way blind to
 * both and to every fit probe, first compared after the odd-n FP64 and
 * three-stage short-K rules; a sixth, "confirm4" (gemm4.json, --seed
 * 2029), blind again, first compared after the rules those prompted. The
 * kernels have an independent set too,
 * "confirm" in confirm/kernels.json (simt-heldout --sizes confirm: the
 * same kinds at other sizes), held to ceilings of its own. Two more were
 * measured on an H100 SXM (tests/gpu/results/h100/confirm: a GEMM set of
 * seed 2030 and the kernel set --sizes confirm2), compared with the
 * h100-sxm model: a second card, blind to every fit; and the held-out
 * set's own lists (both halves' parameters) measured on that H100 too, and
 * a small third kernel set (--sizes check3, confirm/kernels3.json) and a
 * fourth of scatters and sparse stores (--sizes check4,
 * confirm/kernels4.json), a fifth of scatters near L2's size (--sizes
 * check5, confirm/kernels5.json) and a sixth of kernels the pipes pace
 * after one load round (--sizes check6, confirm/kernels6.json). Then the
 * H200's own runs of the seed-2030 GEMMs (confirm/gemm5.json, split
 * "confirm5") and of the confirm2, check4 and check6 kernels
 * (confirm/kernels2.json, kernels4.json, kernels6.json, whose rows' split
 * names the set; read here as halves "h200-confirm2", "h200-check4" and
 * "h200-check6"). Their rows are left out of the per-kind table (a place
 * to study) and out of the dump. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "api.h"
#include "hwdb.h"

#define HELDOUT_DIR SIMT_TEST_DIR "/gpu/results/h200/heldout"
#define CONFIRM_DIR SIMT_TEST_DIR "/gpu/results/h200/confirm"
#define H100_DIR SIMT_TEST_DIR "/gpu/results/h100/confirm"
#define H100_HELDOUT_DIR SIMT_TEST_DIR "/gpu/results/h100/heldout"
#define MAX_ROWS 4096
#define MAX_DROPPED 16
#define MAX_RETRIES 32

enum { CLASS_GEMM, CLASS_MICRO, CLASS_EVERYDAY, CLASS_COUNT };
static const char *const class_names[CLASS_COUNT] = {"GEMM", "micro kernels", "everyday kernels"};
enum {
    HALF_FIT,
    HALF_HELDOUT,
    HALF_CONFIRM,
    HALF_CONFIRM2,
    HALF_CONFIRM3,
    HALF_CONFIRM4,
    HALF_H100_KERNELS,
    HALF_H100_GEMM,
    HALF_H100_HELDOUT,
    HALF_H100_CHECK3,
    HALF_H100_CHECK4,
    HALF_H100_CHECK5,
    HALF_H100_CHECK6,
    HALF_CONFIRM5,
    HALF_H200_KERNELS2,
    HALF_H200_CHECK4,
    HALF_H200_CHECK6,
    HALF_COUNT
};
static const char *const half_names[HALF_COUNT] = {
    "fit",           "heldout",       "confirm",       "confirm2",    "confirm3",    "confirm4",
    "h100-confirm2", "h100-confirm5", "h100-heldout",  "h100-check3", "h100-check4", "h100-check5",
    "h100-check6",   "confirm5",      "h200-confirm2", "h200-check4", "h200-check6"};
#define IS_CONFIRM(h) ((h) >= HALF_CONFIRM)
/* the halves that hold kernels: the held-out set's two, and the
 * independent kernel sets (the H200's and the H100's) */
/* the H100's small kernel sets, check3 to check6 */
#define IS_CHECK(h) ((h) >= HALF_H100_CHECK3 && (h) <= HALF_H100_CHECK6)
#define CHECK_COUNT (HALF_H100_CHECK6 - HALF_H100_CHECK3 + 1)
/* the H200's blind kernel sets, confirm2, check4 and check6 */
#define IS_H200_KSET(h) ((h) >= HALF_H200_KERNELS2 && (h) <= HALF_H200_CHECK6)
#define H200_KSET_COUNT (HALF_H200_CHECK6 - HALF_H200_KERNELS2 + 1)
#define HAS_KERNELS(h)                                                                                       \
    ((h) <= HALF_CONFIRM || (h) == HALF_H100_KERNELS || (h) == HALF_H100_HELDOUT || IS_CHECK(h) ||           \
     IS_H200_KSET(h))
#define HAS_GEMMS(h) ((h) != HALF_H100_KERNELS && !IS_CHECK(h) && !IS_H200_KSET(h))
/* the sets of everyday kernels alone: check5 and check6 */
#define EVERYDAY_ONLY(h) ((h) == HALF_H100_CHECK5 || (h) == HALF_H100_CHECK6 || (h) == HALF_H200_CHECK6)
/* whether a half holds rows of a class */
#define HAS_CLASS(h, c)                                                                                      \
    ((c) == CLASS_GEMM ? HAS_GEMMS(h) : HAS_KERNELS(h) && !(EVERYDAY_ONLY(h) && (c) == CLASS_MICRO))
/* the issue's bars: median, worst (printed, not asserted) */
static const double issue_bars[CLASS_COUNT][2] = {{0.10, 0.30}, {0.08, 0.25}, {0.15, 0.35}};
/* regression ceilings on the held-out half: median, worst. Set from the
 * model at commit time (printed by this test as "held-out"), rounded up. */
static const double ceilings[CLASS_COUNT][2] = {
    /* GEMM, after the single-call floor, operands in flight, alignment slots and
     * int8 as torch._int_mm: 13.4% / 88.7%; then the dirty lines a single call
     * evicts (model/l2_state.h), FP64 without stream-K, split-K's semaphore,
     * the FMA tiles cuBLAS runs for small m and its small-N kernel for m = 4:
     * 8.1% / 83.6% (fp64_random_aligned_32x16x1696); then a single call's
     * boost before the power limit (model/gemm_boost.c), tf32's mma.sync
     * kernels and reduction kernel, FP64's DMMA tiles, int8's and fp32's
     * tile and split choices from the kernel names: 6.3% / 83.6%; then
     * FP64's split over every SM and its serial reduction, cuBLAS's 448x64
     * tile for 16-bit weight streaming, the 16-bit fallback kernels' slots,
     * int8's resident blocks: 5.5% / 44.3% (int8_llm_128x57344x8192); then
     * the split-K reduction kernel priced from its grid: 5.6% / 44.3%; then
     * cuBLAS's split-K counts for tiny outputs (gemm_splitk.c), FP32's
     * short-K kernels (gemm_shortk.c), the DRAM queue of skinny GEMMs
     * (gemm_skinny.c), tf32's reduction rule and the 16-bit fallback
     * tiles, int8's 128x256 tile for large outputs, gemmSN for m = 2..4
     * where it runs, and the single-call floor refitted (1.6 us): 5.3% /
     * 28.6% (tf32_random_7x65x2493); then the next session's streaming
     * kernels of few FP32 rows, bf16 align1, int8 and tf32 work: 5.0% /
     * 28.6% (the same row) */
    {0.06, 0.29},
    /* kernels, after int_ops, repeats, l2_warm, distinct_addresses, partial
     * stores and the L2's atomic units: micro 7.6% / 90.0%, everyday
     * 16.7% / 232.4%; then the dirty lines a cold launch writes back, shared
     * read-only tables, L2 hits by their sectors, and mis-described requests
     * fixed: micro 6.6% / 90.0%, everyday 13.4% / 96.4%; then integer work by
     * pipe (int_mul_ops), alu_chains, barriers and shuffles, atomics by L2
     * slice and sector, random eviction of dirty lines: micro 6.0% / 23.2%
     * (store_4B_stride32), everyday 10.1% / 47.6% (layernorm_65536x512);
     * then the SM's barrier unit, the block slot's launch and retire, shared
     * stores landing before a barrier, and blocks in step at their barriers:
     * micro 5.2% / 23.2%, everyday 7.7% / 30.6% (gather_random_table_4MiB);
     * then loads indexed by the thread issued together and scattered reads
     * of a sectored L2: everyday 5.2% / 30.6%; then waves in step where the
     * pipes set the pace (the hash loops, model/kernel_network.c): everyday
     * 4.1% / 23.2% (scatter_random_64MiB); then FP64 instructions that
     * hold their scheduler (tests/gpu/results/h100/chains.json, a fit
     * probe): micro 5.4% / 16.0% (fp32_fma_1chain; fp64_fma_1chain -22.6%
     * -> -14.2%); then the H200's own L2 request and read-modify-write
     * rates (simt-calibrate run 10, in place of the H100 sibling's):
     * everyday 4.0% / 15.9% (reduce_sum_2^28; scatter_random_64MiB -23% -> -14%) */
    {0.06, 0.17},
    {0.05, 0.17},
};
/* regression ceiling on the GEMM confirmation set: median, worst. Set from
 * the model when the set was committed, rounded up: 7.6% / 108.7%
 * (tf32_random_7x2x15935); after int8's resident blocks 7.7% / 108.7%;
 * after the reduction kernel priced from its grid 7.6% / 108.8%.
 * (The model as of the start of that day, before the weight-streaming,
 * FP64, two-load and tiny-GEMM work, gave 8.2% / 108.7%.) After the
 * split-K, short-K, skinny, tf32, int8-tile, gemmSN and floor work of the
 * next session (2026-12-02): 6.9% / 53.9% (fp32_llm_16x4096x4096).
 * After the streaming kernels of few FP32 rows, the sm80_xmma second
 * pass, fp64's outer product, tf32's mma.sync range and swizzled grids,
 * int8's lone-block chain and bf16's align1 kernels (2026-12-02, third
 * session): 6.3% / 44.1% (tf32_random_1x1054x191). After the GEMV
 * kernels' walk of K (model/gemm_gemv.c, fourth session): 6.3% / 31.2%
 * (fp32_random_2516x38x10987); after FP32's tall narrow tiles priced by
 * the outputs resident an SM (model/gemm_narrow.c): 6.3% / 29.0%
 * (fp32_random_aligned_112x736x16); after the short-K split form's wider
 * range (gemm_shortk.c): 6.3% / 27.8% (fp32_llm_4x10240x8192). */
static const double confirm_ceiling[HALF_COUNT][2] = {
    [HALF_CONFIRM] = {0.07, 0.28},
    /* the second confirmation set: its first comparison with the model,
     * blind, 5.4% / 40.6% (fp32_random_507x245x6); after the classes it
     * showed were probed (tf32's and fp32's split forms, bf16's gemmSN),
     * 5.4% / 34.9% (fp64_random_14427x987x64) */
    [HALF_CONFIRM2] = {0.06, 0.35},
    /* the third (confirm/gemm3.json, --seed 2028), drawn blind to both
     * earlier sets and every fit probe and committed before any comparison:
     * its first comparison with the model, blind, 6.0% / 83.7%
     * (bf16_random_33x6x1660), 10 rows past 30%; after fit probes of fresh
     * shapes around those rows' classes (not blind any more: FP64's small
     * odd-n products, tf32 at K = 1 and 2, bf16's split of 20..80 rows,
     * FP32's dot kernel, lone blocks and narrow n): 5.4% / 44.1%
     * (fp32_random_aligned_16x944x112); after cuBLAS's FP32 windows of 8
     * to 16 rows (gemm_tiny.c, from an H100's fit probe of 456 fp32
     * shapes around that row's class): 5.5% / 37.5%
     * (bf16_random_317x4x7967; the fp32 row -16%); after FP64's few
     * columns streamed at two slots an element (gemm_tiny.c) and the
     * unaligned 16-bit kernels' one-wave split (gemm_splitk.c), both from
     * the H200's fit probes (fp64n3, bf16n4): 5.5% / 28.9%
     * (fp16_random_533x4x782; fp64 4360x3x4339 -31% -> -17%, bf16
     * 317x4x7967 +37% -> +12%) */
    [HALF_CONFIRM3] = {0.06, 0.30},
    /* the fourth (confirm/gemm4.json, --seed 2029), blind to all of the
     * above and every fit probe, measured and committed after the rules
     * the third prompted, then compared once: 5.9% / 39.6%
     * (fp64_random_1724x3940x5), 8 rows past 30%; after FP64's odd-K
     * store floor, FP32's few-column split and the 16-bit staged epilogue
     * (fit probes only, not blind any more): 5.9% / 37.5%
     * (bf16_random_383x5712x31); after tf32's split form from an H100's
     * grid (gemm_family.c; its two tf32 rows past 30% were among the
     * classes that grid was drawn around) and FP64's outer product at
     * any side (gemm_k1.c): 5.7% / 37.5% (tf32 32x1216x16 -31% -> +6%,
     * 288x176x48 -31% -> +4%, fp64 101x2x1 +32% -> -4%); after fp8's
     * data-parallel schedule for few tiles (gemm_stream.c, from the same
     * H100 probe): 5.5% / 37.5% (fp8 368x384x16320 -36% -> +9%); after
     * the H100's probe windows2 (fit data around its worst classes): the
     * 16-bit fallback kernels' small tiles sharing an SM, one fill a round
     * (gemm_family.c): 5.4% / 29.8% (bf16_random_383x5712x31, +37% ->
     * +30%; fp16 13327x3x28 +31% -> +10%) */
    [HALF_CONFIRM4] = {0.06, 0.30},
    /* a GEMM set drawn with seed 2030 and measured on an H100 SXM
     * (tests/gpu/results/h100/confirm/gemm5.json: the session of 2026-12-07
     * asked for an H200 and got an H100), first compared with the h100-sxm
     * model after its measured figures were committed: 7.5% / 68.9%
     * (fp32_random_87x2x4405 -69%, fp16_random_3x23x2689 +65%: the tiny and
     * few-column kernels cuBLAS picks on this card are not the H200's);
     * after FP32's split of two or three columns at long K (gemm_tiny.c,
     * from the H100's fit probe gemm_probe_classes_h100t.json, drawn
     * around that row's class): 7.6% / 65.2% (fp16_random_3x23x2689;
     * fp32 87x2x4405 -69% -> -26%); after the night's rules from fit
     * probes (fp64 few columns, the fallback tiles' shared fill, bf16's
     * one-block walk): 7.6% / 61.3% (bf16_random_6x2x557; fp16 3x23x2689
     * +65% -> +55%); after the H100's windows2 and windows3 fit probes
     * (bf16's pieces of 8 for 5 to 8 rows, 5 rows' one gemmSN block, tf32's
     * split form to 48 tiles, fp32 gemmSN from 13 slabs, FP64's d884 from K
     * = 17): 6.9% / 27.4% (tf32_random_38x6x192; bf16 6x2x557 +61% -> +6%,
     * tf32 1168x128x16 -35% -> -2%, fp64 637x8654x23 -33% -> -2%, fp32
     * 2x1079x436 -28% -> +2%). */
    [HALF_H100_GEMM] = {0.07, 0.28},
    /* the H200 held-out set's GEMM shapes (seed 11, fit and held-out halves
     * alike) on the H100 SXM (tests/gpu/results/h100/heldout/gemm.json),
     * first compared after the day's rules were committed: 5.1% / 37.0%;
     * after the night's: 5.1% / 33.5% (bf16_random_12x6928x1372; bf16
     * 6x82x1306 +37% -> +1%) */
    [HALF_H100_HELDOUT] = {0.07, 0.35},
    /* the same seed-2030 shapes on the H200 (confirm/gemm5.json, 2026-12-07
     * 23:22 UTC, tests/gpu/heldout/run_blind_h200.sh), committed before any
     * comparison; judged first against the answers committed before the run
     * (confirm/blind-predictions.json, model commit a34831d): 6.2% / 71.8%
     * (fp16_random_3x23x2689) over the 170 rows that file holds; the model
     * as it stood when the run was committed (whose night rules drew on the
     * H100's run of these shapes, so not blind): 5.8% / 55.8%
     * (bf16_random_6x2x557; fp64 637x8654x23 -42%, tf32 1168x128x16 -38%,
     * fp32 2x1079x436 -30%); after the rules from the H100's windows3 fit
     * probe (drawn around those rows' classes, so not blind): 5.6% / 28.8%
     * (fp64_random_aligned_1120x9680x16; bf16 6x2x557 +56% -> +2%, fp64
     * 637x8654x23 -42% -> -9%, tf32 1168x128x16 -38% -> -5%, fp32
     * 2x1079x436 -30% -> +0%). */
    [HALF_CONFIRM5] = {0.06, 0.29}};

/* the independent kernel set (confirm/kernels.json, simt-heldout --sizes
 * confirm: the held-out set's kinds at other sizes and parameters), its
 * first comparison with the model, blind: micro kernels 4.5% / 52.4%
 * (store_4B_stride16), everyday kernels 7.1% / 241.3% (scatter_random_8MiB:
 * a scatter into a table that fits in L2, whose size a store could not say).
 * Since then (not blind): stores say their table (distinct_addresses), L2
 * hits cost slice requests, the H200's L2 write figure and the back-to-back
 * launch interval: everyday 6.8% / 27.4%, micro 4.1% / 52.4%; then a
 * partly written sector's read-modify-write by the sector, each line's
 * rows apart, and the L2's reuse edge: everyday 6.6% / 27.4%, micro 4.1% /
 * 24.5% (int_imad_8chains_1block_per_sm); then waves in step and an atomic
 * set of 512 B over two slices: everyday 5.5% / 25.0%
 * (histogram_shared_64bins and _128bins, -25%: their global atomics add
 * to the loads' time rather than hide behind them; not modelled). */
static const double kernel_confirm_ceiling[CLASS_COUNT][2] = {
    [CLASS_MICRO] = {0.05, 0.26}, [CLASS_EVERYDAY] = {0.06, 0.26}};

/* the second independent kernel set (simt-heldout --sizes confirm2),
 * measured on an H100 SXM (tests/gpu/results/h100/confirm/kernels2.json)
 * and first compared with the h100-sxm model after its measured figures and
 * the rules fitted on the probes were committed: micro 3.5% / 39.4%
 * (l2_read_44MiB_warm: a working set near the L2's size that the next
 * launch does not find there), everyday 7.0% / 41.3%
 * (histogram_global_8192bins). Then (not blind any more) the L2's reuse
 * edge, l2_reuse_fraction: micro 3.5% / 29.9% (coalesce_16B_stride16). */
static const double h100_kernel_ceiling[CLASS_COUNT][2] = {
    [CLASS_MICRO] = {0.05, 0.31}, [CLASS_EVERYDAY] = {0.08, 0.44}};

/* the H200 held-out set's kernels (both halves' parameters) on the H100 SXM
 * (tests/gpu/results/h100/heldout/kernels.json), first compared after the
 * day's rules were committed: micro 3.6% / 21.8%, everyday 6.3% / 27.8%;
 * after waves in step (the hash loops): everyday 5.2% / 22.5% */
static const double h100_heldout_ceiling[CLASS_COUNT][2] = {
    [CLASS_MICRO] = {0.05, 0.24}, [CLASS_EVERYDAY] = {0.06, 0.24}};

/* the third independent kernel set (simt-heldout --sizes check3: rows of
 * 20 to 56 KiB, gathers of 12 to 40 MiB tables, FP64 chains at low
 * occupancy), measured on an H100 SXM after the afternoon's rules of
 * 2026-12-07 were committed and compared blind: micro 8.8% / 16.2%,
 * everyday 11.1% / 27.3% (softmax_4096x7168: rows an SM's L1 was taken to
 * hold whole). Then (not blind any more) the same re-read rule for L1 as
 * for L2 (repeat_whole_fraction): everyday 5.5% / 15.7%. */

/* the fourth (simt-heldout --sizes check4: scatters of 2^24 4-byte stores
 * into tables of 40 MiB to 2 GiB, 4-byte stores 192 B to 2 KiB apart),
 * measured on an H100 SXM once the DRAM read-modify-write rate
 * (dram_partial_stores_per_s) was committed and compared blind: micro 2.0%
 * / 4.0%, everyday 3.5% / 58.8% (scatter_random_40MiB: a table under L2's
 * size taken to stay there whole). Then (not blind any more) a store
 * table's kept share and the read-modify-writes on the slices' request
 * station: micro 2.5% / 4.0%, everyday 3.4% / 9.1%. */

/* the fifth (simt-heldout --sizes check5: scatters into tables of 28 to 112
 * MiB, near the L2's 50 MiB), measured on an H100 SXM once the store-table
 * rule was committed, its predictions in that commit's message, compared
 * blind: everyday 12.2% / 27.6% (scatter_random_28MiB: more of a table
 * half the L2's size stays than the 4-way sets give). Everyday only. */

/* the sixth (simt-heldout --sizes check6: integer hash loops of 4 to 48
 * rounds over 2^20 to 2^26 elements, a loaded value's chain of 16 to 256
 * dependent FMAs), measured on an H100 SXM once the waves-in-step rule was
 * committed, its predictions in that commit's message, compared blind:
 * everyday 2.7% / 10.9% (poly_fma_64_2^22). The model before the rule gave
 * 11.0% / 29.3% (hash_loop_8_rounds_2^26). Everyday only. */

/* the H100 check sets' ceilings, check3 to check6, each as noted above */
static const double h100_check_ceiling[CHECK_COUNT][CLASS_COUNT][2] = {
    {[CLASS_MICRO] = {0.10, 0.18}, [CLASS_EVERYDAY] = {0.07, 0.18}},
    {[CLASS_MICRO] = {0.04, 0.06}, [CLASS_EVERYDAY] = {0.05, 0.11}},
    {[CLASS_EVERYDAY] = {0.13, 0.29}},
    {[CLASS_EVERYDAY] = {0.03, 0.12}}};

/* the H200's own runs of the sets above (tests/gpu/heldout/run_blind_h200.sh,
 * 2026-12-07 23:22 UTC): the second kernel set (confirm/kernels2.json),
 * check4 and check6 (kernels4.json, kernels6.json), judged first against
 * the answers committed before the run (confirm/blind-predictions.json,
 * model commit a34831d): confirm2 micro 3.6% / 31.4%
 * (coalesce_16B_stride32), everyday 5.1% / 21.1%
 * (histogram_global_16777216bins); check4 micro 13.4% / 16.4%, everyday
 * 14.2% / 21.0%; check6 everyday 3.7% / 12.1%. The model as it stood
 * when the run was committed gave the same figures (the kernel rules
 * committed after a34831d moved none of these medians or worsts): the
 * ceilings, rounded up. Not met: confirm2's worst micro row, the 16-byte
 * loads 512 B apart (the H100's worst too), and check4's micro median
 * (4 rows of sparse 4-byte stores, -9% to -16%). Then the H200's own
 * L2 request rate and read-modify-write rate from the same run's
 * simt-calibrate (calibrate-run10.yaml, in place of the H100 sibling's):
 * check4 micro 4.5% / 14.2%, everyday 2.2% / 15.3% (not blind: measured
 * on the card these rows ran on, after they were seen). */
static const double h200_kset_ceiling[H200_KSET_COUNT][CLASS_COUNT][2] = {
    {[CLASS_MICRO] = {0.04, 0.32}, [CLASS_EVERYDAY] = {0.06, 0.22}},
    {[CLASS_MICRO] = {0.05, 0.15}, [CLASS_EVERYDAY] = {0.03, 0.16}},
    {[CLASS_EVERYDAY] = {0.04, 0.13}}};

struct row {
    int cls;
    int half;
    double error; /* (predicted - measured) / measured */
    char label[96];
    char kind[32]; /* GEMM: dtype/shape class; kernels: kind */
};

static struct row rows[MAX_ROWS];
static size_t row_count;

/* dropped request fields: name and how many requests lost it */
static struct {
    char name[64];
    int count;
} dropped[MAX_DROPPED];
static size_t dropped_count;

static void note_dropped(const char *field)
{
    const char *dot = strrchr(field, '.');
    const char *name = dot != NULL ? dot + 1 : field;
    for (size_t i = 0; i < dropped_count; i++)
        if (strcmp(dropped[i].name, name) == 0) {
            dropped[i].count++;
            return;
        }
    if (dropped_count < MAX_DROPPED) {
        snprintf(dropped[dropped_count].name, sizeof dropped[dropped_count].name, "%s", name);
        dropped[dropped_count++].count = 1;
    }
}

/* Removes the member a field path names ("l2_warm", "per_thread.int_ops",
 * "per_thread.accesses[2].repeats") from body; 0 when it was there. */
static int drop_path(json_t *body, const char *path)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *node = body;
    char *part = buf;
    for (;;) {
        char *dot = strchr(part, '.');
        if (dot != NULL)
            *dot = '\0';
        char *bracket = strchr(part, '[');
        long index = -1;
        if (bracket != NULL) {
            index = strtol(bracket + 1, NULL, 10);
            *bracket = '\0';
        }
        if (dot == NULL && index < 0)
            return json_object_del(node, part);
        node = json_object_get(node, part);
        if (index >= 0)
            node = json_array_get(node, (size_t)index);
        if (node == NULL || dot == NULL)
            return -1;
        part = dot + 1;
    }
}

/* POSTs body (modified in place: unknown fields dropped, each noted once
 * per request); the answer, or NULL with *status set. */
static json_t *post_dropping(const struct simt_hwdb *db, const char *route, json_t *body, int *status)
{
    for (int attempt = 0; attempt < MAX_RETRIES; attempt++) {
        json_t *answer = accuracy_post(db, route, body, status);
        if (answer == NULL || *status == 200)
            return answer;
        json_t *error = json_object_get(answer, "error");
        const char *code = json_string_value(json_object_get(error, "code"));
        const char *field = json_string_value(json_object_get(error, "field"));
        if (*status != 400 || code == NULL || strcmp(code, "unknown_field") != 0 || field == NULL ||
            drop_path(body, field) != 0)
            return answer;
        note_dropped(field);
        json_decref(answer);
    }
    return NULL;
}

static double number(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* one row; its half is forced_split where that is not NULL (a set whose
 * rows' own split names a half of another card's set), else the row's */
static void add_row(int cls, json_t *item, double predicted, double measured, const char *label,
                    const char *kind, const char *forced_split)
{
    ck_assert(row_count < MAX_ROWS);
    struct row *r = &rows[row_count++];
    const char *split =
        forced_split != NULL ? forced_split : json_string_value(json_object_get(item, "split"));
    r->half = HALF_COUNT;
    for (int h = 0; h < HALF_COUNT && split != NULL; h++)
        if (strcmp(split, half_names[h]) == 0)
            r->half = h;
    ck_assert_msg(r->half < HALF_COUNT, "%s: no split", label);
    r->cls = cls;
    r->error = (predicted - measured) / measured;
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->kind, sizeof r->kind, "%s", kind != NULL ? kind : "?");
}

static void read_gemms(const struct simt_hwdb *db, const char *path, const char *forced_split)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    ck_assert_msg(doc != NULL, "%s: %s (line %d)", path, jerr.text, jerr.line);
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const char *gpu = json_string_value(json_object_get(doc, "gpu"));
        json_t *body = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O}", "gpu", gpu != NULL ? gpu : "h200-sxm", "m",
                                 json_object_get(run, "m"), "n", json_object_get(run, "n"), "k",
                                 json_object_get(run, "k"), "dtype", json_object_get(run, "dtype"), "batch",
                                 json_object_get(run, "batch"));
        ck_assert_ptr_nonnull(body);
        int status = 0;
        json_t *answer = post_dropping(db, "/v1/gemm", body, &status);
        const char *name = json_string_value(json_object_get(run, "name"));
        ck_assert_msg(answer != NULL && status == 200, "%s: answered %d", name, status);
        char kind[32];
        snprintf(kind, sizeof kind, "%s/%s", json_string_value(json_object_get(run, "dtype")),
                 json_string_value(json_object_get(run, "shape_class")));
        add_row(CLASS_GEMM, run, number(answer, "time_s"), number(run, "measured_s"), name, kind,
                forced_split);
        json_decref(answer);
        json_decref(body);
    }
    json_decref(doc);
}

static void read_kernels(const struct simt_hwdb *db, const char *path, const char *forced_split)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    ck_assert_msg(doc != NULL, "%s: %s (line %d)", path, jerr.text, jerr.line);
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(doc, "kernels"), i, k)
    {
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *cls = json_string_value(json_object_get(k, "class"));
        ck_assert_msg(cls != NULL, "%s: no class", name);
        json_t *body = json_deep_copy(json_object_get(k, "request"));
        int status = 0;
        json_t *answer = post_dropping(db, "/v1/kernel", body, &status);
        if (answer == NULL || status != 200) {
            char *shown = answer != NULL ? json_dumps(answer, JSON_COMPACT) : NULL;
            ck_abort_msg("%s: answered %d: %s", name, status, shown != NULL ? shown : "(nothing)");
        }
        char label[96];
        snprintf(label, sizeof label, "%s (%s)", name, json_string_value(json_object_get(k, "kind")));
        add_row(strcmp(cls, "everyday") == 0 ? CLASS_EVERYDAY : CLASS_MICRO, k, number(answer, "time_s"),
                number(k, "measured_s"), label, json_string_value(json_object_get(k, "kind")), forced_split);
        json_decref(answer);
        json_decref(body);
    }
    json_decref(doc);
}

/* median and worst |error| of one class and half; returns the count */
static size_t summarize(int cls, int half, double *median, double *worst)
{
    static double values[MAX_ROWS];
    size_t n = 0;
    *worst = 0.0;
    for (size_t i = 0; i < row_count; i++) {
        if (rows[i].cls != cls || rows[i].half != half)
            continue;
        values[n++] = fabs(rows[i].error);
        if (fabs(rows[i].error) > *worst)
            *worst = fabs(rows[i].error);
    }
    *median = accuracy_median(values, n);
    return n;
}

static int by_worst(const void *a, const void *b)
{
    double x = fabs(((const struct row *)a)->error), y = fabs(((const struct row *)b)->error);
    return (x < y) - (x > y);
}

/* per kind (GEMM: dtype/shape class), both halves together: where the error is */
static void print_kinds(void)
{
    static double values[MAX_ROWS];
    static char seen[64][32];
    size_t kinds = 0;
    printf("%-28s %5s %8s %9s %8s\n", "kind (both halves)", "rows", "median", "signed", "worst");
    for (size_t i = 0; i < row_count; i++) {
        if (IS_CONFIRM(rows[i].half))
            continue;
        int known = 0;
        for (size_t j = 0; j < kinds; j++)
            known |= strcmp(seen[j], rows[i].kind) == 0;
        if (known || kinds == 64)
            continue;
        snprintf(seen[kinds++], sizeof seen[0], "%s", rows[i].kind);
        size_t n = 0;
        double worst = 0.0;
        static double signed_values[MAX_ROWS];
        for (size_t j = 0; j < row_count; j++) {
            if (strcmp(rows[j].kind, rows[i].kind) != 0 || IS_CONFIRM(rows[j].half))
                continue;
            signed_values[n] = rows[j].error;
            values[n++] = fabs(rows[j].error);
            if (fabs(rows[j].error) > fabs(worst))
                worst = rows[j].error;
        }
        double med = accuracy_median(values, n), signed_med = accuracy_median(signed_values, n);
        printf("%-28s %5zu %7.1f%% %+8.1f%% %+7.1f%%\n", rows[i].kind, n, 100.0 * med, 100.0 * signed_med,
               100.0 * worst);
    }
}

/* SIMT_HELDOUT_DUMP=file: every row, worst first, as tab-separated text
 * (class, half, signed error, label, kind), for study; off by default */
static void dump_rows(const char *path)
{
    if (path == NULL || *path == '\0')
        return;
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "SIMT_HELDOUT_DUMP: cannot write %s", path);
    for (size_t i = 0; i < row_count; i++)
        if (!IS_CONFIRM(rows[i].half))
            fprintf(f, "%s\t%s\t%+.4f\t%s\t%s\n", class_names[rows[i].cls], half_names[rows[i].half],
                    rows[i].error, rows[i].label, rows[i].kind);
    ck_assert_int_eq(fclose(f), 0);
    printf("wrote %zu rows to %s\n", row_count, path);
}

static const char *half_title(int h)
{
    return h == HALF_H200_CHECK6     ? "H200 check6"
           : h == HALF_H200_CHECK4   ? "H200 check4"
           : h == HALF_H200_KERNELS2 ? "H200 second kernel confirmation"
           : h == HALF_CONFIRM5      ? "fifth confirmation"
           : h == HALF_H100_CHECK6   ? "H100 check6"
           : h == HALF_H100_CHECK5   ? "H100 check5"
           : h == HALF_H100_CHECK4   ? "H100 check4"
           : h == HALF_H100_CHECK3   ? "H100 check3"
           : h == HALF_H100_HELDOUT  ? "H100 held-out list"
           : h == HALF_H100_GEMM     ? "H100 confirmation"
           : h == HALF_H100_KERNELS  ? "H100 confirmation"
           : h == HALF_CONFIRM4      ? "fourth confirmation"
           : h == HALF_CONFIRM3      ? "third confirmation"
           : h == HALF_CONFIRM2      ? "second confirmation"
           : h == HALF_CONFIRM       ? "confirmation"
                                     : "held-out";
}

/* each class from `first` on: median and worst within its ceiling */
static void within_ceilings(double got[CLASS_COUNT][2], const double ceiling[CLASS_COUNT][2], int first,
                            const char *what)
{
    for (int c = first; c < CLASS_COUNT; c++) {
        ck_assert_msg(got[c][0] <= ceiling[c][0], "%s %s median %.1f%% over its ceiling %.0f%%",
                      class_names[c], what, 100.0 * got[c][0], 100.0 * ceiling[c][0]);
        ck_assert_msg(got[c][1] <= ceiling[c][1], "%s %s worst %.1f%% over its ceiling %.0f%%",
                      class_names[c], what, 100.0 * got[c][1], 100.0 * ceiling[c][1]);
    }
}

START_TEST(heldout_set_within_ceilings)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s:%d: %s", diag.file,
                  diag.line, diag.message);
    read_gemms(db, HELDOUT_DIR "/gemm.json", NULL);
    read_gemms(db, CONFIRM_DIR "/gemm.json", NULL);
    read_gemms(db, CONFIRM_DIR "/gemm2.json", NULL);
    read_gemms(db, CONFIRM_DIR "/gemm3.json", NULL);
    read_gemms(db, CONFIRM_DIR "/gemm4.json", NULL);
    read_kernels(db, HELDOUT_DIR "/kernels.json", NULL);
    read_kernels(db, CONFIRM_DIR "/kernels.json", NULL);
    read_gemms(db, H100_DIR "/gemm5.json", NULL);
    read_kernels(db, H100_DIR "/kernels2.json", NULL);
    read_gemms(db, H100_HELDOUT_DIR "/gemm.json", NULL);
    read_kernels(db, H100_HELDOUT_DIR "/kernels.json", NULL);
    read_kernels(db, H100_DIR "/kernels3.json", NULL);
    read_kernels(db, H100_DIR "/kernels4.json", NULL);
    read_kernels(db, H100_DIR "/kernels5.json", NULL);
    read_kernels(db, H100_DIR "/kernels6.json", NULL);
    read_gemms(db, CONFIRM_DIR "/gemm5.json", NULL);
    read_kernels(db, CONFIRM_DIR "/kernels2.json", "h200-confirm2");
    read_kernels(db, CONFIRM_DIR "/kernels4.json", "h200-check4");
    read_kernels(db, CONFIRM_DIR "/kernels6.json", "h200-check6");
    for (size_t i = 0; i < dropped_count; i++)
        printf("note: dropped '%s' from %d requests (the model does not read it yet)\n", dropped[i].name,
               dropped[i].count);
    printf("%-17s %-8s %5s %8s %8s   %s\n", "class", "half", "rows", "median", "worst",
           "issue 11 bars / ceiling");
    double got[CLASS_COUNT][2], confirm[HALF_COUNT][2], kconfirm[CLASS_COUNT][2], kh100[CLASS_COUNT][2],
        kh100h[CLASS_COUNT][2], kcheck[CHECK_COUNT][CLASS_COUNT][2], kh200[H200_KSET_COUNT][CLASS_COUNT][2];
    memset(confirm, 0, sizeof confirm);
    memset(kconfirm, 0, sizeof kconfirm);
    memset(kh100, 0, sizeof kh100);
    memset(kh100h, 0, sizeof kh100h);
    memset(kcheck, 0, sizeof kcheck);
    memset(kh200, 0, sizeof kh200);
    for (int c = 0; c < CLASS_COUNT; c++) {
        for (int h = 0; h < HALF_COUNT; h++) {
            double med, worst;
            size_t n = summarize(c, h, &med, &worst);
            if (!HAS_CLASS(h, c))
                continue; /* the later confirmation sets have GEMMs only, the H100's kernels apart */
            ck_assert_msg(n > 0, "%s: no %s rows", class_names[c], half_names[h]);
            printf("%-17s %-8s %5zu %7.1f%% %7.1f%%   bars %.0f%%/%.0f%%%s", class_names[c], half_names[h], n,
                   100.0 * med, 100.0 * worst, 100.0 * issue_bars[c][0], 100.0 * issue_bars[c][1],
                   med <= issue_bars[c][0] && worst <= issue_bars[c][1] ? " (met)" : " (not met)");
            const double *ceiling = IS_CHECK(h)       ? h100_check_ceiling[h - HALF_H100_CHECK3][c]
                                    : IS_H200_KSET(h) ? h200_kset_ceiling[h - HALF_H200_KERNELS2][c]
                                    : h == HALF_H100_HELDOUT && c != CLASS_GEMM ? h100_heldout_ceiling[c]
                                    : h == HALF_H100_KERNELS                    ? h100_kernel_ceiling[c]
                                    : IS_CONFIRM(h) && c != CLASS_GEMM          ? kernel_confirm_ceiling[c]
                                    : IS_CONFIRM(h)                             ? confirm_ceiling[h]
                                                                                : ceilings[c];
            if (h != HALF_FIT)
                printf("; ceiling %.0f%%/%.0f%%", 100.0 * ceiling[0], 100.0 * ceiling[1]);
            printf("\n");
            double *keep = h == HALF_HELDOUT                           ? got[c]
                           : h == HALF_H100_KERNELS                    ? kh100[c]
                           : IS_CHECK(h)                               ? kcheck[h - HALF_H100_CHECK3][c]
                           : IS_H200_KSET(h)                           ? kh200[h - HALF_H200_KERNELS2][c]
                           : h == HALF_H100_HELDOUT && c != CLASS_GEMM ? kh100h[c]
                           : IS_CONFIRM(h) && c != CLASS_GEMM          ? kconfirm[c]
                           : IS_CONFIRM(h)                             ? confirm[h]
                                                                       : NULL;
            if (keep != NULL) {
                keep[0] = med;
                keep[1] = worst;
            }
        }
    }
    print_kinds();
    qsort(rows, row_count, sizeof rows[0], by_worst);
    dump_rows(getenv("SIMT_HELDOUT_DUMP"));
    for (int c = 0; c < CLASS_COUNT; c++)
        for (int h = HALF_HELDOUT; h < HALF_COUNT; h++) {
            if (!HAS_CLASS(h, c))
                continue;
            printf("worst %s %s:", half_title(h), class_names[c]);
            for (size_t i = 0, shown = 0; i < row_count && shown < 5; i++) {
                if (rows[i].cls != c || rows[i].half != h)
                    continue;
                printf("%s %s %+.0f%%", shown ? "," : "", rows[i].label, 100.0 * rows[i].error);
                shown++;
            }
            printf("\n");
        }
    fflush(stdout);
    within_ceilings(got, ceilings, CLASS_GEMM, "held-out");
    within_ceilings(kconfirm, kernel_confirm_ceiling, CLASS_MICRO, "confirmation");
    within_ceilings(kh100, h100_kernel_ceiling, CLASS_MICRO, "H100 confirmation");
    within_ceilings(kh100h, h100_heldout_ceiling, CLASS_MICRO, "H100 held-out list");
    for (int h = HALF_H100_CHECK3; h <= HALF_H100_CHECK6; h++)
        within_ceilings(kcheck[h - HALF_H100_CHECK3], h100_check_ceiling[h - HALF_H100_CHECK3],
                        HAS_CLASS(h, CLASS_MICRO) ? CLASS_MICRO : CLASS_EVERYDAY, half_title(h));
    for (int h = HALF_H200_KERNELS2; h <= HALF_H200_CHECK6; h++)
        within_ceilings(kh200[h - HALF_H200_KERNELS2], h200_kset_ceiling[h - HALF_H200_KERNELS2],
                        HAS_CLASS(h, CLASS_MICRO) ? CLASS_MICRO : CLASS_EVERYDAY, half_title(h));
    for (int h = HALF_CONFIRM; h < HALF_COUNT; h++) {
        if (!HAS_GEMMS(h))
            continue;
        ck_assert_msg(confirm[h][0] <= confirm_ceiling[h][0], "GEMM %s median %.1f%% over its ceiling %.0f%%",
                      half_title(h), 100.0 * confirm[h][0], 100.0 * confirm_ceiling[h][0]);
        ck_assert_msg(confirm[h][1] <= confirm_ceiling[h][1], "GEMM %s worst %.1f%% over its ceiling %.0f%%",
                      half_title(h), 100.0 * confirm[h][1], 100.0 * confirm_ceiling[h][1]);
    }
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    return accuracy_run("accuracy_heldout", heldout_set_within_ceilings);
}
