/* test_kernel_tensor.c - tensor-core work in whole-kernel predictions
 * (model/kernel_tensor.c): worked by hand on the fixture GPU (100 SMs at
 * 1 GHz, bf16 tensor 5e14 flops/s = 5000 flops per SM per cycle, 4 warp
 * schedulers, 4 issue slots a cycle, launch 2 us), the warps / 4 limit of
 * the pipe, its overlap with shared-memory traffic, the refusal of a type
 * the tensor cores lack; and on every GPU of the bundled database with bf16
 * tensor cores: doubling the work doubles a compute-bound time, doubling
 * the bf16 peak halves it. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "hwdb.h"
#include "kernel.h"
#include "model_fixture.h"

#define BUNDLED SIMT_SOURCE_DIR "/hwdb"

static struct simt_kernel_request tensor_request(int64_t grid, int block, double bf16_flops)
{
    struct simt_kernel_request req;
    simt_kernel_request_init(&req, 32);
    req.grid[0] = grid;
    req.block[0] = block;
    req.registers_per_thread = 64;
    req.flops_tensor[SIMT_DTYPE_BF16] = bf16_flops;
    return req;
}

static int predict_on(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                      struct simt_kernel_result *r, struct simt_diag *diag)
{
    struct simt_figure_set figures;
    simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    memset(diag, 0, sizeof *diag);
    return simt_kernel_predict(gpu, &figures, req, r, diag);
}

static struct simt_kernel_result predict(const struct simt_kernel_request *req)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_kernel_result r;
    struct simt_diag diag;
    int rc = predict_on(&gpu, req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict: %d %s: %s", rc, diag.field, diag.message);
    return r;
}

/* 100 blocks of 128 threads (4 warps, one per scheduler) on 100 SMs, 1e6
 * bf16 tensor flops per thread: an SM does 128 x 1e6 = 1.28e8 flops at
 * 5e14 / 100 / 1e9 = 5000 a cycle: 25600 cycles = 25.6 us. Each warp also
 * issues 1e6 / 128 = 7812.5 mma.sync (m16n8k16: 2 x 16 x 8 x 16 / 32 = 128
 * flops per lane), 1953 cycles of one issue slot in 4. With 4 warps the
 * network overlaps issue with the pipe (6400 cycles a warp there): the SM
 * takes the pipe's 25600 cycles (the solver gives exactly that; 2% is
 * allowed for the issue overlap), so time = 25.6 us + 2 us launch; bound
 * compute, the breakdown's tensor_s is the pipe alone. */
START_TEST(hand_worked_pipe)
{
    struct simt_kernel_request req = tensor_request(100, 128, 1e6);
    struct simt_kernel_result r = predict(&req);
    ck_assert_str_eq(simt_kernel_bound_name(r.bound), "compute");
    ck_assert_double_eq_tol(r.tensor_s, 25.6e-6, 1e-12);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_COMPUTE], 25.6e-6, 1e-12);
    ck_assert_double_eq_tol(r.issue_s, 4.0 * 7812.5 / 4.0 / 1e9, 1e-12);
    ck_assert_msg(r.time_s >= 27.6e-6 - 1e-12 && r.time_s <= 25.6e-6 * 1.02 + 2e-6, "time %g", r.time_s);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_TENSOR_PIPE);
    ck_assert(!(r.assumed & SIMT_KERNEL_ASSUMED_TENSOR_FEW_WARPS));
    ck_assert(r.figures_used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_BF16));
}
END_TEST

/* Fewer warps than schedulers: each mma.sync issues on its own warp's
 * scheduler, so W < 4 warps reach W / 4 of the pipe. One block of 32, 64
 * or 96 threads per SM (1, 2, 3 warps), same per-thread work: an SM does
 * W x 32 x 1e6 flops at W / 4 x 5000 a cycle = 25600 cycles whatever W:
 * the pipe term is 25.6 us for each. With 8 warps (256 threads) the pipe
 * is whole: 8 x 32e6 / 5000 = 51200 cycles. */
static const struct {
    int block;
    double tensor_s;
    int few;
} warp_rows[] = {
    {32, 25.6e-6, 1}, {64, 25.6e-6, 1}, {96, 25.6e-6, 1}, {128, 25.6e-6, 0}, {256, 51.2e-6, 0},
};

START_TEST(few_warps_reach_a_share)
{
    struct simt_kernel_request req = tensor_request(100, warp_rows[_i].block, 1e6);
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.tensor_s, warp_rows[_i].tensor_s, 1e-12);
    ck_assert_int_eq((r.assumed & SIMT_KERNEL_ASSUMED_TENSOR_FEW_WARPS) != 0, warp_rows[_i].few);
    /* the network agrees with the term: the execution is the pipe's time,
     * plus at most one warp's issue of its MMAs (7812.5 / 4 issue slots =
     * 1953 cycles; a lone warp issues and waits in turn) */
    ck_assert_msg(
        r.execution_s >= warp_rows[_i].tensor_s && r.execution_s <= warp_rows[_i].tensor_s + 1.954e-6,
        "block %d: execution %g, pipe %g", warp_rows[_i].block, r.execution_s, warp_rows[_i].tensor_s);
}
END_TEST

/* The pipe is a center of its own: shared-memory operand loads that take
 * less time than the MMAs overlap them. 4 warps, 1e6 bf16 flops per thread
 * (25600 cycles of the pipe) and 1024 conflict-free 16-byte shared loads a
 * thread (512 B a warp: 4 wavefronts each, 4 x 1024 x 4 warps = 16384
 * cycles of the data path, 16.384 us). The execution stays within 15% of
 * the pipe's 25.6 us, far below the 42 us of the two in sequence. */
START_TEST(overlaps_shared_loads)
{
    struct simt_kernel_request req = tensor_request(100, 128, 1e6);
    struct simt_kernel_access *a = &req.accesses[req.access_count++];
    a->space = SIMT_SPACE_SHARED;
    a->op = SIMT_OP_LOAD;
    a->count = 1024;
    a->independent = 8;
    simt_warp_access_init(&a->pattern, 32, 16);
    a->pattern.lane_stride_elements = 1;
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_SHARED], 16.384e-6, 1e-12);
    ck_assert_msg(r.execution_s < 1.15 * 25.6e-6, "execution %g", r.execution_s);
    ck_assert_msg(r.execution_s >= 25.6e-6, "execution %g", r.execution_s);
}
END_TEST

/* The fixture has fp16, bf16 and fp64 tensor rates only: fp8 and tf32 are
 * refused naming the request's field; a negative amount is malformed. */
START_TEST(refusals)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_kernel_result r;
    struct simt_diag diag;
    struct simt_kernel_request req = tensor_request(100, 128, 0.0);
    req.flops_tensor[SIMT_DTYPE_FP8] = 100.0;
    ck_assert_int_eq(predict_on(&gpu, &req, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "per_thread.flops.tensor_fp8");
    ck_assert_ptr_nonnull(strstr(diag.message, "fp8"));
    req = tensor_request(100, 128, 0.0);
    req.flops_tensor[SIMT_DTYPE_TF32] = 1.0;
    ck_assert_int_eq(predict_on(&gpu, &req, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "per_thread.flops.tensor_tf32");
    req = tensor_request(100, 128, -1.0);
    ck_assert_int_eq(predict_on(&gpu, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.flops.tensor_bf16");
    /* fp64 MMAs: m8n8k4 = 16 flops per lane an instruction; 5e13 / 100 /
     * 1e9 = 500 flops per SM per cycle: 4 warps x 32 x 1e5 / 500 = 25600 */
    req = tensor_request(100, 128, 0.0);
    req.flops_tensor[SIMT_DTYPE_FP64] = 1e5;
    ck_assert_int_eq(predict_on(&gpu, &req, &r, &diag), SIMT_OK);
    ck_assert_double_eq_tol(r.tensor_s, 25.6e-6, 1e-12);
    ck_assert_double_eq_tol(r.issue_s, 4.0 * 1e5 / 16.0 / 4.0 / 1e9, 1e-12);
}
END_TEST

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

/* Issue 15's acceptance, on every bundled GPU with bf16 tensor cores: a
 * compute-bound launch (4 blocks of 256 threads per SM, 1e6 bf16 tensor
 * flops per thread, no memory traffic) takes about twice as long with twice
 * the work (within 10%), and about half as long on a what-if with twice the
 * bf16 peak (datasheet and measured figure both doubled, as hwdb/whatif.c
 * moves a measured figure with its datasheet counterpart). A GPU without
 * bf16 is refused naming the field. */
START_TEST(doubling_on_every_bf16_gpu)
{
    if ((size_t)_i >= simt_hwdb_count(db))
        return;
    const struct simt_hwdb_gpu *rec = simt_hwdb_at(db, (size_t)_i);
    struct simt_kernel_request req = tensor_request(4 * (int64_t)rec->spec.sm_count, 256, 1e6);
    req.block[0] = 4 * rec->spec.warp_size; /* 4 warps whatever the warp */
    simt_branch_init(&req.branch, rec->spec.warp_size);
    struct simt_kernel_result one, two, fast;
    struct simt_diag diag;
    if (!(rec->spec.tensor_dense_flops_per_s[SIMT_DTYPE_BF16] > 0.0)) {
        ck_assert_int_eq(predict_on(&rec->spec, &req, &one, &diag), SIMT_EUNSAT);
        ck_assert_str_eq(diag.field, "per_thread.flops.tensor_bf16");
        return;
    }
    ck_assert_msg(predict_on(&rec->spec, &req, &one, &diag) == SIMT_OK, "%s: %s", rec->id, diag.message);
    ck_assert_str_eq(simt_kernel_bound_name(one.bound), "compute");
    req.flops_tensor[SIMT_DTYPE_BF16] *= 2.0;
    ck_assert_int_eq(predict_on(&rec->spec, &req, &two, &diag), SIMT_OK);
    double ratio = two.time_s / one.time_s;
    ck_assert_msg(fabs(ratio - 2.0) <= 0.2, "%s: twice the work takes %.3f of the time", rec->id, ratio);
    req.flops_tensor[SIMT_DTYPE_BF16] /= 2.0;
    struct simt_gpu_spec faster = rec->spec;
    faster.tensor_dense_flops_per_s[SIMT_DTYPE_BF16] *= 2.0;
    faster.measured_tensor_flops_per_s[SIMT_DTYPE_BF16] *= 2.0;
    ck_assert_int_eq(predict_on(&faster, &req, &fast, &diag), SIMT_OK);
    ratio = fast.time_s / one.time_s;
    ck_assert_msg(fabs(ratio - 0.5) <= 0.05, "%s: twice the bf16 peak takes %.3f of the time", rec->id,
                  ratio);
}
END_TEST

static Suite *tensor_suite(void)
{
    Suite *s = suite_create("kernel_tensor");
    TCase *tc = tcase_create("fixture");
    tcase_add_test(tc, hand_worked_pipe);
    tcase_add_loop_test(tc, few_warps_reach_a_share, 0, (int)(sizeof warp_rows / sizeof warp_rows[0]));
    tcase_add_test(tc, overlaps_shared_loads);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    TCase *db_tc = tcase_create("database");
    tcase_add_unchecked_fixture(db_tc, load_db, free_db);
    tcase_add_loop_test(db_tc, doubling_on_every_bf16_gpu, 0, 64);
    suite_add_tcase(s, db_tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tensor_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
