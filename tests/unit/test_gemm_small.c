/* test_gemm_small.c - the GEMM model's kernel families for small, short-K
 * and skinny shapes (model/gemm_family.c): FP64's DMMA tiles, tf32 on
 * Hopper as Ampere's mma.sync kernels for short K and small outputs, the
 * reduction kernel behind outputs of a few tiles, int8's tiles on Hopper
 * (and cuBLAS's larger tile where K is long), fp32's split of K into
 * pieces of 128 for outputs of few tiles,
 * and the stores of C that tf32's and int8's Hopper kernels do not hide
 * under their math. On a made-up
 * GPU with round numbers (as test_gemm.c's), so that every expected value
 * can be worked by hand beside it. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"

/* 128 SMs at 1 GHz; tf32 from the datasheet, 1e15 x 0.66 = 6.6e14 flop/s
 * (5.15625e12 per SM; every tensor tile fills whole waves of 8192^3 on 128
 * SMs, so nothing is de-quantized); fp64 tensor 1e14 x 0.66; DRAM 4e12 B/s
 * for reads and (no write figure) writes; no L2 figure, no DRAM latency:
 * no feed limit, no per-wave fill. Back-to-back calls: 2.45 us a kernel. */
static void round_gpu(struct simt_gpu_spec *g, int compute_major)
{
    gemm_round_gpu(g, compute_major);
    g->tensor_dense_flops_per_s[SIMT_DTYPE_TF32] = 1.0e15;
    g->tensor_dense_flops_per_s[SIMT_DTYPE_FP64] = 1.0e14;
}

#define FLOOR 2.45e-6
#define TF32_SM_RATE (6.6e14 / 128.0)
#define NONTMA 0.73

/* Which tf32 kernels on Hopper: mma.sync for K under 128, or an output of
 * at most 2^18 elements with rows under 32768; wgmma (its register-fed B)
 * otherwise. Never on Ampere. */
static const struct {
    int compute_major;
    int64_t m, n, k;
    int mma_sync;
} tf32_family_rows[] = {
    {9, 8192, 8192, 16, 1}, {9, 8192, 8192, 124, 1}, {9, 8192, 8192, 128, 0}, {9, 512, 512, 512, 1},
    {9, 512, 513, 512, 0},  {9, 64, 4096, 4096, 1},  {9, 4, 57344, 8192, 0},  {9, 1024, 1024, 1024, 0},
    {8, 8192, 8192, 16, 0}, {8, 512, 512, 512, 0},
};

START_TEST(tf32_family)
{
    struct simt_gpu_spec g;
    round_gpu(&g, tf32_family_rows[_i].compute_major);
    struct simt_gemm_result r = gemm_predict_ok(&g, tf32_family_rows[_i].m, tf32_family_rows[_i].n,
                                                tf32_family_rows[_i].k, SIMT_DTYPE_TF32);
    ck_assert_int_eq(gemm_says(&r, "mma.sync"), tf32_family_rows[_i].mma_sync);
    ck_assert_int_eq(gemm_says(&r, "tf32 B"),
                     tf32_family_rows[_i].compute_major == 9 && !tf32_family_rows[_i].mma_sync);
    if (tf32_family_rows[_i].mma_sync) {
        ck_assert_int_eq(r.stream_k, 0);
        ck_assert_int_eq(gemm_says(&r, "epilogue"), 1);
    }
}
END_TEST

/* 8192 x 8192 x 16 tf32: every mma.sync tile divides 8192, K pads to one
 * 32-deep stage; ties go to the first tile, 256x128: 2048 tiles, 16 waves
 * of 2*256*128*32 flops at 0.73 * 5.15625e12 per SM = 8.9125 us of math,
 * A and B's 1 MiB read under it, then C's 8192^2 * 4 B = 268 MB written at
 * 4e12 B/s = 67.109 us after it. Ampere (wgmma absent, no serial epilogue):
 * the larger of 6.5 us of math at the full rate and 67.37 us of DRAM. */
START_TEST(tf32_short_k_stores_after_math)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result h = gemm_predict_ok(&g, 8192, 8192, 16, SIMT_DTYPE_TF32);
    double math = 16.0 * 2.0 * 256.0 * 128.0 * 32.0 / (NONTMA * TF32_SM_RATE);
    double write = 8192.0 * 8192.0 * 4.0 / 4.0e12;
    ck_assert_int_eq(h.tile_m, 256);
    ck_assert_int_eq(h.tile_n, 128);
    ck_assert_int_eq(h.split_k, 1);
    ck_assert_double_eq_tol(h.time_s, math + write + FLOOR, 1e-11);
    round_gpu(&g, 8);
    struct simt_gemm_result a = gemm_predict_ok(&g, 8192, 8192, 16, SIMT_DTYPE_TF32);
    double dram = (2.0 * 8192.0 * 16.0 * 4.0 + 8192.0 * 8192.0 * 4.0) / 4.0e12;
    ck_assert_double_eq_tol(a.time_s, dram + FLOOR, 1e-11);
    /* a faster DRAM write shortens the stores */
    round_gpu(&g, 9);
    g.measured_dram_write_bandwidth_bytes_per_s = 8.0e12;
    struct simt_gemm_result w = gemm_predict_ok(&g, 8192, 8192, 16, SIMT_DTYPE_TF32);
    ck_assert(w.time_s < h.time_s);
}
END_TEST

/* 16 x 16 x 16 tf32, one tile of 64x64: on Hopper cuBLAS runs its
 * reduction kernel behind the mma.sync kernel even unsplit: one more
 * kernel's 2.45 us, the GEMM's store of the partial (16*16*4 B at 4e12
 * B/s) and the reduction's one block reading it at its SM's share of DRAM
 * (4e12 / 128 B/s; no latency figure here). The GEMM itself: one 64x64 tile, K padded to 32, at 0.73 of the
 * rate; its C stores (1 KiB) after the math. A 128 x 128 x 128 (4 tiles)
 * gets the kernel too; 1024 x 1024 x 16 (256 tiles) does not; nor does an
 * unaligned 16 x 18 x 16. */
START_TEST(tf32_few_tiles_reduce_kernel)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result r = gemm_predict_ok(&g, 16, 16, 16, SIMT_DTYPE_TF32);
    ck_assert_int_eq(r.tile_m, 64);
    ck_assert_int_eq(r.split_k, 1);
    double math = 2.0 * 64.0 * 64.0 * 32.0 / (NONTMA * TF32_SM_RATE);
    double io = (2.0 * 16.0 * 16.0 * 4.0 + 16.0 * 16.0 * 4.0) / 4.0e12;
    double reduce = 16.0 * 16.0 * 4.0 / 4.0e12 + 16.0 * 16.0 * 4.0 / (4.0e12 / 128.0) + FLOOR;
    ck_assert_double_eq_tol(r.reduce_s, reduce, 1e-12);
    ck_assert_double_eq_tol(r.time_s, math + io - 2.0 * 16.0 * 16.0 * 4.0 / 4.0e12 + reduce + FLOOR, 1e-11);
    ck_assert(r.time_s > 2.0 * FLOOR);
    ck_assert(gemm_predict_ok(&g, 128, 128, 128, SIMT_DTYPE_TF32).reduce_s > 0.0);
    ck_assert(gemm_predict_ok(&g, 1024, 1024, 16, SIMT_DTYPE_TF32).reduce_s <= 0.0);
    ck_assert(gemm_predict_ok(&g, 16, 18, 16, SIMT_DTYPE_TF32).reduce_s <= 0.0);
    /* K of 17 to 127: outputs of up to 16 tiles of 32 rows or fewer get
     * it (16 x 1000 x 48), of 64 rows not (64 x 1000 x 48) */
    ck_assert(gemm_predict_ok(&g, 16, 1000, 48, SIMT_DTYPE_TF32).reduce_s > 0.0);
    ck_assert(gemm_predict_ok(&g, 64, 1000, 48, SIMT_DTYPE_TF32).reduce_s <= 0.0);
    /* a matrix-vector product (m = 1) runs as a GEMV, with no reduction
     * kernel behind it */
    ck_assert(gemm_predict_ok(&g, 1, 16, 64, SIMT_DTYPE_TF32).reduce_s <= 0.0);
    ck_assert_int_eq(gemm_predict_ok(&g, 1, 16, 64, SIMT_DTYPE_TF32).tensor_cores, 0);
    /* Ampere: one kernel */
    round_gpu(&g, 8);
    ck_assert(gemm_predict_ok(&g, 16, 16, 16, SIMT_DTYPE_TF32).reduce_s <= 0.0);
}
END_TEST

/* FP64 tensor cores take the DMMA kernels' tiles, at most 128x64 or 64x128,
 * on every NVIDIA GPU: an 8192^3 fp64 GEMM never gets 256x128. */
START_TEST(fp64_dmma_tiles)
{
    for (int major = 8; major <= 9; major++) {
        struct simt_gpu_spec g;
        round_gpu(&g, major);
        struct simt_gemm_result r = gemm_predict_ok(&g, 8192, 8192, 8192, SIMT_DTYPE_FP64);
        ck_assert_int_eq(r.tensor_cores, 1);
        ck_assert_int_le(r.tile_m * r.tile_n, 128 * 64);
        ck_assert_int_le(r.tile_m, 128);
        ck_assert_int_le(r.tile_n, 128);
    }
}
END_TEST

/* int8 on Hopper (torch._int_mm's mma.sync kernels): their tiles in our
 * m x n (a 32-row GEMM takes a 64-row tile, the 256-row tile is 256x128),
 * and C's int32 stores after the math: 8192^2 x 16, 256x128 tiles, 16
 * waves of 2*256*128*128 flops (K pads to one 128-deep stage) at 0.73 of
 * 2e15 * 0.66 / 128 per SM = 23.275 us, then 8192^2 * 4 B at 4e12 B/s =
 * 67.109 us. */
START_TEST(int8_tiles_and_stores)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_INT8] = 2.0e15;
    struct simt_gemm_result r = gemm_predict_ok(&g, 32, 8192, 4096, SIMT_DTYPE_INT8);
    ck_assert_int_eq(r.tile_m, 64);
    r = gemm_predict_ok(&g, 8192, 8192, 16, SIMT_DTYPE_INT8);
    ck_assert_int_eq(r.tile_m, 256);
    ck_assert_int_eq(r.tile_n, 128);
    ck_assert_int_eq(gemm_says(&r, "epilogue"), 1);
    double math = 16.0 * 2.0 * 256.0 * 128.0 * 128.0 / (NONTMA * 2.0e15 * 0.66 / 128.0);
    double write = 8192.0 * 8192.0 * 4.0 / 4.0e12;
    ck_assert_double_eq_tol(r.time_s, math + write + FLOOR, 1e-11);
}
END_TEST

/* int8 with K of 8192 or more and an output of 2^20 elements or more:
 * cuBLAS's 128x128 tile even where a 64-row tile would fill twice the SMs
 * (128x8192x8192: 64 blocks of 128x128, not 128 of 64x128); a 64-row tile
 * at K = 4096 or for an output of 2^19, where it is the least time. */
START_TEST(int8_long_k_large_tile)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_INT8] = 2.0e15;
    struct simt_gemm_result r = gemm_predict_ok(&g, 128, 8192, 8192, SIMT_DTYPE_INT8);
    ck_assert_int_eq(r.tile_m, 128);
    ck_assert_int_eq(r.tile_n, 128);
    ck_assert_int_eq(r.tiles, 64);
    struct simt_gemm_result shorter = gemm_predict_ok(&g, 128, 8192, 4096, SIMT_DTYPE_INT8);
    ck_assert_int_eq(shorter.tile_m, 64);
    ck_assert_int_eq(gemm_predict_ok(&g, 64, 8192, 8192, SIMT_DTYPE_INT8).tile_m, 64);
    /* the chosen tile costs its idle SMs: no faster than twice the shorter K */
    ck_assert(r.time_s > 2.0 * shorter.time_s - FLOOR);
}
END_TEST

/* fp32 outputs of few tiles with n of 512 to 2048 and long K: cuBLAS's
 * SIMT SGEMM splits K into pieces of 128 (16x1024x8192: 64 ways), more
 * than the least time would (which fills the 128 SMs once); at most one
 * split per SM; wider n (16x4096x8192) and K under 256 keep the least-time
 * split, which never goes beyond 16. */
START_TEST(fp32_few_tiles_split_pieces)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result r = gemm_predict_ok(&g, 16, 1024, 8192, SIMT_DTYPE_FP32);
    ck_assert_int_eq(r.tensor_cores, 0);
    ck_assert_int_eq(r.split_k, 64);
    ck_assert_int_eq(gemm_says(&r, "pieces of 128"), 1);
    ck_assert_int_eq(gemm_predict_ok(&g, 16, 1024, 4096, SIMT_DTYPE_FP32).split_k, 32);
    ck_assert_int_eq(gemm_predict_ok(&g, 16, 512, 65536, SIMT_DTYPE_FP32).split_k, 128);
    ck_assert_int_le(gemm_predict_ok(&g, 16, 4096, 8192, SIMT_DTYPE_FP32).split_k, 16);
    ck_assert_int_le(gemm_predict_ok(&g, 16, 1024, 200, SIMT_DTYPE_FP32).split_k, 16);
    /* on Ampere too (the kernels are cutlass_80's), not before */
    round_gpu(&g, 8);
    ck_assert_int_eq(gemm_predict_ok(&g, 16, 1024, 8192, SIMT_DTYPE_FP32).split_k, 64);
    round_gpu(&g, 7);
    ck_assert_int_le(gemm_predict_ok(&g, 16, 1024, 8192, SIMT_DTYPE_FP32).split_k, 16);
}
END_TEST

/* FP32 of more than 16 rows on one block an SM at most (gemm_tiny.c,
 * simt_gemm_fma_stage_latency): on the H200, 24x1500x128 and 32x1500x100
 * measured 9.5 and 8.7 us (sm80_xmma 32x32x8 on 47 blocks, gemm_probe_
 * classes_fp32m16.json, fit data), priced 6.9 and 6.6 us (-28%, -25%)
 * with the skinny-M 8x64 tile and three stages in flight. Within 12%, not
 * the 8x64 tile, and K's stages cost more than the outputs' stores: twice
 * K at least 20% slower; 16 rows keep their streaming kernels (no stage
 * latency: 16x1500x128 within 12% of its 7.0 us). */
START_TEST(fp32_lone_blocks_wait_their_stages)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        24, 1500, 128, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_gemm_result r;
    ck_assert_int_eq(simt_gemm_predict(h200, &req, &r, NULL), SIMT_OK);
    ck_assert_msg(fabs(r.time_s / 9.5e-6 - 1.0) < 0.12, "24x1500x128: %g s", r.time_s);
    ck_assert_int_ne(r.tile_m, 8);
    double k128 = r.time_s;
    req.k = 256;
    ck_assert_int_eq(simt_gemm_predict(h200, &req, &r, NULL), SIMT_OK);
    ck_assert_msg(r.time_s > 1.2 * k128, "K = 256: %g s, K = 128: %g s", r.time_s, k128);
    req.m = 32, req.k = 100;
    ck_assert_int_eq(simt_gemm_predict(h200, &req, &r, NULL), SIMT_OK);
    ck_assert_msg(fabs(r.time_s / 8.7e-6 - 1.0) < 0.12, "32x1500x100: %g s", r.time_s);
    req.m = 16, req.k = 128;
    ck_assert_int_eq(simt_gemm_predict(h200, &req, &r, NULL), SIMT_OK);
    ck_assert_msg(fabs(r.time_s / 7.0e-6 - 1.0) < 0.12, "16x1500x128: %g s", r.time_s);
}
END_TEST

static Suite *gemm_small_suite(void)
{
    Suite *s = suite_create("gemm_small");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_loop_test(tc, tf32_family, 0, (int)(sizeof tf32_family_rows / sizeof tf32_family_rows[0]));
    tcase_add_test(tc, tf32_short_k_stores_after_math);
    tcase_add_test(tc, tf32_few_tiles_reduce_kernel);
    tcase_add_test(tc, fp64_dmma_tiles);
    tcase_add_test(tc, int8_tiles_and_stores);
    tcase_add_test(tc, int8_long_k_large_tile);
    tcase_add_test(tc, fp32_few_tiles_split_pieces);
    tcase_add_test(tc, fp32_lone_blocks_wait_their_stages);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_small_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
