/* test_kernel.c - whole-launch predictions on the fixture GPU (100 SMs at
 * 1 GHz, DRAM 2e12 B/s = 20 B/cycle per SM, L2 port 8e12/100 = 80 B/cycle
 * per SM, 500-cycle DRAM latency, FP32 256 flops/cycle/SM, 4 issue slots,
 * launch 2 us), worked by hand in each row's comment. */
#include <check.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "kernel.h"
#include "model_fixture.h"

static struct simt_kernel_request base_request(int64_t grid, int block, int registers)
{
    struct simt_kernel_request req;
    simt_kernel_request_init(&req, 32);
    req.grid[0] = grid;
    req.block[0] = block;
    req.registers_per_thread = registers;
    return req;
}

static void add_access(struct simt_kernel_request *req, enum simt_space space, enum simt_op op, double count,
                       double independent, int element_bytes, int64_t stride)
{
    struct simt_kernel_access *a = &req->accesses[req->access_count++];
    a->space = space;
    a->op = op;
    a->count = count;
    a->independent = independent;
    simt_warp_access_init(&a->pattern, 32, element_bytes);
    a->pattern.lane_stride_elements = stride;
}

/* The fixture with no L2 capacity: a cold launch then finds no dirty lines
 * to write back (kernel_cost.c), which keeps the worked examples below to
 * the mechanism each one is about; test_write_back prices the dirty lines
 * and test_repeats, test_l2_warm use the fixture's 50 MB L2. */
static struct simt_gpu_spec clean_gpu(void)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_bytes = 0.0;
    return gpu;
}

static struct simt_kernel_result predict(const struct simt_kernel_request *req)
{
    struct simt_gpu_spec gpu = clean_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_kernel_predict(&gpu, &figures, req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict: %d %s: %s", rc, diag.field, diag.message);
    return r;
}

/* One warp, 100 dependent 4-byte loads. A round fetches 2 granules of 64 B
 * and ends with the slower: (500 - 48) + 48 x H(2) = 524 cycles (the DRAM row
 * cycle, 48 ns = 48 cycles at 1 GHz, is the latency's spread), 52400 in all;
 * bank queueing is negligible at this load (u ~ 1e-4: +0.6 cycles). The
 * warp's SM alone shares DRAM, capped by its L2 port (80 B/cycle): DRAM
 * 100 x 128 B / 80 = 160, L2 100 lines x 128 B / 80 = 160, data path 100
 * lines, issue 100/4 = 25: one customer takes 52400.6 + 445 = 52845.6 cycles
 * = 52.8456 us; the launch fills the network for one round's latency first
 * (524 cycles): 53.3696 us, + 2 us launch. */
START_TEST(test_latency_bound)
{
    struct simt_kernel_request req = base_request(1, 32, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 100, 1, 4, 1);
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.time_s, 55.3696e-6, 1e-10);
    ck_assert_int_eq(r.bound, SIMT_BOUND_LATENCY);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 52.845e-6, 1e-12);
    ck_assert_double_eq_tol(r.dram_bytes, 12800, 1e-9);
    ck_assert_double_eq_tol(r.latency_rounds_per_warp, 100, 1e-12);
}
END_TEST

/* Streaming 16-byte loads: 8000 blocks of 256 threads, 32 registers -> 8
 * blocks (64 warps) per SM, 10 full waves. A warp moves 512 B (8 granules of
 * 64 B): 32.768 MB in all, 16.384 us at 2e12 B/s. The SM's DRAM share serves
 * a warp in 512/20 = 25.6 cycles, so 64 warps would need 1638.4 cycles a
 * wave; a round's latency is 452 + 48 x H(8) = 582.5 cycles plus the bank
 * queueing 48 u / (1 - u), and the utilisation u the warps reach must be the
 * one they wait for: u (614 + 48 u / (1 - u)) = 1638.4 gives u ~ 0.957, i.e.
 * about 17.1 us, and the first round's fill (582.5 cycles) 17.7 us a launch
 * (+2 us). */
START_TEST(test_dram_bound)
{
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    struct simt_kernel_result r = predict(&req);
    ck_assert_int_eq(r.occupancy.active_blocks_per_sm, 8);
    ck_assert_double_eq_tol(r.waves, 10.0, 1e-12);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6, 1e-6);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_DRAM], 16.384e-6, 1e-12);
    ck_assert_int_eq(r.bound, SIMT_BOUND_DRAM);
    ck_assert_msg(r.execution_s > 16.384e-6 / 0.97 + 0.5825e-6 &&
                      r.execution_s < 16.384e-6 / 0.94 + 0.5825e-6,
                  "execution %.6g", r.execution_s);
}
END_TEST

/* DRAM priced by direction. 8000 blocks x 256 threads, each thread reads
 * and/or writes 16 contiguous bytes: 32.768 MB each way. The card reads at
 * R = 2e12, writes at W = 1.6e12 and copies at C = 1.6e12 B/s (bytes read +
 * written): the turnaround costs p = 1/C - 1/2R - 1/2W = 0.0625 s/TB per
 * byte of the scarcer direction, twice per byte (into and out of it).
 *   read only:  32.768 MB / 2e12                          = 16.384 us
 *   write only: 32.768 MB / 1.6e12                        = 20.48 us
 *   copy:       (32.768 + 32.768 x 1.25 + 2 x 32.768 x 0.0625 x 2) MB of
 *               read time = 81.92 MB / 2e12 = 65.536 MB / C = 40.96 us
 *   copy on the datasheet (no write or copy figure): 65.536 MB / 2e12
 *               = 32.768 us. */
struct mix_row {
    const char *name;
    int load, store;
    enum simt_figure_policy policy;
    double dram_s;
};

static const struct mix_row mix_rows[] = {
    {"read only", 1, 0, SIMT_POLICY_PREFER_MEASURED, 16.384e-6},
    {"write only", 0, 1, SIMT_POLICY_PREFER_MEASURED, 20.48e-6},
    {"copy", 1, 1, SIMT_POLICY_PREFER_MEASURED, 40.96e-6},
    {"copy, datasheet figures", 1, 1, SIMT_POLICY_DATASHEET, 32.768e-6},
};

START_TEST(test_read_write_mix)
{
    const struct mix_row *t = &mix_rows[_i];
    struct simt_kernel_request req = base_request(8000, 256, 32);
    if (t->load)
        add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    if (t->store)
        add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_STORE, 1, 1, 16, 1);
    struct simt_gpu_spec gpu = clean_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = 2e12;
    gpu.measured_dram_write_bandwidth_bytes_per_s = 1.6e12;
    gpu.measured_dram_copy_bandwidth_bytes_per_s = 1.6e12;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, t->policy, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_OK);
    ck_assert_msg(fabs(r.breakdown_s[SIMT_BOUND_DRAM] - t->dram_s) <= 1e-9 * t->dram_s, "%s: dram %.6g",
                  t->name, r.breakdown_s[SIMT_BOUND_DRAM]);
    ck_assert_int_eq(r.bound, SIMT_BOUND_DRAM);
    /* traffic counts bytes, not their price */
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6 * (t->load + t->store), 1e-6);
    simt_figure_mask direction =
        SIMT_FIG_BIT(SIMT_FIG_DRAM_WRITE_BANDWIDTH) | SIMT_FIG_BIT(SIMT_FIG_DRAM_COPY_BANDWIDTH);
    ck_assert_msg((r.figures_used & direction) == (t->store ? direction : 0), "%s: write/copy figures used",
                  t->name);
    /* the network cannot beat the DRAM term */
    ck_assert_msg(r.execution_s >= t->dram_s, "%s: execution %.6g", t->name, r.execution_s);
}
END_TEST

/* DRAM rows. The card opens 1e10 rows a second; a row holds 256 contiguous
 * bytes of the address space. 1000 blocks x 256 threads (8000 warps), one
 * read each; a warp's DRAM bytes go at 2e12 B/s.
 *   8-byte reads 256 B apart: 32 chunks and 32 granules (2048 B) a warp:
 *     rows 256000 / 1e10 = 25.6 us; bytes 16.384 MB / 2e12 = 8.192 us
 *   128 B apart: 16 chunks, 32 granules: 12.8 us against 8.192
 *   1 KiB apart: still 32 chunks: 25.6 us (bytes as at 256 B)
 *   contiguous 8-byte: 256 B a warp, one chunk: rows 0.8 us, bytes 1.024 us
 *   a 32x8 block's column, 4-byte elements 128 B apart: 16 chunks and 2048 B
 *     a warp, shared by the 8 rows like the bytes (256 B a warp): 2 rows a
 *     warp, 16000 / 1e10 = 1.6 us against 2.048 MB / 2e12 = 1.024 us
 *   256 B apart on a card without the figure: not limited, 8.192 us, and
 *     the assumption says so. */
struct rows_row {
    const char *name;
    int element_bytes;
    int64_t stride;
    int block_y;
    double activations_per_s;
    double dram_s;
    int unlimited;
};

static const struct rows_row rows_rows[] = {
    {"256 B apart", 8, 32, 1, 1e10, 25.6e-6, 0},  {"128 B apart", 8, 16, 1, 1e10, 12.8e-6, 0},
    {"1 KiB apart", 8, 128, 1, 1e10, 25.6e-6, 0}, {"contiguous", 8, 1, 1, 1e10, 1.024e-6, 0},
    {"tile column", 4, 32, 8, 1e10, 1.6e-6, 0},   {"no figure", 8, 32, 1, 0, 8.192e-6, 1},
};

START_TEST(test_dram_rows)
{
    const struct rows_row *t = &rows_rows[_i];
    struct simt_kernel_request req = base_request(1000, 256 / t->block_y, 32);
    req.block[1] = t->block_y;
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, t->element_bytes, t->stride);
    struct simt_gpu_spec gpu = clean_gpu();
    gpu.measured_dram_row_activations_per_s = t->activations_per_s;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_OK);
    ck_assert_msg(fabs(r.breakdown_s[SIMT_BOUND_DRAM] - t->dram_s) <= 1e-9 * t->dram_s, "%s: dram %.6g",
                  t->name, r.breakdown_s[SIMT_BOUND_DRAM]);
    ck_assert_msg(!(r.assumed & SIMT_KERNEL_ASSUMED_NO_ROW_LIMIT) == !t->unlimited, "%s: assumption",
                  t->name);
    ck_assert_msg(!(r.figures_used & SIMT_FIG_BIT(SIMT_FIG_DRAM_ROW_ACTIVATIONS)) ==
                      !(t->activations_per_s > 0),
                  "%s: figure used", t->name);
    ck_assert_msg(r.execution_s >= t->dram_s, "%s: execution %.6g", t->name, r.execution_s);
}
END_TEST

/* FP32: 800 blocks x 256 threads, 2048 flops (1024 FMAs) each: per warp
 * 32 x 2048 / 256 = 256 cycles of FP32 pipe and 1024 / 4 = 256 issue cycles;
 * 64 warps a wave -> 16384 cycles = 16.384 us (+2). With two equal paths the
 * warp issues both: 32.768 us (+2). */
START_TEST(test_compute_and_divergence)
{
    struct simt_kernel_request req = base_request(800, 256, 32);
    req.flops_fp32 = 2048;
    struct simt_kernel_result r = predict(&req);
    ck_assert_int_eq(r.bound, SIMT_BOUND_COMPUTE);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_COMPUTE], 16.384e-6, 1e-12);
    ck_assert_msg(fabs(r.time_s - 18.384e-6) < 0.01 * 18.384e-6, "time %.6g", r.time_s);
    req.branch.paths = 2;
    struct simt_kernel_result d = predict(&req);
    ck_assert_double_eq_tol(d.divergence_serialization, 2.0, 1e-12);
    ck_assert_msg(fabs(d.time_s - 34.768e-6) < 0.01 * 34.768e-6, "time %.6g", d.time_s);
    ck_assert_int_ge(d.advice_count, 1);
    ck_assert_int_eq(d.advice[0].kind, SIMT_ADVICE_BRANCH);
    ck_assert_msg(fabs(d.advice[0].estimated_speedup - 34.768 / 18.384) < 0.02, "speedup %g",
                  d.advice[0].estimated_speedup);
}
END_TEST

/* A column read of a 32x32 float tile: 32-way conflicts, 32 wavefronts per
 * load; 64 loads per thread, 64 warps per SM: 64 x 64 x 32 = 131072 cycles
 * a wave (131.072 us, +2); padding by one element makes it 64 x 64 = 4096. */
START_TEST(test_bank_conflicts_and_padding)
{
    struct simt_kernel_request req = base_request(800, 256, 32);
    add_access(&req, SIMT_SPACE_SHARED, SIMT_OP_LOAD, 64, 16, 4, 32);
    struct simt_kernel_result r = predict(&req);
    ck_assert_int_eq(r.bound, SIMT_BOUND_SHARED);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_SHARED], 131.072e-6, 1e-12);
    ck_assert_msg(fabs(r.time_s - 133.072e-6) < 0.01 * 133.072e-6, "time %.6g", r.time_s);
    ck_assert_int_ge(r.advice_count, 1);
    ck_assert_int_eq(r.advice[0].kind, SIMT_ADVICE_PAD);
    ck_assert_double_eq_tol(r.advice[0].to, 1.0, 1e-12);
    ck_assert_double_eq_tol(r.advice[0].from, 32.0, 1e-12);
    ck_assert_msg(r.advice[0].estimated_speedup > 10.0, "speedup %g", r.advice[0].estimated_speedup);
}
END_TEST

/* The tail: 900 blocks = 1 full wave of 800 plus 100 blocks, one per SM
 * (8 warps, fewer than the ~18 that hide the 4096 cycles of dependent FMA
 * latency): the tail costs more than 1/8 of a wave. */
START_TEST(test_tail)
{
    struct simt_kernel_request req = base_request(900, 256, 32);
    req.flops_fp32 = 2048;
    struct simt_kernel_result r = predict(&req);
    double wave = 16.384e-6;
    ck_assert_double_eq_tol(r.waves, 1.125, 1e-12);
    ck_assert_msg(r.execution_s > wave + 1.5 * wave / 8, "execution %.6g", r.execution_s);
    ck_assert_msg(r.execution_s < wave * 2.0, "execution %.6g", r.execution_s);
}
END_TEST

/* A strided global read in a one-row block keeps every sector to itself;
 * the same stride in a 32x8 block is a tile column whose sectors the other
 * rows share in L2. */
START_TEST(test_reuse_assumptions)
{
    struct simt_kernel_request req = base_request(1000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 32);
    struct simt_kernel_result r = predict(&req);
    /* 32 granules of 64 B per warp, 8000 warps */
    ck_assert_double_eq_tol(r.dram_bytes, 8000.0 * 2048, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_NO_REUSE);
    req.block[0] = 32;
    req.block[1] = 8;
    r = predict(&req);
    /* 2048 / 8 rows = 256 B per warp */
    ck_assert_double_eq_tol(r.dram_bytes, 8000.0 * 256, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_ROW_REUSE);
    ck_assert_double_eq_tol(r.l2_bytes, 8000.0 * 1024, 1e-6);
}
END_TEST

struct bad {
    const char *name;
    int block_y;
    int registers;
    int element_bytes;
    int paths;
    int rc;
    const char *field;
};

static const struct bad bads[] = {
    {"block of 2048 threads", 64, 32, 4, 1, SIMT_EUNSAT, "launch.block"},
    {"300 registers", 1, 300, 4, 1, SIMT_EUNSAT, "resources.registers_per_thread"},
    {"3-byte elements", 1, 32, 3, 1, SIMT_EINVAL, "per_thread.accesses[0].element_bytes"},
    {"no paths", 1, 32, 4, 0, SIMT_EINVAL, "per_thread.branch.paths"},
    {"negative barriers", 1, 32, 4, 1, SIMT_EINVAL, "per_thread.barriers"},
    {"infinite shuffles", 1, 32, 4, 1, SIMT_EINVAL, "per_thread.shuffles"},
};

START_TEST(test_bad)
{
    const struct bad *t = &bads[_i];
    struct simt_kernel_request req = base_request(10, 32, t->registers);
    req.block[1] = t->block_y;
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 1);
    req.accesses[0].pattern.element_bytes = t->element_bytes;
    req.branch.paths = t->paths;
    if (strcmp(t->field, "per_thread.barriers") == 0)
        req.barriers = -1;
    if (strcmp(t->field, "per_thread.shuffles") == 0)
        req.shuffles = INFINITY;
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), t->rc);
    ck_assert_str_eq(diag.field, t->field);
}
END_TEST

static struct simt_kernel_result predict_on(const struct simt_gpu_spec *gpu,
                                            const struct simt_kernel_request *req)
{
    struct simt_figure_set figures;
    simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_kernel_predict(gpu, &figures, req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict: %d %s: %s", rc, diag.field, diag.message);
    return r;
}

/* int_ops: 100 blocks of 256 threads (one block, 8 warps, per SM), 6400
 * integer instructions a thread, nothing else. A warp needs 32 x 6400 / 64
 * = 3200 cycles of the INT32 pipe and 6400 / 4 = 1600 issue cycles; off the
 * dependent chain, so the 8 warps are pipe-bound: 8 x 3200 = 25600 cycles
 * = 25.6 us (the closed network of 8 warps reaches within 4% of it), + 2 us.
 * Without the INT32 figure the issue slots alone price them: 8 x 1600 =
 * 12.8 us. */
START_TEST(test_int_ops)
{
    struct simt_kernel_request req = base_request(100, 256, 32);
    req.int_ops = 6400;
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.int32_s, 25.6e-6, 1e-12);
    ck_assert_double_eq_tol(r.issue_s, 12.8e-6, 1e-12);
    ck_assert_int_eq(r.bound, SIMT_BOUND_COMPUTE);
    ck_assert_msg(r.execution_s >= 25.6e-6 && r.execution_s < 25.6e-6 * 1.04, "execution %.6g",
                  r.execution_s);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_INT_PIPE);
    ck_assert_double_eq_tol(r.warp_instructions, 800 * 6400.0, 1e-6);
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.int32_ops_per_clock_per_sm = 0;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.int32_s, 0.0, 1e-15);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_COMPUTE], 12.8e-6, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_NO_INT_PIPE);
}
END_TEST

/* repeats: 8000 blocks x 256 threads (64 warps a SM) read 16 contiguous
 * bytes (512 B, 4 lines a warp), then read them again (repeats 0).
 *   L1 256 KiB: the SM's set, 64 x 512 B = 32 KiB, fits: the repeat is an
 *     L1 hit: DRAM and L2 move 32.768 MB once; L1 wavefronts 2 x 4 x 64000.
 *   L1 16 KiB: it does not; the wave's 100 x 32 KiB = 3.3 MB fits in the
 *     50 MB L2: L2 moves 65.536 MB, DRAM 32.768 MB.
 *   L1 48 KiB kept whole up to half of it (repeat_whole_fraction 0.5): the
 *     SM's 32 KiB is past 24 KiB, so (48 - 32) / (48 - 24) = 2/3 of the
 *     repeat hits L1 and the other third L2 (the wave's 3.3 MB is within
 *     half the L2): L2 moves 32.768 x 4/3 = 43.690667 MB, DRAM 32.768 MB.
 *   A reuse share of 5 MB (l2_reuse_fraction 0.1) kept whole up to 2.5 MB
 *     (repeat_whole_fraction 0.5): the wave's 3.2768 MB is past it, so
 *     (5 - 3.2768) / 2.5 = 0.68928 of the repeat hits and 0.31072 x
 *     32.768 MB = 10.181673 MB comes from DRAM again; at 3.2768 MB of whole
 *     share all of it hits, at a reuse share of 3.2768 MB none.
 *   L2 1 MB too: a miss, DRAM 65.536 MB.
 * Each cold launch also writes back the dirty lines its fills evict at
 * random from an L2 0.55 dirty: 27.5 MB (1 - exp(-32.768 / 50)) =
 * 13.2204848 MB of the 50 MB L2 (42.94967 MB of fills: 15.852 MB),
 * 0.55 MB (1 - exp(-65.536)) = 0.55 MB of the 1 MB one. */
START_TEST(test_repeats)
{
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    req.accesses[1].repeats_of = 1;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l1_bytes_per_sm = 262144;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6 + 13.2204848297e6, 1e-3);
    ck_assert_double_eq_tol(r.l2_bytes, 32.768e6, 1e-6);
    ck_assert_double_eq_tol(r.l1_wavefronts, 2.0 * 4 * 64000, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L1);
    gpu.l1_bytes_per_sm = 16384;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6 + 13.2204848297e6, 1e-3);
    ck_assert_double_eq_tol(r.l2_bytes, 65.536e6, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L2);
    ck_assert(!(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L2_PART));
    gpu.l1_bytes_per_sm = 49152;
    gpu.repeat_whole_fraction = 0.5;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6 + 13.2204848297e6, 1e-3);
    ck_assert_double_eq_tol(r.l2_bytes, 32.768e6 * 4.0 / 3.0, 1e-3);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L1_PART);
    gpu.l1_bytes_per_sm = 16384;
    gpu.l2_reuse_fraction = 0.1;
    gpu.repeat_whole_fraction = 0.5;
    r = predict_on(&gpu, &req);
    double refetch = (1.0 - (5e6 - 3.2768e6) / 2.5e6) * 32.768e6;
    ck_assert_double_eq_tol(refetch, 10.181673e6, 1.0);
    ck_assert_double_eq_tol(r.dram_bytes,
                            32.768e6 + refetch + 27.5e6 * (1.0 - exp(-(32.768e6 + refetch) / 50e6)), 1e-3);
    ck_assert_double_eq_tol(r.l2_bytes, 65.536e6, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L2_PART);
    gpu.repeat_whole_fraction = 3.2768e6 / 5e6;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6 + 13.2204848297e6, 1e-3);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_L2);
    gpu.repeat_whole_fraction = 0.5;
    gpu.l2_reuse_fraction = 3.2768e6 / 50e6;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 65.536e6 + 27.5e6 * (1.0 - exp(-65.536e6 / 50e6)), 1e-3);
    gpu.l2_reuse_fraction = 0.0;
    gpu.repeat_whole_fraction = 0.0;
    gpu.l2_bytes = 1e6;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 65.536e6 + 0.55e6, 1e-3);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_REPEAT_DRAM);
    /* an access cannot repeat itself or a later one */
    req.accesses[1].repeats_of = 2;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.accesses[1].repeats");
}
END_TEST

/* l2_warm: the streaming read of test_dram_bound (32.768 MB) fits in the
 * 50 MB L2: no DRAM; the L2 term is 32.768 MB / 8e12 = 4.096 us. Twice the
 * grid (65.536 MB) does not fit: all from DRAM again, and no dirty lines
 * of other work to write back (the launch follows work on its own data). */
START_TEST(test_l2_warm)
{
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    req.l2_warm = 1;
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 0.0, 1e-9);
    ck_assert_double_eq_tol(r.l2_bytes, 32.768e6, 1e-6);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 4.096e-6, 1e-12);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_DRAM], 0.0, 1e-15);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_L2_WARM);
    req.grid[0] = 16000;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.dram_bytes, 65.536e6, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_L2_WARM_MISS);
}
END_TEST

/* distinct_addresses: 1000 blocks x 256 threads, one 4-byte atomic each on
 * one counter. At 0.5 same-address atomics a clock (5e8/s), 256000 atomics
 * take 512 us: the L2 term. A warp's request: 32 lanes on 1 address, 64
 * slice cycles; 8000 warps at the one slice = 512000 cycles. With the lanes
 * on 32 distinct words of the 256 (stride 1): four full sector steps, not
 * limited without a slice lane rate (none in the fixture): no longer the
 * bound. One lane on each of 32 sectors (stride 8 words): 32 steps of one
 * lane, 2 cycles each, as slow as 32 lanes on one address. Without the
 * figure: not priced, and said so. */
START_TEST(test_distinct_addresses)
{
    struct simt_kernel_request req = base_request(1000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_ATOMIC, 1, 1, 4, 0);
    req.accesses[0].distinct_addresses = 1;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_same_address_atomics_per_clock = 0.5;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 512e-6, 1e-12);
    ck_assert_int_eq(r.bound, SIMT_BOUND_L2);
    ck_assert_msg(r.execution_s >= 512e-6 && r.execution_s < 512e-6 * 1.01, "execution %.6g", r.execution_s);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_ATOMIC_CONTENTION);
    req.accesses[0].distinct_addresses = 256;
    req.accesses[0].pattern.lane_stride_elements = 1;
    r = predict_on(&gpu, &req);
    ck_assert_msg(r.breakdown_s[SIMT_BOUND_L2] < 1e-6, "L2 %.6g", r.breakdown_s[SIMT_BOUND_L2]);
    ck_assert_msg(r.execution_s < 20e-6, "execution %.6g", r.execution_s);
    req.accesses[0].pattern.lane_stride_elements = 8;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 512e-6, 1e-12);
    req.accesses[0].pattern.lane_stride_elements = 0;
    /* the same lanes on 256 addresses, all 32 of a warp on one of them: the
     * lanes of one address still serialize (64 cycles a request) */
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 512e-6, 1e-12);
    req.accesses[0].distinct_addresses = 1;
    gpu.l2_same_address_atomics_per_clock = 0;
    r = predict_on(&gpu, &req);
    ck_assert_msg(r.execution_s < 20e-6, "execution %.6g", r.execution_s);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_NO_ATOMIC_RATE);
    /* atomics and global loads and stores spread over addresses; shared
     * loads and stores do not */
    req.accesses[0].op = SIMT_OP_STORE;
    req.accesses[0].space = SIMT_SPACE_SHARED;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.accesses[0].distinct_addresses");
}
END_TEST

/* L2 slices (fixture: 2 clocks per same-address atomic, a slice serves 8
 * lanes a clock, one slice per 512 bytes; 1 GHz). 8000 warps, one 4-byte
 * atomic each:
 *   32 lanes on 32 words of one line, D 32 (128 B, one slice): four full
 *     sector steps of 8 lanes, 1 cycle each; 8000 x 4 = 32 us;
 *   the same over D 1024 (4 KiB: 8 slices): 4 us;
 *   16 lanes on each of 2 words, D 2: one sector, 16 steps of 2 lanes at
 *     2 cycles (same address), 32 cycles, 256 us;
 *   4 lanes on 4 words of each of 8 sectors, D 64 (one slice): 8 partial
 *     steps, 16 cycles, 128 us;
 *   32 lanes each in its own line (stride 32), D 1024: 32 requests of one
 *     lane, 2 cycles each, 64 cycles over 8 slices: 64 us. */
START_TEST(test_atomic_slices)
{
    struct simt_kernel_request req = base_request(1000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_ATOMIC, 1, 1, 4, 1);
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l2_same_address_atomics_per_clock = 0.5;
    gpu.l2_slice_atomic_lanes_per_clock = 8;
    gpu.l2_atomic_slice_bytes = 512;
    req.accesses[0].distinct_addresses = 32;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 32e-6, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_ATOMIC_SLICES);
    req.accesses[0].distinct_addresses = 1024;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 4e-6, 1e-12);
    req.accesses[0].distinct_addresses = 2;
    req.accesses[0].pattern.explicit_addresses = 1;
    for (int l = 0; l < 32; l++)
        req.accesses[0].pattern.lane_address_bytes[l] = (l % 2) * 4;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 256e-6, 1e-12);
    req.accesses[0].distinct_addresses = 64;
    for (int l = 0; l < 32; l++)
        req.accesses[0].pattern.lane_address_bytes[l] = ((l % 8) * 8 + l / 8) * 4;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 128e-6, 1e-12);
    req.accesses[0].pattern.explicit_addresses = 0;
    req.accesses[0].pattern.lane_stride_elements = 32;
    req.accesses[0].distinct_addresses = 1024;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 64e-6, 1e-12);
    /* a chip of 2 line requests a clock over 0.5 a slice has C = 4 slices:
     * the 4 KiB set's k = 8 chunks run at 8 / (1 + 7 / 4) = 32 / 11 slices'
     * rate, 11 us (its request slots alone: 4 us) */
    gpu.l2_atomics_per_clock = 2;
    req.accesses[0].pattern.lane_stride_elements = 1;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 11e-6, 1e-12);
    gpu.l2_atomics_per_clock = 0;
    /* a faster slice is never slower: full steps at 16 lanes a clock take
     * half as long (16 us), and without the figure they are not limited;
     * partial steps (one lane a sector, stride 8) keep their 2 cycles */
    req.accesses[0].pattern.lane_stride_elements = 1;
    req.accesses[0].distinct_addresses = 32;
    gpu.l2_slice_atomic_lanes_per_clock = 16;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 16e-6, 1e-12);
    gpu.l2_slice_atomic_lanes_per_clock = 0;
    r = predict_on(&gpu, &req);
    ck_assert_msg(r.breakdown_s[SIMT_BOUND_L2] < 1e-6, "L2 %.6g", r.breakdown_s[SIMT_BOUND_L2]);
    req.accesses[0].pattern.lane_stride_elements = 8;
    req.accesses[0].distinct_addresses = 256; /* 1 KiB: 2 slices */
    double unlimited = predict_on(&gpu, &req).breakdown_s[SIMT_BOUND_L2];
    gpu.l2_slice_atomic_lanes_per_clock = 8;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_L2], 256e-6, 1e-12);
    ck_assert_double_eq_tol(unlimited, 256e-6, 1e-12);
}
END_TEST

/* int_mul_ops: 100 blocks of 256 threads (8 warps a SM), 6400 IMADs a
 * thread. At 32 a clock a warp needs 32 x 6400 / 32 = 6400 cycles of the
 * FMA pipe's integer half: 8 x 6400 = 51.2 us (int32_s). Without the
 * figure the INT32 rate (64) stands in: 25.6 us, said so. Beside 6400 FMAs
 * (12800 flops) they double the FP32 pipe's term: an IMAD takes an FP32
 * issue slot of the FMA pipe. */
START_TEST(test_int_mul_ops)
{
    struct simt_kernel_request req = base_request(100, 256, 32);
    req.int_mul_ops = 6400;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.int32_mul_ops_per_clock_per_sm = 32;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.int32_s, 51.2e-6, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_INT_MUL_PIPE);
    ck_assert_double_eq_tol(r.warp_instructions, 800 * 6400.0, 1e-6);
    gpu.int32_mul_ops_per_clock_per_sm = 0;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.int32_s, 25.6e-6, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_NO_INT_MUL_RATE);
    req.flops_fp32 = 12800;
    req.int_mul_ops = 0;
    double alone = predict_on(&gpu, &req).fp32_s;
    req.int_mul_ops = 6400;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.fp32_s, 2.0 * alone, 1e-12);
    req.int_mul_ops = -1;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.int_mul_ops");
}
END_TEST

/* alu_chains: one warp on each of 100 SMs, 1000 FMAs a thread. One chain
 * waits the FMA latency (4) per instruction: 4000 cycles of latency; four
 * chains interleave: 1000. The latency term falls by 3000 cycles = 3 us;
 * the pipe's term is unchanged. */
START_TEST(test_alu_chains)
{
    struct simt_kernel_request req = base_request(100, 32, 32);
    req.flops_fp32 = 2000;
    struct simt_kernel_result one = predict(&req);
    ck_assert(one.assumed & SIMT_KERNEL_ASSUMED_DEPENDENT_ALU);
    req.alu_chains = 4;
    struct simt_kernel_result four = predict(&req);
    ck_assert(!(four.assumed & SIMT_KERNEL_ASSUMED_DEPENDENT_ALU));
    ck_assert_double_eq_tol(one.breakdown_s[SIMT_BOUND_LATENCY] - four.breakdown_s[SIMT_BOUND_LATENCY], 3e-6,
                            1e-12);
    ck_assert_double_eq_tol(one.fp32_s, four.fp32_s, 1e-15);
    ck_assert_msg(four.execution_s < one.execution_s, "%g vs %g", four.execution_s, one.execution_s);
    req.alu_chains = 0.5;
    struct simt_gpu_spec gpu = clean_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_kernel_predict(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "per_thread.alu_chains");
}
END_TEST

/* A table the grid shares (a gather): 8000 blocks x 256 threads, one
 * 4-byte read each, lanes 128 B apart (32 sectors, 1024 B, a warp; 32
 * granules of 64 B, 2048 B, when they miss), over distinct_addresses D.
 *   D 1000 (4 KB) fits the 256 KiB L1: its 32 lines come from DRAM once,
 *     4096 B.
 *   D 1e6 (4 MB) fits the 50 MB L2: 31250 lines, 4 MB from DRAM; the port
 *     carries the hits' sectors, 64000 x 1024 B.
 *   D 5e7 (200 MB) does not: 50 MB of it stays, a quarter of its lines
 *     (q); a miss fills one of a line's two 64-B granules, so a read hits
 *     q / (2 - q) = 1/7 of the time, the rest miss:
 *     6/7 x 64000 x 2048 + 50 MB = 162.347429 MB.
 *   The same on an L2 of 2 partitions, each holding the lines every SM
 *     reads: 25 MB stays, q 1/8, hits 1/15,
 *     14/15 x 131.072 MB + 25 MB = 147.333867 MB.
 *   D 5e7 read by whole lines (lanes 4 B apart): a miss fills the line, so
 *     a read hits q = 1/4 of the time: 0.75 x 64000 x 128 B + 50 MB
 *     = 56.144 MB.
 *   D 1.25e7 (50 MB, all of the L2) with 2 lines a set (l2_effective_ways):
 *     a set is dealt Poisson(2) of its lines and keeps at most 2, on average
 *     2 - 2 P(0) - P(1) = 2 - 4 exp(-2) = 1.458659, so q = 0.729329 stays
 *     (the LRU edge: all of it) and a read hits q / (2 - q) = 0.573972:
 *     0.426028 x 131.072 MB + 0.729329 x 50 MB = 92.306803 MB.
 * Each launch also writes back what its fills f evict at random of the
 * L2's 27.5 dirty MB, 27.5 MB (1 - exp(-f / 50 MB)): 2252.71 B, 2.11430 MB,
 * 26.43045 MB, 26.05587 MB, 18.55311 MB, 23.15924 MB. */
struct table_row {
    const char *name;
    double distinct, l1_bytes;
    int partitions;
    int64_t stride;
    double dram_bytes;
    int ways;
};

static const struct table_row table_rows[] = {
    {"4 KB in L1", 1000, 262144, 1, 32, 4096.0 + 2252.70773, 0},
    {"4 MB in L2", 1e6, 0, 1, 32, 4e6 + 2.11430047e6, 0},
    {"200 MB, a quarter resident", 5e7, 0, 1, 32, 162.347429e6 + 26.4304506e6, 0},
    {"200 MB, two partitions", 5e7, 0, 2, 32, 147.333867e6 + 26.0558677e6, 0},
    {"200 MB read by whole lines", 5e7, 0, 1, 1, 56.144e6 + 18.5531098e6, 0},
    {"50 MB, 2 ways", 1.25e7, 0, 1, 32, 92.3068026e6 + 23.1592378e6, 2},
};

START_TEST(test_shared_table)
{
    const struct table_row *t = &table_rows[_i];
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, t->stride);
    req.accesses[0].distinct_addresses = t->distinct;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.l1_bytes_per_sm = t->l1_bytes;
    gpu.l2_partitions = t->partitions;
    gpu.l2_effective_ways = t->ways;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_msg(fabs(r.dram_bytes - t->dram_bytes) <= 1e-6 * t->dram_bytes, "%s: dram bytes %.9g", t->name,
                  r.dram_bytes);
    if (_i == 1)
        ck_assert_double_eq_tol(r.l2_bytes, 64000.0 * 1024, 1e-6);
}
END_TEST

/* A partial store: 8000 x 256 threads store 4 bytes 8 bytes apart. A warp
 * spans 256 B, 4 granules of 64 B half written: each is read, merged and
 * written: 256 B read + 256 B written a warp, 2 x 16.384 MB. Contiguous
 * stores fill their granules: 8.192 MB, written only. */
START_TEST(test_partial_store)
{
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_STORE, 1, 1, 4, 2);
    struct simt_kernel_result r = predict(&req);
    ck_assert_double_eq_tol(r.dram_bytes, 32.768e6, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_PARTIAL_STORE);
    req.accesses[0].pattern.lane_stride_elements = 1;
    r = predict(&req);
    ck_assert_double_eq_tol(r.dram_bytes, 8.192e6, 1e-6);
    ck_assert(!(r.assumed & SIMT_KERNEL_ASSUMED_PARTIAL_STORE));
}
END_TEST

/* A scatter: 8000 blocks x 256 threads, one 4-byte store each, every lane
 * on a line of its own (stride 256), into a table of D elements
 * (distinct_addresses). The fixture's L2 is 50 MB (no way count: an LRU
 * edge), 128-B lines of four 32-B sectors.
 *   D of 1e6 (4 MB): the table stays in L2, no store reads DRAM.
 *   D of 25e6 (100 MB): L2 keeps h = 0.5 of the lines; a line's stay holds
 *     1 + Geometric(0.5) stores over its 4 sectors, so a store sends back
 *     r = (1 - h) 4 (1 - E[0.75^k]) = 0.5 x 4 x (1 - 0.75 x 0.5 / 0.625) =
 *     0.8 sector read-modify-writes: 2.048e6 x 0.8 x 64 B = 104.858 MB
 *     more DRAM traffic than the 4 MB table (within 10%: what each leaves
 *     dirty in L2 is written back too).
 *   D of 1e9 (4 GB): h = 0.0125: nearly every store a read-modify-write,
 *     no more than one each. Time grows with the table. */
START_TEST(test_store_table)
{
    struct simt_kernel_request req = base_request(8000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_STORE, 1, 1, 4, 256);
    req.accesses[0].distinct_addresses = 1e6;
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_kernel_result small = predict_on(&gpu, &req);
    ck_assert(small.assumed & SIMT_KERNEL_ASSUMED_STORE_TABLE);
    ck_assert_msg(small.dram_bytes < 5e6, "dram %.6g", small.dram_bytes);
    req.accesses[0].distinct_addresses = 25e6;
    struct simt_kernel_result half = predict_on(&gpu, &req);
    ck_assert(half.assumed & SIMT_KERNEL_ASSUMED_STORE_TABLE_PART);
    ck_assert(half.assumed & SIMT_KERNEL_ASSUMED_PARTIAL_STORE);
    /* beside the read-modify-writes, both write back what they leave dirty */
    ck_assert_msg(fabs(half.dram_bytes - small.dram_bytes - 104.8576e6) < 0.1 * 104.8576e6, "dram %.9g %.9g",
                  half.dram_bytes, small.dram_bytes);
    req.accesses[0].distinct_addresses = 1e9;
    struct simt_kernel_result big = predict_on(&gpu, &req);
    ck_assert(big.assumed & SIMT_KERNEL_ASSUMED_STORE_TABLE_PART);
    ck_assert_msg(big.dram_bytes > half.dram_bytes &&
                      big.dram_bytes < 2.048e6 * 64.0 + small.dram_bytes + 20e6,
                  "dram %.9g", big.dram_bytes);
    ck_assert_msg(small.execution_s < half.execution_s && half.execution_s < big.execution_s, "%g %g %g",
                  small.execution_s, half.execution_s, big.execution_s);
}
END_TEST

/* Dirty lines at a cold launch: the fixture's 50 MB L2 holds 27.5 MB that
 * other work wrote, and f bytes of fills evict E(f) = 27.5 MB
 * (1 - exp(-f / 50 MB)) of them (a victim at random). 8000 blocks x 256 threads move 16 contiguous bytes each
 * way as asked (32.768 MB a direction), on a card that reads at 2e12,
 * writes at 1.6e12 and copies at 1.6e12 B/s (p = 0.0625 s/TB, as in
 * test_read_write_mix):
 *   read only: the fills evict E(32.768 MB) = 13.2205 MB, written back:
 *     32.768 MB read + 13.2205 written = (32.768 + 13.2205 x 1.25 +
 *     2 x 13.2205 x 0.0625 x 2) MB of read time = 52.5987 MB / 2e12 =
 *     26.2994 us (16.384 us clean)
 *   write only: its stores evict E(32.768 MB) and leave as many of their
 *     own behind: 32.768 MB written, as on a clean L2: 20.48 us
 *   copy: fills 65.536 MB evict E(65.536) - E(32.768) = 6.86480 MB beyond
 *     its own: written 39.6328 MB: (32.768 + 39.6328 x 1.25 + 2 x 32.768 x
 *     0.125) MB = 90.5010 MB / 2e12 = 45.2505 us
 *   read only, l2_warm, twice the grid (65.536 MB, more than the L2): it
 *     follows work on its own data, so no dirty lines: 32.768 us. */
struct dirty_row {
    const char *name;
    int load, store, warm;
    double dram_bytes, dram_s;
};

static const struct dirty_row dirty_rows[] = {
    {"read only", 1, 0, 0, 32.768e6 + 13.2204848297e6, 26.2993636223e-6},
    {"write only", 0, 1, 0, 32.768e6, 20.48e-6},
    {"copy", 1, 1, 0, 65.536e6 + 6.86480413398e6, 45.2505025837e-6},
    {"read only after its own data", 1, 0, 1, 65.536e6, 32.768e-6},
};

START_TEST(test_write_back)
{
    const struct dirty_row *t = &dirty_rows[_i];
    struct simt_kernel_request req = base_request(t->warm ? 16000 : 8000, 256, 32);
    if (t->load)
        add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 16, 1);
    if (t->store)
        add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_STORE, 1, 1, 16, 1);
    req.l2_warm = t->warm;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = 2e12;
    gpu.measured_dram_write_bandwidth_bytes_per_s = 1.6e12;
    gpu.measured_dram_copy_bandwidth_bytes_per_s = 1.6e12;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_msg(fabs(r.dram_bytes - t->dram_bytes) <= 1e-3, "%s: dram bytes %.9g", t->name, r.dram_bytes);
    ck_assert_msg(fabs(r.breakdown_s[SIMT_BOUND_DRAM] - t->dram_s) <= 1e-9 * t->dram_s, "%s: dram %.9g",
                  t->name, r.breakdown_s[SIMT_BOUND_DRAM]);
}
END_TEST

/* Block barriers and warp shuffles: one block of 256 threads (8 warps) per
 * SM, 100 SMs, on the fixture with barrier figures 10 cycles + 2 a warp,
 * 4 data-path cycles a block barrier, shuffles 20 cycles.
 *   100 barriers: a warp waits 100 x (10 + 2 x 8) = 2600 cycles, takes
 *     100 x 4 / 8 = 50 data-path cycles, 100 / 4 = 25 issue cycles and
 *     100 x 2 = 200 cycles of the SM's barrier unit: alone 2875 cycles
 *     (latency_s 2.875 us); the SM's data path 8 x 50 = 400 cycles
 *     (shared_s 0.4 us).
 *   the same without barrier figures: issue slots only, 25 cycles.
 *   5 shuffles: 5 x 20 + 5 wavefronts + 5 / 4 issue = 106.25 cycles;
 *     without a shuffle latency the shared latency (30) stands in: 156.25.
 *   10 barriers beside a shared load of count 2 (2 rounds): each barrier's
 *     phase reads shared memory, so 8 more shared rounds: the latency term
 *     grows by 10 x 26 + 8 x 30 + 10 x 4 / 8 + 10 / 4 + 10 x 2 = 527.5
 *     cycles; with a shared store too, each barrier also waits for the
 *     stores before it to land: 10 x 30 = 300 cycles more. */
START_TEST(test_barriers_and_shuffles)
{
    struct simt_kernel_request req = base_request(100, 256, 32);
    req.barriers = 100;
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.barrier_latency_cycles = 10;
    gpu.barrier_cycles_per_warp = 2;
    gpu.barrier_data_path_cycles = 4;
    gpu.shuffle_latency_cycles = 20;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 2.875e-6, 1e-12);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_SHARED], 0.4e-6, 1e-12);
    ck_assert(r.time_s > 2.875e-6 + 2e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_BARRIERS);
    struct simt_gpu_spec bare = fixture_gpu();
    r = predict_on(&bare, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 25e-9, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_NO_BARRIER_FIGURES);
    req.barriers = 0;
    req.shuffles = 5;
    r = predict_on(&gpu, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 106.25e-9, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_SHUFFLES);
    ck_assert(!(r.assumed & SIMT_KERNEL_ASSUMED_SHUFFLE_LATENCY));
    r = predict_on(&bare, &req);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LATENCY], 156.25e-9, 1e-12);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_SHUFFLE_LATENCY);
    req.shuffles = 0;
    add_access(&req, SIMT_SPACE_SHARED, SIMT_OP_LOAD, 2, 1, 4, 1);
    double without = predict_on(&gpu, &req).breakdown_s[SIMT_BOUND_LATENCY];
    req.barriers = 10;
    double with = predict_on(&gpu, &req).breakdown_s[SIMT_BOUND_LATENCY];
    ck_assert_double_eq_tol(with - without, 527.5e-9, 1e-12);
    struct simt_kernel_request stored = req;
    add_access(&stored, SIMT_SPACE_SHARED, SIMT_OP_STORE, 1, 1, 4, 1);
    double stored_with = predict_on(&gpu, &stored).breakdown_s[SIMT_BOUND_LATENCY];
    stored.barriers = 0;
    double stored_without = predict_on(&gpu, &stored).breakdown_s[SIMT_BOUND_LATENCY];
    ck_assert_double_eq_tol(stored_with - stored_without, 827.5e-9, 1e-12);
    /* more barriers never make a kernel faster */
    double before = predict_on(&gpu, &req).time_s;
    req.barriers = 20;
    ck_assert(predict_on(&gpu, &req).time_s > before);
}
END_TEST

/* Block launch and the block's slowest warp.
 *   100000 empty blocks of 64 threads on 100 SMs with block_launch_cycles
 *     200: the SMs take 1000 blocks each at 200 cycles a block, so the
 *     launch center binds: at least 200000 cycles, within 5%; without the
 *     figure far less.
 *   a DRAM load then one barrier: the block's warps all wait for the
 *     slowest warp's load, so 8 warps a block wait longer than 1 (the same
 *     total warps, barrier figures without a per-warp term); without the
 *     barrier the block size does not change the load's latency. */
START_TEST(test_block_launch_and_wait)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.block_launch_cycles = 200;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double clock = simt_figure_get(&figures, SIMT_FIG_CLOCK);
    struct simt_kernel_request req = base_request(100000, 64, 32);
    double cycles = predict_on(&gpu, &req).execution_s * clock;
    ck_assert_msg(cycles >= 200000.0 * (1.0 - 1e-9) && cycles <= 200000.0 * 1.05, "cycles %.9g", cycles);
    struct simt_gpu_spec bare = fixture_gpu();
    ck_assert(predict_on(&bare, &req).execution_s * clock < 100000.0);

    gpu.block_launch_cycles = 0; /* a warp's share of it depends on the block's size */
    gpu.barrier_latency_cycles = 10;
    gpu.barrier_cycles_per_warp = 0;
    gpu.barrier_data_path_cycles = 0;
    struct simt_kernel_request one = base_request(800, 32, 32), eight = base_request(100, 256, 32);
    add_access(&one, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 1);
    add_access(&eight, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 1);
    double alone_one = predict_on(&gpu, &one).breakdown_s[SIMT_BOUND_LATENCY];
    double alone_eight = predict_on(&gpu, &eight).breakdown_s[SIMT_BOUND_LATENCY];
    ck_assert_double_eq_tol(alone_one, alone_eight, 1e-15);
    one.barriers = eight.barriers = 1;
    alone_one = predict_on(&gpu, &one).breakdown_s[SIMT_BOUND_LATENCY];
    alone_eight = predict_on(&gpu, &eight).breakdown_s[SIMT_BOUND_LATENCY];
    ck_assert_msg(alone_eight > alone_one * 1.01, "%.9g %.9g", alone_eight, alone_one);
}
END_TEST

/* The SM's barrier unit and the block's slot, on the fixture (100 SMs, 1
 * GHz, 64 warps an SM) with barrier figures 10 cycles + 2 a warp.
 *   8000 blocks of 256 threads (80 a SM, 8 resident: the SM full), 200 bare
 *     barriers a thread: the SM's barrier unit takes 80 x 8 x 200 x 2 =
 *     256000 arrival cycles, which bounds the time from below (the
 *     latency alone would allow 10 waves x 200 x 26 = 52000), and the
 *     compute term says so; halving barrier_cycles_per_warp halves it.
 *   10000 empty blocks of 64 threads, one resident a SM (their shared
 *     memory), block_launch_cycles 200: each slot idles 2 x 200 around
 *     each block, so 100 blocks a SM take at least 100 x 400 cycles, where
 *     the launcher alone (200 a block) would allow 20000; with the SM full
 *     (no shared memory) the launcher's rate binds again, within 5%. */
START_TEST(test_barrier_unit_and_block_slot)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.barrier_latency_cycles = 10;
    gpu.barrier_cycles_per_warp = 2;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double clock = simt_figure_get(&figures, SIMT_FIG_CLOCK);
    struct simt_kernel_request req = base_request(8000, 256, 32);
    req.barriers = 200;
    struct simt_kernel_result r = predict_on(&gpu, &req);
    ck_assert_int_eq(r.occupancy.active_blocks_per_sm, 8);
    double cycles = r.execution_s * clock;
    ck_assert_msg(cycles >= 256000.0 * (1.0 - 1e-9) && cycles <= 256000.0 * 1.1, "cycles %.9g", cycles);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_COMPUTE] * clock, 256000.0, 1e-6);
    gpu.barrier_cycles_per_warp = 1;
    double halved = predict_on(&gpu, &req).execution_s * clock;
    ck_assert_msg(halved < 0.6 * cycles, "halved %.9g of %.9g", halved, cycles);

    struct simt_gpu_spec launch = fixture_gpu();
    launch.block_launch_cycles = 200;
    simt_figure_set_init(&launch, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_kernel_request one = base_request(10000, 64, 32);
    one.dynamic_shared_bytes = 150000;
    r = predict_on(&launch, &one);
    ck_assert_int_eq(r.occupancy.active_blocks_per_sm, 1);
    cycles = r.execution_s * clock;
    ck_assert_msg(cycles >= 100.0 * 400.0, "cycles %.9g", cycles);
    ck_assert_double_eq_tol(r.breakdown_s[SIMT_BOUND_LAUNCH] * clock, 100.0 * 400.0, 1e-6);
    one.dynamic_shared_bytes = 0;
    cycles = predict_on(&launch, &one).execution_s * clock;
    ck_assert_msg(cycles >= 100.0 * 200.0 * (1.0 - 1e-9) && cycles <= 100.0 * 200.0 * 1.05, "cycles %.9g",
                  cycles);
}
END_TEST

/* Blocks in step (kernel.c, lockstep_cycles), on the fixture (100 SMs, 1
 * GHz, 64 warps an SM) with barrier figures 10 cycles + 2 a warp, no data
 * path or launch cost: 80000 blocks of 256 threads (8 resident a SM, 100
 * waves), each thread loading 8 contiguous floats at once.
 *   20 barriers a thread after the loads: the SM's blocks pass them
 *     together, so each wave takes its memory phase plus 20 barrier phases
 *     of at least 10 + 2 x 8 cycles (its own block's arrivals): at least
 *     100 x 20 x 26 cycles more than the DRAM's time, where the network
 *     alone would hide them behind the other warps' loads (within 2% of
 *     the time with no barriers).
 *   The same with 20 shuffles instead: a shuffle keeps no other warp in
 *     step, so its waits stay hidden (within 5% of no shuffles).
 *   One load a thread (DRAM far from busy), 20 barriers: the SM's
 *     barrier unit has 100 x 64 x 20 x 2 = 256000 cycles of arrivals, which
 *     the network would spread over the whole time; in step they come in
 *     bursts after each memory phase, each block waiting for the other
 *     blocks' arrivals, and the unit idles meanwhile: more than 10% over
 *     the unit's time. */
START_TEST(test_blocks_in_step)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.barrier_latency_cycles = 10;
    gpu.barrier_cycles_per_warp = 2;
    gpu.barrier_data_path_cycles = 0;
    gpu.block_launch_cycles = 0;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double clock = simt_figure_get(&figures, SIMT_FIG_CLOCK);
    struct simt_kernel_request req = base_request(80000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 8, 8, 4, 1);
    struct simt_kernel_result none = predict_on(&gpu, &req);
    ck_assert_int_eq(none.occupancy.active_blocks_per_sm, 8);
    ck_assert_int_eq(none.bound, SIMT_BOUND_DRAM);
    req.barriers = 20;
    double with = predict_on(&gpu, &req).execution_s * clock, without = none.execution_s * clock;
    double dram = none.breakdown_s[SIMT_BOUND_DRAM] * clock;
    ck_assert_msg(without <= 1.02 * dram, "none %.9g, DRAM %.9g", without, dram);
    ck_assert_msg(with >= dram + 100.0 * 20.0 * 26.0 * (1.0 - 1e-9), "barriers %.9g, DRAM %.9g", with, dram);
    req.barriers = 0;
    req.shuffles = 20;
    double shuffled = predict_on(&gpu, &req).execution_s * clock;
    ck_assert_msg(shuffled <= 1.05 * without, "shuffles %.9g, none %.9g", shuffled, without);

    struct simt_kernel_request light = base_request(80000, 256, 32);
    add_access(&light, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 1);
    light.barriers = 20;
    struct simt_kernel_result r = predict_on(&gpu, &light);
    double unit = r.breakdown_s[SIMT_BOUND_COMPUTE] * clock;
    ck_assert_double_eq_tol(unit, 100.0 * 64.0 * 20.0 * 2.0, 1e-6);
    ck_assert_msg(r.execution_s * clock > 1.1 * unit, "cycles %.9g, barrier unit %.9g", r.execution_s * clock,
                  unit);
}
END_TEST

/* Waves in step: 80000 blocks of 256 threads, 8 resident a SM (100 waves),
 * each thread loads 4 coalesced bytes and then runs 64 integer ops: the
 * INT32 pipe (64 lanes a cycle) takes 2048 x 64 / 64 = 2048 cycles a wave,
 * the SM's DRAM share 8 KiB / 20 B = 410. The pipes set the pace, so the
 * warps finish together and each wave waits out its load round (the 524
 * cycles of test_latency_bound, and no less than the 500-cycle latency)
 * before its pipe work: at least 100 x (2048 + 500) cycles, where a network
 * of warps each on its own phase would hide the loads behind other warps'
 * integer work (100 x 2048). With no integer work the pipes do not set the
 * pace and the waves are not in step. */
START_TEST(test_waves_in_step)
{
    struct simt_gpu_spec gpu = clean_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double clock = simt_figure_get(&figures, SIMT_FIG_CLOCK);
    struct simt_kernel_request req = base_request(80000, 256, 32);
    add_access(&req, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 1, 1, 4, 1);
    req.int_ops = 64;
    struct simt_kernel_result r = predict(&req);
    ck_assert_int_eq(r.occupancy.active_blocks_per_sm, 8);
    ck_assert_double_eq_tol(r.int32_s * clock, 100.0 * 2048.0, 1e-6);
    ck_assert(r.assumed & SIMT_KERNEL_ASSUMED_WAVES_IN_STEP);
    double cycles = r.execution_s * clock;
    ck_assert_msg(cycles >= 100.0 * (2048.0 + 500.0) && cycles <= 100.0 * (2048.0 + 600.0), "cycles %.9g",
                  cycles);
    /* faster pipes are never slower, across the point where they stop
     * setting the pace and the waves leave step (a launch in step pays the
     * first round's latency every wave, the first included; out of step
     * once: the two meet there without a jump). Eight loads a thread
     * (3277 DRAM cycles a wave) against 128 integer ops (4096 INT32 cycles
     * a wave at 64 lanes): in step at first, not once the pipes are about
     * 1.5 times faster. */
    struct simt_kernel_request heavy = base_request(80000, 256, 32);
    add_access(&heavy, SIMT_SPACE_GLOBAL, SIMT_OP_LOAD, 8, 8, 4, 1);
    heavy.int_ops = 128;
    double previous = INFINITY;
    int in_step = 0, out_of_step = 0;
    for (int i = 0; i <= 2000; i++) {
        double f = 1.0 + 0.0005 * i; /* fine: a jump of one latency would show */
        gpu.int32_ops_per_clock_per_sm = 64.0 * f;
        gpu.issue_slots_per_clock_per_sm = 4.0 * f;
        r = predict_on(&gpu, &heavy);
        in_step += (r.assumed & SIMT_KERNEL_ASSUMED_WAVES_IN_STEP) != 0;
        out_of_step += (r.assumed & SIMT_KERNEL_ASSUMED_WAVES_IN_STEP) == 0;
        ck_assert_msg(r.execution_s <= previous * (1.0 + 1e-12), "pipes x%.2f: %.9g s after %.9g s", f,
                      r.execution_s, previous);
        previous = r.execution_s;
    }
    ck_assert_msg(in_step > 0 && out_of_step > 0, "the sweep crosses the edge: %d in step, %d not", in_step,
                  out_of_step);
    req.int_ops = 0;
    r = predict(&req);
    ck_assert(!(r.assumed & SIMT_KERNEL_ASSUMED_WAVES_IN_STEP));
    ck_assert_int_ne(r.bound, SIMT_BOUND_COMPUTE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_latency_bound);
    tcase_add_test(tc, test_dram_bound);
    tcase_add_test(tc, test_compute_and_divergence);
    tcase_add_test(tc, test_bank_conflicts_and_padding);
    tcase_add_test(tc, test_tail);
    tcase_add_test(tc, test_reuse_assumptions);
    tcase_add_test(tc, test_int_ops);
    tcase_add_test(tc, test_repeats);
    tcase_add_test(tc, test_l2_warm);
    tcase_add_test(tc, test_distinct_addresses);
    tcase_add_test(tc, test_atomic_slices);
    tcase_add_test(tc, test_int_mul_ops);
    tcase_add_test(tc, test_alu_chains);
    tcase_add_test(tc, test_partial_store);
    tcase_add_test(tc, test_store_table);
    tcase_add_loop_test(tc, test_read_write_mix, 0, (int)(sizeof mix_rows / sizeof mix_rows[0]));
    tcase_add_loop_test(tc, test_write_back, 0, (int)(sizeof dirty_rows / sizeof dirty_rows[0]));
    tcase_add_loop_test(tc, test_shared_table, 0, (int)(sizeof table_rows / sizeof table_rows[0]));
    tcase_add_loop_test(tc, test_dram_rows, 0, (int)(sizeof rows_rows / sizeof rows_rows[0]));
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bads / sizeof bads[0]));
    tcase_add_test(tc, test_barriers_and_shuffles);
    tcase_add_test(tc, test_block_launch_and_wait);
    tcase_add_test(tc, test_barrier_unit_and_block_slot);
    tcase_add_test(tc, test_blocks_in_step);
    tcase_add_test(tc, test_waves_in_step);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
