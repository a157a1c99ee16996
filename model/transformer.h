/* transformer.h - one decoder layer of a Llama-style transformer and the
 * whole model on one GPU or a tensor-parallel group: each operation's time
 * (projections through the GEMM model, FlashAttention-style attention,
 * elementwise operations at the DRAM copy figure, a per-kernel cost, the
 * all-reduces through the collective model), the model's time and tokens
 * per second, and the memory it needs (exact arithmetic).
 *
 * Pure: libm and the other model/ files only. */
#ifndef SIMT_TRANSFORMER_H
#define SIMT_TRANSFORMER_H

#include <stdint.h>

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

/* Storage types of weights, activations and the KV cache, in the
 * contract's order. */
enum simt_tfm_dtype {
    SIMT_TFM_BF16 = 0,
    SIMT_TFM_FP16,
    SIMT_TFM_FP8,
    SIMT_TFM_INT8,
    SIMT_TFM_FP4,
    SIMT_TFM_NVFP4,
    SIMT_TFM_MXFP4,
    SIMT_TFM_DTYPE_COUNT
};

/* "bf16", ...; NULL out of range. */
const char *simt_tfm_dtype_name(enum simt_tfm_dtype dtype);
/* Bytes per element, block scales included (nvfp4: a 1-byte scale per 16,
 * mxfp4: per 32); 0 out of range. */
double simt_tfm_dtype_bytes(enum simt_tfm_dtype dtype);

enum simt_tfm_mlp { SIMT_TFM_SWIGLU = 0, SIMT_TFM_GELU };
enum simt_tfm_phase { SIMT_TFM_PREFILL = 0, SIMT_TFM_DECODE };

struct simt_tfm_shape {
    int64_t hidden;
    int64_t heads;
    int64_t kv_heads;
    int64_t head_dim;
    int64_t ffn;
    int64_t layers;
    int64_t vocab;
    int mlp; /* enum simt_tfm_mlp */
    int tied_embeddings;
};

struct simt_tfm_request {
    struct simt_tfm_shape shape;
    int phase; /* enum simt_tfm_phase */
    int64_t batch;
    int64_t seq_len; /* new tokens per sequence (decode: 1) */
    int64_t kv_len;  /* tokens attended to (prefill: >= seq_len, the new ones included) */
    int weights;     /* enum simt_tfm_dtype */
    int activations;
    int kv_cache;
    int tp;
    enum simt_figure_policy policy;
};

enum simt_tfm_kind {
    SIMT_TFM_OP_NORM = 0,
    SIMT_TFM_OP_GEMM,
    SIMT_TFM_OP_ELEMENTWISE,
    SIMT_TFM_OP_ATTENTION,
    SIMT_TFM_OP_COLLECTIVE
};
/* "norm", "gemm", "elementwise", "attention", "collective". */
const char *simt_tfm_kind_name(enum simt_tfm_kind kind);

#define SIMT_TFM_MAX_OPS 16
struct simt_tfm_op {
    const char *name; /* static: "attn_norm", "qkv_proj", ... */
    enum simt_tfm_kind kind;
    int64_t m, n, k; /* GEMM only */
    double time_s;
    double bytes; /* DRAM bytes (GEMM, attention, elementwise), bytes per rank (collective) */
    double flops;
    int launches;      /* kernels the op is counted as */
    const char *bound; /* "compute", "dram", "l2", "launch", "link" */
};

struct simt_tfm_memory {
    double parameters; /* the whole model */
    double weights_bytes;
    double kv_cache_bytes;
    double activations_bytes;
    double total_bytes_per_gpu;
    int fits;
    int64_t max_batch;
};

#define SIMT_TFM_MAX_ASSUMPTIONS 12
#define SIMT_TFM_ASSUMPTION_BYTES 320

struct simt_tfm_result {
    int op_count;
    struct simt_tfm_op ops[SIMT_TFM_MAX_OPS];
    double layer_time_s;
    double embedding_s, final_norm_s, lm_head_s;
    double model_time_s;
    double tokens_per_s;
    struct simt_tfm_memory memory;
    struct simt_figure_set figures;
    simt_figure_mask figures_used;
    int assumption_count;
    char assumptions[SIMT_TFM_MAX_ASSUMPTIONS][SIMT_TFM_ASSUMPTION_BYTES];
};

/* Parameters of the whole model: layers x (attention + MLP + two norm
 * vectors) + embedding + (untied) LM head + final norm. */
double simt_tfm_parameters(const struct simt_tfm_shape *shape);

/* Memory per GPU (exact arithmetic; see the contract): weights =
 * parameters x type size / tp; KV cache = 2 x layers x kv_heads x head_dim x
 * kv_len x batch x type size / tp; activations = one layer's working set
 * for the new tokens plus the logits; fits against dram_bytes; max_batch =
 * the largest batch that fits (0 when the weights alone do not). */
void simt_tfm_memory_need(const struct simt_tfm_request *req, double dram_bytes, struct simt_tfm_memory *out);

/* Predicts one request. SIMT_EINVAL for a malformed request (diag->field:
 * "batch", "kv_len", "model.heads", ...); SIMT_EUNSAT when the GPU lacks a
 * type's path ("dtype.weights") or the heads do not divide by tp
 * ("parallel.tp"). */
int simt_tfm_predict(const struct simt_gpu_spec *gpu, const struct simt_tfm_request *req,
                     struct simt_tfm_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
