/* test_accuracy_transformer.c - the transformer model held to a PyTorch
 * Llama-style decoder layer on a real H200
 * (tests/gpu/results/h200/transformer/layer.json, made by
 * tests/gpu/transformer/layer_bench.py: CUDA-graph replays after a sleep
 * kernel, GPU time without CPU gaps, medians). Every row goes through
 * POST /v1/transformer in-process against the bundled database (the
 * layer's time, layer.time_s); the table of measured, predicted and error
 * is printed. The rows were split into "fit" and "heldout" by a hash of
 * their names before anything was fitted (the file's meta.split_rule); the
 * bars hold on the held-out half: median |error| <= 15%, worst <= 35%
 * (issue 12). "fp8" rows are fp8 weights and activations (the GEMMs run
 * in fp8) with a bf16 KV cache. No GPU needed. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accuracy.h"
#include "api.h"
#include "hwdb.h"

#define RESULTS SIMT_TEST_DIR "/gpu/results/h200/transformer/layer.json"
#define MEDIAN_BAR 0.15
#define WORST_BAR 0.35
#define MAX_ROWS 512

static json_t *request_of(json_t *row)
{
    const char *dtype = json_string_value(json_object_get(row, "dtype"));
    const char *phase = json_string_value(json_object_get(row, "phase"));
    json_t *body = json_pack("{s:s, s:O, s:s, s:O, s:O, s:{s:s, s:s, s:s}}", "gpu", "h200-sxm", "model",
                             json_object_get(row, "model"), "phase", phase, "batch",
                             json_object_get(row, "batch"), "kv_len", json_object_get(row, "kv_len"), "dtype",
                             "weights", dtype, "activations", dtype, "kv_cache", "bf16");
    ck_assert_ptr_nonnull(body);
    if (strcmp(phase, "prefill") == 0)
        json_object_set(body, "seq_len", json_object_get(row, "seq_len"));
    return body;
}

START_TEST(layers_match_pytorch_on_h200)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s:%d: %s", diag.file,
                  diag.line, diag.message);
    json_error_t jerr;
    json_t *results = json_load_file(RESULTS, 0, &jerr);
    ck_assert_msg(results != NULL, "%s: %s (line %d)", RESULTS, jerr.text, jerr.line);
    json_t *rows = json_object_get(results, "rows");
    ck_assert_msg(json_is_array(rows) && json_array_size(rows) > 0, "no rows");

    static double held[MAX_ROWS], fit[MAX_ROWS];
    size_t nh = 0, nf = 0;
    double worst = 0.0;
    const char *worst_name = "";
    printf("%-45s %-8s %12s %12s %8s\n", "layer", "split", "measured_s", "predicted_s", "error");
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        double measured = json_number_value(json_object_get(row, "layer_s"));
        const char *name = json_string_value(json_object_get(row, "name"));
        const char *split = json_string_value(json_object_get(row, "split"));
        ck_assert_msg(name != NULL && split != NULL && measured > 0.0, "row %zu incomplete", i);
        json_t *body = request_of(row);
        int status = 0;
        json_t *answer = accuracy_post(db, "/v1/transformer", body, &status);
        json_decref(body);
        ck_assert_msg(answer != NULL && status == 200, "%s: status %d", name, status);
        double predicted = json_number_value(json_object_get(json_object_get(answer, "layer"), "time_s"));
        json_decref(answer);
        double err = predicted / measured - 1.0;
        printf("%-45s %-8s %12.4g %12.4g %+7.1f%%\n", name, split, measured, predicted, 100.0 * err);
        ck_assert(nh < MAX_ROWS && nf < MAX_ROWS);
        if (strcmp(split, "heldout") == 0) {
            held[nh++] = fabs(err);
            if (fabs(err) > worst) {
                worst = fabs(err);
                worst_name = name;
            }
        } else {
            fit[nf++] = fabs(err);
        }
    }
    double fit_med = accuracy_median(fit, nf), med = accuracy_median(held, nh);
    printf("fit: %zu rows, median |error| %.1f%%, worst %.1f%%\n", nf, 100.0 * fit_med,
           nf ? 100.0 * fit[nf - 1] : 0.0);
    printf("held-out: %zu rows, median |error| %.1f%% (bar %.0f%%), worst %.1f%% (%s; bar %.0f%%)\n", nh,
           100.0 * med, 100.0 * MEDIAN_BAR, 100.0 * worst, worst_name, 100.0 * WORST_BAR);
    ck_assert_msg(nh >= 20, "only %zu held-out rows", nh);
    ck_assert_msg(med <= MEDIAN_BAR, "held-out median |error| %.1f%% over %.0f%%", 100.0 * med,
                  100.0 * MEDIAN_BAR);
    ck_assert_msg(worst <= WORST_BAR, "held-out worst |error| %.1f%% (%s) over %.0f%%", 100.0 * worst,
                  worst_name, 100.0 * WORST_BAR);
    json_decref(results);
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    return accuracy_run("accuracy_transformer", layers_match_pytorch_on_h200);
}
