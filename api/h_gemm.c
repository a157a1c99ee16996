/* h_gemm.c - POST /v1/gemm: read the GEMM's shape and data type strictly,
 * run the GEMM model, answer in the contract's shape with the tile, the
 * quantization, the figures it used and what else it assumed. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "gemm.h"

#define MAX_DIMENSION ((int64_t)1 << 40)

static const char *const gemm_keys[] = {"gpu", "m", "n", "k", "dtype", "batch", NULL};

/* The dtypes a GEMM takes, in the contract's order. */
static const char *const gemm_dtypes[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", NULL};

/* One assumption line per figure the model read. */
static void assume_figures(struct simt_call *call, const struct simt_figure_set *figures,
                           simt_figure_mask used)
{
    for (int id = 0; id < SIMT_FIG_COUNT; id++) {
        if (!(used & SIMT_FIG_BIT(id)))
            continue;
        char line[256];
        if (simt_figure_describe(figures, (enum simt_figure_id)id, line, sizeof line) >= 0)
            simt_call_assume(call, "%s", line);
    }
}

json_t *h_gemm(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", gemm_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_gemm_request req;
    memset(&req, 0, sizeof req);
    int dtype_index = 0;
    if (simt_get_int64(call, call->body, "", "m", 1, 1, MAX_DIMENSION, 0, &req.m) != 0 ||
        simt_get_int64(call, call->body, "", "n", 1, 1, MAX_DIMENSION, 0, &req.n) != 0 ||
        simt_get_int64(call, call->body, "", "k", 1, 1, MAX_DIMENSION, 0, &req.k) != 0 ||
        simt_get_enum(call, call->body, "", "dtype", 1, gemm_dtypes, 0, &dtype_index) != 0 ||
        simt_get_int64(call, call->body, "", "batch", 0, 1, MAX_DIMENSION, 1, &req.batch) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    if (simt_dtype_parse(gemm_dtypes[dtype_index], &req.dtype) != SIMT_OK) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "dtype", "dtype %s is not known",
                       gemm_dtypes[dtype_index]);
        return NULL;
    }
    req.policy =
        call->figures == SIMT_FIGURES_DATASHEET ? SIMT_POLICY_DATASHEET : SIMT_POLICY_PREFER_MEASURED;

    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_gemm_predict(&gpu.spec, &req, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_real(answer, "time_s", r.time_s);
    simt_set_real(answer, "flops", r.flops);
    simt_set_real(answer, "achieved_flops_per_s", r.achieved_flops_per_s);
    json_object_set_new(answer, "bound", json_string(simt_gemm_bound_name(r.bound)));
    json_t *tile = json_object();
    simt_set_int(tile, "m", r.tile_m);
    simt_set_int(tile, "n", r.tile_n);
    simt_set_int(tile, "k", r.tile_k);
    json_object_set_new(answer, "tile", tile);
    simt_set_int(answer, "tiles", r.tiles);
    simt_set_real(answer, "waves", r.waves);
    simt_set_real(answer, "tile_efficiency", r.tile_efficiency);
    simt_set_real(answer, "wave_efficiency", r.wave_efficiency);
    json_object_set_new(answer, "alignment_ok", json_boolean(r.alignment_ok));
    /* beyond the contract: how the time was reached */
    simt_set_int(answer, "split_k", r.split_k);
    json_object_set_new(answer, "stream_k", json_boolean(r.stream_k));
    json_object_set_new(answer, "tensor_cores", json_boolean(r.tensor_cores));
    simt_set_real(answer, "peak_flops_per_s", r.peak_flops_per_s);
    simt_set_real(answer, "dram_bytes", r.dram_bytes);
    json_t *breakdown = json_object();
    simt_set_real(breakdown, "compute_s", r.compute_s);
    simt_set_real(breakdown, "l2_s", r.l2_s);
    simt_set_real(breakdown, "dram_s", r.dram_s);
    simt_set_real(breakdown, "overhead_s", r.overhead_s);
    simt_set_real(breakdown, "reduce_s", r.reduce_s);
    json_object_set_new(answer, "breakdown", breakdown);

    for (int i = 0; i < r.assumption_count; i++)
        simt_call_assume(call, "%s", r.assumptions[i]);
    assume_figures(call, &r.figures, r.figures_used);
    return answer;
}
