/* test_kernel_issue.c - which global loads the kernel model takes to be in
 * flight together (model/kernel_issue.c), on the fixture GPU (100 SMs at
 * 1 GHz, 500-cycle DRAM latency, a 48-cycle row cycle as its spread, 64-B
 * DRAM granules, DRAM 20 B/cycle and L2 port 80 B/cycle per SM, 4 issue
 * slots), worked by hand: consecutive loads indexed by the thread share
 * their rounds; a repeat, a table, explicit lane addresses, a store between
 * them or `depends_on` keep them apart; and what an FP64 instruction that
 * holds its scheduler (fp64_issue_hold_fraction) costs the issue center. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "kernel.h"
#include "model_fixture.h"

static struct simt_kernel_request one_warp(void)
{
    struct simt_kernel_request req;
    simt_kernel_request_init(&req, 32);
    req.grid[0] = 1;
    req.block[0] = 32;
    req.registers_per_thread = 32;
    return req;
}

static struct simt_kernel_access *add_load(struct simt_kernel_request *req, enum simt_op op, double count,
                                           double independent)
{
    struct simt_kernel_access *a = &req->accesses[req->access_count++];
    a->space = SIMT_SPACE_GLOBAL;
    a->op = op;
    a->count = count;
    a->independent = independent;
    simt_warp_access_init(&a->pattern, 32, 4);
    return a;
}

/* The fixture without L2 capacity: no dirty lines of other work to write
 * back, so the rows below price only their own loads. */
static struct simt_gpu_spec clean_gpu(void)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_bytes = 0.0;
    return gpu;
}

static int predict_rc_on(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                         struct simt_kernel_result *r, struct simt_diag *diag)
{
    struct simt_figure_set figures;
    simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    memset(diag, 0, sizeof *diag);
    return simt_kernel_predict(gpu, &figures, req, r, diag);
}

static int predict_rc(const struct simt_kernel_request *req, struct simt_kernel_result *r,
                      struct simt_diag *diag)
{
    struct simt_gpu_spec gpu = clean_gpu();
    return predict_rc_on(&gpu, req, r, diag);
}

static struct simt_kernel_result predict_on(const struct simt_gpu_spec *gpu,
                                            const struct simt_kernel_request *req)
{
    struct simt_kernel_result r;
    struct simt_diag diag;
    int rc = predict_rc_on(gpu, req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict: %d %s: %s", rc, diag.field, diag.message);
    return r;
}

static struct simt_kernel_result predict(const struct simt_kernel_request *req)
{
    struct simt_gpu_spec gpu = clean_gpu();
    return predict_on(&gpu, req);
}

/* One warp, two streams a[i], b[i] read 100 times each, one load of each
 * at a time (a loop of y[i] = a[i] + b[i]). Together: 100 rounds, each
 * ending with the slowest of 4 granules (two loads of 128 B):
 * (500 - 48) + 48 x H(4) = 452 + 100 = 552 cycles, 55200 in all; the
 * demands (DRAM and L2 200 x 128 B / 80 = 320 each, 200 lines on the data
 * path, 50 issue) over the 2 streams: 445. Latency term 55645 cycles.
 * With b declared dependent on a: 200 rounds of 452 + 48 x H(2) = 524, so
 * 104800, plus the demands on one stream, 890: 105690 cycles. */
START_TEST(test_two_streams_share_rounds)
{
    struct simt_kernel_request req = one_warp();
    add_load(&req, SIMT_OP_LOAD, 100, 1);
    add_load(&req, SIMT_OP_LOAD, 100, 1);
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.latency_rounds_per_warp, 100, 1e-12);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 55.645e-6, 1e-12);
    ck_assert_int_eq(r.loads_together, 1);
    req.accesses[1].depends_on = 1;
    r = predict(&req);
    ck_assert_double_eq_tol(r.latency_rounds_per_warp, 200, 1e-12);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 105.69e-6, 1e-12);
    ck_assert_int_eq(r.loads_together, 0);
}
END_TEST

/* A group waits as long as its longest member: a[] 8 loads all in flight
 * (1 round) beside b[] 8 loads one at a time (8 rounds) take 8 rounds, not
 * 9. */
START_TEST(test_group_takes_its_longest)
{
    struct simt_kernel_request req = one_warp();
    add_load(&req, SIMT_OP_LOAD, 8, 8);
    add_load(&req, SIMT_OP_LOAD, 8, 1);
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.latency_rounds_per_warp, 8, 1e-12);
}
END_TEST

/* What keeps two loads apart (two rounds, none shared): the second reads
 * again what the first read (a repeat), reads a shared table (a gather's
 * lookup), has explicit lane addresses, declares depends_on, or a store
 * stands between them. Row 5 has them adjacent and shares. */
static const struct {
    int variant;
    double rounds;
} apart_rows[] = {{0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 1}};

START_TEST(test_what_keeps_loads_apart)
{
    struct simt_kernel_request req = one_warp();
    add_load(&req, SIMT_OP_LOAD, 1, 1);
    if (apart_rows[_i].variant == 4)
        add_load(&req, SIMT_OP_STORE, 1, 1);
    struct simt_kernel_access *b = add_load(&req, SIMT_OP_LOAD, 1, 1);
    switch (apart_rows[_i].variant) {
    case 0:
        b->repeats_of = 1;
        break;
    case 1:
        b->distinct_addresses = 1 << 20;
        break;
    case 2:
        b->pattern.explicit_addresses = 1;
        for (int lane = 0; lane < 32; lane++)
            b->pattern.lane_address_bytes[lane] = (int64_t)lane * 4096;
        break;
    case 3:
        b->depends_on = 1;
        break;
    default:
        break;
    }
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.latency_rounds_per_warp, apart_rows[_i].rounds, 1e-12);
    ck_assert_int_eq(r.loads_together, apart_rows[_i].rounds < 2);
}
END_TEST

/* depends_on names an earlier access, like repeats. */
START_TEST(test_depends_on_must_be_earlier)
{
    struct simt_kernel_request req = one_warp();
    add_load(&req, SIMT_OP_LOAD, 1, 1);
    add_load(&req, SIMT_OP_LOAD, 1, 1);
    struct simt_kernel_result r;
    struct simt_diag diag;
    req.accesses[1].depends_on = 2; /* itself */
    ck_assert_int_eq(predict_rc(&req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.accesses[1].depends_on");
    req.accesses[1].depends_on = 0;
    req.accesses[0].depends_on = 2; /* a later one */
    ck_assert_int_eq(predict_rc(&req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.accesses[0].depends_on");
}
END_TEST

/* The fixture's FP64 pipe (128 flops a clock an SM: 2 warp FMAs, half the
 * 4 issue slots) takes a warp instruction in 2 cycles of its scheduler.
 * 100 blocks of 1024 threads (32 warps an SM), 1000 FP64 FMAs and 1000
 * integer instructions a thread, 8 chains. Overlapped (no hold), a warp
 * needs 2000 / 4 = 500 SM cycles of issue and 32 x 2000 / 128 = 500 of the
 * pipe: 32 x 500 = 16 us each. Held (1), each FMA keeps its scheduler for
 * the pipe's 2 cycles, one more than its slot: issue 500 + (500 - 250) =
 * 750, 24 us, the pipe's own time still 16 us; the launch then takes at
 * least the 24 us. Held by half: 500 + 125 = 625, 20 us. An FP64 pipe as
 * fast as issue (256 flops a clock) holds nothing beyond the slot: issue
 * 16 us again, and the launch no slower than the overlapped one. Held,
 * the launch never slows as the pipe gets faster: 96 to 320 flops a clock
 * in steps of 0.25, across the edge at 256, with 32 warps an SM and with
 * one (where every center's time adds up). */
START_TEST(test_fp64_holds_issue)
{
    struct simt_kernel_request req;
    simt_kernel_request_init(&req, 32);
    req.grid[0] = 100;
    req.block[0] = 1024;
    req.registers_per_thread = 32;
    req.flops_fp64 = 2000;
    req.int_ops = 1000;
    req.alu_chains = 8;
    struct simt_gpu_spec gpu = clean_gpu();
    double hold[4] = {0.0, 1.0, 0.5, 1.0}, fp64_rate[4] = {128, 128, 128, 256};
    double issue_s[4] = {16e-6, 24e-6, 20e-6, 16e-6}, fp64_s[4] = {16e-6, 16e-6, 16e-6, 8e-6};
    double execution[4];
    for (int i = 0; i < 4; i++) {
        gpu.fp64_issue_hold_fraction = hold[i];
        gpu.fp64_flops_per_clock_per_sm = fp64_rate[i];
        struct simt_kernel_result r = predict_on(&gpu, &req);
        ck_assert_double_eq_tol(r.issue_s, issue_s[i], 1e-15);
        ck_assert_double_eq_tol(r.fp64_s, fp64_s[i], 1e-15);
        ck_assert_int_eq(!!(r.assumed & SIMT_KERNEL_ASSUMED_FP64_HOLDS_ISSUE), i == 1 || i == 2);
        ck_assert_msg(r.execution_s >= issue_s[i], "%d: %g", i, r.execution_s);
        execution[i] = r.execution_s;
    }
    ck_assert_msg(execution[1] > execution[2] && execution[2] > execution[0], "%g %g %g", execution[0],
                  execution[1], execution[2]);
    ck_assert_msg(execution[3] <= execution[0], "%g vs %g", execution[3], execution[0]);
    gpu.fp64_issue_hold_fraction = 1.0;
    const int blocks[2] = {1024, 32};
    for (int b = 0; b < 2; b++) {
        int block = req.block[0] = blocks[b];
        double before = INFINITY;
        for (double rate = 96.0; rate <= 320.0; rate += 0.25) {
            gpu.fp64_flops_per_clock_per_sm = rate;
            struct simt_kernel_result r = predict_on(&gpu, &req);
            ck_assert_msg(r.execution_s <= before * (1.0 + 1e-12),
                          "%d threads, %g flops a clock: %.9g after %.9g", block, rate, r.execution_s,
                          before);
            before = r.execution_s;
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_issue");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_two_streams_share_rounds);
    tcase_add_test(tc, test_group_takes_its_longest);
    tcase_add_loop_test(tc, test_what_keeps_loads_apart, 0, (int)(sizeof apart_rows / sizeof apart_rows[0]));
    tcase_add_test(tc, test_depends_on_must_be_earlier);
    tcase_add_test(tc, test_fp64_holds_issue);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
