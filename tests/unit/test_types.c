/* test_types.c - the narrow and block-scaled tensor types (int4, fp6, fp4,
 * mxfp8, mxfp6, mxfp4, nvfp4) and 2:4 sparsity in the GEMM and roofline
 * models, against the committed database: each expectation is computed from
 * the GPU's record (its datasheet rate times its achievable fraction), not
 * written down, so that a corrected datasheet figure moves test and answer
 * together. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "hwdb.h"
#include "roofline.h"
#include "transformer.h"

static struct simt_hwdb *db;

static void load_db(void)
{
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s:%d: %s", diag.file,
                  diag.line, diag.message);
}

static void unload_db(void)
{
    simt_hwdb_unref(db);
    db = NULL;
}

static const struct simt_gpu_spec *spec_of(const char *id)
{
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, id);
    ck_assert_msg(gpu != NULL, "no %s in the database", id);
    return &gpu->spec;
}

static int gemm(const struct simt_gpu_spec *g, int64_t size, enum simt_dtype dtype, int sparse,
                struct simt_gemm_result *r, struct simt_diag *diag)
{
    struct simt_gemm_request req;
    memset(&req, 0, sizeof req);
    req.m = req.n = req.k = size;
    req.batch = 1;
    req.dtype = dtype;
    req.sparse = sparse;
    req.policy = SIMT_POLICY_PREFER_MEASURED;
    req.launches = SIMT_GEMM_LAUNCH_BACK_TO_BACK;
    memset(diag, 0, sizeof *diag);
    return simt_gemm_predict(g, &req, r, diag);
}

/* FP4 on the Blackwell GPUs: a large square GEMM's compute bound is the
 * datasheet's dense FP4 rate times the record's achievable fraction (within
 * the tile and wave quantization of 16384^3, a few percent). */
static const char *const fp4_gpus[] = {"b200", "rtx-5090"};

START_TEST(fp4_at_the_datasheet_rate)
{
    const struct simt_gpu_spec *g = spec_of(fp4_gpus[_i]);
    double datasheet = g->tensor_dense_flops_per_s[SIMT_DTYPE_FP4];
    double fraction = g->achievable_tensor[SIMT_DTYPE_FP4];
    ck_assert_msg(datasheet > 0.0 && fraction > 0.0, "%s has no fp4 rate or fraction", fp4_gpus[_i]);
    struct simt_gemm_result r;
    struct simt_diag diag;
    ck_assert_int_eq(gemm(g, 16384, SIMT_DTYPE_FP4, 0, &r, &diag), SIMT_OK);
    ck_assert_int_eq(r.bound, SIMT_GEMM_BOUND_COMPUTE);
    ck_assert(r.tensor_cores);
    ck_assert_double_eq_tol(r.peak_flops_per_s, datasheet * fraction, 1e-6 * datasheet);
    ck_assert(r.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_FP4));
    double expected_s = r.flops / (datasheet * fraction);
    ck_assert_msg(r.compute_s > 0.97 * expected_s && r.compute_s < 1.05 * expected_s,
                  "%s: compute %g s, the fp4 rate gives %g s", fp4_gpus[_i], r.compute_s, expected_s);
    ck_assert_msg(r.time_s >= r.compute_s && r.time_s < 1.10 * expected_s, "%s: time %g s against %g s",
                  fp4_gpus[_i], r.time_s, expected_s);
    /* at twice fp8's rate (the same fraction here), fp4 takes about half
     * fp8's time on the same shape */
    struct simt_gemm_result r8;
    ck_assert_int_eq(gemm(g, 16384, SIMT_DTYPE_FP8, 0, &r8, &diag), SIMT_OK);
    double ratio = g->tensor_dense_flops_per_s[SIMT_DTYPE_FP8] * g->achievable_tensor[SIMT_DTYPE_FP8] /
                   (datasheet * fraction);
    ck_assert_double_eq_tol(r.compute_s / r8.compute_s, ratio, 0.05 * ratio);
}
END_TEST

/* A type the GPU's tensor cores lack is refused naming dtype; sparse where
 * the GPU has no sparse rate names sparse. */
static const struct {
    const char *gpu;
    enum simt_dtype dtype;
    int sparse;
    const char *field;
} refusals[] = {
    {"h100-sxm", SIMT_DTYPE_FP4, 0, "dtype"},
    {"h200-sxm", SIMT_DTYPE_INT4, 0, "dtype"},
    {"h100-sxm", SIMT_DTYPE_NVFP4, 0, "dtype"},
    {"a100-sxm4-80gb", SIMT_DTYPE_FP6, 0, "dtype"},
    {"mi300x", SIMT_DTYPE_MXFP4, 0, "dtype"},
    {"b200", SIMT_DTYPE_INT4, 0, "dtype"},
    {"t4", SIMT_DTYPE_FP16, 1, "sparse"},
    {"t4", SIMT_DTYPE_INT4, 1, "sparse"},
    {"v100-sxm2-32gb", SIMT_DTYPE_FP16, 1, "sparse"},
    {"h100-sxm", SIMT_DTYPE_FP32, 1, "sparse"},
    {"h100-sxm", SIMT_DTYPE_FP4, 1, "dtype"},
};

START_TEST(types_refused)
{
    struct simt_gemm_result r;
    struct simt_diag diag;
    ck_assert_int_eq(
        gemm(spec_of(refusals[_i].gpu), 4096, refusals[_i].dtype, refusals[_i].sparse, &r, &diag),
        SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, refusals[_i].field);
    /* the message names what the GPU has */
    if (strcmp(refusals[_i].field, "dtype") == 0)
        ck_assert_ptr_nonnull(strstr(diag.message, "its tensor cores take"));
}
END_TEST

/* 2:4 sparse bf16 on an H100: compute-bound, faster than dense, at the
 * sparse rate times the dense rate's fraction; A's traffic is half its
 * values plus a 2-bit index per kept value. */
START_TEST(sparse_bf16_h100_faster)
{
    const struct simt_gpu_spec *g = spec_of("h100-sxm");
    struct simt_gemm_result dense, sparse;
    struct simt_diag diag;
    ck_assert_int_eq(gemm(g, 8192, SIMT_DTYPE_BF16, 0, &dense, &diag), SIMT_OK);
    ck_assert_int_eq(gemm(g, 8192, SIMT_DTYPE_BF16, 1, &sparse, &diag), SIMT_OK);
    ck_assert_int_eq(dense.bound, SIMT_GEMM_BOUND_COMPUTE);
    ck_assert_int_eq(sparse.bound, SIMT_GEMM_BOUND_COMPUTE);
    ck_assert_msg(sparse.time_s < dense.time_s, "sparse %g s, dense %g s", sparse.time_s, dense.time_s);
    ck_assert_double_eq(sparse.flops, dense.flops);
    /* at the measured clock where the card has one (datasheet rates are at boost) */
    double clock = g->measured_clock_hz > 0.0 ? g->measured_clock_hz / g->boost_clock_hz : 1.0;
    double rate =
        g->tensor_sparse_flops_per_s[SIMT_DTYPE_BF16] * clock * g->achievable_tensor[SIMT_DTYPE_BF16];
    ck_assert_double_eq_tol(sparse.peak_flops_per_s, rate, 1e-6 * rate);
    ck_assert(sparse.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_SPARSE_FIRST + SIMT_DTYPE_BF16));
    ck_assert(!(sparse.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16)));
    double mk = 8192.0 * 8192.0;
    ck_assert_double_eq_tol(dense.dram_bytes, 3.0 * mk * 2.0, 1.0);
    ck_assert_double_eq_tol(sparse.dram_bytes, mk * (0.5 * 2.0 + 2.0 / 8.0 / 2.0) + 2.0 * mk * 2.0, 1.0);
}
END_TEST

/* Bytes in memory and the alignment each type needs. */
START_TEST(element_bytes_and_alignment)
{
    static const struct {
        enum simt_dtype dtype;
        int bits;
        int block;
        double bytes;
    } rows[] = {
        {SIMT_DTYPE_INT4, 4, 0, 0.5},
        {SIMT_DTYPE_FP6, 6, 0, 0.75},
        {SIMT_DTYPE_FP4, 4, 0, 0.5},
        {SIMT_DTYPE_MXFP8, 8, 32, 1.0 + 1.0 / 32},
        {SIMT_DTYPE_MXFP6, 6, 32, 0.75 + 1.0 / 32},
        {SIMT_DTYPE_MXFP4, 4, 32, 0.5 + 1.0 / 32},
        {SIMT_DTYPE_NVFP4, 4, 16, 0.5 + 1.0 / 16},
        {SIMT_DTYPE_BF16, 16, 0, 2.0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ck_assert_int_eq(simt_dtype_element_bits(rows[i].dtype), rows[i].bits);
        ck_assert_int_eq(simt_dtype_scale_block(rows[i].dtype), rows[i].block);
        ck_assert_double_eq_tol(simt_dtype_bytes(rows[i].dtype), rows[i].bytes, 1e-12);
    }
    /* the whole answer's DRAM traffic: A and B in nvfp4 with their scales, C
     * written as bf16 */
    struct simt_gemm_result r;
    struct simt_diag diag;
    ck_assert_int_eq(gemm(spec_of("b200"), 8192, SIMT_DTYPE_NVFP4, 0, &r, &diag), SIMT_OK);
    double mk = 8192.0 * 8192.0;
    ck_assert_double_eq_tol(r.dram_bytes, 2.0 * mk * (0.5 + 1.0 / 16) + mk * 2.0, 1.0);
    ck_assert_int_eq(r.alignment_elements, 32);
    /* fp6: whole 16-byte pieces are 64 elements */
    ck_assert_int_eq(gemm(spec_of("b200"), 8192 + 32, SIMT_DTYPE_FP6, 0, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "k");
    ck_assert_int_eq(gemm(spec_of("b200"), 8192 + 64, SIMT_DTYPE_FP6, 0, &r, &diag), SIMT_OK);
    ck_assert_int_eq(r.alignment_elements, 64);
}
END_TEST

/* A what-if of the fp4 rate moves the answer with it. */
START_TEST(fp4_override_moves)
{
    struct simt_gpu_spec g = *spec_of("b200");
    struct simt_gemm_result before, after;
    struct simt_diag diag;
    ck_assert_int_eq(gemm(&g, 16384, SIMT_DTYPE_FP4, 0, &before, &diag), SIMT_OK);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP4] *= 2.0;
    ck_assert_int_eq(gemm(&g, 16384, SIMT_DTYPE_FP4, 0, &after, &diag), SIMT_OK);
    ck_assert_double_eq_tol(after.peak_flops_per_s, 2.0 * before.peak_flops_per_s, 1.0);
    ck_assert(after.time_s < 0.6 * before.time_s);
    g.tensor_sparse_flops_per_s[SIMT_DTYPE_FP4] *= 3.0;
    ck_assert_int_eq(gemm(&g, 16384, SIMT_DTYPE_FP4, 1, &after, &diag), SIMT_OK);
    double rate = g.tensor_sparse_flops_per_s[SIMT_DTYPE_FP4] * g.achievable_tensor[SIMT_DTYPE_FP4];
    ck_assert_double_eq_tol(after.peak_flops_per_s, rate, 1e-6 * rate);
}
END_TEST

static int roofline(const char *id, enum simt_dtype precision, int sparse, struct simt_roofline_result *r,
                    struct simt_diag *diag)
{
    struct simt_figure_set figures;
    simt_figure_set_init(spec_of(id), SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_roofline_request req;
    memset(&req, 0, sizeof req);
    req.flops = 1e15;
    req.precision = precision;
    req.tensor_cores = 1;
    req.sparse = sparse;
    req.bytes[SIMT_LEVEL_DRAM] = 1e6;
    req.level_given[SIMT_LEVEL_DRAM] = 1;
    memset(diag, 0, sizeof *diag);
    return simt_roofline_compute(&figures, &req, r, diag);
}

/* The roofline: fp4 and nvfp4 on the B200 at their rates, fp4 on an H100
 * refused, sparse bf16 on an H100 faster than dense, sparse on a T4
 * refused. */
START_TEST(roofline_types)
{
    const struct simt_gpu_spec *b200 = spec_of("b200");
    struct simt_roofline_result r;
    struct simt_diag diag;
    static const enum simt_dtype fp4s[] = {SIMT_DTYPE_FP4, SIMT_DTYPE_NVFP4, SIMT_DTYPE_MXFP4};
    for (size_t i = 0; i < sizeof fp4s / sizeof fp4s[0]; i++) {
        ck_assert_int_eq(roofline("b200", fp4s[i], 0, &r, &diag), SIMT_OK);
        double peak = b200->tensor_dense_flops_per_s[fp4s[i]] * b200->achievable_tensor[fp4s[i]];
        ck_assert_int_eq(r.bound, SIMT_ROOF_COMPUTE);
        ck_assert_double_eq_tol(r.time_s, 1e15 / peak, 1e-9 * (1e15 / peak));
        ck_assert(r.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + fp4s[i]));
    }
    ck_assert_int_eq(roofline("h100-sxm", SIMT_DTYPE_FP4, 0, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "precision");
    struct simt_roofline_result dense, sparse;
    ck_assert_int_eq(roofline("h100-sxm", SIMT_DTYPE_BF16, 0, &dense, &diag), SIMT_OK);
    ck_assert_int_eq(roofline("h100-sxm", SIMT_DTYPE_BF16, 1, &sparse, &diag), SIMT_OK);
    ck_assert(sparse.time_s < dense.time_s);
    ck_assert_int_eq(sparse.peak_figure, SIMT_FIG_TENSOR_SPARSE_FIRST + SIMT_DTYPE_BF16);
    ck_assert_int_eq(roofline("t4", SIMT_DTYPE_FP16, 1, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "sparse");
}
END_TEST

/* The transformer's FP4 storage types: on the B200 the projections run as
 * nvfp4 GEMMs, faster than bf16; on an H100 they are refused. */
START_TEST(transformer_fp4_weights)
{
    const struct simt_hwdb_model *model = simt_hwdb_model_find(db, "llama3-8b");
    ck_assert_ptr_nonnull(model);
    struct simt_tfm_request req;
    memset(&req, 0, sizeof req);
    req.shape = model->shape;
    req.phase = SIMT_TFM_PREFILL;
    req.batch = 8;
    req.seq_len = req.kv_len = 2048;
    req.tp = 1;
    req.weights = req.activations = SIMT_TFM_NVFP4;
    req.kv_cache = SIMT_TFM_FP8;
    static struct simt_tfm_result narrow, wide;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_tfm_predict(spec_of("b200"), &req, &narrow, &diag), SIMT_OK);
    ck_assert(narrow.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_NVFP4));
    req.weights = req.activations = SIMT_TFM_BF16;
    ck_assert_int_eq(simt_tfm_predict(spec_of("b200"), &req, &wide, &diag), SIMT_OK);
    ck_assert(narrow.model_time_s < wide.model_time_s);
    req.weights = SIMT_TFM_FP4;
    ck_assert_int_eq(simt_tfm_predict(spec_of("h100-sxm"), &req, &wide, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "dtype.weights");
}
END_TEST

/* Every figure of the new types has a name for figures_used. */
START_TEST(figure_names)
{
    ck_assert_str_eq(simt_figure_name(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_NVFP4), "tensor_flops_per_s.nvfp4");
    ck_assert_str_eq(simt_figure_name(SIMT_FIG_TENSOR_SPARSE_FIRST + SIMT_DTYPE_BF16),
                     "tensor_sparse_flops_per_s.bf16");
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        enum simt_dtype back;
        ck_assert_int_eq(simt_dtype_parse(simt_dtype_name((enum simt_dtype)d), &back), SIMT_OK);
        ck_assert_int_eq(back, d);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("types");
    TCase *tc = tcase_create("types");
    tcase_add_unchecked_fixture(tc, load_db, unload_db);
    tcase_add_loop_test(tc, fp4_at_the_datasheet_rate, 0, (int)(sizeof fp4_gpus / sizeof fp4_gpus[0]));
    tcase_add_loop_test(tc, types_refused, 0, (int)(sizeof refusals / sizeof refusals[0]));
    tcase_add_test(tc, sparse_bf16_h100_faster);
    tcase_add_test(tc, element_bytes_and_alignment);
    tcase_add_test(tc, fp4_override_moves);
    tcase_add_test(tc, roofline_types);
    tcase_add_test(tc, transformer_fp4_weights);
    tcase_add_test(tc, figure_names);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
