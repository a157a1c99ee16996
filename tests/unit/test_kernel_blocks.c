/* test_kernel_blocks.c - the kernel model against kblock_probe.json (fit
 * data, tests/gpu/probe/kblock_probe.cu on an H200): grids of short blocks
 * with block reductions or bare barriers, at the SM's full occupancy and
 * with resident blocks capped by shared memory. Each row goes through
 * POST /v1/kernel in-process as its author would describe it:
 *
 *   tree (block n, width W, reductions P, barriers B): a coalesced 4-byte
 *     load and store of count W (the load W independent); per reduction
 *     2 shared stores and 3 shared loads a thread (a tree's per-thread
 *     average: s[t] and the levels' s[t] += s[t + s], then s[0]);
 *     fp32 flops 2W + 2P, int_ops 10 + 2B, 28 registers.
 *   bar (barriers B): fp32 2B (one FMA a barrier), int_ops 2B, no accesses.
 *
 * Holds the model within a stated tolerance per kind: median |error| and
 * worst |error| (tree 10% / 40%, bar 8% / 45%; the model before the SM's
 * barrier unit and the block slot: tree 32% / 52%, bar 37% / 74%; before
 * the blocks kept in step at their barriers: tree 14.5% / 38.5%), and each
 * bar row of blocks up to 256 threads at the SM's full occupancy within 15%
 * (the barrier unit's rate alone). Not modelled, so not held: blocks of 512
 * and 1024 threads launch slower than smaller ones (empty 1024-thread
 * blocks two resident a SM: 305 cycles a block, against 157), which leaves
 * their rows 15% to 42% under. Prints every row. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "api.h"
#include "hwdb.h"

#define PROBE SIMT_TEST_DIR "/gpu/results/h200/kblock_probe.json"
#define MAX_ROWS 512

static json_t *access_json(const char *space, const char *op, double count, double independent)
{
    return json_pack("{s:s, s:s, s:f, s:i, s:i, s:f}", "space", space, "op", op, "count", count,
                     "element_bytes", 4, "lane_stride_elements", 1, "independent", independent);
}

static json_t *request_json(json_t *row, int tree)
{
    int block = (int)json_integer_value(json_object_get(row, "block"));
    int grid = (int)json_integer_value(json_object_get(row, "grid"));
    int barriers = (int)json_integer_value(json_object_get(row, "barriers"));
    int dynamic = (int)json_integer_value(json_object_get(row, "dynamic_shared_bytes"));
    json_t *accesses = json_array();
    double flops = 2.0 * barriers, int_ops = 2.0 * barriers;
    int registers = 16;
    if (tree) {
        double width = (double)json_integer_value(json_object_get(row, "width"));
        double reductions = (double)json_integer_value(json_object_get(row, "reductions"));
        json_array_append_new(accesses, access_json("global", "load", width, width));
        json_array_append_new(accesses, access_json("global", "store", width, 1.0));
        if (reductions > 0.0) {
            json_array_append_new(accesses, access_json("shared", "store", 2.0 * reductions, 1.0));
            json_array_append_new(accesses, access_json("shared", "load", 3.0 * reductions, 1.0));
        }
        flops = 2.0 * width + 2.0 * reductions;
        int_ops = 10.0 + 2.0 * barriers;
        registers = 28;
    }
    return json_pack("{s:s, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:{s:f}, s:f, s:i, s:o}}", "gpu",
                     "h200-sxm", "launch", "grid", grid, "block", block, "dynamic_shared_bytes", dynamic,
                     "resources", "registers_per_thread", registers, "static_shared_bytes", 0,
                     "block_barriers", 1, "per_thread", "flops", "fp32", flops, "int_ops", int_ops,
                     "barriers", barriers, "accesses", accesses);
}

/* Predicts every row of one kind; fills errors (signed, relative) and
 * checks each full-SM bar row. Returns the row count. */
static size_t run_kind(const struct simt_hwdb *db, json_t *doc, const char *kind, double *errors)
{
    json_t *rows = json_object_get(doc, kind);
    ck_assert_msg(json_is_array(rows) && json_array_size(rows) > 0, "%s: no rows", kind);
    size_t n = 0, i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        ck_assert(n < MAX_ROWS);
        json_t *body = request_json(row, strcmp(kind, "tree") == 0);
        int status = 0;
        json_t *answer = accuracy_post(db, "/v1/kernel", body, &status);
        json_decref(body);
        ck_assert_msg(answer != NULL && status == 200, "%s row %zu: status %d", kind, i, status);
        double predicted = json_number_value(json_object_get(answer, "time_s"));
        double measured = json_number_value(json_object_get(row, "time_s"));
        int block = (int)json_integer_value(json_object_get(row, "block"));
        int resident = (int)json_integer_value(json_object_get(row, "resident_blocks"));
        errors[n] = (predicted - measured) / measured;
        printf("%-4s block %4d barriers %2d resident %2d: measured %8.1f us, predicted %8.1f us, %+6.1f%% "
               "(%s)\n",
               kind, block, (int)json_integer_value(json_object_get(row, "barriers")), resident,
               measured * 1e6, predicted * 1e6, 100.0 * errors[n],
               json_string_value(json_object_get(answer, "bound")));
        if (strcmp(kind, "bar") == 0 && block <= 256 && block * resident >= 2048)
            ck_assert_msg(fabs(errors[n]) <= 0.15, "bar block %d full SM: %+.1f%%", block, 100.0 * errors[n]);
        json_decref(answer);
        n++;
    }
    return n;
}

static void check_kind(const char *kind, double *errors, size_t n, double median_limit, double worst_limit)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        errors[i] = fabs(errors[i]);
        worst = fmax(worst, errors[i]);
    }
    double median = accuracy_median(errors, n);
    printf("%s: %zu rows, median |error| %.1f%% (limit %.0f%%), worst %.1f%% (limit %.0f%%)\n", kind, n,
           100.0 * median, 100.0 * median_limit, 100.0 * worst, 100.0 * worst_limit);
    ck_assert_msg(median <= median_limit, "%s median %.3f", kind, median);
    ck_assert_msg(worst <= worst_limit, "%s worst %.3f", kind, worst);
}

START_TEST(kblock_probe_rows)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s:%d: %s", diag.file,
                  diag.line, diag.message);
    json_error_t error;
    json_t *doc = json_load_file(PROBE, 0, &error);
    ck_assert_msg(doc != NULL, "%s: %s", PROBE, error.text);
    static double errors[MAX_ROWS];
    size_t n = run_kind(db, doc, "tree", errors);
    check_kind("tree", errors, n, 0.10, 0.40);
    n = run_kind(db, doc, "bar", errors);
    check_kind("bar", errors, n, 0.08, 0.45);
    json_decref(doc);
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    return accuracy_run("kernel_blocks", kblock_probe_rows);
}
