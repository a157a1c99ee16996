/* test_gemm.c - the GEMM model against hand-worked cases: tile and wave
 * quantization (the NVIDIA guide's own A100 examples), the library's tile
 * choice with and without an L2 feed limit, the DRAM roofline for skinny
 * shapes, split-K, the alignment rule per dtype, which peak is used, and
 * the errors. The GPUs here are made up with round numbers so that every
 * expected value can be worked by hand (the working is beside each row). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"

/* 100 SMs; bf16 tensor cores measured at 1e15 flop/s (1e13 per SM); DRAM
 * 1e12 B/s; no L2 figure (no feed limit); launch 1 us measured; no DRAM
 * latency (no pipeline fill). */
static void round_gpu(struct simt_gpu_spec *g)
{
    memset(g, 0, sizeof *g);
    g->vendor = SIMT_VENDOR_NVIDIA;
    g->compute_major = 9;
    g->sm_count = 100;
    g->boost_clock_hz = 1.0e9;
    g->fp32_flops_per_clock_per_sm = 256.0; /* 2.56e13 flop/s at 1 GHz */
    g->fp64_flops_per_clock_per_sm = 128.0;
    g->tensor_dense_flops_per_s[SIMT_DTYPE_BF16] = 2.0e15;
    g->tensor_dense_flops_per_s[SIMT_DTYPE_FP16] = 2.0e15;
    g->tensor_dense_flops_per_s[SIMT_DTYPE_TF32] = 1.0e15;
    g->measured_tensor_flops_per_s[SIMT_DTYPE_BF16] = 1.0e15;
    g->dram_bandwidth_bytes_per_s = 1.0e12;
    g->measured_launch_overhead_s = 1.0e-6;
}

static struct simt_gemm_result predict_ok(const struct simt_gpu_spec *g, int64_t m, int64_t n, int64_t k,
                                          int64_t batch, enum simt_dtype dtype)
{
    struct simt_gemm_request req = {m, n, k, batch, dtype, SIMT_POLICY_PREFER_MEASURED};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_gemm_predict(g, &req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict failed: %s (%s)", diag.message, diag.field);
    return r;
}

/* NVIDIA, "Matrix Multiplication Background", wave quantization on an A100
 * (108 SMs) with a 256x128 tile. */
static const struct {
    int64_t m, n, batch;
    int tile_m, tile_n, sms;
    int64_t tiles;
    double waves, tile_eff, wave_eff;
} quant_rows[] = {
    /* 1792/256 = 7, 1792/128 = 14: 98 tiles, 98/108 of one wave */
    {1792, 1792, 1, 256, 128, 108, 98, 98.0 / 108.0, 1.0, 98.0 / 108.0},
    /* 1793: 8 x 15 = 120 tiles, 1.11 waves -> 2; 1793^2 / (2048 x 1920) */
    {1793, 1793, 1, 256, 128, 108, 120, 120.0 / 108.0, 1793.0 * 1793.0 / (2048.0 * 1920.0), 120.0 / 216.0},
    /* 1 x 1 in a 128x128 tile: one tile, 1/16384 of it used */
    {1, 1, 1, 128, 128, 132, 1, 1.0 / 132.0, 1.0 / 16384.0, 1.0 / 132.0},
    /* a batch of 4 of 2048x2048 in 128x256: 16 x 8 x 4 = 512 tiles on 132 SMs: 3.88 -> 4 waves */
    {2048, 2048, 4, 128, 256, 132, 512, 512.0 / 132.0, 1.0, 512.0 / 528.0},
};

START_TEST(quantization_rows)
{
    struct simt_gemm_quantization q;
    simt_gemm_quantize(quant_rows[_i].m, quant_rows[_i].n, quant_rows[_i].batch, quant_rows[_i].tile_m,
                       quant_rows[_i].tile_n, quant_rows[_i].sms, &q);
    ck_assert_int_eq(q.tiles, quant_rows[_i].tiles);
    ck_assert_double_eq_tol(q.waves, quant_rows[_i].waves, 1e-12);
    ck_assert_double_eq_tol(q.tile_efficiency, quant_rows[_i].tile_eff, 1e-12);
    ck_assert_double_eq_tol(q.wave_efficiency, quant_rows[_i].wave_eff, 1e-12);
}
END_TEST

/* Without an L2 limit every tile runs at the SM's full rate, so the least
 * wave-quantization loss wins. 4096^3 bf16 on 100 SMs at 1e13 flop/s/SM:
 *   256x128: 512 tiles, 6 waves x 2*256*128*4096/1e13 (26.84 us) = 161.1 us
 *   128x128: 1024 tiles, 11 waves x 13.42 us = 147.6 us
 *   128x64: 2048 tiles, 21 waves x 6.711 us = 140.9 us
 *   64x64: 4096 tiles, 41 waves x 3.3554432 us = 137.573 us  <- least
 * DRAM: 3 * 4096^2 * 2 B / 1e12 = 100.7 us, under the math. Split-K only adds
 * its reduction (>= 134 MB of partials). Time = 137.573 + 1 (launch) us. */
START_TEST(tile_choice_without_l2_limit)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 4096, 4096, 4096, 1, SIMT_DTYPE_BF16);
    ck_assert_int_eq(r.tile_m, 64);
    ck_assert_int_eq(r.tile_n, 64);
    ck_assert_int_eq(r.tile_k, 64); /* one 128-byte row of bf16 per stage */
    ck_assert_int_eq(r.split_k, 1);
    ck_assert_int_eq(r.tiles, 4096);
    ck_assert_double_eq_tol(r.waves, 40.96, 1e-12);
    ck_assert_double_eq_tol(r.wave_efficiency, 40.96 / 41.0, 1e-12);
    ck_assert_double_eq_tol(r.tile_efficiency, 1.0, 1e-12);
    ck_assert_double_eq_tol(r.time_s, 41.0 * 3.3554432e-6 + 1.0e-6, 1e-12);
    ck_assert_double_eq_tol(r.flops, 2.0 * 4096.0 * 4096.0 * 4096.0, 1.0);
    ck_assert_double_eq_tol(r.achieved_flops_per_s, r.flops / r.time_s, 1.0);
    ck_assert_str_eq(simt_gemm_bound_name(r.bound), "compute");
    ck_assert_int_eq(r.peak_measured, 1);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 1.0e15, 1.0);
    ck_assert_int_eq(r.alignment_ok, 1);
}
END_TEST

/* With L2 at 2e12 B/s (2e10 per SM) the 256x128 tile (85.33 flop/B) would
 * need 1e13 / 85.33 = 1.171875e11 B/s per SM; the feed is taken as that (the
 * measured peak was reached with that tile). Smaller tiles then starve:
 *   64x64: (64+64)*4096*2 B / 1.171875e11 = 8.948 us per tile x 41 = 366.9 us
 *   128x128: 2.097 MB -> 17.90 us x 11 = 196.8 us
 *   256x128: 3.146 MB -> 26.84 us (= its math) x 6 = 161.06 us  <- least */
START_TEST(tile_choice_with_l2_limit)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    g.l2_bandwidth_bytes_per_s = 2.0e12;
    struct simt_gemm_result r = predict_ok(&g, 4096, 4096, 4096, 1, SIMT_DTYPE_BF16);
    ck_assert_int_eq(r.tile_m, 256);
    ck_assert_int_eq(r.tile_n, 128);
    ck_assert_int_eq(r.tiles, 512);
    ck_assert_double_eq_tol(r.waves, 5.12, 1e-12);
    ck_assert_double_eq_tol(r.wave_efficiency, 5.12 / 6.0, 1e-12);
    ck_assert_double_eq_tol(r.time_s, 6.0 * 2.0 * 256.0 * 128.0 * 4096.0 / 1.0e13 + 1.0e-6, 1e-11);
    ck_assert_int_eq((r.figures_used & SIMT_FIG_BIT(SIMT_FIG_L2_BANDWIDTH)) != 0, 1);
}
END_TEST

/* m = 1: B alone is 8192^2 * 2 B = 134.2 MB; A and C 16 KiB each:
 * 134,250,496 B / 1e12 = 134.25 us, far above any tile's math; the first
 * tile in the list wins the tie. */
START_TEST(skinny_is_dram_bound)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 1, 8192, 8192, 1, SIMT_DTYPE_BF16);
    ck_assert_str_eq(simt_gemm_bound_name(r.bound), "dram");
    ck_assert_double_eq_tol(r.dram_bytes, 134250496.0, 0.5);
    ck_assert_double_eq_tol(r.time_s, 134250496.0 / 1.0e12 + 1.0e-6, 1e-12);
    ck_assert_int_eq(r.split_k, 1);
    ck_assert_double_eq_tol(r.tile_efficiency, 1.0 / (double)r.tile_m, 1e-12);
}
END_TEST

/* Small K: m = n = 8192, k = 64: C alone is 134 MB; total (2*8192*64*2 +
 * 8192^2*2) B = 136,314,880 B -> 136.3 us over DRAM. */
START_TEST(small_k_is_dram_bound)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 8192, 8192, 64, 1, SIMT_DTYPE_BF16);
    ck_assert_str_eq(simt_gemm_bound_name(r.bound), "dram");
    ck_assert_double_eq_tol(r.time_s, 136314880.0 / 1.0e12 + 1.0e-6, 1e-12);
}
END_TEST

/* Few output tiles, long K: 128 x 128 x 16384 bf16. A and B are
 * 2*128*16384*2 = 8,388,608 B (8.39 us over DRAM).
 *   64x64, s=1: 4 blocks, 1 wave x 2*64*64*16384/1e13 = 13.42 us; + 1 us launch
 *   64x64, s=2: 8 blocks, math 6.71 us; DRAM 8,388,608 + fp32 partials
 *     2*128*128*4 = 131,072 B -> 8.51968 us; + 1 us launch; the reduction
 *     reads the partials and writes C: (131,072 + 32,768) B / 1e12 + 1 us
 *     launch = 1.16384 us. Total 10.68352 us  <- least
 *   64x64, s=3: K 5462 -> 5504 a split; partials 196,608 B: 8.585 + 1 +
 *     1.229 = 10.81 us; larger tiles do more math per block. */
START_TEST(split_k_fills_the_gpu)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 128, 128, 16384, 1, SIMT_DTYPE_BF16);
    ck_assert_int_eq(r.split_k, 2);
    ck_assert_int_eq(r.tile_m, 64);
    ck_assert_int_eq(r.tile_n, 64);
    ck_assert_int_eq(r.tiles, 8);
    ck_assert_double_eq_tol(r.reduce_s, 1.16384e-6, 1e-15);
    ck_assert_double_eq_tol(r.time_s, 10.68352e-6, 1e-14);
    ck_assert_str_eq(simt_gemm_bound_name(r.bound), "dram");
    /* a batch of 8 of the same shape: never slower than 8 launches */
    struct simt_gemm_result b = predict_ok(&g, 128, 128, 16384, 8, SIMT_DTYPE_BF16);
    ck_assert(b.time_s < 8.0 * r.time_s);
    ck_assert_double_eq_tol(b.flops, 8.0 * r.flops, 1.0);
}
END_TEST

/* The 16-byte rule on the leading dimensions k and n. */
static const struct {
    int64_t m, n, k;
    enum simt_dtype dtype;
    int elements;
    int ok;
} align_rows[] = {
    {4096, 4096, 4096, SIMT_DTYPE_BF16, 8, 1},
    {4097, 4096, 4096, SIMT_DTYPE_BF16, 8, 1}, /* m is not a leading dimension */
    {4096, 4100, 4096, SIMT_DTYPE_BF16, 8, 0}, /* 4100 = 8*512 + 4 */
    {4096, 4096, 4100, SIMT_DTYPE_FP16, 8, 0},
    {4096, 4100, 4100, SIMT_DTYPE_TF32, 4, 1}, /* 4100 = 4*1025 */
    {4096, 4098, 4096, SIMT_DTYPE_TF32, 4, 0},
    {4096, 4096, 4104, SIMT_DTYPE_FP32, 4, 1},
    {4096, 4096, 4097, SIMT_DTYPE_FP64, 2, 0},
};

START_TEST(alignment_rows)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP64] = 1.0e14;
    struct simt_gemm_result r = predict_ok(&g, align_rows[_i].m, align_rows[_i].n, align_rows[_i].k, 1,
                                           align_rows[_i].dtype);
    ck_assert_int_eq(r.alignment_elements, align_rows[_i].elements);
    ck_assert_int_eq(r.alignment_ok, align_rows[_i].ok);
}
END_TEST

/* An unaligned bf16 GEMM is slower than the aligned one next to it, by the
 * unaligned kernels' rate; a large compute-bound shape shows the whole
 * ratio less the one-wave difference. */
START_TEST(unaligned_is_slower)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result a = predict_ok(&g, 8192, 8192, 8192, 1, SIMT_DTYPE_BF16);
    struct simt_gemm_result u = predict_ok(&g, 8192, 8192, 8196, 1, SIMT_DTYPE_BF16);
    ck_assert_int_eq(u.alignment_ok, 0);
    ck_assert(u.time_s > 1.5 * a.time_s);
    ck_assert(u.time_s < 1.8 * a.time_s);
}
END_TEST

/* Which peak: measured bf16 (1e15) as is; fp16 has only the datasheet 2e15,
 * taken at 0.8; fp32 runs on the FMA units: 256 flop/clk * 100 SMs * 1 GHz
 * = 2.56e13 at 0.8; a measured fp32 figure replaces it; with the datasheet
 * policy the measured bf16 figure is ignored. */
START_TEST(peak_sources)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 4096, 4096, 4096, 1, SIMT_DTYPE_FP16);
    ck_assert_int_eq(r.peak_measured, 0);
    ck_assert_int_eq(r.tensor_cores, 1);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 0.8 * 2.0e15, 1.0);
    r = predict_ok(&g, 4096, 4096, 4096, 1, SIMT_DTYPE_FP32);
    ck_assert_int_eq(r.tensor_cores, 0);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 0.8 * 2.56e13, 1.0);
    ck_assert_int_eq(r.tile_k, 8);
    g.measured_fp32_flops_per_s = 2.0e13;
    r = predict_ok(&g, 4096, 4096, 4096, 1, SIMT_DTYPE_FP32);
    ck_assert_int_eq(r.peak_measured, 1);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 2.0e13, 1.0);
    ck_assert_int_eq((r.figures_used & SIMT_FIG_BIT(SIMT_FIG_FP32)) != 0, 1);

    struct simt_gemm_request req = {4096, 4096, 4096, 1, SIMT_DTYPE_BF16, SIMT_POLICY_DATASHEET};
    struct simt_diag diag;
    ck_assert_int_eq(simt_gemm_predict(&g, &req, &r, &diag), SIMT_OK);
    ck_assert_int_eq(r.peak_measured, 0);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 0.8 * 2.0e15, 1.0);
    ck_assert_int_gt(r.assumption_count, 2);
    ck_assert_ptr_nonnull(strstr(r.assumptions[0], "tile: "));
}
END_TEST

/* fp64: DMMA tensor cores when the GPU has them, else the FMA units. */
START_TEST(fp64_paths)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 2048, 2048, 2048, 1, SIMT_DTYPE_FP64);
    ck_assert_int_eq(r.tensor_cores, 0);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 0.8 * 128.0 * 100.0 * 1.0e9, 1.0);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP64] = 2.0e13;
    r = predict_ok(&g, 2048, 2048, 2048, 1, SIMT_DTYPE_FP64);
    ck_assert_int_eq(r.tensor_cores, 1);
    ck_assert_int_eq(r.tile_k, 16);
    ck_assert_double_eq_tol(r.peak_flops_per_s, 0.8 * 2.0e13, 1.0);
}
END_TEST

static const struct {
    int64_t m, n, k, batch;
    enum simt_dtype dtype;
    int rc;
    const char *field;
} error_rows[] = {
    {0, 8, 8, 1, SIMT_DTYPE_BF16, SIMT_EINVAL, "m"},
    {8, -1, 8, 1, SIMT_DTYPE_BF16, SIMT_EINVAL, "n"},
    {8, 8, 0, 1, SIMT_DTYPE_BF16, SIMT_EINVAL, "k"},
    {8, 8, 8, 0, SIMT_DTYPE_BF16, SIMT_EINVAL, "batch"},
    {8, 8, 8, 1, SIMT_DTYPE_INT4, SIMT_EINVAL, "dtype"},
    {8, 8, 8, 1, SIMT_DTYPE_FP8, SIMT_EUNSAT, "dtype"},  /* no fp8 tensor cores on this GPU */
    {8, 8, 8, 1, SIMT_DTYPE_INT8, SIMT_EUNSAT, "dtype"},
};

START_TEST(error_rows_test)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_request req = {error_rows[_i].m, error_rows[_i].n, error_rows[_i].k, error_rows[_i].batch,
                                    error_rows[_i].dtype, SIMT_POLICY_PREFER_MEASURED};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(&g, &req, &r, &diag), error_rows[_i].rc);
    ck_assert_str_eq(diag.field, error_rows[_i].field);
    ck_assert(diag.message[0] != '\0');
}
END_TEST

START_TEST(bound_names)
{
    ck_assert_str_eq(simt_gemm_bound_name(SIMT_GEMM_BOUND_COMPUTE), "compute");
    ck_assert_str_eq(simt_gemm_bound_name(SIMT_GEMM_BOUND_L2), "l2");
    ck_assert_str_eq(simt_gemm_bound_name(SIMT_GEMM_BOUND_DRAM), "dram");
    ck_assert_str_eq(simt_gemm_bound_name(SIMT_GEMM_BOUND_LAUNCH), "launch");
    ck_assert_ptr_null(simt_gemm_bound_name((enum simt_gemm_bound)9));
    ck_assert_int_eq(simt_gemm_element_bytes(SIMT_DTYPE_FP8), 1);
    ck_assert_int_eq(simt_gemm_element_bytes(SIMT_DTYPE_TF32), 4);
    ck_assert_int_eq(simt_gemm_element_bytes(SIMT_DTYPE_INT4), 0);
}
END_TEST

/* A tiny GEMM is all launch: 64^3 is one tile of 0.05 us. */
START_TEST(tiny_is_launch_bound)
{
    struct simt_gpu_spec g;
    round_gpu(&g);
    struct simt_gemm_result r = predict_ok(&g, 64, 64, 64, 1, SIMT_DTYPE_BF16);
    ck_assert_str_eq(simt_gemm_bound_name(r.bound), "launch");
    ck_assert(r.time_s > 1.0e-6 && r.time_s < 1.1e-6);
}
END_TEST

static Suite *gemm_suite(void)
{
    Suite *s = suite_create("gemm");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, quantization_rows, 0, (int)(sizeof quant_rows / sizeof quant_rows[0]));
    tcase_add_test(tc, tile_choice_without_l2_limit);
    tcase_add_test(tc, tile_choice_with_l2_limit);
    tcase_add_test(tc, skinny_is_dram_bound);
    tcase_add_test(tc, small_k_is_dram_bound);
    tcase_add_test(tc, split_k_fills_the_gpu);
    tcase_add_loop_test(tc, alignment_rows, 0, (int)(sizeof align_rows / sizeof align_rows[0]));
    tcase_add_test(tc, unaligned_is_slower);
    tcase_add_test(tc, peak_sources);
    tcase_add_test(tc, fp64_paths);
    tcase_add_loop_test(tc, error_rows_test, 0, (int)(sizeof error_rows / sizeof error_rows[0]));
    tcase_add_test(tc, bound_names);
    tcase_add_test(tc, tiny_is_launch_bound);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
