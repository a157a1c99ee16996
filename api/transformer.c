/* transformer.c - POST /v1/transformer and GET /v1/models: read a model
 * (a preset of the database, or the shape itself), the phase, the batch and
 * lengths, the three types and the tensor-parallel degree strictly; run the
 * transformer model; answer with the layer's operations, the whole model's
 * time and tokens per second, and the memory per GPU. */
#include <string.h>

#include "read.h"
#include "resolve.h"
#include "routes.h"
#include "rows.h"
#include "transformer.h"

#define MAX_DIMENSION ((int64_t)1 << 40)

/* In the order of enum simt_tfm_dtype, simt_tfm_phase, simt_tfm_mlp. */
static const char *const dtype_choices[] = {"bf16", "fp16", "fp8", "int8", "fp4", "nvfp4", "mxfp4", NULL};
static const char *const phase_choices[] = {"prefill", "decode", NULL};
static const char *const mlp_choices[] = {"swiglu", "gelu", NULL};

#define S struct simt_tfm_shape
static const struct simt_api_field shape_fields[] = {
    SIMT_ROW_INT("hidden", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, hidden, "Hidden size (hidden_size)."),
    SIMT_ROW_INT("heads", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, heads,
                 "Query heads (num_attention_heads)."),
    SIMT_ROW_INT("kv_heads", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, kv_heads,
                 "Key/value heads (num_key_value_heads)."),
    SIMT_ROW_INT("head_dim", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, head_dim, "Head dimension."),
    SIMT_ROW_INT("ffn", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, ffn, "MLP width (intermediate_size)."),
    SIMT_ROW_INT("layers", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, layers,
                 "Decoder layers (num_hidden_layers)."),
    SIMT_ROW_INT("vocab", SIMT_API_REQUIRED, 1, MAX_DIMENSION, 0, S, vocab, "Vocabulary (vocab_size)."),
    SIMT_ROW_CHOICE("mlp", 0, mlp_choices, 0, S, mlp, "Gated SiLU MLP (three matrices) or GELU (two)."),
    SIMT_ROW_BOOL("tied_embeddings", 0, 0, S, tied_embeddings, "The LM head shares the embedding's weights."),
};
#undef S

/* What the body says besides the model and the GPU. */
struct tfm_body {
    int phase;
    int64_t batch, seq_len, kv_len;
    int weights, activations, kv_cache;
    int tp;
};

#define B struct tfm_body
static const struct simt_api_field dtype_fields[] = {
    SIMT_ROW_CHOICE("weights", 0, dtype_choices, 0, B, weights, "Weight type."),
    SIMT_ROW_CHOICE("activations", 0, dtype_choices, 0, B, activations, "Activation type."),
    SIMT_ROW_CHOICE("kv_cache", 0, dtype_choices, 0, B, kv_cache, "KV-cache type."),
};
static const struct simt_api_field parallel_fields[] = {
    SIMT_ROW_INT("tp", 0, 1, 1024, 1, B, tp,
                 "Tensor-parallel degree (heads and FFN split as Megatron does)."),
};
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_OBJECT("model", SIMT_API_SHAPE, SIMT_API_REQUIRED, shape_fields,
                    "A preset id (GET /v1/models) or the shape itself."),
    SIMT_ROW_CHOICE("phase", SIMT_API_REQUIRED, phase_choices, 0, B, phase,
                    "prefill: seq_len new tokens per sequence; decode: one, attending to kv_len cached."),
    SIMT_ROW_INT("batch", 0, 1, 1 << 24, 1, B, batch, "Sequences."),
    SIMT_ROW_INT("seq_len", SIMT_API_KEEP, 1, MAX_DIMENSION, 1, B, seq_len,
                 "New tokens per sequence (decode: 1; prefill: required)."),
    SIMT_ROW_INT("kv_len", SIMT_API_KEEP, 0, MAX_DIMENSION, 0, B, kv_len,
                 "Tokens attended to (prefill: default seq_len; decode: required, >= 1)."),
    SIMT_ROW_OBJECT("dtype", SIMT_API_OBJECT, 0, dtype_fields, "Storage types; default bf16 each."),
    SIMT_ROW_OBJECT("parallel", SIMT_API_OBJECT, 0, parallel_fields, "Parallelism."),
};
#undef B

static int read_model(struct simt_call *call, struct simt_tfm_shape *shape, const char **preset)
{
    json_t *model = json_object_get(call->body, "model");
    *preset = NULL;
    if (model == NULL)
        return simt_call_fail(call, 400, "missing_field", "model",
                              "model is required: a preset id or a shape");
    if (json_is_string(model)) {
        const struct simt_hwdb_model *m = simt_hwdb_model_find(call->db, json_string_value(model));
        if (m == NULL)
            return simt_call_fail(call, 404, "unknown_model", "model",
                                  "unknown model '%.80s'; GET /v1/models lists the presets",
                                  json_string_value(model));
        *shape = m->shape;
        *preset = m->id;
        return 0;
    }
    if (!json_is_object(model))
        return simt_call_fail(call, 400, "invalid_argument", "model",
                              "model must be a preset id or an object");
    memset(shape, 0, sizeof *shape);
    if (simt_read_check_keys(call, model, "model", shape_fields, SIMT_COUNT_OF(shape_fields)) != 0)
        return -1;
    return simt_read_fields(call, model, "model", shape_fields, SIMT_COUNT_OF(shape_fields), 0, NULL, shape);
}

static int read_part(struct simt_call *call, const char *key, const struct simt_api_field *rows, size_t n,
                     struct tfm_body *body)
{
    json_t *obj = NULL;
    if (simt_read_object(call, call->body, "", key, 0, &obj) != 0)
        return -1;
    if (obj == NULL) {
        json_t *empty = json_object();
        int rc = simt_read_fields(call, empty, key, rows, n, 0, NULL, body);
        json_decref(empty);
        return rc;
    }
    if (simt_read_check_keys(call, obj, key, rows, n) != 0)
        return -1;
    return simt_read_fields(call, obj, key, rows, n, 0, NULL, body);
}

static int read_request(struct simt_call *call, struct simt_tfm_request *req, const char **preset)
{
    struct tfm_body b;
    memset(&b, 0, sizeof b);
    b.seq_len = 0;
    b.kv_len = -1;
    if (read_model(call, &req->shape, preset) != 0 ||
        simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, &b) != 0 ||
        read_part(call, "dtype", dtype_fields, SIMT_COUNT_OF(dtype_fields), &b) != 0 ||
        read_part(call, "parallel", parallel_fields, SIMT_COUNT_OF(parallel_fields), &b) != 0)
        return -1;
    if (b.phase == SIMT_TFM_DECODE) {
        if (b.seq_len > 1)
            return simt_call_fail(call, 400, "invalid_argument", "seq_len",
                                  "decode adds one token: seq_len is 1");
        b.seq_len = 1;
        if (b.kv_len < 0)
            return simt_call_fail(call, 400, "missing_field", "kv_len",
                                  "decode needs kv_len (cached tokens)");
    } else {
        if (b.seq_len == 0)
            return simt_call_fail(call, 400, "missing_field", "seq_len", "prefill needs seq_len");
        if (b.kv_len < 0)
            b.kv_len = b.seq_len;
    }
    if (b.kv_len < 1 || (b.phase == SIMT_TFM_PREFILL && b.kv_len < b.seq_len))
        return simt_call_fail(call, 400, "invalid_argument", "kv_len",
                              "kv_len must be >= 1 (prefill: >= seq_len, the new tokens included)");
    req->phase = b.phase;
    req->batch = b.batch;
    req->seq_len = b.seq_len;
    req->kv_len = b.kv_len;
    req->weights = b.weights;
    req->activations = b.activations;
    req->kv_cache = b.kv_cache;
    req->tp = b.tp;
    req->policy = call->policy;
    return 0;
}

static json_t *op_json(const struct simt_tfm_op *op)
{
    json_t *o = json_pack("{s:s, s:s}", "name", op->name, "kind", simt_tfm_kind_name(op->kind));
    if (o == NULL)
        return NULL;
    if (op->kind == SIMT_TFM_OP_GEMM) {
        simt_call_set_int(o, "m", op->m);
        simt_call_set_int(o, "n", op->n);
        simt_call_set_int(o, "k", op->k);
    }
    simt_call_set_real(o, "time_s", op->time_s);
    json_object_set_new(o, "bound", json_string(op->bound));
    simt_call_set_real(o, "bytes", op->bytes);
    simt_call_set_real(o, "flops", op->flops);
    simt_call_set_int(o, "launches", op->launches);
    return o;
}

static json_t *answer_transformer(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_tfm_request req;
    memset(&req, 0, sizeof req);
    const char *preset = NULL;
    if (read_request(call, &req, &preset) != 0)
        return NULL;
    struct simt_tfm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_tfm_predict(&gpu->spec, &req, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    if (preset != NULL)
        json_object_set_new(answer, "model", json_string(preset));
    json_t *layer = json_object(), *ops = json_array();
    simt_call_set_real(layer, "time_s", r.layer_time_s);
    for (int i = 0; i < r.op_count; i++)
        json_array_append_new(ops, op_json(&r.ops[i]));
    json_object_set_new(layer, "ops", ops);
    json_object_set_new(answer, "layer", layer);
    simt_call_set_real(answer, "model_time_s", r.model_time_s);
    simt_call_set_real(answer, "tokens_per_s", r.tokens_per_s);
    json_t *rest = json_object();
    simt_call_set_real(rest, "embedding_s", r.embedding_s);
    simt_call_set_real(rest, "final_norm_s", r.final_norm_s);
    simt_call_set_real(rest, "lm_head_s", r.lm_head_s);
    simt_call_set_int(rest, "layers", req.shape.layers);
    json_object_set_new(answer, "model_breakdown", rest);
    json_t *mem = json_object();
    simt_call_set_real(mem, "parameters", r.memory.parameters);
    simt_call_set_real(mem, "weights_bytes", r.memory.weights_bytes);
    simt_call_set_real(mem, "kv_cache_bytes", r.memory.kv_cache_bytes);
    simt_call_set_real(mem, "activations_bytes", r.memory.activations_bytes);
    simt_call_set_real(mem, "total_bytes_per_gpu", r.memory.total_bytes_per_gpu);
    simt_call_set_real(mem, "gpu_memory_bytes", gpu->spec.dram_bytes);
    json_object_set_new(mem, "fits", json_boolean(r.memory.fits));
    simt_call_set_int(mem, "max_batch", r.memory.max_batch);
    json_object_set_new(answer, "memory", mem);
    for (int i = 0; i < r.assumption_count; i++)
        simt_call_assume(call, "%s", r.assumptions[i]);
    simt_call_assume_figures(call, &r.figures, r.figures_used);
    return answer;
}

static json_t *answer_models(struct simt_call *call)
{
    json_t *list = json_array();
    for (size_t i = 0; i < simt_hwdb_model_count(call->db); i++) {
        const struct simt_hwdb_model *m = simt_hwdb_model_at(call->db, i);
        const struct simt_tfm_shape *s = &m->shape;
        json_t *shape = json_object();
        simt_call_set_int(shape, "hidden", s->hidden);
        simt_call_set_int(shape, "heads", s->heads);
        simt_call_set_int(shape, "kv_heads", s->kv_heads);
        simt_call_set_int(shape, "head_dim", s->head_dim);
        simt_call_set_int(shape, "ffn", s->ffn);
        simt_call_set_int(shape, "layers", s->layers);
        simt_call_set_int(shape, "vocab", s->vocab);
        json_object_set_new(shape, "mlp", json_string(mlp_choices[s->mlp]));
        json_object_set_new(shape, "tied_embeddings", json_boolean(s->tied_embeddings));
        json_t *item = json_pack("{s:s, s:s, s:s, s:o}", "id", m->id, "name", m->name, "source", m->source,
                                 "shape", shape);
        if (item == NULL)
            continue;
        simt_call_set_real(item, "parameters", simt_tfm_parameters(s));
        json_array_append_new(list, item);
    }
    return json_pack("{s:o}", "models", list);
}

const struct simt_api_endpoint simt_api_transformer_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/transformer", answer_transformer, fields,
    "A decoder layer and the whole model: per-operation times, tokens per second, memory per GPU.");

const struct simt_api_endpoint simt_api_models_list = {
    .method = "GET",
    .route = "/v1/models",
    .handler = answer_models,
    .doc = "The transformer presets, with their shapes and sources.",
};
