/* test_figures.c - which figure a model computes with: measured over
 * datasheet, per-clock rates at the clock in use, sources and names. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "figures.h"
#include "model_fixture.h"

struct row {
    const char *name;
    enum simt_figure_policy policy;
    double measured_dram, measured_clock, measured_fp32, measured_dram_latency;
    enum simt_figure_id id;
    double value;
    enum simt_figure_source source;
};

static const struct row rows[] = {
    {"datasheet dram", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_DRAM_BANDWIDTH, 2e12,
     SIMT_FIGURE_DATASHEET},
    {"measured dram", SIMT_POLICY_PREFER_MEASURED, 1.7e12, 0, 0, 0, SIMT_FIG_DRAM_BANDWIDTH, 1.7e12,
     SIMT_FIGURE_MEASURED},
    {"datasheet policy ignores measured", SIMT_POLICY_DATASHEET, 1.7e12, 0, 0, 0, SIMT_FIG_DRAM_BANDWIDTH,
     2e12, SIMT_FIGURE_DATASHEET},
    /* 256 flops/clk/SM x 100 SMs x 1 GHz */
    {"fp32 at boost", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_FP32, 2.56e13, SIMT_FIGURE_DATASHEET},
    /* at a measured 0.9 GHz: 256 x 100 x 0.9e9 */
    {"fp32 at measured clock", SIMT_POLICY_PREFER_MEASURED, 0, 0.9e9, 0, 0, SIMT_FIG_FP32, 2.304e13,
     SIMT_FIGURE_DERIVED},
    {"fp32 measured", SIMT_POLICY_PREFER_MEASURED, 0, 0.9e9, 2.2e13, 0, SIMT_FIG_FP32, 2.2e13,
     SIMT_FIGURE_MEASURED},
    /* 32 banks x 4 B x 100 SMs x 1 GHz */
    {"shared bandwidth", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_SHARED_BANDWIDTH, 1.28e13,
     SIMT_FIGURE_DATASHEET},
    /* 4 issue slots x 100 x 1e9 */
    {"issue", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_ISSUE, 4e11, SIMT_FIGURE_DATASHEET},
    {"measured latency", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 612, SIMT_FIG_DRAM_LATENCY, 612,
     SIMT_FIGURE_MEASURED},
    /* tensor rates scale with a measured clock: 5e14 x 0.9 */
    {"tensor at measured clock", SIMT_POLICY_PREFER_MEASURED, 0, 0.9e9, 0, 0,
     (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_FP16), 4.5e14, SIMT_FIGURE_DERIVED},
    {"no int8 tensor path", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0,
     (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_INT8), 0, SIMT_FIGURE_ABSENT},
};

/* The figure set of gpu under policy: figure id has value and source. */
static void check_figure(const struct simt_gpu_spec *gpu, enum simt_figure_policy policy,
                         enum simt_figure_id id, double value, enum simt_figure_source source,
                         const char *name)
{
    struct simt_figure_set set;
    simt_figure_set_init(gpu, policy, &set);
    ck_assert_msg(fabs(simt_figure_get(&set, id) - value) <= 1e-9 * value, "%s: %g", name,
                  simt_figure_get(&set, id));
    ck_assert_msg(set.source[id] == source, "%s: source %s", name, simt_figure_source_name(set.source[id]));
}

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = t->measured_dram;
    gpu.measured_clock_hz = t->measured_clock;
    gpu.measured_fp32_flops_per_s = t->measured_fp32;
    gpu.measured_dram_latency_cycles = t->measured_dram_latency;
    check_figure(&gpu, t->policy, t->id, t->value, t->source, t->name);
}
END_TEST

/* DRAM by direction, and its rows: the fixture's datasheet DRAM figure is
 * 2e12 B/s; write, copy and row activations exist only as measured figures;
 * likewise L2 writes, L2 requests and the back-to-back launch interval. */
struct dram_row {
    const char *name;
    enum simt_figure_policy policy;
    double measured_read, measured_write, measured_copy, measured_rows;
    enum simt_figure_id id;
    double value;
    enum simt_figure_source source;
    /* L2 by direction and by request, and back-to-back launches (the
     * fixture's datasheet L2 is 8e12 B/s, its launch 2 us) */
    double measured_l2, measured_l2_write, measured_l2_requests, measured_interval;
};

static const struct dram_row dram_rows[] = {
    {"write stands in: datasheet", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_DRAM_WRITE_BANDWIDTH,
     2e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"write stands in: measured read", SIMT_POLICY_PREFER_MEASURED, 1.8e12, 0, 0, 0,
     SIMT_FIG_DRAM_WRITE_BANDWIDTH, 1.8e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"write measured", SIMT_POLICY_PREFER_MEASURED, 1.8e12, 1.2e12, 0, 0, SIMT_FIG_DRAM_WRITE_BANDWIDTH,
     1.2e12, SIMT_FIGURE_MEASURED, 0, 0, 0, 0},
    /* 2 / (1 / 1.8 + 1 / 1.2) = 1.44 */
    {"copy stands in: read and write, no turnaround", SIMT_POLICY_PREFER_MEASURED, 1.8e12, 1.2e12, 0, 0,
     SIMT_FIG_DRAM_COPY_BANDWIDTH, 1.44e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"copy measured", SIMT_POLICY_PREFER_MEASURED, 1.8e12, 1.2e12, 1.3e12, 0, SIMT_FIG_DRAM_COPY_BANDWIDTH,
     1.3e12, SIMT_FIGURE_MEASURED, 0, 0, 0, 0},
    {"datasheet policy: write is the datasheet's", SIMT_POLICY_DATASHEET, 1.8e12, 1.2e12, 1.3e12, 0,
     SIMT_FIG_DRAM_WRITE_BANDWIDTH, 2e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"datasheet policy: copy is the datasheet's", SIMT_POLICY_DATASHEET, 1.8e12, 1.2e12, 1.3e12, 0,
     SIMT_FIG_DRAM_COPY_BANDWIDTH, 2e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"row activations absent", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_DRAM_ROW_ACTIVATIONS, 0,
     SIMT_FIGURE_ABSENT, 0, 0, 0, 0},
    {"row activations measured", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 4e10, SIMT_FIG_DRAM_ROW_ACTIVATIONS,
     4e10, SIMT_FIGURE_MEASURED, 0, 0, 0, 0},
    {"datasheet policy: no row activations", SIMT_POLICY_DATASHEET, 0, 0, 0, 4e10,
     SIMT_FIG_DRAM_ROW_ACTIVATIONS, 0, SIMT_FIGURE_ABSENT, 0, 0, 0, 0},
    {"interleave documented", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_DRAM_INTERLEAVE, 256,
     SIMT_FIGURE_DOCUMENTED, 0, 0, 0, 0},
    {"l2 write stands in: datasheet", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_L2_WRITE_BANDWIDTH,
     8e12, SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"l2 write stands in: measured read", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0,
     SIMT_FIG_L2_WRITE_BANDWIDTH, 6e12, SIMT_FIGURE_STAND_IN, 6e12, 0, 0, 0},
    {"l2 write measured", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_L2_WRITE_BANDWIDTH, 3e12,
     SIMT_FIGURE_MEASURED, 6e12, 3e12, 0, 0},
    {"datasheet policy: l2 write is the datasheet's", SIMT_POLICY_DATASHEET, 0, 0, 0, 0,
     SIMT_FIG_L2_WRITE_BANDWIDTH, 8e12, SIMT_FIGURE_STAND_IN, 6e12, 3e12, 0, 0},
    {"l2 requests absent", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_L2_REQUESTS, 0,
     SIMT_FIGURE_ABSENT, 0, 0, 0, 0},
    {"l2 requests measured", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_L2_REQUESTS, 1.4e11,
     SIMT_FIGURE_MEASURED, 0, 0, 1.4e11, 0},
    {"launch interval stands in", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_LAUNCH_INTERVAL, 2e-6,
     SIMT_FIGURE_STAND_IN, 0, 0, 0, 0},
    {"launch interval measured", SIMT_POLICY_PREFER_MEASURED, 0, 0, 0, 0, SIMT_FIG_LAUNCH_INTERVAL, 1.5e-6,
     SIMT_FIGURE_MEASURED, 0, 0, 0, 1.5e-6},
};

START_TEST(test_dram_directions)
{
    const struct dram_row *t = &dram_rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = t->measured_read;
    gpu.measured_dram_write_bandwidth_bytes_per_s = t->measured_write;
    gpu.measured_dram_copy_bandwidth_bytes_per_s = t->measured_copy;
    gpu.measured_dram_row_activations_per_s = t->measured_rows;
    gpu.measured_l2_bandwidth_bytes_per_s = t->measured_l2;
    gpu.measured_l2_write_bandwidth_bytes_per_s = t->measured_l2_write;
    gpu.measured_l2_requests_per_s = t->measured_l2_requests;
    gpu.measured_launch_interval_s = t->measured_interval;
    check_figure(&gpu, t->policy, t->id, t->value, t->source, t->name);
}
END_TEST

/* The FP64 FMA's dependent latency: measured only; without it the FP32
 * FMA's (the fixture's 4 cycles) stands in, and the datasheet policy uses
 * the stand-in too. */
START_TEST(test_fp64_fma_latency)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    check_figure(&gpu, SIMT_POLICY_PREFER_MEASURED, SIMT_FIG_FP64_FMA_LATENCY, 4, SIMT_FIGURE_STAND_IN,
                 "stands in");
    gpu.measured_fp64_fma_latency_cycles = 8.2;
    check_figure(&gpu, SIMT_POLICY_PREFER_MEASURED, SIMT_FIG_FP64_FMA_LATENCY, 8.2, SIMT_FIGURE_MEASURED,
                 "measured");
    check_figure(&gpu, SIMT_POLICY_DATASHEET, SIMT_FIG_FP64_FMA_LATENCY, 4, SIMT_FIGURE_STAND_IN,
                 "datasheet policy");
}
END_TEST

/* DRAM read-modify-writes: measured only; without them half the row
 * activations stand in (the read and the write-back each open the row),
 * and without a row figure neither is there (rows are not limited). */
START_TEST(test_dram_partial_stores)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    check_figure(&gpu, SIMT_POLICY_PREFER_MEASURED, SIMT_FIG_DRAM_PARTIAL_STORES, 0, SIMT_FIGURE_ABSENT,
                 "no rows, no read-modify-writes");
    gpu.measured_dram_row_activations_per_s = 3e10;
    check_figure(&gpu, SIMT_POLICY_PREFER_MEASURED, SIMT_FIG_DRAM_PARTIAL_STORES, 1.5e10,
                 SIMT_FIGURE_STAND_IN, "half the rows stand in");
    gpu.measured_dram_partial_stores_per_s = 1.3e10;
    check_figure(&gpu, SIMT_POLICY_PREFER_MEASURED, SIMT_FIG_DRAM_PARTIAL_STORES, 1.3e10,
                 SIMT_FIGURE_MEASURED, "measured");
    check_figure(&gpu, SIMT_POLICY_DATASHEET, SIMT_FIG_DRAM_PARTIAL_STORES, 0, SIMT_FIGURE_ABSENT,
                 "datasheet policy: measured only");
}
END_TEST

START_TEST(test_names_and_require)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_bandwidth_bytes_per_s = 0;
    gpu.measured_dram_bandwidth_bytes_per_s = 1.5e12;
    struct simt_figure_set set;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &set);
    for (int id = 0; id < SIMT_FIG_COUNT; id++)
        ck_assert_ptr_nonnull(simt_figure_name((enum simt_figure_id)id));
    ck_assert_ptr_null(simt_figure_name(SIMT_FIG_COUNT));
    ck_assert_str_eq(simt_figure_name((enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16)),
                     "tensor_flops_per_s.bf16");
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_figure_require(&set, SIMT_FIG_L2_BANDWIDTH, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "l2_bandwidth_bytes_per_s");
    ck_assert_int_eq(simt_figure_require(&set, SIMT_FIG_DRAM_BANDWIDTH, &diag), SIMT_OK);
    char line[128];
    simt_figure_describe(&set, SIMT_FIG_DRAM_BANDWIDTH, line, sizeof line);
    ck_assert_str_eq(line, "dram_bandwidth_bytes_per_s = 1.5e+12 (measured on a real card)");
    simt_figure_describe(&set, SIMT_FIG_FP32, line, sizeof line);
    ck_assert_str_eq(line, "fp32_flops_per_s = 2.56e+13 (datasheet per-clock rate at boost clock)");
    simt_figure_describe(&set, SIMT_FIG_DRAM_WRITE_BANDWIDTH, line, sizeof line);
    ck_assert_str_eq(
        line, "dram_write_bandwidth_bytes_per_s = 1.5e+12 (no measured write figure: the DRAM bandwidth "
              "figure stands in)");
    ck_assert_str_eq(simt_figure_source_name(SIMT_FIGURE_STAND_IN), "stand-in");
    ck_assert_int_eq(simt_figure_describe(&set, SIMT_FIG_COUNT, line, sizeof line), -1);
}
END_TEST

/* The figure rule's third tier: with the record's achievable fractions a
 * figure that is not measured is datasheet x fraction (source ACHIEVABLE,
 * API "derived"), under either policy; a measured figure beats it under
 * PREFER_MEASURED. The fixture: DRAM 2e12, L2 8e12, FP32 256 x 100 SMs x
 * 1 GHz = 2.56e13, FP64 1.28e13, bf16 tensor 5e14. */
static const struct {
    enum simt_figure_id id;
    enum simt_figure_policy policy;
    int measured; /* give the figures measured values (1.5e12, 5e12, 2e13, 4e14, ...) */
    double want;
    enum simt_figure_source source;
} achievable_rows[] = {
    {SIMT_FIG_DRAM_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 0, 2.0e12 * 0.9, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_DRAM_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 1, 1.5e12, SIMT_FIGURE_MEASURED},
    {SIMT_FIG_DRAM_BANDWIDTH, SIMT_POLICY_DATASHEET, 1, 2.0e12 * 0.9, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_L2_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 0, 8.0e12 * 0.7, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_L2_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 1, 5.0e12, SIMT_FIGURE_MEASURED},
    {SIMT_FIG_FP32, SIMT_POLICY_PREFER_MEASURED, 0, 2.56e13 * 0.8, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_FP32, SIMT_POLICY_PREFER_MEASURED, 1, 2.0e13, SIMT_FIGURE_MEASURED},
    {SIMT_FIG_FP32, SIMT_POLICY_DATASHEET, 1, 2.56e13 * 0.8, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_FP64, SIMT_POLICY_DATASHEET, 0, 1.28e13 * 0.6, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16, SIMT_POLICY_PREFER_MEASURED, 0, 5.0e14 * 0.75,
     SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16, SIMT_POLICY_PREFER_MEASURED, 1, 4.0e14, SIMT_FIGURE_MEASURED},
    {SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16, SIMT_POLICY_DATASHEET, 1, 5.0e14 * 0.75,
     SIMT_FIGURE_ACHIEVABLE},
    /* no fraction for fp16: the datasheet figure as it is (today's rule) */
    {SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_FP16, SIMT_POLICY_PREFER_MEASURED, 0, 5.0e14, SIMT_FIGURE_DATASHEET},
    /* write and copy: their own fractions of the datasheet DRAM figure */
    {SIMT_FIG_DRAM_WRITE_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 0, 2.0e12 * 0.85, SIMT_FIGURE_ACHIEVABLE},
    {SIMT_FIG_DRAM_WRITE_BANDWIDTH, SIMT_POLICY_PREFER_MEASURED, 1, 1.2e12, SIMT_FIGURE_MEASURED},
    {SIMT_FIG_DRAM_COPY_BANDWIDTH, SIMT_POLICY_DATASHEET, 1, 2.0e12 * 0.8, SIMT_FIGURE_ACHIEVABLE},
};

START_TEST(test_achievable_rows)
{
    struct simt_gpu_spec g = fixture_gpu();
    g.achievable_dram_bandwidth = 0.9;
    g.achievable_dram_write_bandwidth = 0.85;
    g.achievable_dram_copy_bandwidth = 0.8;
    g.achievable_l2_bandwidth = 0.7;
    g.achievable_fp32 = 0.8;
    g.achievable_fp64 = 0.6;
    g.achievable_tensor[SIMT_DTYPE_BF16] = 0.75;
    if (achievable_rows[_i].measured) {
        g.measured_dram_bandwidth_bytes_per_s = 1.5e12;
        g.measured_l2_bandwidth_bytes_per_s = 5.0e12;
        g.measured_fp32_flops_per_s = 2.0e13;
        g.measured_tensor_flops_per_s[SIMT_DTYPE_BF16] = 4.0e14;
        g.measured_dram_write_bandwidth_bytes_per_s = 1.2e12;
        g.measured_dram_copy_bandwidth_bytes_per_s = 1.1e12;
    }
    struct simt_figure_set set;
    simt_figure_set_init(&g, achievable_rows[_i].policy, &set);
    enum simt_figure_id id = achievable_rows[_i].id;
    ck_assert_double_eq_tol(simt_figure_get(&set, id), achievable_rows[_i].want,
                            achievable_rows[_i].want * 1e-12);
    ck_assert_int_eq(set.source[id], achievable_rows[_i].source);
    char line[256];
    ck_assert_int_gt(simt_figure_describe(&set, id, line, sizeof line), 0);
    if (achievable_rows[_i].source == SIMT_FIGURE_ACHIEVABLE) {
        ck_assert_str_eq(simt_figure_source_name(set.source[id]), "derived");
        ck_assert(set.fraction[id] > 0.0 && set.fraction[id] <= 1.0);
        ck_assert_double_eq_tol(set.datasheet[id] * set.fraction[id], set.value[id], set.value[id] * 1e-12);
        ck_assert_msg(strstr(line, "achievable fraction") != NULL, "%s", line);
    } else {
        ck_assert(set.fraction[id] <= 0.0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_loop_test(tc, test_dram_directions, 0, (int)(sizeof dram_rows / sizeof dram_rows[0]));
    tcase_add_test(tc, test_fp64_fma_latency);
    tcase_add_test(tc, test_dram_partial_stores);
    tcase_add_test(tc, test_names_and_require);
    tcase_add_loop_test(tc, test_achievable_rows, 0,
                        (int)(sizeof achievable_rows / sizeof achievable_rows[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
