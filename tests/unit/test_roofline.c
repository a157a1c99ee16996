/* test_roofline.c - hierarchical roofline on the fixture GPU:
 * fp32 peak 256 flops/clk/SM x 100 SMs x 1 GHz = 2.56e13 flops/s,
 * fp16 tensor 5e14, DRAM 2e12, L2 8e12, shared 32 x 4 B x 100 x 1 GHz = 1.28e13 B/s. */
#include <check.h>
#include <math.h>

#include "model_fixture.h"
#include "roofline.h"

struct row {
    const char *name;
    double flops;
    enum simt_dtype precision;
    int tensor;
    double dram, l2, shared; /* < 0: level not given */
    double measured_dram, measured_clock;
    double time_s, intensity, ridge, attainable;
    int bound;
};

static const struct row rows[] = {
    /* compute 1e12/2.56e13 = 0.0390625 s; DRAM 1e11/2e12 = 0.05 s -> DRAM bound;
     * intensity 1e12/1e11 = 10, ridge 2.56e13/2e12 = 12.8, attainable 1e12/0.05 = 2e13 */
    {"fp32 dram bound", 1e12, SIMT_DTYPE_FP32, 0, 1e11, -1, -1, 0, 0, 0.05, 10, 12.8, 2e13, SIMT_LEVEL_DRAM},
    /* tensor fp16: compute 1e12/5e14 = 2e-3 s; DRAM 5e-4, L2 1e10/8e12 = 1.25e-3, shared 0;
     * intensity 1000, ridge 5e14/2e12 = 250, attainable = peak */
    {"fp16 tensor compute bound", 1e12, SIMT_DTYPE_FP16, 1, 1e9, 1e10, 0, 0, 0, 2e-3, 1000, 250, 5e14,
     SIMT_ROOF_COMPUTE},
    /* compute 1e10/2.56e13 = 3.90625e-4; DRAM 1e9/2e12 = 5e-4; L2 1e10/8e12 = 1.25e-3 -> L2 bound;
     * headline stays DRAM: intensity 10, ridge 12.8; attainable 1e10/1.25e-3 = 8e12 */
    {"fp32 l2 bound", 1e10, SIMT_DTYPE_FP32, 0, 1e9, 1e10, -1, 0, 0, 1.25e-3, 10, 12.8, 8e12, SIMT_LEVEL_L2},
    /* shared only: 1.28e11 B / 1.28e13 = 0.01 s; compute 1e11/2.56e13 = 3.90625e-3;
     * headline is shared: intensity 1e11/1.28e11 = 0.78125, ridge 2.56e13/1.28e13 = 2 */
    {"fp32 shared bound", 1e11, SIMT_DTYPE_FP32, 0, -1, -1, 1.28e11, 0, 0, 0.01, 0.78125, 2, 1e13,
     SIMT_LEVEL_SHARED},
    /* measured DRAM 1.6e12: 1e11/1.6e12 = 0.0625; ridge 2.56e13/1.6e12 = 16 */
    {"measured dram", 1e12, SIMT_DTYPE_FP32, 0, 1e11, -1, -1, 1.6e12, 0, 0.0625, 10, 16, 1.6e13,
     SIMT_LEVEL_DRAM},
    /* measured clock 0.5 GHz: fp32 = 256 x 100 x 0.5e9 = 1.28e13; compute 1e12/1.28e13 = 0.078125 */
    {"measured clock", 1e12, SIMT_DTYPE_FP32, 0, 1e11, -1, -1, 0, 0.5e9, 0.078125, 10, 6.4, 1.28e13,
     SIMT_ROOF_COMPUTE},
    /* fp64 CUDA cores: 128 x 100 x 1e9 = 1.28e13; compute 1e12/1.28e13 = 0.078125 */
    {"fp64", 1e12, SIMT_DTYPE_FP64, 0, 1e9, -1, -1, 0, 0, 0.078125, 1000, 6.4, 1.28e13, SIMT_ROOF_COMPUTE},
    /* bf16 without tensor cores takes the fp16 (half2) rate 512 x 100 x 1e9 = 5.12e13 */
    {"bf16 cuda cores", 5.12e12, SIMT_DTYPE_BF16, 0, 1e9, -1, -1, 0, 0, 0.1, 5120, 25.6, 5.12e13,
     SIMT_ROOF_COMPUTE},
    /* bytes only: no flops -> memory bound, intensity 0 */
    {"bytes only", 0, SIMT_DTYPE_FP32, 0, 2e12, -1, -1, 0, 0, 1.0, 0, 12.8, 0, SIMT_LEVEL_DRAM},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = t->measured_dram;
    gpu.measured_clock_hz = t->measured_clock;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_roofline_request req = {0};
    req.flops = t->flops;
    req.precision = t->precision;
    req.tensor_cores = t->tensor;
    double bytes[3] = {t->dram, t->l2, t->shared};
    for (int l = 0; l < 3; l++) {
        req.level_given[l] = bytes[l] >= 0.0;
        req.bytes[l] = bytes[l] >= 0.0 ? bytes[l] : 0.0;
    }
    struct simt_roofline_result r;
    struct simt_diag diag;
    ck_assert_int_eq(simt_roofline_compute(&figures, &req, &r, &diag), SIMT_OK);
    ck_assert_msg(fabs(r.time_s - t->time_s) <= 1e-12 * t->time_s + 1e-18, "%s: time %.12g", t->name,
                  r.time_s);
    ck_assert_double_eq_tol(r.arithmetic_intensity, t->intensity, 1e-9 * fmax(1, t->intensity));
    ck_assert_double_eq_tol(r.ridge_point, t->ridge, 1e-9 * t->ridge);
    ck_assert_double_eq_tol(r.attainable_flops_per_s, t->attainable, 1e-6 * fmax(1, t->attainable));
    ck_assert_msg(r.bound == t->bound, "%s: bound %d", t->name, r.bound);
}
END_TEST

struct bad {
    const char *name;
    double flops;
    enum simt_dtype precision;
    int tensor;
    double dram;
    int rc;
    const char *field;
};

static const struct bad bads[] = {
    {"tf32 without tensor cores", 1e9, SIMT_DTYPE_TF32, 0, 1e9, SIMT_EUNSAT, "tensor_cores"},
    {"no int4 tensor path", 1e9, SIMT_DTYPE_INT4, 1, 1e9, SIMT_EUNSAT, "precision"},
    {"negative flops", -1, SIMT_DTYPE_FP32, 0, 1e9, SIMT_EINVAL, "flops"},
    {"negative bytes", 1, SIMT_DTYPE_FP32, 0, -5, SIMT_EINVAL, "bytes.dram"},
    {"nothing to do", 0, SIMT_DTYPE_FP32, 0, 0, SIMT_EINVAL, "flops"},
};

START_TEST(test_bad)
{
    const struct bad *t = &bads[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_roofline_request req = {0};
    req.flops = t->flops;
    req.precision = t->precision;
    req.tensor_cores = t->tensor;
    req.level_given[SIMT_LEVEL_DRAM] = 1;
    req.bytes[SIMT_LEVEL_DRAM] = t->dram;
    struct simt_roofline_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_roofline_compute(&figures, &req, &r, &diag), t->rc);
    ck_assert_str_eq(diag.field, t->field);
}
END_TEST

/* A missing level bandwidth is unsatisfiable, named by its bytes field. */
START_TEST(test_missing_l2)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_bandwidth_bytes_per_s = 0;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_roofline_request req = {0};
    req.flops = 1;
    req.precision = SIMT_DTYPE_FP32;
    req.level_given[SIMT_LEVEL_L2] = 1;
    req.bytes[SIMT_LEVEL_L2] = 1;
    struct simt_roofline_result r;
    struct simt_diag diag;
    ck_assert_int_eq(simt_roofline_compute(&figures, &req, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "bytes.l2");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("roofline");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bads / sizeof bads[0]));
    tcase_add_test(tc, test_missing_l2);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
