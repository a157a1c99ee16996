/* accuracy_h200.c - the model against a real H200: every kernel measured by
 * simt-micro (tests/gpu/results/h200/kernels.json, each entry a complete
 * POST /v1/kernel request and its measured median time) goes through
 * simt_api_handle in-process against the bundled database, and the
 * predicted time is compared with the measured one.
 *
 * Passes when the median absolute error is at most 10% and the worst at most
 * 25%, and when /v1/memory/banks gives, for every measured shared-memory
 * stride, the ways the card showed (its cycles per access over the
 * conflict-free stride's, launch overhead off, rounded). Prints the table
 * either way.
 *
 *   accuracy_h200 [kernels.json [hwdb-dir]]   exit 0 pass, 1 fail, 77 no data */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/accuracy.h"
#include "api.h"
#include "hwdb.h"

#define MEDIAN_LIMIT 0.10
#define WORST_LIMIT 0.25

static double number(json_t *obj, const char *key, double dflt)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : SIMT_SOURCE_DIR "/tests/gpu/results/h200/kernels.json";
    json_error_t error;
    json_t *doc = json_load_file(path, 0, &error);
    if (doc == NULL) {
        printf("accuracy_h200: no measured kernels at %s (%s): skipped\n", path, error.text);
        return 77;
    }
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    const char *hwdb = argc > 2 ? argv[2] : SIMT_SOURCE_DIR "/hwdb";
    if (simt_hwdb_load_dir(hwdb, &db, &diag) != 0) {
        fprintf(stderr, "accuracy_h200: database: %s:%d: %s\n", diag.file, diag.line, diag.message);
        return 1;
    }
    json_t *kernels = json_object_get(doc, "kernels");
    size_t n = json_array_size(kernels);
    double *errors = calloc(n > 0 ? n : 1, sizeof *errors);
    size_t counted = 0, failures = 0;
    int bad_ways = 0, ways_checked = 0;
    printf("%-34s %-14s %12s %12s %8s  %s\n", "kernel", "group", "measured_us", "predicted_us", "error",
           "bound");
    for (size_t i = 0; i < n; i++) {
        json_t *k = json_array_get(kernels, i);
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *group = json_string_value(json_object_get(k, "group"));
        double measured = number(k, "measured_s", 0.0);
        int status = 0;
        json_t *answer = accuracy_post(db, "/v1/kernel", json_object_get(k, "request"), &status);
        if (answer == NULL || status != 200 || !(measured > 0.0)) {
            char *dump = answer != NULL ? json_dumps(answer, JSON_COMPACT) : NULL;
            printf("%-34s %-14s status %d: %s\n", name ? name : "?", group ? group : "?", status,
                   dump != NULL ? dump : "(no answer)");
            free(dump);
            failures++;
            json_decref(answer);
            continue;
        }
        double predicted = number(answer, "time_s", 0.0);
        double launch = number(json_object_get(answer, "breakdown"), "launch_s", 0.0);
        double err = (predicted - measured) / measured;
        errors[counted++] = fabs(err);
        printf("%-34s %-14s %12.2f %12.2f %+7.1f%%  %s\n", name, group ? group : "", measured * 1e6,
               predicted * 1e6, 100.0 * err, json_string_value(json_object_get(answer, "bound")));
        json_decref(answer);

        /* banks: ways exact. The card's ways: kernels.json's ways_measured
         * (cycles per access over the same element size's stride-1 figure),
         * or else the event-timed ratio with the launch overhead taken off
         * both; its wavefronts: cycles per warp access (the SM serves one
         * wavefront a cycle), checked too when present. */
        if (group != NULL && strcmp(group, "banks") == 0 && json_is_number(json_object_get(k, "stride"))) {
            int element = (int)number(k, "element_bytes", 4);
            double ratio = number(k, "ways_measured", -1.0);
            if (ratio < 0.0) {
                double base = 0.0;
                for (size_t j = 0; j < n; j++) {
                    json_t *b = json_array_get(kernels, j);
                    const char *g = json_string_value(json_object_get(b, "group"));
                    if (g != NULL && strcmp(g, "banks") == 0 &&
                        (int)number(b, "element_bytes", 4) == element && (int)number(b, "stride", -1) == 1)
                        base = number(b, "measured_s", 0.0);
                }
                ratio = base > launch ? (measured - launch) / (base - launch) : 0.0;
            }
            long expected = lround(fmax(1.0, ratio));
            double cycles = number(k, "cycles_per_access", -1.0);
            json_t *body = json_pack("{s:s, s:i, s:I}", "gpu", "h200-sxm", "element_bytes", element,
                                     "lane_stride_elements", (json_int_t)number(k, "stride", 1));
            json_t *banks = accuracy_post(db, "/v1/memory/banks", body, &status);
            json_decref(body);
            long ways = banks != NULL ? (long)number(banks, "ways", -1) : -1;
            long wavefronts = banks != NULL ? (long)number(banks, "wavefronts", -1) : -1;
            ways_checked++;
            if (ways != expected || (cycles > 0.0 && wavefronts != lround(cycles))) {
                printf("    banks: model ways %ld wavefronts %ld; measured ways %.3f (%ld), cycles per "
                       "access %.3f\n",
                       ways, wavefronts, ratio, expected, cycles);
                bad_ways++;
            }
            json_decref(banks);
        }
    }
    double median = accuracy_median(errors, counted);
    double worst = counted > 0 ? errors[counted - 1] : 0.0;
    printf("\n%zu kernels predicted, %zu refused; median |error| %.1f%% (limit %.0f%%), worst %.1f%% (limit "
           "%.0f%%); "
           "bank ways wrong for %d of %d strides\n",
           counted, failures, 100.0 * median, 100.0 * MEDIAN_LIMIT, 100.0 * worst, 100.0 * WORST_LIMIT,
           bad_ways, ways_checked);
    int ok = counted > 0 && failures == 0 && median <= MEDIAN_LIMIT && worst <= WORST_LIMIT && bad_ways == 0;
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(errors);
    json_decref(doc);
    simt_hwdb_unref(db);
    return ok ? 0 : 1;
}
