/* test_cluster_oracle.c - simtd's cluster occupancy against the CUDA
 * runtime's own answers on an H200: tests/oracle/data/cluster_h200.csv holds
 * 38,656 launches (register counts, block sizes, dynamic shared memory,
 * cluster shapes of 1..16 blocks) with what
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor and
 * cudaOccupancyMaxActiveClusters answered (tests/gpu/cluster/cluster_oracle.cu
 * wrote it). For every row the occupancy model on the database's h200-sxm
 * record (the kernel opted in to all 227 KiB of dynamic shared memory,
 * default carveout, as the file's header says) must give the runtime's
 * blocks per SM, and simt_occupancy_clusters its active clusters: 0
 * mismatches of either, counts printed. The CSV is data, so no CUDA toolkit
 * is needed.
 *
 * The check can fail: the same rows against a planted wrong layout (the same
 * 132 SMs grouped otherwise) and a planted wrong per-SM cap must give
 * mismatches. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdb.h"
#include "occupancy.h"

#define CSV_PATH SIMT_SOURCE_DIR "/tests/oracle/data/cluster_h200.csv"
#define OPTIN_DYNAMIC_BYTES (227 * 1024)
#define MAX_ROWS 100000

struct row {
    int registers, static_shared, block, dynamic_shared;
    int dims[3];
    int blocks_per_sm;   /* the runtime's; -1: the call failed */
    int active_clusters; /* likewise */
};

struct tally {
    int rows;
    int block_mismatches;
    int cluster_mismatches;
    int sizes_seen[17]; /* rows per cluster size 1..16 */
};

static struct row *rows;
static int row_count;

static void load_rows(void)
{
    if (rows != NULL)
        return;
    FILE *f = fopen(CSV_PATH, "r");
    ck_assert_msg(f != NULL, "cannot open %s", CSV_PATH);
    rows = calloc(MAX_ROWS, sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    char line[512];
    int header_seen = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!header_seen) {
            static const char header[] = "registers,static_shared,block,dynamic_shared,cluster_x,cluster_y,"
                                         "cluster_z,blocks_per_sm,active_clusters";
            ck_assert_msg(strncmp(line, header, strlen(header)) == 0, "unexpected header: %s", line);
            header_seen = 1;
            continue;
        }
        ck_assert_int_lt(row_count, MAX_ROWS);
        struct row *r = &rows[row_count];
        int n = sscanf(line, "%d,%d,%d,%d,%d,%d,%d,%d,%d", &r->registers, &r->static_shared, &r->block,
                       &r->dynamic_shared, &r->dims[0], &r->dims[1], &r->dims[2], &r->blocks_per_sm,
                       &r->active_clusters);
        ck_assert_msg(n == 9, "malformed row %d: %s", row_count + 1, line);
        row_count++;
    }
    fclose(f);
}

static struct simt_gpu_spec h200_spec(struct simt_hwdb **db)
{
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", db, &diag) == SIMT_OK, "%s", diag.message);
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(*db, "h200-sxm");
    ck_assert_ptr_nonnull(gpu);
    return gpu->spec;
}

/* Every row against `gpu`; the first few mismatches printed when `verbose`. */
static struct tally run_rows(const struct simt_gpu_spec *gpu, int verbose)
{
    struct tally t;
    memset(&t, 0, sizeof t);
    int printed = 0;
    for (int i = 0; i < row_count; i++) {
        const struct row *r = &rows[i];
        struct simt_occupancy_request req;
        simt_occupancy_request_init(&req);
        req.block_size = r->block;
        req.registers_per_thread = r->registers;
        req.static_shared_bytes = r->static_shared;
        req.dynamic_shared_bytes = r->dynamic_shared;
        req.max_dynamic_shared_bytes = OPTIN_DYNAMIC_BYTES - r->static_shared;
        memcpy(req.cluster_dims, r->dims, sizeof req.cluster_dims);
        req.non_portable_cluster_size = 1; /* the oracle set cudaFuncAttributeNonPortableClusterSizeAllowed */
        struct simt_occupancy_result occ;
        struct simt_cluster_result cl;
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        memset(&cl, 0, sizeof cl);
        int rc = simt_occupancy_compute(gpu, &req, &occ, &diag);
        int blocks = rc == SIMT_OK ? occ.active_blocks_per_sm : (rc == SIMT_EUNSAT ? 0 : -2);
        int64_t clusters = -2;
        if (rc == SIMT_OK && simt_occupancy_clusters(gpu, &req, &occ, &cl, &diag) == SIMT_OK)
            clusters = cl.active_clusters_per_gpu;
        else if (rc == SIMT_EUNSAT)
            clusters = 0;
        int want_blocks = r->blocks_per_sm < 0 ? 0 : r->blocks_per_sm;
        int64_t want_clusters = r->active_clusters < 0 ? 0 : r->active_clusters;
        int size = r->dims[0] * r->dims[1] * r->dims[2];
        if (size >= 1 && size <= 16)
            t.sizes_seen[size]++;
        t.rows++;
        t.block_mismatches += blocks != want_blocks;
        t.cluster_mismatches += clusters != want_clusters;
        if (verbose && (blocks != want_blocks || clusters != want_clusters) && printed++ < 10)
            printf("  mismatch: registers %d, block %d, dynamic %d, cluster %dx%dx%d: blocks/SM %d (runtime "
                   "%d), clusters %lld (runtime %lld) %s\n",
                   r->registers, r->block, r->dynamic_shared, r->dims[0], r->dims[1], r->dims[2], blocks,
                   want_blocks, (long long)clusters, (long long)want_clusters, diag.message);
    }
    return t;
}

START_TEST(runtime_answers)
{
    load_rows();
    struct simt_hwdb *db = NULL;
    struct simt_gpu_spec gpu = h200_spec(&db);
    struct tally t = run_rows(&gpu, 1);
    printf("cluster oracle: %d rows (cudaOccupancyMaxActiveBlocksPerMultiprocessor and "
           "cudaOccupancyMaxActiveClusters on an H200), blocks per SM mismatches %d, active clusters "
           "mismatches %d\n",
           t.rows, t.block_mismatches, t.cluster_mismatches);
    ck_assert_int_ge(t.rows, 5000);
    for (int size = 1; size <= 16; size++)
        ck_assert_msg(t.sizes_seen[size] > 0, "no row of cluster size %d", size);
    ck_assert_int_eq(t.block_mismatches, 0);
    ck_assert_int_eq(t.cluster_mismatches, 0);
    simt_hwdb_unref(db);
}
END_TEST

/* The same 132 SMs in groups of 18 and one of 6: the answers must differ. */
START_TEST(planted_layout_fails)
{
    static const int wrong[] = {18, 18, 18, 18, 18, 18, 18, 6};
    load_rows();
    struct simt_hwdb *db = NULL;
    struct simt_gpu_spec gpu = h200_spec(&db);
    memset(gpu.gpc_sms, 0, sizeof gpu.gpc_sms);
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++)
        gpu.gpc_sms[i] = wrong[i];
    struct tally t = run_rows(&gpu, 0);
    ck_assert_int_ge(t.rows, 5000);
    printf("planted layout 7 x 18 + 6: active clusters mismatches %d of %d rows\n", t.cluster_mismatches,
           t.rows);
    ck_assert_int_eq(t.block_mismatches, 0);
    ck_assert_int_gt(t.cluster_mismatches, 0);
    simt_hwdb_unref(db);
}
END_TEST

/* No cap of 8 cluster blocks per SM: the answers must differ. */
START_TEST(planted_cap_fails)
{
    load_rows();
    struct simt_hwdb *db = NULL;
    struct simt_gpu_spec gpu = h200_spec(&db);
    gpu.cluster_max_blocks_per_sm = gpu.max_blocks_per_sm;
    struct tally t = run_rows(&gpu, 0);
    printf("planted cap %d blocks per SM: active clusters mismatches %d of %d rows\n", gpu.max_blocks_per_sm,
           t.cluster_mismatches, t.rows);
    ck_assert_int_gt(t.cluster_mismatches, 0);
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cluster_oracle");
    TCase *tc = tcase_create("cluster_oracle");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, runtime_answers);
    tcase_add_test(tc, planted_layout_fails);
    tcase_add_test(tc, planted_cap_fails);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(rows);
    return failed == 0 ? 0 : 1;
}
