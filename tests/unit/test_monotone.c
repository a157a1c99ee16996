/* test_monotone.c - answers are monotone in every figure (issue 11): for
 * every GPU of the bundled database and a few requests per model (GEMM
 * compute-bound and DRAM-bound GEMV, roofline, kernel, latency hiding),
 * doubling a figure the model reads (DRAM bandwidth, L2 bandwidth, the
 * dtype's tensor peak, the FP32 rate) never makes the answer slower (the
 * GEMM also in the GPU's narrowest type and 2:4 sparse); and
 * doubling DRAM bandwidth roughly halves a DRAM-bound GEMV and roofline,
 * doubling the tensor peak roughly halves a compute-bound 8192^3 GEMM.
 *
 * The spec is changed directly: the datasheet field and its measured
 * counterpart together (the what-if scaling of measured figures is the
 * API's), so the figure the model reads doubles whichever tier it comes
 * from. A model that refuses a GPU (a figure the record lacks) is skipped
 * for that GPU; the database's completeness test is elsewhere. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "hwdb.h"
#include "kernel.h"
#include "latency.h"
#include "roofline.h"

#define BUNDLED SIMT_SOURCE_DIR "/hwdb"

enum knob { KNOB_DRAM_READ, KNOB_DRAM_ALL, KNOB_L2, KNOB_TENSOR, KNOB_FP32, KNOB_COUNT };
static const char *const knob_names[KNOB_COUNT] = {"dram read", "dram (read, write, copy)", "l2", "tensor",
                                                   "fp32"};

/* The tensor dtype every GEMM and roofline here uses: fp16 where the GPU
 * has it (every GPU of the database), else bf16. */
static enum simt_dtype tensor_dtype(const struct simt_gpu_spec *g)
{
    return g->tensor_dense_flops_per_s[SIMT_DTYPE_FP16] > 0.0 ? SIMT_DTYPE_FP16 : SIMT_DTYPE_BF16;
}

/* Doubles one figure in the datasheet field and its measured counterpart. */
static void scale(struct simt_gpu_spec *g, enum knob knob, double factor)
{
    switch (knob) {
    case KNOB_DRAM_ALL:
        g->measured_dram_write_bandwidth_bytes_per_s *= factor;
        g->measured_dram_copy_bandwidth_bytes_per_s *= factor;
        /* fall through */
    case KNOB_DRAM_READ:
        g->dram_bandwidth_bytes_per_s *= factor;
        g->measured_dram_bandwidth_bytes_per_s *= factor;
        break;
    case KNOB_L2:
        g->l2_bandwidth_bytes_per_s *= factor;
        g->measured_l2_bandwidth_bytes_per_s *= factor;
        g->measured_l2_write_bandwidth_bytes_per_s *= factor;
        g->measured_l2_requests_per_s *= factor;
        break;
    case KNOB_TENSOR:
        /* every type's rates, dense and 2:4 sparse, so that the narrow
         * and sparse questions move too (the others read only fp16's or
         * bf16's) */
        for (int t = 0; t < SIMT_DTYPE_COUNT; t++) {
            g->tensor_dense_flops_per_s[t] *= factor;
            g->tensor_sparse_flops_per_s[t] *= factor;
            g->measured_tensor_flops_per_s[t] *= factor;
        }
        break;
    case KNOB_FP32:
        g->fp32_flops_per_clock_per_sm *= factor;
        g->measured_fp32_flops_per_s *= factor;
        break;
    case KNOB_COUNT:
        break;
    }
}

enum question {
    Q_GEMM_COMPUTE,
    Q_GEMV,
    Q_GEMM_FP32,
    Q_ROOF_DRAM,
    Q_ROOF_COMPUTE,
    Q_KERNEL_COPY,
    Q_KERNEL_FMA,
    Q_LATENCY_DRAM,
    Q_LATENCY_L2,
    Q_GEMM_NARROW,
    Q_GEMM_SPARSE,
    Q_KERNEL_GATHER_L2,
    Q_KERNEL_SCATTER_L2,
    Q_COUNT
};
static const char *const question_names[Q_COUNT] = {"gemm 8192^3",
                                                    "gemv 1x16384x16384",
                                                    "gemm fp32 4096^3",
                                                    "roofline dram-bound",
                                                    "roofline compute-bound",
                                                    "kernel copy",
                                                    "kernel fma",
                                                    "latency dram",
                                                    "latency l2",
                                                    "gemm 8192^3 in the GPU's narrowest type",
                                                    "gemm 8192^3 2:4 sparse",
                                                    "kernel gather from a 4 MiB table",
                                                    "kernel scatter into a 4 MiB table"};

static int gemm_time_sparse(const struct simt_gpu_spec *g, int64_t m, int64_t n, int64_t k,
                            enum simt_dtype dtype, int sparse, double *time_s)
{
    struct simt_gemm_request req = {
        m, n, k, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, sparse};
    struct simt_gemm_result r;
    int rc = simt_gemm_predict(g, &req, &r, NULL);
    *time_s = r.time_s;
    return rc;
}

static int gemm_time(const struct simt_gpu_spec *g, int64_t m, int64_t n, int64_t k, enum simt_dtype dtype,
                     double *time_s)
{
    return gemm_time_sparse(g, m, n, k, dtype, 0, time_s);
}

/* The last type of the enum the GPU has a dense tensor rate for: nvfp4 on
 * the Blackwell GPUs, int4 on Turing to Ada, int8 on Hopper. */
static enum simt_dtype narrowest_dtype(const struct simt_gpu_spec *g)
{
    enum simt_dtype narrowest = tensor_dtype(g);
    for (int t = 0; t < SIMT_DTYPE_COUNT; t++)
        if (g->tensor_dense_flops_per_s[t] > 0.0)
            narrowest = (enum simt_dtype)t;
    return narrowest;
}

static int roofline_time(const struct simt_gpu_spec *g, double flops, double dram_bytes, double *time_s)
{
    struct simt_figure_set figures;
    simt_figure_set_init(g, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_roofline_request req;
    memset(&req, 0, sizeof req);
    req.flops = flops;
    req.precision = tensor_dtype(g);
    req.tensor_cores = 1;
    req.bytes[SIMT_LEVEL_DRAM] = dram_bytes;
    req.level_given[SIMT_LEVEL_DRAM] = 1;
    struct simt_roofline_result r;
    int rc = simt_roofline_compute(&figures, &req, &r, NULL);
    *time_s = r.time_s;
    return rc;
}

/* A request of 65536 blocks of 256 threads, `accesses` global accesses of
 * one 4-byte element a thread each, unit stride: loads, then `last` for
 * the last one. */
static void stream_request(const struct simt_gpu_spec *g, int accesses, enum simt_op last,
                           struct simt_kernel_request *req)
{
    simt_kernel_request_init(req, g->warp_size);
    req->grid[0] = 65536;
    req->block[0] = 256;
    req->registers_per_thread = 32;
    req->access_count = accesses;
    for (int i = 0; i < accesses; i++) {
        struct simt_kernel_access *a = &req->accesses[i];
        a->space = SIMT_SPACE_GLOBAL;
        a->op = i + 1 < accesses ? SIMT_OP_LOAD : last;
        a->count = 1.0;
        a->independent = 1.0;
        simt_warp_access_init(&a->pattern, g->warp_size, 4);
    }
}

static int kernel_answer(const struct simt_gpu_spec *g, const struct simt_kernel_request *req, double *time_s)
{
    struct simt_figure_set figures;
    simt_figure_set_init(g, SIMT_POLICY_PREFER_MEASURED, &figures);
    static struct simt_kernel_result r; /* large */
    int rc = simt_kernel_predict(g, &figures, req, &r, NULL);
    *time_s = r.time_s;
    return rc;
}

/* A copy (one load and one store of 4 bytes per thread, unit stride), or an
 * FMA-heavy kernel (4096 fp32 flops and one load per thread). */
static int kernel_time(const struct simt_gpu_spec *g, int fma, double *time_s)
{
    struct simt_kernel_request req;
    stream_request(g, fma ? 1 : 2, fma ? SIMT_OP_LOAD : SIMT_OP_STORE, &req);
    req.flops_fp32 = fma ? 4096.0 : 0.0;
    return kernel_answer(g, &req, time_s);
}

/* Random 4-byte reads of (or stores into) a 4 MiB table, the index stream
 * beside them: L2 hits that are a request each. */
static int table_time(const struct simt_gpu_spec *g, enum simt_op op, double *time_s)
{
    struct simt_kernel_request req;
    stream_request(g, 2, op, &req);
    req.accesses[1].pattern.lane_stride_elements = 256;
    req.accesses[1].distinct_addresses = (double)(1 << 20);
    return kernel_answer(g, &req, time_s);
}

/* Latency hiding answers a rate: its "time" here is 1 / achieved. */
static int latency_time(const struct simt_gpu_spec *g, enum simt_latency_level level, double *time_s)
{
    struct simt_latency_request req;
    simt_latency_request_init(&req);
    req.level = level;
    req.warps_per_sm = 48.0;
    req.ilp = 4.0;
    req.bytes_per_lane = 16.0;
    struct simt_figure_set figures;
    simt_figure_set_init(g, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_latency_result r;
    int rc = simt_latency_compute(g, &figures, &req, &r, NULL);
    *time_s = rc == SIMT_OK ? 1.0 / r.achieved_per_s : 0.0;
    return rc;
}

static int answer(const struct simt_gpu_spec *g, enum question q, double *time_s)
{
    switch (q) {
    case Q_GEMM_COMPUTE:
        return gemm_time(g, 8192, 8192, 8192, tensor_dtype(g), time_s);
    case Q_GEMV:
        return gemm_time(g, 1, 16384, 16384, tensor_dtype(g), time_s);
    case Q_GEMM_FP32:
        return gemm_time(g, 4096, 4096, 4096, SIMT_DTYPE_FP32, time_s);
    case Q_ROOF_DRAM:
        return roofline_time(g, 1e9, 4e10, time_s);
    case Q_ROOF_COMPUTE:
        return roofline_time(g, 1e15, 1e6, time_s);
    case Q_KERNEL_COPY:
        return kernel_time(g, 0, time_s);
    case Q_KERNEL_FMA:
        return kernel_time(g, 1, time_s);
    case Q_LATENCY_DRAM:
        return latency_time(g, SIMT_LATENCY_DRAM, time_s);
    case Q_LATENCY_L2:
        return latency_time(g, SIMT_LATENCY_L2, time_s);
    case Q_GEMM_NARROW:
        return gemm_time(g, 8192, 8192, 8192, narrowest_dtype(g), time_s);
    case Q_GEMM_SPARSE:
        return gemm_time_sparse(g, 8192, 8192, 8192, tensor_dtype(g), 1, time_s);
    case Q_KERNEL_GATHER_L2:
        return table_time(g, SIMT_OP_LOAD, time_s);
    case Q_KERNEL_SCATTER_L2:
        return table_time(g, SIMT_OP_STORE, time_s);
    case Q_COUNT:
        break;
    }
    return SIMT_EINVAL;
}

static struct simt_hwdb *db;

static void load_db(void)
{
    struct simt_diag diag;
    int rc = simt_hwdb_load_dir(BUNDLED, &db, &diag);
    ck_assert_msg(rc == SIMT_OK, "bundled database refused: %s", diag.message);
}

static void free_db(void)
{
    simt_hwdb_unref(db);
    db = NULL;
}

/* _i walks GPU x question; every knob doubled never slows the answer. */
START_TEST(doubling_never_slows)
{
    size_t gpu_index = (size_t)_i / Q_COUNT;
    enum question q = (enum question)(_i % Q_COUNT);
    if (gpu_index >= simt_hwdb_count(db))
        return;
    const struct simt_hwdb_gpu *rec = simt_hwdb_at(db, gpu_index);
    double before;
    if (answer(&rec->spec, q, &before) != SIMT_OK)
        return; /* this model refuses this GPU: a database gap, tested elsewhere */
    ck_assert_msg(isfinite(before) && before > 0.0, "%s %s: time %g", rec->id, question_names[q], before);
    for (int k = 0; k < KNOB_COUNT; k++) {
        struct simt_gpu_spec g = rec->spec;
        scale(&g, (enum knob)k, 2.0);
        double after;
        ck_assert_int_eq(answer(&g, q, &after), SIMT_OK);
        ck_assert_msg(after <= before * (1.0 + 1e-12), "%s, %s: doubling %s made it slower: %.6g -> %.6g s",
                      rec->id, question_names[q], knob_names[k], before, after);
    }
}
END_TEST

/* The figure a bound answer rests on: doubled, the answer roughly halves. */
static const struct {
    enum question q;
    enum knob knob;
} halving_rows[] = {
    {Q_GEMV, KNOB_DRAM_ALL},
    {Q_ROOF_DRAM, KNOB_DRAM_READ},
    {Q_GEMM_COMPUTE, KNOB_TENSOR},
    {Q_ROOF_COMPUTE, KNOB_TENSOR},
};
#define HALVING_ROWS (int)(sizeof halving_rows / sizeof halving_rows[0])

START_TEST(doubling_the_bound_figure_halves)
{
    size_t gpu_index = (size_t)_i / HALVING_ROWS;
    int row = _i % HALVING_ROWS;
    if (gpu_index >= simt_hwdb_count(db))
        return;
    const struct simt_hwdb_gpu *rec = simt_hwdb_at(db, gpu_index);
    enum question q = halving_rows[row].q;
    double before, after;
    ck_assert_msg(answer(&rec->spec, q, &before) == SIMT_OK, "%s: %s refused", rec->id, question_names[q]);
    struct simt_gpu_spec g = rec->spec;
    scale(&g, halving_rows[row].knob, 2.0);
    ck_assert_int_eq(answer(&g, q, &after), SIMT_OK);
    double ratio = after / before;
    ck_assert_msg(fabs(ratio - 0.5) <= 0.1, "%s, %s: doubling %s gives %.3f of the time (want 0.5 +/- 0.1)",
                  rec->id, question_names[q], knob_names[halving_rows[row].knob], ratio);
}
END_TEST

/* A kernel of one warp takes at least the GPU's fixed per-kernel cost (the
 * launch_overhead_s figure) wherever the record has one (issue 11 item 4). */
START_TEST(one_warp_kernel_has_the_launch_floor)
{
    if ((size_t)_i >= simt_hwdb_count(db))
        return;
    const struct simt_hwdb_gpu *rec = simt_hwdb_at(db, (size_t)_i);
    struct simt_figure_set figures;
    simt_figure_set_init(&rec->spec, SIMT_POLICY_PREFER_MEASURED, &figures);
    double floor_s = simt_figure_get(&figures, SIMT_FIG_LAUNCH_OVERHEAD);
    if (!(floor_s > 0.0))
        return; /* no figure yet: the database's gap */
    struct simt_kernel_request req;
    simt_kernel_request_init(&req, rec->spec.warp_size);
    req.block[0] = rec->spec.warp_size;
    req.registers_per_thread = 16;
    req.flops_fp32 = 4.0;
    static struct simt_kernel_result r;
    if (simt_kernel_predict(&rec->spec, &figures, &req, &r, NULL) != SIMT_OK)
        return;
    ck_assert_msg(r.time_s >= floor_s, "%s: one warp takes %.4g s, under the launch floor %.4g s", rec->id,
                  r.time_s, floor_s);
}
END_TEST

/* Enough loop iterations for every GPU of the database (13 today). */
#define MAX_GPUS 32

int main(void)
{
    Suite *s = suite_create("monotone");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, load_db, free_db);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, doubling_never_slows, 0, MAX_GPUS * Q_COUNT);
    tcase_add_loop_test(tc, doubling_the_bound_figure_halves, 0, MAX_GPUS * HALVING_ROWS);
    tcase_add_loop_test(tc, one_warp_kernel_has_the_launch_floor, 0, MAX_GPUS);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
