/* gemm.c - POST /v1/gemm: read the GEMM's shape and data type strictly,
 * run the GEMM model, answer in the contract's shape with the tile, the
 * quantization, the figures it used and what else it assumed. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"
#include "rows.h"

#define MAX_DIMENSION ((int64_t)1 << 40)

/* The dtypes a GEMM takes, in enum simt_dtype's order; the model refuses
 * (422 naming dtype) those the GPU's tensor cores lack. */
static const char *const gemm_dtypes[] = {"fp64", "fp32", "tf32",  "fp16",  "bf16",  "fp8",   "int8", "int4",
                                          "fp6",  "fp4",  "mxfp8", "mxfp6", "mxfp4", "nvfp4", NULL};
/* enum simt_gemm_launches' order */
static const char *const gemm_launches[] = {"single", "back_to_back", NULL};

#define R struct simt_gemm_request
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_INT("m", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, R, m, "Rows of A and C."),
    SIMT_ROW_INT("n", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, R, n, "Columns of B and C."),
    SIMT_ROW_INT("k", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, R, k, "The reduction dimension."),
    SIMT_ROW_CHOICE("dtype", SIMT_API_REQUIRED, gemm_dtypes, 0, R, dtype,
                    "Input type (fp32: no tensor cores; int4, fp6, fp4 and the block-scaled mxfp8, mxfp6, "
                    "mxfp4, nvfp4 where the GPU's tensor cores have them, else 422)."),
    SIMT_ROW_INT("batch", 0, 1, MAX_DIMENSION, 1, R, batch, "Independent GEMMs."),
    SIMT_ROW_BOOL("sparse", 0, 0, R, sparse,
                  "A is 2:4 structured sparse: the GPU's sparse tensor rate (422 where it has none)."),
    SIMT_ROW_CHOICE("launches", 0, gemm_launches, 0, R, launches,
                    "single: one call on an idle GPU (launch overhead paid; where the GPU has the figures, "
                    "its tensor work runs tensor_single_call_ratio times the sustained rate for its first "
                    "tensor_boost_window_s, before the power limit pulls the clock down); back_to_back: one "
                    "of a stream of calls (launch hidden behind the previous kernel; the sustained rate)."),
};
#undef R

static json_t *answer_gemm(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_gemm_request req;
    memset(&req, 0, sizeof req);
    if (simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, &req) != 0)
        return NULL;
    req.policy = call->policy;

    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_gemm_predict(&gpu->spec, &req, &r, &diag);
    if (rc == SIMT_EUNSAT && (strcmp(diag.field, "dtype") == 0 || strcmp(diag.field, "sparse") == 0)) {
        /* say which GPU lacks the type */
        char message[sizeof diag.message];
        snprintf(message, sizeof message, "%.60s: %.440s", gpu->record->id, diag.message);
        snprintf(diag.message, sizeof diag.message, "%s", message);
    }
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_real(answer, "time_s", r.time_s);
    simt_call_set_real(answer, "flops", r.flops);
    simt_call_set_real(answer, "achieved_flops_per_s", r.achieved_flops_per_s);
    json_object_set_new(answer, "bound", json_string(simt_gemm_bound_name(r.bound)));
    json_t *tile = json_object();
    simt_call_set_int(tile, "m", r.tile_m);
    simt_call_set_int(tile, "n", r.tile_n);
    simt_call_set_int(tile, "k", r.tile_k);
    json_object_set_new(answer, "tile", tile);
    simt_call_set_int(answer, "tiles", r.tiles);
    simt_call_set_real(answer, "waves", r.waves);
    simt_call_set_real(answer, "tile_efficiency", r.tile_efficiency);
    simt_call_set_real(answer, "wave_efficiency", r.wave_efficiency);
    json_object_set_new(answer, "alignment_ok", json_boolean(r.alignment_ok));
    /* beyond the contract: how the time was reached */
    simt_call_set_int(answer, "split_k", r.split_k);
    json_object_set_new(answer, "stream_k", json_boolean(r.stream_k));
    json_object_set_new(answer, "tensor_cores", json_boolean(r.tensor_cores));
    simt_call_set_real(answer, "peak_flops_per_s", r.peak_flops_per_s);
    simt_call_set_real(answer, "dram_bytes", r.dram_bytes);
    json_t *breakdown = json_object();
    simt_call_set_real(breakdown, "compute_s", r.compute_s);
    simt_call_set_real(breakdown, "l2_s", r.l2_s);
    simt_call_set_real(breakdown, "dram_s", r.dram_s);
    simt_call_set_real(breakdown, "overhead_s", r.overhead_s);
    simt_call_set_real(breakdown, "launch_s", r.launch_s);
    simt_call_set_real(breakdown, "reduce_s", r.reduce_s);
    json_object_set_new(answer, "breakdown", breakdown);

    for (int i = 0; i < r.assumption_count; i++)
        simt_call_assume(call, "%s", r.assumptions[i]);
    simt_call_assume_figures(call, &r.figures, r.figures_used);
    return answer;
}

const struct simt_api_endpoint simt_api_gemm_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/gemm", answer_gemm, fields, "A (batched) GEMM C = A x B: time, bound, tile and efficiencies.");
