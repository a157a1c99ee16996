/* transformer.c - a Llama-style decoder layer and the whole model (see
 * transformer.h). Each operation is priced on the existing models:
 * projections through simt_gemm_predict (M = new tokens), all-reduces
 * through simt_collective_predict, attention FlashAttention-style (prefill: tiles
 * of 128 queries x 128 keys at a fraction of the tensor rate, causal tiles
 * above the diagonal skipped, the longest query block bounding the time;
 * decode: the KV cache read at a fraction of DRAM bandwidth), norms, rotary
 * embedding, SiLU-times-up and residual adds as bytes at the DRAM copy
 * figure. Every kernel adds a per-kernel cost.
 *
 * The three fitted numbers below were fitted on the "fit" half of
 * tests/gpu/results/h200/transformer/layer.json (a PyTorch layer on an
 * H200); the held-out half is tests/unit/test_accuracy_transformer.c's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "collective.h"
#include "gemm.h"
#include "transformer.h"

/* FlashAttention-2 (PyTorch SDPA's flash backend): the fraction of the
 * dense tensor rate one 128x128 tile's math reaches. */
#define ATTN_PREFILL_FRACTION 0.47
/* ... plus a fixed cost per query block (load Q, write O, pipeline fill),
 * spread over the SMs (fitted). */
#define ATTN_BLOCK_S 4.0e-6
/* Decode attention: the fraction of the DRAM (read) figure the KV cache
 * is read at: while the (sequence, KV head) pairs are no more than the SMs
 * (split-KV spreads each over several SMs, one pass), and beyond. */
#define ATTN_DECODE_FRACTION 0.85
#define ATTN_DECODE_FRACTION_MANY 0.55
/* An eager PyTorch elementwise kernel is one pass over its tensor: the
 * bytes of an elementwise op are its reads and writes times this many
 * passes on average (fitted). */
#define ELEMENTWISE_PASSES 2.0
/* Kernels each elementwise operation is counted as: an eager PyTorch layer
 * (RMSNorm as several kernels, rotary on q and k in five each); the cost
 * of one is the GPU's launch figure. */
#define NORM_LAUNCHES 5
#define ROPE_LAUNCHES 10
#define ACT_LAUNCHES 2
#define RESIDUAL_LAUNCHES 1
#define DECODE_CACHE_LAUNCHES 2
#define ATTN_TILE 128

static const char *const dtype_names[SIMT_TFM_DTYPE_COUNT] = {"bf16", "fp16",  "fp8",  "int8",
                                                              "fp4",  "nvfp4", "mxfp4"};
static const double dtype_bytes[SIMT_TFM_DTYPE_COUNT] = {2.0,           2.0, 1.0, 1.0, 0.5, 0.5 + 1.0 / 16,
                                                         0.5 + 1.0 / 32};
static const char *const kind_names[] = {"norm", "gemm", "elementwise", "attention", "collective"};

const char *simt_tfm_dtype_name(enum simt_tfm_dtype dtype)
{
    return (unsigned)dtype < SIMT_TFM_DTYPE_COUNT ? dtype_names[dtype] : NULL;
}

double simt_tfm_dtype_bytes(enum simt_tfm_dtype dtype)
{
    return (unsigned)dtype < SIMT_TFM_DTYPE_COUNT ? dtype_bytes[dtype] : 0.0;
}

const char *simt_tfm_kind_name(enum simt_tfm_kind kind)
{
    return (unsigned)kind <= SIMT_TFM_OP_COLLECTIVE ? kind_names[kind] : NULL;
}

static double layer_parameters(const struct simt_tfm_shape *s)
{
    double h = (double)s->hidden, hd = (double)s->head_dim;
    double attn = h * (double)(s->heads + 2 * s->kv_heads) * hd + (double)s->heads * hd * h;
    double mlp = (s->mlp == SIMT_TFM_SWIGLU ? 3.0 : 2.0) * h * (double)s->ffn;
    return attn + mlp + 2.0 * h;
}

double simt_tfm_parameters(const struct simt_tfm_shape *s)
{
    double h = (double)s->hidden, v = (double)s->vocab;
    return (double)s->layers * layer_parameters(s) + v * h * (s->tied_embeddings ? 1.0 : 2.0) + h;
}

/* Activation bytes of one sequence's new tokens per GPU: the residual
 * stream and its normed copy, q/k/v, the attention output, the MLP's
 * intermediate (gate and up, and their product), and the logits. */
static double activations_per_sequence(const struct simt_tfm_request *r)
{
    const struct simt_tfm_shape *s = &r->shape;
    double a = simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->activations), tp = (double)r->tp;
    double per_token = 2.0 * (double)s->hidden + (double)((s->heads + 2 * s->kv_heads) * s->head_dim) / tp +
                       (double)(s->heads * s->head_dim) / tp +
                       (s->mlp == SIMT_TFM_SWIGLU ? 3.0 : 2.0) * (double)s->ffn / tp + (double)s->vocab / tp;
    return (double)r->seq_len * per_token * a;
}

static double kv_per_sequence(const struct simt_tfm_request *r)
{
    const struct simt_tfm_shape *s = &r->shape;
    return 2.0 * (double)s->layers * (double)s->kv_heads * (double)s->head_dim * (double)r->kv_len *
           simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->kv_cache) / (double)r->tp;
}

void simt_tfm_memory_need(const struct simt_tfm_request *r, double dram_bytes, struct simt_tfm_memory *out)
{
    memset(out, 0, sizeof *out);
    out->parameters = simt_tfm_parameters(&r->shape);
    out->weights_bytes =
        out->parameters * simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->weights) / (double)r->tp;
    double kv = kv_per_sequence(r), act = activations_per_sequence(r);
    out->kv_cache_bytes = kv * (double)r->batch;
    out->activations_bytes = act * (double)r->batch;
    out->total_bytes_per_gpu = out->weights_bytes + out->kv_cache_bytes + out->activations_bytes;
    out->fits = out->total_bytes_per_gpu <= dram_bytes;
    double left = dram_bytes - out->weights_bytes;
    out->max_batch = left > 0.0 && kv + act > 0.0 ? (int64_t)floor(left / (kv + act)) : 0;
}

/* The GEMM model's type for a storage type; -1 where it has none. */
static int gemm_dtype(int t)
{
    switch (t) {
    case SIMT_TFM_BF16:
        return SIMT_DTYPE_BF16;
    case SIMT_TFM_FP16:
        return SIMT_DTYPE_FP16;
    case SIMT_TFM_FP8:
        return SIMT_DTYPE_FP8;
    case SIMT_TFM_INT8:
        return SIMT_DTYPE_INT8;
    case SIMT_TFM_FP4:
        return SIMT_DTYPE_FP4;
    case SIMT_TFM_NVFP4:
        return SIMT_DTYPE_NVFP4;
    case SIMT_TFM_MXFP4:
        return SIMT_DTYPE_MXFP4;
    default:
        return -1;
    }
}

static int has_path(const struct simt_gpu_spec *gpu, int t)
{
    int g = gemm_dtype(t);
    return g >= 0 && gpu->tensor_dense_flops_per_s[g] > 0.0;
}

struct ctx {
    const struct simt_gpu_spec *gpu;
    const struct simt_tfm_request *req;
    struct simt_tfm_result *out;
    double copy_bw, read_bw, launch_s;
    enum simt_dtype math;      /* the projections' */
    enum simt_dtype attn_math; /* attention's: the activations' 16-bit type, else bf16 */
    double attn_flops_per_s;
    double act_bytes;
};

static void assume(struct simt_tfm_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void assume(struct simt_tfm_result *out, const char *fmt, ...)
{
    if (out->assumption_count >= SIMT_TFM_MAX_ASSUMPTIONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->assumptions[out->assumption_count++], SIMT_TFM_ASSUMPTION_BYTES, fmt, ap);
    va_end(ap);
}

static struct simt_tfm_op *add_op(struct simt_tfm_result *out, const char *name, enum simt_tfm_kind kind)
{
    struct simt_tfm_op *op = &out->ops[out->op_count++];
    memset(op, 0, sizeof *op);
    op->name = name;
    op->kind = kind;
    return op;
}

/* An elementwise op moving `bytes` through DRAM in `launches` kernels. */
static double elementwise(struct ctx *c, const char *name, enum simt_tfm_kind kind, double bytes,
                          int launches, double flops)
{
    struct simt_tfm_op *op = add_op(c->out, name, kind);
    double dram = ELEMENTWISE_PASSES * bytes / c->copy_bw, fixed = launches * c->launch_s;
    op->bytes = bytes;
    op->flops = flops;
    op->launches = launches;
    op->time_s = dram + fixed;
    op->bound = dram >= fixed ? "dram" : "launch";
    return op->time_s;
}

static int gemm(struct ctx *c, const char *name, int64_t m, int64_t n, int64_t k, double *time,
                struct simt_diag *diag)
{
    struct simt_gemm_request g = {.m = m,
                                  .n = n,
                                  .k = k,
                                  .batch = 1,
                                  .dtype = c->math,
                                  .policy = c->req->policy,
                                  .launches = SIMT_GEMM_LAUNCH_IN_CHAIN};
    struct simt_gemm_result r;
    int rc = simt_gemm_predict(c->gpu, &g, &r, diag);
    if (rc != SIMT_OK)
        return rc;
    c->out->figures_used |= r.figures_used;
    if (name == NULL) {
        *time = r.time_s;
        return SIMT_OK;
    }
    struct simt_tfm_op *op = add_op(c->out, name, SIMT_TFM_OP_GEMM);
    op->m = m;
    op->n = n;
    op->k = k;
    op->time_s = r.time_s;
    op->bytes = r.dram_bytes;
    op->flops = r.flops;
    op->launches = 1;
    op->bound = simt_gemm_bound_name(r.bound);
    *time = r.time_s;
    return SIMT_OK;
}

static double attention(struct ctx *c)
{
    const struct simt_tfm_request *r = c->req;
    const struct simt_tfm_shape *s = &r->shape;
    int64_t heads = s->heads / r->tp, kv_heads = s->kv_heads / r->tp;
    double hd = (double)s->head_dim, kvb = simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->kv_cache);
    struct simt_tfm_op *op = add_op(c->out, "attention", SIMT_TFM_OP_ATTENTION);
    double cache = 2.0 * (double)(r->batch * kv_heads) * hd * (double)r->kv_len * kvb;
    double qo = 2.0 * (double)(r->batch * r->seq_len * heads) * hd * c->act_bytes;
    op->bytes = cache + qo;
    if (r->phase == SIMT_TFM_DECODE) {
        op->flops = 4.0 * (double)(r->batch * heads) * hd * (double)r->kv_len;
        op->launches = 1 + DECODE_CACHE_LAUNCHES;
        double fraction = (double)(r->batch * kv_heads) <= (double)c->gpu->sm_count
                              ? ATTN_DECODE_FRACTION
                              : ATTN_DECODE_FRACTION_MANY;
        double dram = op->bytes / (c->read_bw * fraction), fixed = op->launches * c->launch_s;
        op->time_s = dram + fixed;
        op->bound = dram >= fixed ? "dram" : "launch";
        return op->time_s;
    }
    /* prefill: query blocks of ATTN_TILE rows; block j sees the keys up to
     * its last query (kv_len - seq_len earlier tokens included). Summed in
     * closed form, so the work does not grow with seq_len: the first
     * blocks - 1 are full (block j ends at past + (j + 1) ATTN_TILE, so it
     * spans ceil(past / ATTN_TILE) + j + 1 key tiles), the last holds the
     * rest and spans the most. Every term is an integer, exact in a double
     * below 2^53, so this equals the block-by-block sum. */
    int64_t blocks = (r->seq_len + ATTN_TILE - 1) / ATTN_TILE, past = r->kv_len - r->seq_len;
    double full = (double)(blocks - 1), past_tiles = (double)((past + ATTN_TILE - 1) / ATTN_TILE);
    int64_t last_rows = r->seq_len - (blocks - 1) * ATTN_TILE, last_end = past + r->seq_len;
    double longest = (double)((last_end + ATTN_TILE - 1) / ATTN_TILE);
    double tiles_per_head = full * (full + 1.0) / 2.0 + full * past_tiles + longest;
    double flops_per_head =
        4.0 * ATTN_TILE * hd *
            (full * (double)(past - ATTN_TILE / 2) + ATTN_TILE * full * (full + 1.0) / 2.0) +
        4.0 * (double)last_rows * (double)(last_end - last_rows / 2) * hd;
    double units = (double)(r->batch * heads);
    double rate = c->attn_flops_per_s * ATTN_PREFILL_FRACTION / c->gpu->sm_count;
    double tile_s = 4.0 * ATTN_TILE * ATTN_TILE * hd / rate;
    double per_sm = fmax(tiles_per_head * units / c->gpu->sm_count, longest);
    op->flops = flops_per_head * units;
    op->launches = 1;
    double compute = per_sm * tile_s + (double)blocks * units / c->gpu->sm_count * ATTN_BLOCK_S;
    double dram = op->bytes / c->read_bw;
    op->time_s = fmax(compute, dram) + c->launch_s;
    op->bound = compute >= dram ? "compute" : "dram";
    return op->time_s;
}

static int all_reduce(struct ctx *c, double *time, struct simt_diag *diag)
{
    const struct simt_tfm_request *r = c->req;
    *time = 0.0;
    if (r->tp <= 1)
        return SIMT_OK;
    /* the GPU's scale-up fabric, as /v1/collective picks it when link is left out */
    int nvlink = c->gpu->nvlink_generation > 0 && c->gpu->nvlink_bandwidth_bytes_per_s > 0.0;
    int xgmi = c->gpu->xgmi_links > 0 && c->gpu->xgmi_bandwidth_bytes_per_s > 0.0;
    struct simt_collective_request q = {.op = SIMT_COLLECTIVE_ALL_REDUCE,
                                        .link = xgmi     ? SIMT_LINK_XGMI
                                                : nvlink ? SIMT_LINK_NVLINK
                                                         : SIMT_LINK_PCIE,
                                        .bytes =
                                            (double)(r->batch * r->seq_len * r->shape.hidden) * c->act_bytes,
                                        .gpus = r->tp,
                                        .nodes = 1};
    struct simt_collective_result cr;
    int rc = simt_collective_predict(c->gpu, &q, &cr, diag);
    if (rc != SIMT_OK)
        return simt_diag_fail(diag, rc, "parallel.tp", "the all-reduce over tp = %d GPUs cannot run: %s",
                              r->tp, diag != NULL ? diag->message : "");
    struct simt_tfm_op *op = add_op(c->out, "all_reduce", SIMT_TFM_OP_COLLECTIVE);
    op->bytes = q.bytes;
    op->launches = 1;
    op->time_s = cr.time_s;
    op->bound = "link";
    *time = cr.time_s;
    return SIMT_OK;
}

/* A block's end: its output projection (m x n x k), the tensor-parallel
 * group's all-reduce (none at tp 1) and the residual add; adds their times
 * to *t. */
static int block_output(struct ctx *c, const char *proj, int64_t m, int64_t n, int64_t k, double *t,
                        struct simt_diag *diag)
{
    double g = 0.0, tok = (double)m, h = (double)c->req->shape.hidden;
    int rc;
    if ((rc = gemm(c, proj, m, n, k, &g, diag)))
        return rc;
    *t += g;
    if ((rc = all_reduce(c, &g, diag)))
        return rc;
    *t += g;
    *t += elementwise(c, "residual", SIMT_TFM_OP_ELEMENTWISE, 3.0 * tok * h * c->act_bytes, RESIDUAL_LAUNCHES,
                      tok * h);
    return SIMT_OK;
}

/* One decoder layer's ops, in order; the sum in out->layer_time_s. */
static int layer(struct ctx *c, struct simt_diag *diag)
{
    const struct simt_tfm_request *r = c->req;
    const struct simt_tfm_shape *s = &r->shape;
    int64_t tokens = r->batch * r->seq_len, tp = r->tp;
    double tok = (double)tokens;
    double a = c->act_bytes, t = 0.0, g = 0.0, h = (double)s->hidden;
    double qkv_width = (double)((s->heads + 2 * s->kv_heads) * s->head_dim / tp);
    int64_t ffn_local = s->ffn / tp, gated = s->mlp == SIMT_TFM_SWIGLU;
    int rc;
    t += elementwise(c, "attn_norm", SIMT_TFM_OP_NORM, 2.0 * tok * h * a, NORM_LAUNCHES, 4.0 * tok * h);
    if ((rc = gemm(c, "qkv_proj", tokens, (s->heads + 2 * s->kv_heads) * s->head_dim / tp, s->hidden, &g,
                   diag)))
        return rc;
    t += g;
    t += elementwise(c, "rope", SIMT_TFM_OP_ELEMENTWISE, 2.0 * tok * qkv_width * a, ROPE_LAUNCHES,
                     3.0 * tok * qkv_width);
    t += attention(c);
    if ((rc = block_output(c, "o_proj", tokens, s->hidden, s->heads * s->head_dim / tp, &t, diag)))
        return rc;
    t += elementwise(c, "mlp_norm", SIMT_TFM_OP_NORM, 2.0 * tok * h * a, NORM_LAUNCHES, 4.0 * tok * h);
    if ((rc = gemm(c, "gate_up_proj", tokens, (gated ? 2 : 1) * ffn_local, s->hidden, &g, diag)))
        return rc;
    t += g;
    t += elementwise(c, "act_mul", SIMT_TFM_OP_ELEMENTWISE, (gated ? 3.0 : 2.0) * tok * (double)ffn_local * a,
                     ACT_LAUNCHES, 6.0 * tok * (double)ffn_local);
    if ((rc = block_output(c, "down_proj", tokens, s->hidden, ffn_local, &t, diag)))
        return rc;
    c->out->layer_time_s = t;
    return SIMT_OK;
}

static int check(const struct simt_gpu_spec *gpu, const struct simt_tfm_request *r, struct simt_diag *diag)
{
    const struct simt_tfm_shape *s = &r->shape;
    if (s->hidden < 1 || s->heads < 1 || s->kv_heads < 1 || s->head_dim < 1 || s->ffn < 1 || s->layers < 1 ||
        s->vocab < 1)
        return simt_diag_fail(diag, SIMT_EINVAL, "model", "every dimension of the model must be >= 1");
    if (s->heads % s->kv_heads != 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "model.kv_heads",
                              "heads (%lld) must be a multiple of kv_heads (%lld)", (long long)s->heads,
                              (long long)s->kv_heads);
    if (r->batch < 1 || r->seq_len < 1)
        return simt_diag_fail(diag, SIMT_EINVAL, r->batch < 1 ? "batch" : "seq_len", "must be >= 1");
    if (r->kv_len < 1 || (r->phase == SIMT_TFM_PREFILL && r->kv_len < r->seq_len))
        return simt_diag_fail(diag, SIMT_EINVAL, "kv_len", "kv_len must be >= 1 (prefill: >= seq_len)");
    if (r->tp < 1 || s->heads % r->tp != 0 || s->kv_heads % r->tp != 0 || s->ffn % r->tp != 0)
        return simt_diag_fail(diag, SIMT_EUNSAT, "parallel.tp",
                              "tp = %d must divide heads (%lld), kv_heads (%lld) and ffn (%lld)", r->tp,
                              (long long)s->heads, (long long)s->kv_heads, (long long)s->ffn);
    static const char *const fields[3] = {"dtype.weights", "dtype.activations", "dtype.kv_cache"};
    int types[3] = {r->weights, r->activations, r->kv_cache};
    for (int i = 0; i < 3; i++) {
        if ((unsigned)types[i] >= SIMT_TFM_DTYPE_COUNT)
            return simt_diag_fail(diag, SIMT_EINVAL, fields[i], "unknown type");
        if (!has_path(gpu, types[i]))
            return simt_diag_fail(diag, SIMT_EUNSAT, fields[i], "%s: this GPU has no %s tensor path",
                                  fields[i], dtype_names[types[i]]);
    }
    return SIMT_OK;
}

int simt_tfm_predict(const struct simt_gpu_spec *gpu, const struct simt_tfm_request *r,
                     struct simt_tfm_result *out, struct simt_diag *diag)
{
    int rc = check(gpu, r, diag);
    if (rc != SIMT_OK)
        return rc;
    memset(out, 0, sizeof *out);
    simt_figure_set_init(gpu, r->policy, &out->figures);
    struct ctx c = {.gpu = gpu, .req = r, .out = out};
    enum simt_figure_id need[] = {SIMT_FIG_DRAM_BANDWIDTH, SIMT_FIG_DRAM_COPY_BANDWIDTH,
                                  SIMT_FIG_LAUNCH_OVERHEAD};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if ((rc = simt_figure_require(&out->figures, need[i], diag)) != SIMT_OK)
            return rc;
        out->figures_used |= SIMT_FIG_BIT(need[i]);
    }
    c.read_bw = simt_figure_get(&out->figures, SIMT_FIG_DRAM_BANDWIDTH);
    c.copy_bw = simt_figure_get(&out->figures, SIMT_FIG_DRAM_COPY_BANDWIDTH);
    c.launch_s = simt_figure_get(&out->figures, SIMT_FIG_LAUNCH_OVERHEAD);
    /* the projections' math type: the wider of weights and activations */
    int wide = simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->weights) >=
                       simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->activations)
                   ? r->weights
                   : r->activations;
    c.math = (enum simt_dtype)gemm_dtype(wide);
    c.act_bytes = simt_tfm_dtype_bytes((enum simt_tfm_dtype)r->activations);
    c.attn_math = r->activations == SIMT_TFM_FP16 ? SIMT_DTYPE_FP16 : SIMT_DTYPE_BF16;
    if ((rc = simt_figure_require(&out->figures, SIMT_FIG_TENSOR_FIRST + c.attn_math, diag)) != SIMT_OK)
        return rc;
    c.attn_flops_per_s = simt_figure_get(&out->figures, SIMT_FIG_TENSOR_FIRST + c.attn_math);
    out->figures_used |= SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + c.attn_math);
    if ((rc = layer(&c, diag)) != SIMT_OK)
        return rc;

    /* the whole model: layers, embedding lookup, final norm, LM head */
    const struct simt_tfm_shape *s = &r->shape;
    int64_t tokens = r->batch * r->seq_len;
    double tok = (double)tokens, h = (double)s->hidden, a = c.act_bytes;
    out->embedding_s = 2.0 * tok * h * a / c.copy_bw + c.launch_s;
    out->final_norm_s = 2.0 * tok * h * a / c.copy_bw + NORM_LAUNCHES * c.launch_s;
    if ((rc = gemm(&c, NULL, tokens, s->vocab / r->tp > 0 ? s->vocab / r->tp : 1, s->hidden, &out->lm_head_s,
                   diag)))
        return rc;
    out->model_time_s =
        (double)s->layers * out->layer_time_s + out->embedding_s + out->final_norm_s + out->lm_head_s;
    out->tokens_per_s = tok / out->model_time_s;
    simt_tfm_memory_need(r, gpu->dram_bytes, &out->memory);

    assume(out,
           "attention: FlashAttention-2 style, 128x128 tiles at %.2f of the dense %s tensor rate (prefill, "
           "causal tiles above the diagonal skipped); decode reads the KV cache at %.2f of DRAM bandwidth "
           "while batch x kv_heads <= SMs, else %.2f",
           ATTN_PREFILL_FRACTION, simt_dtype_name(c.attn_math), ATTN_DECODE_FRACTION,
           ATTN_DECODE_FRACTION_MANY);
    assume(
        out,
        "kernels counted as an eager PyTorch layer launches them: RMSNorm %d, rotary %d, SiLU*up %d, "
        "residual %d, decode cache write %d; each costs the launch figure; elementwise bytes x %.1f passes",
        NORM_LAUNCHES, ROPE_LAUNCHES, ACT_LAUNCHES, RESIDUAL_LAUNCHES, DECODE_CACHE_LAUNCHES,
        ELEMENTWISE_PASSES);
    assume(out, "projections run as %s GEMMs (the wider of the weight and activation types), M = %lld tokens",
           simt_dtype_name(c.math), (long long)tokens);
    if (r->tp > 1)
        assume(out,
               "tensor parallel over %d GPUs as Megatron splits it: two all-reduces of %lld x %lld "
               "activations per layer",
               r->tp, (long long)tokens, (long long)s->hidden);
    assume(out,
           "the LM head runs for all %lld new tokens; memory counts their logits; fits against the "
           "GPU's whole memory (%.4g bytes), no framework reserve",
           (long long)tokens, gpu->dram_bytes);
    return SIMT_OK;
}
