/* gemm_fixture.h - what the GEMM unit tests share (test_gemm_small.c,
 * test_gemm_tiny.c, test_gemm_fp64.c, test_gemm_stream.c, test_gemm_int8.c):
 * a round-number NVIDIA GPU to work answers by hand on, a prediction that
 * must succeed, a search of the answer's assumptions, the bundled
 * database's records, and a fit probe's file and runs as requests. Static inline: each test uses what it
 * needs. */
#ifndef SIMT_TEST_GEMM_FIXTURE_H
#define SIMT_TEST_GEMM_FIXTURE_H

#include <check.h>
#include <jansson.h>
#include <string.h>

#include "gemm.h"
#include "hwdb.h"

/* 128 SMs at 1 GHz; FP32 256 and FP64 128 flops per clock per SM at
 * 0.76 / 0.82 achievable (the FMA kernels then reach 0.76 of the rate);
 * DRAM 4e12 B/s for reads and (no write figure) writes; every tensor figure
 * the caller sets at 0.66 achievable; no L2 figure and no latency unless
 * the caller sets them. */
static inline void gemm_round_gpu(struct simt_gpu_spec *g, int compute_major)
{
    memset(g, 0, sizeof *g);
    g->vendor = SIMT_VENDOR_NVIDIA;
    g->compute_major = compute_major;
    g->sm_count = 128;
    g->boost_clock_hz = 1.0e9;
    g->fp32_flops_per_clock_per_sm = 256.0;
    g->fp64_flops_per_clock_per_sm = 128.0;
    g->dram_bandwidth_bytes_per_s = 4.0e12;
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++)
        g->achievable_tensor[d] = 0.66;
    g->achievable_fp32 = 0.76 / 0.82;
    g->achievable_fp64 = 0.76 / 0.82;
}

/* One of a stream of back-to-back calls, which must be answered. */
static inline struct simt_gemm_result gemm_predict_ok(const struct simt_gpu_spec *g, int64_t m, int64_t n,
                                                      int64_t k, enum simt_dtype dtype)
{
    struct simt_gemm_request req = {
        m, n, k, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_BACK_TO_BACK, 0};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_gemm_predict(g, &req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict failed: %s (%s)", diag.message, diag.field);
    return r;
}

/* 1 when one of the answer's assumptions contains text. */
static inline int gemm_says(const struct simt_gemm_result *r, const char *text)
{
    for (int i = 0; i < r->assumption_count; i++)
        if (strstr(r->assumptions[i], text) != NULL)
            return 1;
    return 0;
}

/* The bundled database, loaded once per test case. */
static struct simt_hwdb *gemm_db;

static inline void gemm_db_load(void)
{
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &gemm_db, &diag) == 0, "hwdb: %s:%d: %s",
                  diag.file, diag.line, diag.message);
}

static inline void gemm_db_unload(void)
{
    simt_hwdb_unref(gemm_db);
    gemm_db = NULL;
}

static inline const struct simt_gpu_spec *gemm_db_spec(const char *id)
{
    const struct simt_hwdb_gpu *rec = simt_hwdb_find(gemm_db, id);
    ck_assert_msg(rec != NULL, "%s not in the database", id);
    return &rec->spec;
}

/* A fit probe's result file (tests/gpu/results/...), which must load. */
static inline json_t *gemm_probe_load(const char *path)
{
    json_error_t error;
    json_t *doc = json_load_file(path, 0, &error);
    ck_assert_msg(doc != NULL, "%s: %s", path, error.text);
    return doc;
}

/* The runs of dtype ("bf16", "fp64", ...) in the H100 SXM's probe files
 * windows2, windows3 and classes_h100t (fit data), in one new array. */
static inline json_t *gemm_probe_h100_runs(const char *dtype)
{
    static const char *const files[] = {SIMT_TEST_DIR "/gpu/results/h100/gemm_probe_windows2.json",
                                        SIMT_TEST_DIR "/gpu/results/h100/gemm_probe_windows3.json",
                                        SIMT_TEST_DIR "/gpu/results/h100/gemm_probe_classes_h100t.json"};
    json_t *runs = json_array();
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        json_t *doc = gemm_probe_load(files[f]);
        size_t i;
        json_t *run;
        json_array_foreach(json_object_get(doc, "runs"), i, run)
        {
            const char *d = json_string_value(json_object_get(run, "dtype"));
            if (d != NULL && strcmp(d, dtype) == 0)
                json_array_append(runs, run);
        }
        json_decref(doc);
    }
    return runs;
}

/* One of its runs as a single call of dtype: its m, n and k, batch 1. */
/* A single call of m x n x k in dtype, batch 1, the measured figures
 * preferred. */
static inline struct simt_gemm_request gemm_single_request(int64_t m, int64_t n, int64_t k,
                                                           enum simt_dtype dtype)
{
    struct simt_gemm_request req = {m, n, k, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE,
                                    0};
    return req;
}

static inline struct simt_gemm_request gemm_probe_request(const json_t *run, enum simt_dtype dtype)
{
    return gemm_single_request(json_integer_value(json_object_get(run, "m")),
                               json_integer_value(json_object_get(run, "n")),
                               json_integer_value(json_object_get(run, "k")), dtype);
}

/* The model's answer for a probe run's request on gpu, in *r, and its
 * relative error against the run's measured_s. */
static inline double gemm_probe_error(const struct simt_gpu_spec *gpu, const json_t *run,
                                      const struct simt_gemm_request *req, struct simt_gemm_result *r)
{
    ck_assert_int_eq(simt_gemm_predict(gpu, req, r, NULL), SIMT_OK);
    return r->time_s / json_real_value(json_object_get(run, "measured_s")) - 1.0;
}

#endif
