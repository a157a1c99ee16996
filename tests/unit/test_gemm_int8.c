/* test_gemm_int8.c - int8's mma.sync kernels on Hopper (model/gemm_mma_sync.c,
 * gemm_family.c, gemm_cost.c): how many of their blocks an SM holds (the
 * occupancy model against the shared memory their stages take), which tiles
 * cuBLAS offers for m <= 128, the rounds of resident blocks (a last round
 * of few blocks is paid at their own pace; more bandwidth or less latency is
 * never slower), dirty lines written back once, not twice, and a lone
 * block's chain of warp K steps (against the probe of few tiles, long K). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"
#include "hwdb.h"

static int64_t round_up(int64_t v, int64_t unit)
{
    return unit > 0 ? (v + unit - 1) / unit * unit : v;
}

/* The tiles by their names (stages * (M + N) * 128 bytes of shared memory,
 * 128 threads, 256 for the widest): an SM holds as many as its shared memory takes, at most
 * its block and warp limits, on every NVIDIA GPU of the database. */
START_TEST(resident_blocks_follow_shared_memory)
{
    static const struct tile_shape tiles[] = {{64, 128, 3}, {64, 64, 6}, {128, 128, 5}, {256, 128, 3}};
    size_t n = simt_hwdb_count(gemm_db);
    int checked = 0;
    for (size_t g = 0; g < n; g++) {
        const struct simt_hwdb_gpu *rec = simt_hwdb_at(gemm_db, g);
        const struct simt_gpu_spec *gpu = &rec->spec;
        if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major < 8)
            continue;
        for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
            int64_t bytes = (int64_t)tiles[i].stages * (tiles[i].m + tiles[i].n) * 128;
            int64_t threads = tiles[i].m * tiles[i].n >= 256 * 128 ? 256 : 128; /* their 128x256: 256 */
            int64_t per_block =
                round_up(bytes + gpu->reserved_shared_bytes_per_block, gpu->shared_allocation_unit_bytes);
            int64_t expect =
                bytes > gpu->shared_bytes_per_block_optin ? 1 : gpu->shared_bytes_per_sm / per_block;
            if (expect > gpu->max_blocks_per_sm)
                expect = gpu->max_blocks_per_sm;
            if (expect > gpu->max_threads_per_sm / threads)
                expect = gpu->max_threads_per_sm / threads;
            if (expect < 1)
                expect = 1;
            int got = simt_gemm_mma_sync_resident(gpu, &tiles[i], 128, 1.0);
            ck_assert_msg(got == expect, "%s %dx%dx%d: %d blocks an SM, expected %lld", rec->name, tiles[i].m,
                          tiles[i].n, tiles[i].stages, got, (long long)expect);
            checked++;
        }
    }
    ck_assert_int_gt(checked, 20);
    /* the H200 as gemm_mma_sync.c states it: three 72 KiB blocks, one 160 KiB */
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    ck_assert_int_eq(simt_gemm_mma_sync_resident(h200, &tiles[0], 128, 1.0), 3);
    ck_assert_int_eq(simt_gemm_mma_sync_resident(h200, &tiles[2], 128, 1.0), 1);
    ck_assert_int_eq(simt_gemm_mma_sync_resident(NULL, &tiles[0], 128, 1.0), 1);
}
END_TEST

/* m <= 128 outside the long-K rule: only the 64-row tiles (the names in
 * gemm_probe*.json); long K and large outputs: only the 128-row ones;
 * taller outputs with short K: all four. */
START_TEST(small_m_runs_64_row_tiles)
{
    static const struct {
        int64_t m, n, k;
        int rows; /* 64: only 64-row tiles; 128: only 128 rows and up; 0: both */
    } rows[] = {
        {128, 28672, 4096, 64}, {64, 57344, 4096, 64},  {128, 8192, 6144, 64},  {32, 16384, 8192, 64},
        {128, 4096, 28672, 64}, {128, 8192, 8192, 128}, {96, 16384, 8192, 128}, {1024, 1024, 1024, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct simt_gemm_request req = {rows[i].m,
                                        rows[i].n,
                                        rows[i].k,
                                        1,
                                        SIMT_DTYPE_INT8,
                                        SIMT_POLICY_PREFER_MEASURED,
                                        SIMT_GEMM_LAUNCH_SINGLE,
                                        0};
        const struct tile_shape *tiles;
        size_t count;
        simt_gemm_int8_mma_sync_tiles(&req, &tiles, &count);
        ck_assert_uint_gt(count, 0);
        int small = 0, large = 0;
        for (size_t t = 0; t < count; t++) {
            if (!simt_gemm_int8_runs_tile(&req, &tiles[t]))
                continue;
            if (tiles[t].m == 64)
                small++;
            else
                large++;
            ck_assert_int_gt(tiles[t].stages, 0);
        }
        if (rows[i].rows == 64)
            ck_assert_msg(large == 0 && small > 0, "%lldx%lldx%lld", (long long)rows[i].m,
                          (long long)rows[i].n, (long long)rows[i].k);
        else if (rows[i].rows == 128)
            ck_assert_msg(small == 0 && large > 0, "%lldx%lldx%lld", (long long)rows[i].m,
                          (long long)rows[i].n, (long long)rows[i].k);
        else
            ck_assert_msg(small > 0 && large > 0, "%lldx%lldx%lld", (long long)rows[i].m,
                          (long long)rows[i].n, (long long)rows[i].k);
    }
}
END_TEST

/* Of the 64-row tiles: 64x128 (3 stages) for K <= 4096, 64x64 (6 stages)
 * for K >= 8192, either at K = 6144 (the kernels' names). */
START_TEST(short_k_runs_the_wide_64_row_tile)
{
    static const struct tile_shape wide = {64, 128, 3}, narrow = {64, 64, 6};
    static const struct {
        int64_t m, n, k;
        int wide, narrow;
    } rows[] = {
        {128, 8192, 1024, 1, 0}, {64, 57344, 4096, 1, 0}, {32, 28672, 4096, 1, 0},
        {128, 8192, 6144, 1, 1}, {48, 8192, 6144, 1, 1},  {32, 16384, 8192, 0, 1},
        {128, 4096, 8192, 0, 1}, {64, 8192, 28672, 0, 1}, {1024, 1024, 1024, 1, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct simt_gemm_request req = {rows[i].m,
                                        rows[i].n,
                                        rows[i].k,
                                        1,
                                        SIMT_DTYPE_INT8,
                                        SIMT_POLICY_PREFER_MEASURED,
                                        SIMT_GEMM_LAUNCH_SINGLE,
                                        0};
        ck_assert_int_eq(simt_gemm_int8_runs_tile(&req, &wide), rows[i].wide);
        ck_assert_int_eq(simt_gemm_int8_runs_tile(&req, &narrow), rows[i].narrow);
    }
}
END_TEST

/* Long K, large outputs: their 128x256 (our 256x128) alone from 6 x 2^20
 * output elements on, 128x128 too below (gemm_probe_int8m.json's names);
 * and 128x65536x8192 priced as cuBLAS ran it there, within 10% of its
 * single call (285.4 us; the 128x128 tile gave -43%). */
START_TEST(large_outputs_run_the_widest_tile)
{
    static const struct tile_shape widest = {256, 128, 3}, square = {128, 128, 5};
    static const struct {
        int64_t m, n;
        int square;
    } rows[] = {{96, 65536, 0},  {128, 49152, 0}, {192, 32768, 0}, {57344, 128, 0},
                {160, 32768, 1}, {96, 49152, 1},  {64, 65536, 1},  {256, 16384, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct simt_gemm_request req = {rows[i].m,
                                        rows[i].n,
                                        8192,
                                        1,
                                        SIMT_DTYPE_INT8,
                                        SIMT_POLICY_PREFER_MEASURED,
                                        SIMT_GEMM_LAUNCH_SINGLE,
                                        0};
        ck_assert_int_eq(simt_gemm_int8_runs_tile(&req, &widest), 1);
        ck_assert_msg(simt_gemm_int8_runs_tile(&req, &square) == rows[i].square, "%lldx%lld",
                      (long long)rows[i].m, (long long)rows[i].n);
    }
    const struct simt_gpu_spec *gpu = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        128, 65536, 8192, 1, SIMT_DTYPE_INT8, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_gemm_result r;
    ck_assert_int_eq(simt_gemm_predict(gpu, &req, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.tile_m, 256);
    ck_assert_msg(fabs(r.time_s / 285.4e-6 - 1.0) < 0.10, "128x65536x8192: %g s", r.time_s);
}
END_TEST

static const struct tile_shape tile_64x128 = {64, 128, 3};

/* A context and a candidate of `tiles` 64x128 blocks of K = 4096 on the
 * H200's figures, as gemm.c would have priced them (math per block over
 * waves of one block per SM, DRAM reads spread over the blocks). */
static void make(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int64_t tiles,
                 struct shape_context *ctx, struct candidate *c)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->req = req;
    ctx->element_bytes = 1.0;
    ctx->a_weight = 1.0;
    ctx->out_bytes = 4;
    ctx->sm_count = gpu->sm_count;
    ctx->l2_bytes_per_s = 8.2e12;
    simt_gemm_mma_sync_setup(gpu, 3.4e-7, 1.98e9, 0.73, ctx);
    memset(c, 0, sizeof *c);
    c->tile = &tile_64x128;
    c->tile_k = 128;
    c->split = 1;
    c->tiles = tiles;
    double math_s = 9e-6;
    c->compute_s = ceil((double)tiles / gpu->sm_count) * math_s;
    c->dram_read_s = (double)tiles * 128.0 * 4096.0 / 4.6e12;
}

static double rounds(const struct shape_context *ctx, const struct candidate *c)
{
    double busy = -1.0, count = 0.0;
    ck_assert_int_eq(simt_gemm_mma_sync_rounds(ctx, c, &busy, &count), 1);
    ck_assert(count >= 1.0 && count <= (double)c->tiles);
    ck_assert(isfinite(busy) && busy > 0.0);
    return busy;
}

/* One block more than the SMs hold at once costs a round of its own, paid
 * at its pace (at least its math), while the blocks up to the slots share
 * the SMs' rounds; no resident GPU: nothing changes. */
START_TEST(last_round_paid_at_its_own_pace)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        64, 57344, 4096, 1, SIMT_DTYPE_INT8, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    int64_t slots = 3 * (int64_t)h200->sm_count;
    struct shape_context ctx;
    struct candidate full, over;
    make(h200, &req, slots, &ctx, &full);
    make(h200, &req, slots + 1, &ctx, &over);
    double t_full = rounds(&ctx, &full), t_over = rounds(&ctx, &over);
    ck_assert_msg(t_over >= t_full + 9e-6 * 0.999, "full %g, one more block %g", t_full, t_over);
    /* the first round's three blocks an SM: no more than three blocks' math
     * and L2 share, and at least the round's DRAM reads */
    ck_assert(t_full >= full.dram_read_s * 0.999);
    ck_assert(t_full <= 3.0 * 786432.0 / (8.2e12 / h200->sm_count) + full.dram_read_s + 3.0 * 9e-6);

    ctx.resident_gpu = NULL;
    double busy = 1.0, count = 0.0;
    ck_assert_int_eq(simt_gemm_mma_sync_rounds(&ctx, &full, &busy, &count), 0);
    ck_assert(!(busy < 1.0) && !(busy > 1.0));
}
END_TEST

/* More L2 bandwidth, less latency, faster DRAM: never slower, over block
 * counts from one to five rounds. */
START_TEST(rounds_monotone_in_figures)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        64, 57344, 4096, 1, SIMT_DTYPE_INT8, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    for (int64_t tiles = 1; tiles <= 5 * 3 * (int64_t)h200->sm_count; tiles += 37) {
        struct shape_context ctx;
        struct candidate c;
        make(h200, &req, tiles, &ctx, &c);
        double base = rounds(&ctx, &c);
        struct shape_context more_l2 = ctx;
        more_l2.l2_bytes_per_s *= 2.0;
        ck_assert(rounds(&more_l2, &c) <= base * (1.0 + 1e-12));
        struct shape_context less_latency = ctx;
        less_latency.resident_latency_s /= 2.0;
        ck_assert(rounds(&less_latency, &c) <= base * (1.0 + 1e-12));
        struct candidate faster_dram = c;
        faster_dram.dram_read_s /= 2.0;
        ck_assert(rounds(&ctx, &faster_dram) <= base * (1.0 + 1e-12));
        struct candidate more = c;
        more.tiles = tiles + 1;
        more.compute_s = ceil((double)more.tiles / h200->sm_count) * 9e-6;
        more.dram_read_s = c.dram_read_s * (double)more.tiles / (double)tiles;
        ck_assert(rounds(&ctx, &more) >= base * (1.0 - 1e-12));
    }
}
END_TEST

/* A single call's fills write back earlier work's dirty lines once: a
 * kernel that stores C after its math and whose loads bind pays them once,
 * not once more with C's stores. */
START_TEST(evicted_lines_paid_once)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        64, 57344, 4096, 1, SIMT_DTYPE_INT8, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct shape_context ctx;
    struct candidate c;
    make(h200, &req, 448, &ctx, &c);
    ctx.epilogue_after_mainloop = 1;
    c.l2_s = 2.0 * c.compute_s; /* the loads bind */
    c.dram_write_s = 3e-6;
    struct candidate dirty = c;
    dirty.evicted_s = 5e-6;
    dirty.dram_write_s += dirty.evicted_s;
    double busy = 50e-6;
    simt_gemm_finish(&ctx, busy, 4.0, &c);
    simt_gemm_finish(&ctx, busy, 4.0, &dirty);
    ck_assert_msg(fabs(dirty.time_s - c.time_s - 5e-6) < 1e-9, "clean %g, dirty %g", c.time_s, dirty.time_s);
}
END_TEST

static const struct tile_shape tile_64x64 = {64, 64, 6};

/* busy of `tiles` 64x64 blocks of K = 4096 (32 stages) whose math is
 * math_s each, on the H200's SMs at clock_hz (0: no clock figure). */
static double rounds_64x64(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                           int64_t tiles, double math_s, double clock_hz)
{
    struct shape_context ctx;
    struct candidate c;
    make(gpu, req, tiles, &ctx, &c);
    simt_gemm_mma_sync_setup(gpu, 3.4e-7, clock_hz, 0.73, &ctx);
    c.tile = &tile_64x64;
    c.compute_s = ceil((double)tiles / gpu->sm_count) * math_s;
    c.dram_read_s = 1e-6; /* operands read by many blocks: DRAM does not bind */
    return rounds(&ctx, &c);
}

/* A block alone on its SM waits out its warps' own chain of K steps: with
 * a clock figure it takes longer than its math; a second block on each SM
 * fills those waits, so two an SM take less than twice one; a faster
 * clock is never slower. */
START_TEST(lone_block_paced_by_its_chain)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        32, 16, 4096, 1, SIMT_DTYPE_INT8, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    double math_s = 32.0 * 4.0 * 8.0 * 8192.0 / (7.4e12 / 4.0); /* 32 stages of 4 steps of 8 MMAs */
    double no_clock = rounds_64x64(h200, &req, 1, math_s, 0.0);
    double lone = rounds_64x64(h200, &req, 1, math_s, 1.98e9);
    ck_assert_msg(lone > 1.2 * math_s && lone > 1.2 * no_clock, "lone %g, math %g, no clock %g", lone, math_s,
                  no_clock);
    double two = rounds_64x64(h200, &req, 2 * h200->sm_count, math_s, 1.98e9);
    ck_assert_msg(two < 2.0 * lone * 0.9 && two >= 2.0 * math_s * 0.999, "two an SM %g, one %g", two, lone);
    for (double clock = 0.5e9; clock <= 4e9; clock *= 1.5)
        ck_assert(rounds_64x64(h200, &req, 1, math_s, clock * 1.5) <=
                  rounds_64x64(h200, &req, 1, math_s, clock) * (1.0 + 1e-12));
}
END_TEST

/* Few blocks, long K (gemm_probe_classes.json, group int8: m = 32..512,
 * n = 16..512, K = 4096..12288, 1 to 64 blocks of 64x64_128x6; fit data):
 * each single call within 10% and the median within 5% (before the chain,
 * 33% and 37.5%, all too fast), and each (m, n)'s time a stage, the slope
 * from K = 4096 to 12288, within 10% of the measured one. */
#define PROBE_CLASSES SIMT_TEST_DIR "/gpu/results/h200/gemm_probe_classes.json"
#define PROBE_INT8_MAX 64

static int by_error(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(long_k_few_tiles_probe)
{
    const struct simt_gpu_spec *h200 = gemm_db_spec("h200-sxm");
    json_t *doc = gemm_probe_load(PROBE_CLASSES);
    static double errors[PROBE_INT8_MAX];
    static struct {
        int64_t m, n, k;
        double measured_s, predicted_s;
    } rows[PROBE_INT8_MAX];
    size_t count = 0, i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const char *cls = json_string_value(json_object_get(run, "shape_class"));
        if (cls == NULL || strcmp(cls, "probe_int8") != 0)
            continue;
        ck_assert_uint_lt(count, PROBE_INT8_MAX);
        struct simt_gemm_request req = gemm_probe_request(run, SIMT_DTYPE_INT8);
        struct simt_gemm_result r;
        ck_assert_int_eq(simt_gemm_predict(h200, &req, &r, NULL), SIMT_OK);
        double measured = json_real_value(json_object_get(run, "measured_s"));
        ck_assert(measured > 0.0);
        rows[count].m = req.m;
        rows[count].n = req.n;
        rows[count].k = req.k;
        rows[count].measured_s = measured;
        rows[count].predicted_s = r.time_s;
        errors[count] = fabs(r.time_s / measured - 1.0);
        ck_assert_msg(errors[count] < 0.10, "int8 %lldx%lldx%lld: %g s, measured %g s", (long long)req.m,
                      (long long)req.n, (long long)req.k, r.time_s, measured);
        count++;
    }
    json_decref(doc);
    ck_assert_uint_eq(count, 60);
    qsort(errors, count, sizeof errors[0], by_error);
    ck_assert_msg(errors[count / 2] < 0.05, "median |error| %g", errors[count / 2]);
    int slopes = 0;
    for (size_t a = 0; a < count; a++) {
        for (size_t b = 0; b < count; b++) {
            if (rows[a].m != rows[b].m || rows[a].n != rows[b].n || rows[a].k != 4096 || rows[b].k != 12288)
                continue;
            double measured = rows[b].measured_s - rows[a].measured_s;
            double predicted = rows[b].predicted_s - rows[a].predicted_s;
            ck_assert_msg(fabs(predicted / measured - 1.0) < 0.10,
                          "%lldx%lld: %g s for 64 stages, measured %g", (long long)rows[a].m,
                          (long long)rows[a].n, predicted, measured);
            slopes++;
        }
    }
    ck_assert_int_eq(slopes, 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_int8");
    TCase *tc = tcase_create("int8 mma.sync");
    tcase_add_checked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, resident_blocks_follow_shared_memory);
    tcase_add_test(tc, small_m_runs_64_row_tiles);
    tcase_add_test(tc, short_k_runs_the_wide_64_row_tile);
    tcase_add_test(tc, large_outputs_run_the_widest_tile);
    tcase_add_test(tc, last_round_paid_at_its_own_pace);
    tcase_add_test(tc, rounds_monotone_in_figures);
    tcase_add_test(tc, evicted_lines_paid_once);
    tcase_add_test(tc, lone_block_paced_by_its_chain);
    tcase_add_test(tc, long_k_few_tiles_probe);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
