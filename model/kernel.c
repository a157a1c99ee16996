/* kernel.c - whole-launch prediction: price one warp's lifetime with the
 * access models, solve the SM's closed network of resident warps wave by
 * wave, add the launch, then try each piece of advice. Pure. */
#include "kernel.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "banks.h"
#include "coalescing.h"
#include "constant.h"
#include "kernel_internal.h"
#include "kernel_tensor.h"
#include "latency.h"

static const char *const bound_names[SIMT_BOUND_COUNT] = {"dram", "l2",      "shared", "compute",
                                                          "sfu",  "latency", "launch"};

const char *simt_kernel_bound_name(enum simt_kernel_bound bound)
{
    if ((int)bound < 0 || bound >= SIMT_BOUND_COUNT)
        return NULL;
    return bound_names[bound];
}

void simt_kernel_request_init(struct simt_kernel_request *req, int warp_size)
{
    memset(req, 0, sizeof *req);
    for (int d = 0; d < 3; d++) {
        req->grid[d] = 1;
        req->block[d] = 1;
    }
    req->block_barriers = 1;
    simt_branch_init(&req->branch, warp_size);
}

/* Copies at most size - 1 bytes and terminates. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int fail(struct simt_diag *diag, int rc, const char *field, const char *message)
{
    return simt_diag_fail(diag, rc, field, "%s", message);
}

/* Reads a figure the request needs; SIMT_EUNSAT when absent. */
static int need(const struct simt_figure_set *figures, enum simt_figure_id id, simt_figure_mask *used,
                double *value, struct simt_diag *diag)
{
    int rc = simt_figure_require(figures, id, diag);
    if (rc != SIMT_OK)
        return rc;
    *used |= SIMT_FIG_BIT(id);
    *value = simt_figure_get(figures, id);
    return SIMT_OK;
}

static int validate(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                    struct simt_diag *diag)
{
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    for (int d = 0; d < 3; d++) {
        if (req->grid[d] < 1 || req->grid[d] > grid_max[d])
            return fail(diag, SIMT_EINVAL, "launch.grid",
                        "grid dimensions must be 1..2^31-1 (x) and 1..65535 (y, z)");
        if (req->block[d] < 1 || req->block[d] > 1024)
            return fail(diag, SIMT_EINVAL, "launch.block", "block dimensions must be 1..1024");
    }
    if (req->block[2] > 64)
        return fail(diag, SIMT_EUNSAT, "launch.block", "block z must be at most 64");
    double flops[8] = {req->flops_fp32, req->flops_fp64,  req->flops_fp16, req->sfu_ops,
                       req->int_ops,    req->int_mul_ops, req->barriers,   req->shuffles};
    static const char *const flop_fields[8] = {
        "per_thread.flops.fp32", "per_thread.flops.fp64",  "per_thread.flops.fp16", "per_thread.sfu_ops",
        "per_thread.int_ops",    "per_thread.int_mul_ops", "per_thread.barriers",   "per_thread.shuffles"};
    for (int i = 0; i < 8; i++)
        if (!(flops[i] >= 0.0) || !isfinite(flops[i]) || flops[i] > 1e15)
            return fail(diag, SIMT_EINVAL, flop_fields[i], "must be a number 0..1e15");
    /* 0: not given (one chain) */
    if (!(!(req->alu_chains > 0.0 || req->alu_chains < 0.0) ||
          (req->alu_chains >= 1.0 && req->alu_chains <= 1e6)))
        return fail(diag, SIMT_EINVAL, "per_thread.alu_chains", "must be a number 1..1e6");
    if (req->access_count < 0 || req->access_count > SIMT_KERNEL_MAX_ACCESSES)
        return fail(diag, SIMT_EINVAL, "per_thread.accesses", "at most 16 accesses");
    int lanes = gpu->warp_size > 0 ? gpu->warp_size : 32;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        char field[160];
        if (!(a->count >= 0.0) || !isfinite(a->count) || a->count > 1e12) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].count", i);
            return fail(diag, SIMT_EINVAL, field, "count must be 0..1e12");
        }
        if (!(a->independent >= 1.0) || !isfinite(a->independent)) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].independent", i);
            return fail(diag, SIMT_EINVAL, field, "independent must be >= 1");
        }
        if (a->repeats_of < 0 || a->repeats_of > i) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].repeats", i);
            return fail(diag, SIMT_EINVAL, field, "repeats must name an earlier access (0..this index - 1)");
        }
        if (a->depends_on < 0 || a->depends_on > i) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].depends_on", i);
            return fail(diag, SIMT_EINVAL, field,
                        "depends_on must name an earlier access (0..this index - 1)");
        }
        /* atomics: the addresses they contend for; global loads and stores:
         * the table the whole grid reads or writes (kernel_cost.c) */
        if ((a->distinct_addresses > 0.0 || a->distinct_addresses < 0.0) &&
            ((a->op != SIMT_OP_ATOMIC && a->space != SIMT_SPACE_GLOBAL) || !(a->distinct_addresses >= 1.0) ||
             !isfinite(a->distinct_addresses))) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].distinct_addresses", i);
            return fail(diag, SIMT_EINVAL, field,
                        "distinct_addresses is for atomics and global loads and stores and must be >= 1");
        }
        if (a->pattern.lanes != lanes) {
            snprintf(field, sizeof field, "per_thread.accesses[%d]", i);
            return fail(diag, SIMT_EINVAL, field, "an access must describe the GPU's whole warp");
        }
        struct simt_diag inner;
        memset(&inner, 0, sizeof inner);
        if (simt_warp_access_check(&a->pattern, &inner) != SIMT_OK) {
            snprintf(field, sizeof field, "per_thread.accesses[%d].%.80s", i, inner.field);
            return fail(diag, SIMT_EINVAL, field, inner.message);
        }
    }
    return SIMT_OK;
}

static const char *occupancy_field(const char *model_field)
{
    if (strcmp(model_field, "block_size") == 0)
        return "launch.block";
    if (strcmp(model_field, "dynamic_shared_bytes") == 0 ||
        strcmp(model_field, "max_dynamic_shared_bytes") == 0)
        return "launch.dynamic_shared_bytes";
    if (strcmp(model_field, "registers_per_thread") == 0)
        return "resources.registers_per_thread";
    if (strcmp(model_field, "static_shared_bytes") == 0)
        return "resources.static_shared_bytes";
    if (strcmp(model_field, "block_barriers") == 0)
        return "resources.block_barriers";
    return model_field;
}

/* DRAM and L2: bandwidths by direction, row activations, latencies. */
static int read_global_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                             int has_writes, struct rates *r, simt_figure_mask *used,
                             simt_kernel_assumed *assumed, struct simt_diag *diag)
{
    int rc;
    if ((rc = need(figures, SIMT_FIG_DRAM_BANDWIDTH, used, &r->dram_bytes_per_s, diag)) != SIMT_OK ||
        (rc = need(figures, SIMT_FIG_L2_BANDWIDTH, used, &r->l2_bytes_per_s, diag)) != SIMT_OK ||
        (rc = need(figures, SIMT_FIG_DRAM_LATENCY, used, &r->dram_latency, diag)) != SIMT_OK)
        return rc;
    /* writes: their own figure, and a copy's for the mix (the DRAM
     * figure stands in for both on a card that lacks them) */
    r->dram_write_bytes_per_s = r->dram_bytes_per_s;
    r->dram_copy_bytes_per_s = r->dram_bytes_per_s;
    if (has_writes) {
        double write = simt_figure_get(figures, SIMT_FIG_DRAM_WRITE_BANDWIDTH);
        double copy = simt_figure_get(figures, SIMT_FIG_DRAM_COPY_BANDWIDTH);
        if (write > 0.0 && copy > 0.0) {
            r->dram_write_bytes_per_s = write;
            r->dram_copy_bytes_per_s = copy;
            r->direction_figures = 1; /* used once the launch is known to write */
        }
    }
    /* L2 stores and requests: measured only (the L2 figure stands in for
     * the writes; without a request rate, requests are not limited) */
    r->l2_write_bytes_per_s = simt_figure_get(figures, SIMT_FIG_L2_WRITE_BANDWIDTH);
    if (!(r->l2_write_bytes_per_s > 0.0))
        r->l2_write_bytes_per_s = r->l2_bytes_per_s;
    r->l2_requests_per_s = simt_figure_get(figures, SIMT_FIG_L2_REQUESTS);
    /* row activations: measured only; without the figure they are not limited */
    r->dram_interleave = simt_figure_get(figures, SIMT_FIG_DRAM_INTERLEAVE);
    if (!(r->dram_interleave > 0.0))
        r->dram_interleave = 256.0;
    r->dram_rows_per_s = simt_figure_get(figures, SIMT_FIG_DRAM_ROW_ACTIVATIONS);
    if (r->dram_rows_per_s > 0.0)
        *used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_ROW_ACTIVATIONS) | SIMT_FIG_BIT(SIMT_FIG_DRAM_INTERLEAVE);
    /* a read-modify-write (kernel_cost.c, cost_partial_store): on the L2
     * slices' request station where the card has a request rate, as that
     * many requests beyond its own store's (their time is then 1 /
     * dram_partial_stores_per_s whatever the request rate); else in row
     * activations' worth on the rows' station (used once a store needs one) */
    double partial = simt_figure_get(figures, SIMT_FIG_DRAM_PARTIAL_STORES);
    r->rmw_rows = r->dram_rows_per_s > 0.0 && partial > 0.0 ? r->dram_rows_per_s / partial : 2.0;
    r->rmw_requests = r->l2_requests_per_s > 0.0 && partial > 0.0 && r->dram_rows_per_s > 0.0
                          ? fmax(0.0, r->l2_requests_per_s / partial - 1.0)
                          : 0.0;
    r->dram_row_cycle = simt_figure_get(figures, SIMT_FIG_DRAM_ROW_CYCLE) * r->clock_hz;
    *used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_ROW_CYCLE);
    r->line_bytes = gpu->cache_line_bytes > 0 ? gpu->cache_line_bytes : 128;
    r->l1_bytes_per_sm = gpu->l1_bytes_per_sm;
    r->l2_bytes = gpu->l2_bytes;
    r->l2_reuse_bytes = gpu->l2_reuse_fraction > 0.0 ? gpu->l2_reuse_fraction * gpu->l2_bytes : gpu->l2_bytes;
    r->l2_ways = gpu->l2_effective_ways > 0 ? gpu->l2_effective_ways : 0.0;
    r->repeat_whole = gpu->repeat_whole_fraction > 0.0 ? gpu->repeat_whole_fraction : 1.0;
    r->l2_repeat_whole_bytes = r->repeat_whole * r->l2_reuse_bytes;
    r->l2_partitions = gpu->l2_partitions > 1 ? gpu->l2_partitions : 1.0;
    r->atomic_same_address_per_s = gpu->l2_same_address_atomics_per_clock * r->clock_hz;
    r->atomics_per_s = gpu->l2_atomics_per_clock * r->clock_hz;
    r->atomic_slice_lanes_per_cycle = gpu->l2_slice_atomic_lanes_per_clock;
    r->atomic_slice_bytes = gpu->l2_atomic_slice_bytes;
    r->sector_bytes = gpu->sector_bytes > 0 ? gpu->sector_bytes : 32;
    r->warp_lines = gpu->warp_lines_in_flight > 0.0 ? gpu->warp_lines_in_flight : 0.0;
    r->dram_granularity = gpu->dram_access_granularity_bytes > 0 ? gpu->dram_access_granularity_bytes
                          : gpu->sector_bytes > 0                ? gpu->sector_bytes
                                                                 : 32;
    /* the L2 latency only matters for hits; without it a hit costs a miss */
    r->l2_latency = simt_figure_get(figures, SIMT_FIG_L2_LATENCY);
    if (r->l2_latency > 0.0) {
        *used |= SIMT_FIG_BIT(SIMT_FIG_L2_LATENCY);
    } else {
        r->l2_latency = r->dram_latency;
        *assumed |= SIMT_KERNEL_ASSUMED_L2_LATENCY;
    }
    return SIMT_OK;
}

/* The arithmetic pipes the request uses, their latency, and the launch. */
static int read_pipes(const struct simt_figure_set *figures, const struct simt_kernel_request *req,
                      double per_cycle, struct rates *r, simt_figure_mask *used, simt_kernel_assumed *assumed,
                      struct simt_diag *diag)
{
    int rc;
    double v;
    double alu = req->flops_fp32 + req->flops_fp64 + req->flops_fp16 + req->sfu_ops;
    if (alu > 0.0 && (rc = need(figures, SIMT_FIG_FMA_LATENCY, used, &r->fma_latency, diag)) != SIMT_OK)
        return rc;
    r->fp64_fma_latency = r->fma_latency;
    if (req->flops_fp64 > 0.0 &&
        (rc = need(figures, SIMT_FIG_FP64_FMA_LATENCY, used, &r->fp64_fma_latency, diag)) != SIMT_OK)
        return rc;
    struct {
        double amount;
        enum simt_figure_id id;
        double *out;
        const char *field;
    } pipes[4] = {
        {req->flops_fp32, SIMT_FIG_FP32, &r->fp32_per_cycle, "per_thread.flops.fp32"},
        {req->flops_fp64, SIMT_FIG_FP64, &r->fp64_per_cycle, "per_thread.flops.fp64"},
        {req->flops_fp16, SIMT_FIG_FP16, &r->fp16_per_cycle, "per_thread.flops.fp16"},
        {req->sfu_ops, SIMT_FIG_SFU, &r->sfu_per_cycle, "per_thread.sfu_ops"},
    };
    for (int i = 0; i < 4; i++) {
        if (pipes[i].amount <= 0.0)
            continue;
        if ((rc = need(figures, pipes[i].id, used, &v, diag)) != SIMT_OK) {
            if (diag != NULL)
                copy_text(diag->field, sizeof diag->field, pipes[i].field);
            return rc;
        }
        *pipes[i].out = v * per_cycle;
    }
    /* an FP64 pipe slower than issue that holds its scheduler
     * (kernel_network.c, hold_fp64_issue) */
    if (req->flops_fp64 > 0.0 && r->fp64_issue_hold > 0.0 && simt_kernel_fp64_issue_cycles(r) > 1.0)
        *assumed |= SIMT_KERNEL_ASSUMED_FP64_HOLDS_ISSUE;
    /* integer work: the INT32 pipe where the GPU has the figure */
    if (req->int_ops > 0.0) {
        v = simt_figure_get(figures, SIMT_FIG_INT32);
        if (v > 0.0) {
            r->int32_per_cycle = v * per_cycle;
            *used |= SIMT_FIG_BIT(SIMT_FIG_INT32);
        }
    }
    /* an l2_warm launch follows the one before back to back: the GPU
     * takes it while that one runs, and what it costs is the interval
     * between queued launches (the single launch's figure where the card
     * has no measured one) */
    enum simt_figure_id launch = req->l2_warm ? SIMT_FIG_LAUNCH_INTERVAL : SIMT_FIG_LAUNCH_OVERHEAD;
    r->launch_s = simt_figure_get(figures, launch);
    if (r->launch_s > 0.0)
        *used |= SIMT_FIG_BIT(launch);
    else
        *assumed |= SIMT_KERNEL_ASSUMED_NO_LAUNCH;
    return SIMT_OK;
}

static int read_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                      const struct simt_kernel_request *req, struct rates *r, simt_figure_mask *used,
                      simt_kernel_assumed *assumed, struct simt_diag *diag)
{
    memset(r, 0, sizeof *r);
    r->sms = gpu->sm_count;
    r->lanes = gpu->warp_size > 0 ? gpu->warp_size : 32;
    if (r->sms < 1)
        return fail(diag, SIMT_EUNSAT, "sm_count", "the GPU record has no SMs");
    int rc;
    double v;
    if ((rc = need(figures, SIMT_FIG_CLOCK, used, &r->clock_hz, diag)) != SIMT_OK)
        return rc;
    double per_cycle = 1.0 / ((double)r->sms * r->clock_hz);
    if ((rc = need(figures, SIMT_FIG_ISSUE, used, &v, diag)) != SIMT_OK)
        return rc;
    r->issue_per_cycle = v * per_cycle;
    r->fp64_issue_hold = gpu->fp64_issue_hold_fraction;
    int has_global = 0, has_global_store = 0, has_shared_load = 0, has_l1 = 0, has_constant = 0;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        if (a->count <= 0.0)
            continue;
        has_global |= a->space == SIMT_SPACE_GLOBAL;
        has_global_store |= a->space == SIMT_SPACE_GLOBAL && a->op == SIMT_OP_STORE;
        has_constant |= a->space == SIMT_SPACE_CONSTANT;
        has_shared_load |= a->space == SIMT_SPACE_SHARED && a->op == SIMT_OP_LOAD;
        has_l1 |= (a->space == SIMT_SPACE_CONSTANT || a->space == SIMT_SPACE_LOCAL) && a->op == SIMT_OP_LOAD;
    }
    if (has_global) {
        /* a cold launch writes back the dirty lines its fills evict (kernel_cost.c) */
        int writes = has_global_store || !req->l2_warm;
        if ((rc = read_global_rates(gpu, figures, writes, r, used, assumed, diag)) != SIMT_OK)
            return rc;
    } else {
        /* unused, but keep the shares finite */
        r->dram_bytes_per_s = 1.0;
        r->l2_bytes_per_s = 1.0;
    }
    /* shared memory and L1 are one SRAM: without one latency, take the other */
    double shared_latency = simt_figure_get(figures, SIMT_FIG_SHARED_LATENCY);
    double l1_latency = simt_figure_get(figures, SIMT_FIG_L1_LATENCY);
    if (has_shared_load) {
        if (shared_latency <= 0.0 && l1_latency > 0.0) {
            shared_latency = l1_latency;
            *assumed |= SIMT_KERNEL_ASSUMED_SRAM_LATENCY;
            *used |= SIMT_FIG_BIT(SIMT_FIG_L1_LATENCY);
        } else if ((rc = need(figures, SIMT_FIG_SHARED_LATENCY, used, &shared_latency, diag)) != SIMT_OK) {
            return rc;
        }
        r->shared_latency = shared_latency;
    }
    if (has_constant) {
        if ((rc = need(figures, SIMT_FIG_CONSTANT_RATE, used, &v, diag)) != SIMT_OK)
            return rc;
        r->constant_per_cycle = v * per_cycle;
    }
    if (has_l1) {
        if (l1_latency <= 0.0 && shared_latency > 0.0) {
            l1_latency = shared_latency;
            *assumed |= SIMT_KERNEL_ASSUMED_SRAM_LATENCY;
            *used |= SIMT_FIG_BIT(SIMT_FIG_SHARED_LATENCY);
        } else if ((rc = need(figures, SIMT_FIG_L1_LATENCY, used, &l1_latency, diag)) != SIMT_OK) {
            return rc;
        }
        r->l1_latency = l1_latency;
    }
    if ((rc = simt_kernel_tensor_read_rates(gpu, figures, req, per_cycle, r, used, diag)) != SIMT_OK)
        return rc;
    simt_kernel_read_sync_rates(gpu, figures, req, r, used, assumed);
    if ((rc = read_pipes(figures, req, per_cycle, r, used, assumed, diag)) != SIMT_OK)
        return rc;
    /* integer multiply-adds: the FMA pipe's rate where the record has it,
     * else the INT32 figure stands in */
    if (req->int_mul_ops > 0.0) {
        if (gpu->int32_mul_ops_per_clock_per_sm > 0.0) {
            r->int_mul_per_cycle = gpu->int32_mul_ops_per_clock_per_sm;
            *assumed |= SIMT_KERNEL_ASSUMED_INT_MUL_PIPE;
        } else {
            v = simt_figure_get(figures, SIMT_FIG_INT32);
            if (v > 0.0) {
                r->int_mul_per_cycle = v * per_cycle;
                *used |= SIMT_FIG_BIT(SIMT_FIG_INT32);
                *assumed |= SIMT_KERNEL_ASSUMED_NO_INT_MUL_RATE;
            } else {
                *assumed |= SIMT_KERNEL_ASSUMED_NO_INT_PIPE;
            }
        }
    }
    return SIMT_OK;
}

/* The prediction without advice. */
/* Threads, warps and blocks of the launch, and its occupancy. */
static int shape_and_occupancy(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                               const struct rates *r, struct simt_kernel_result *res, struct simt_diag *diag)
{
    int64_t threads = (int64_t)req->block[0] * req->block[1] * req->block[2];
    res->blocks = req->grid[0] * req->grid[1] * req->grid[2];
    res->threads_per_block = (int)threads;
    res->warps_per_block = (int)((threads + r->lanes - 1) / r->lanes);
    if (threads % r->lanes != 0)
        res->assumed |= SIMT_KERNEL_ASSUMED_PARTIAL_WARP;
    struct simt_occupancy_request occ;
    simt_occupancy_request_init(&occ);
    occ.block_size = (int)threads;
    occ.registers_per_thread = req->registers_per_thread;
    occ.static_shared_bytes = req->static_shared_bytes;
    occ.dynamic_shared_bytes = req->dynamic_shared_bytes;
    occ.block_barriers = req->block_barriers;
    occ.grid_size = res->blocks;
    int rc;
    struct simt_diag inner;
    memset(&inner, 0, sizeof inner);
    rc = simt_occupancy_compute(gpu, &occ, &res->occupancy, &inner);
    if (rc == SIMT_OK && res->occupancy.active_blocks_per_sm < 1)
        rc = SIMT_EUNSAT;
    if (rc != SIMT_OK)
        return fail(diag, rc, occupancy_field(inner.field),
                    inner.message[0] ? inner.message : "the launch cannot run on this GPU");
    return SIMT_OK;
}

/* The breakdown: each term alone, and the bound (the largest). */
static void breakdown(const struct warp_cost *w, const struct rates *r, double s, double warps_total,
                      double alone, struct simt_kernel_result *res)
{
    double d[C_COUNT];
    double busiest_warps = ceil((double)res->blocks / r->sms) * res->warps_per_block;
    double resident_warps = (double)res->occupancy.active_blocks_per_sm * res->warps_per_block;
    simt_kernel_demands(w, r, s, r->sms, fmin(resident_warps, busiest_warps), d);
    /* DRAM: its bus (bytes by direction) or its row activations, whichever is busier */
    res->breakdown_s[SIMT_BOUND_DRAM] =
        warps_total * simt_kernel_dram_read_equivalent_bytes(w, r) / r->dram_bytes_per_s;
    if (r->dram_rows_per_s > 0.0)
        res->breakdown_s[SIMT_BOUND_DRAM] =
            fmax(res->breakdown_s[SIMT_BOUND_DRAM], warps_total * w->dram_rows / r->dram_rows_per_s);
    else if (w->sparse)
        res->assumed |= SIMT_KERNEL_ASSUMED_NO_ROW_LIMIT;
    res->breakdown_s[SIMT_BOUND_L2] = warps_total * w->l2_lines * r->line_bytes / r->l2_bytes_per_s;
    if (!(w->dram_bytes > 0.0 || w->l2_bytes > 0.0)) {
        res->breakdown_s[SIMT_BOUND_DRAM] = 0.0;
        res->breakdown_s[SIMT_BOUND_L2] = 0.0;
    }
    /* the L2's atomic units: contended atomics, one address at a time */
    res->breakdown_s[SIMT_BOUND_L2] =
        fmax(res->breakdown_s[SIMT_BOUND_L2], warps_total * w->contended_atomics / r->clock_hz);
    if (r->atomics_per_s > 0.0)
        res->breakdown_s[SIMT_BOUND_L2] =
            fmax(res->breakdown_s[SIMT_BOUND_L2], warps_total * w->atomic_ops / r->atomics_per_s);
    res->breakdown_s[SIMT_BOUND_SHARED] = busiest_warps * d[C_DATA] / r->clock_hz;
    res->issue_s = busiest_warps * d[C_ISSUE] / r->clock_hz;
    res->fp32_s = busiest_warps * d[C_FP32] / r->clock_hz;
    /* the FP64 pipe's own time, whether or not its scheduler is held */
    res->fp64_s = busiest_warps * simt_kernel_fp64_pipe_cycles(w, r, s) / r->clock_hz;
    res->fp16_s = busiest_warps * d[C_FP16] / r->clock_hz;
    res->constant_s = busiest_warps * d[C_CONSTANT] / r->clock_hz;
    res->int32_s = busiest_warps * fmax(d[C_INT32], d[C_IMAD]) / r->clock_hz;
    res->tensor_s = busiest_warps * d[C_TENSOR] / r->clock_hz;
    /* the SM's barrier unit takes the block barriers' arrivals: a compute
     * resource of the SM, not a data path */
    double barrier_s = busiest_warps * d[C_BARRIER] / r->clock_hz;
    res->breakdown_s[SIMT_BOUND_COMPUTE] =
        fmax(fmax(fmax(res->issue_s, res->fp32_s), fmax(fmax(res->fp64_s, res->fp16_s), res->constant_s)),
             fmax(fmax(res->int32_s, res->tensor_s), barrier_s));
    res->breakdown_s[SIMT_BOUND_SFU] = busiest_warps * d[C_SFU] / r->clock_hz;
    res->breakdown_s[SIMT_BOUND_LATENCY] = alone / r->clock_hz;
    /* launch: the host's launch overhead, or the SMs taking the grid's
     * blocks one at a time (C_LAUNCH, block_launch_cycles), or each block
     * slot idle around its blocks' launch and retire, the largest */
    double slot_rounds = ceil((double)res->blocks / r->sms) / (double)res->occupancy.active_blocks_per_sm;
    res->breakdown_s[SIMT_BOUND_LAUNCH] =
        fmax(r->launch_s,
             fmax(busiest_warps * d[C_LAUNCH], ceil(slot_rounds) * w->slot_delay_cycles) / r->clock_hz);
    res->bound = SIMT_BOUND_LAUNCH;
    for (int b = 0; b < SIMT_BOUND_COUNT; b++)
        if (res->breakdown_s[b] > res->breakdown_s[res->bound])
            res->bound = (enum simt_kernel_bound)b;
}

/* The resident blocks per SM of a request, from predict_core's first steps
 * alone (validation, occupancy): SIMT_OK and *blocks, or the code
 * predict_core fails with at those steps. A cheap screen for the occupancy
 * advice's probes, which need the full prediction only where blocks rise.
 * r: the rates read once for the request advised. A probe differs from it
 * only in registers or shared memory, which the rates do not read, and the
 * occupancy step reads nothing of them but the warp width (the GPU's), so
 * its blocks are the ones predict_core would find. */
static int resident_blocks(const struct simt_gpu_spec *gpu, const struct rates *r,
                           const struct simt_kernel_request *req, int *blocks)
{
    int rc = validate(gpu, req, NULL);
    if (rc != SIMT_OK)
        return rc;
    struct simt_kernel_result res;
    memset(&res, 0, sizeof res);
    if ((rc = shape_and_occupancy(gpu, req, r, &res, NULL)) != SIMT_OK)
        return rc;
    *blocks = res.occupancy.active_blocks_per_sm;
    return SIMT_OK;
}

/* The launch's waves: full ones with every SM holding its resident blocks,
 * then the tail. Adds their cycles as the network has them, as they run
 * with the waves in step (each phase the larger of the two) and their
 * latency terms; *ph is the phase the latency report reads (the full
 * waves', or the tail's when there are none). */
static int run_waves(const struct warp_cost *w, const struct rates *r, double s,
                     struct simt_kernel_result *res, struct phase *ph, double *cycles, double *stepped,
                     double *alone)
{
    int64_t resident = res->occupancy.active_blocks_per_sm;
    int64_t per_wave = resident * r->sms;
    int64_t full_waves = res->blocks / per_wave;
    int64_t rest = res->blocks - full_waves * per_wave;
    res->waves = (double)res->blocks / (double)per_wave;
    memset(ph, 0, sizeof *ph);
    int rc;
    if (full_waves > 0) {
        if ((rc = simt_kernel_run_phase(w, r, s, r->sms, (double)(resident * res->warps_per_block), ph)) !=
            SIMT_OK)
            return rc;
        *cycles += (double)full_waves * ph->cycles;
        *stepped += (double)full_waves * fmax(ph->cycles, ph->step_cycles);
        *alone += (double)full_waves * ph->alone;
    }
    if (rest > 0) {
        int64_t tail_blocks = (rest + r->sms - 1) / r->sms;
        int active = rest < r->sms ? (int)rest : r->sms;
        struct phase tail;
        if (full_waves > 0 && active == r->sms && tail_blocks == resident) {
            /* the tail fills every SM as a full wave does: the same phase */
            tail = *ph;
        } else if ((rc = simt_kernel_run_phase(w, r, s, active, (double)(tail_blocks * res->warps_per_block),
                                               &tail)) != SIMT_OK) {
            return rc;
        }
        *cycles += tail.cycles;
        *stepped += fmax(tail.cycles, tail.step_cycles);
        *alone += tail.alone;
        if (full_waves == 0)
            *ph = tail;
    }
    return SIMT_OK;
}

static int predict_core(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                        const struct simt_kernel_request *req, struct simt_kernel_result *out,
                        struct simt_diag *diag)
{
    int rc = validate(gpu, req, diag);
    if (rc != SIMT_OK)
        return rc;
    struct simt_kernel_result res;
    memset(&res, 0, sizeof res);
    struct rates r;
    if ((rc = read_rates(gpu, figures, req, &r, &res.figures_used, &res.assumed, diag)) != SIMT_OK)
        return rc;

    if ((rc = shape_and_occupancy(gpu, req, &r, &res, diag)) != SIMT_OK)
        return rc;

    /* divergence */
    struct simt_divergence_result dv;
    struct simt_diag inner;
    memset(&inner, 0, sizeof inner);
    if ((rc = simt_divergence_compute(&req->branch, &dv, &inner)) != SIMT_OK) {
        char field[160];
        snprintf(field, sizeof field, "per_thread.branch.%.80s", inner.field);
        return fail(diag, rc, field, inner.message);
    }
    res.divergence_serialization = dv.serialization;

    /* one warp's lifetime */
    struct warp_cost w;
    struct launch_shape shape = {
        .rows = req->block[1] * req->block[2],
        .resident_blocks = (double)res.occupancy.active_blocks_per_sm,
        .resident_warps = (double)res.occupancy.active_blocks_per_sm * res.warps_per_block,
        .warps_total = (double)res.blocks * res.warps_per_block,
        .warps_per_block = (double)res.warps_per_block,
        .shared_bytes_per_block = (double)(req->static_shared_bytes + req->dynamic_shared_bytes),
    };
    if ((rc = simt_kernel_cost_warp(gpu, req, &r, &shape, &w, &res.assumed, diag)) != SIMT_OK)
        return rc;
    if (r.direction_figures && w.dram_write_bytes > 0.0)
        res.figures_used |=
            SIMT_FIG_BIT(SIMT_FIG_DRAM_WRITE_BANDWIDTH) | SIMT_FIG_BIT(SIMT_FIG_DRAM_COPY_BANDWIDTH);
    if (w.l2_write_lines > 0.0)
        res.figures_used |= SIMT_FIG_BIT(SIMT_FIG_L2_WRITE_BANDWIDTH);
    if ((res.assumed & SIMT_KERNEL_ASSUMED_PARTIAL_STORE) && r.dram_rows_per_s > 0.0)
        res.figures_used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_PARTIAL_STORES);
    if (w.scattered_hits) {
        if (r.l2_requests_per_s > 0.0) {
            res.figures_used |= SIMT_FIG_BIT(SIMT_FIG_L2_REQUESTS);
            res.assumed |= SIMT_KERNEL_ASSUMED_L2_REQUESTS;
        } else {
            res.assumed |= SIMT_KERNEL_ASSUMED_NO_L2_REQUEST_RATE;
        }
    }
    simt_kernel_tensor_cost_warp(req, &r, &w, &res.assumed);
    if (w.tensor_cycles > 0.0 &&
        fmin(shape.resident_warps, ceil((double)res.blocks / r.sms) * res.warps_per_block) < r.sub_partitions)
        res.assumed |= SIMT_KERNEL_ASSUMED_TENSOR_FEW_WARPS;
    double warps_total = (double)res.blocks * res.warps_per_block;
    double s = dv.serialization;
    res.dram_bytes = warps_total * w.dram_bytes;
    res.l2_bytes = warps_total * w.l2_bytes;
    res.useful_bytes = warps_total * w.useful_bytes;
    res.shared_wavefronts = warps_total * w.shared_wavefronts * s;
    res.l1_wavefronts = warps_total * w.l1_wavefronts * s;
    res.warp_instructions = warps_total * w.instructions * s;
    res.latency_rounds_per_warp = w.load_rounds * s;
    res.loads_together = w.loads_together;

    /* waves: full ones with every SM holding its resident blocks, then the tail */
    double cycles = 0.0, stepped = 0.0;
    double alone = 0.0; /* the latency term: each wave's warps as if alone */
    struct phase ph;
    if (run_waves(&w, &r, s, &res, &ph, &cycles, &stepped, &alone) != SIMT_OK)
        return fail(diag, SIMT_EINVAL, "per_thread", "the model found no solution for this kernel");
    if (w.load_rounds > 0.0)
        res.loaded_latency_cycles = (ph.delay - s * (w.alu_delay_cycles + w.sync_delay_cycles) -
                                     w.slot_delay_cycles + ph.memory_residence) /
                                    (s * w.load_rounds);
    /* The network is the steady state; a launch also fills it: no load
     * of the first round returns before a round's latency has passed, so
     * that much of the kernel hides nothing behind its loads (H200 fit
     * half: everyday kernels 7.0% -> 6.6% median, micro worst 22.1% ->
     * 20.7%; the held-out half 5.9% -> 5.4% micro median). Waves in step
     * pay that latency every wave, the first included: the launch takes
     * the larger of the two, which is continuous, and monotone in every
     * figure as both are. */
    if (w.load_rounds > 0.0)
        cycles += s * w.memory_delay_cycles / w.load_rounds;
    if (stepped > cycles) {
        cycles = stepped;
        res.assumed |= SIMT_KERNEL_ASSUMED_WAVES_IN_STEP;
    }
    res.execution_s = cycles / r.clock_hz;
    res.time_s = res.execution_s + r.launch_s;
    res.achieved_dram_bandwidth_bytes_per_s = res.execution_s > 0.0 ? res.dram_bytes / res.execution_s : 0.0;

    breakdown(&w, &r, s, warps_total, alone, &res);
    assert(isfinite(res.time_s) && res.time_s >= 0.0);
    assert(res.divergence_serialization >= 1.0);
    *out = res;
    return SIMT_OK;
}

/* --- advice --- */

static void add_advice(struct simt_kernel_result *res, double base_time, double new_time,
                       struct simt_kernel_advice advice)
{
    if (!(new_time > 0.0))
        return;
    advice.estimated_speedup = base_time / new_time;
    if (advice.estimated_speedup < 1.02)
        return;
    /* insert in order, best first, keeping at most SIMT_KERNEL_MAX_ADVICE */
    int n = res->advice_count;
    int at = n;
    while (at > 0 && res->advice[at - 1].estimated_speedup < advice.estimated_speedup)
        at--;
    if (at >= SIMT_KERNEL_MAX_ADVICE)
        return;
    if (n == SIMT_KERNEL_MAX_ADVICE)
        n--;
    for (int i = n; i > at; i--)
        res->advice[i] = res->advice[i - 1];
    res->advice[at] = advice;
    res->advice_count = n + 1;
}

/* Time of a variant, or 0 when it does not run. */
static double variant_time(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                           const struct simt_kernel_request *variant)
{
    struct simt_kernel_result r;
    if (predict_core(gpu, figures, variant, &r, NULL) != SIMT_OK)
        return 0.0;
    return r.time_s;
}

/* Raise occupancy when registers or shared memory limit it: probe each
 * smaller size's occupancy first, predict only where it rises. */
static void advise_occupancy(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                             const struct simt_kernel_request *req, struct simt_kernel_result *res)
{
    struct simt_kernel_request v;
    double base = res->time_s;
    const struct simt_occupancy_result *occ = &res->occupancy;
    struct rates rates;
    simt_figure_mask rates_used = 0;
    simt_kernel_assumed rates_assumed = 0;
    if (occ->occupancy < 1.0 && (occ->limiters & (SIMT_LIMIT_REGISTERS | SIMT_LIMIT_SHARED)) &&
        read_rates(gpu, figures, req, &rates, &rates_used, &rates_assumed, NULL) == SIMT_OK) {
        v = *req;
        int found = 0;
        unsigned limiter = 0;
        double limit_value = 0.0;
        struct simt_kernel_result probe;
        int blocks = 0;
        if (occ->limiters & SIMT_LIMIT_REGISTERS) {
            for (int regs = req->registers_per_thread - 1; regs >= 16 && !found; regs--) {
                v.registers_per_thread = regs;
                if (resident_blocks(gpu, &rates, &v, &blocks) == SIMT_OK &&
                    blocks > occ->active_blocks_per_sm &&
                    predict_core(gpu, figures, &v, &probe, NULL) == SIMT_OK &&
                    probe.occupancy.active_blocks_per_sm > occ->active_blocks_per_sm) {
                    found = 1;
                    limiter = SIMT_LIMIT_REGISTERS;
                    limit_value = regs;
                }
            }
        } else {
            int64_t total = req->static_shared_bytes + req->dynamic_shared_bytes;
            for (int64_t cut = 128; cut <= total && !found; cut += 128) {
                v.dynamic_shared_bytes =
                    req->dynamic_shared_bytes >= cut ? req->dynamic_shared_bytes - cut : 0;
                v.static_shared_bytes = req->dynamic_shared_bytes >= cut
                                            ? req->static_shared_bytes
                                            : req->static_shared_bytes - (cut - req->dynamic_shared_bytes);
                if (resident_blocks(gpu, &rates, &v, &blocks) == SIMT_OK &&
                    blocks > occ->active_blocks_per_sm &&
                    predict_core(gpu, figures, &v, &probe, NULL) == SIMT_OK &&
                    probe.occupancy.active_blocks_per_sm > occ->active_blocks_per_sm) {
                    found = 1;
                    limiter = SIMT_LIMIT_SHARED;
                    limit_value = (double)(total - cut);
                }
            }
        }
        /* the probe that found it is the variant's prediction */
        if (found)
            add_advice(res, base, probe.time_s,
                       (struct simt_kernel_advice){SIMT_ADVICE_OCCUPANCY, -1, occ->occupancy,
                                                   probe.occupancy.occupancy, limiter, limit_value, 0});
    }
}

static void advise(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                   const struct simt_kernel_request *req, struct simt_kernel_result *res)
{
    struct simt_kernel_request v;
    double base = res->time_s;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        if (a->count <= 0.0)
            continue;
        /* pad a conflicted shared tile */
        if (a->space == SIMT_SPACE_SHARED && !a->pattern.explicit_addresses) {
            struct simt_banks_result b;
            if (simt_banks_compute(gpu, &a->pattern, &b, NULL) == SIMT_OK && b.ways > 1 &&
                b.suggested_padding_elements > 0) {
                v = *req;
                int64_t dir = a->pattern.lane_stride_elements < 0 ? -1 : 1;
                v.accesses[i].pattern.lane_stride_elements += dir * b.suggested_padding_elements;
                add_advice(res, base, variant_time(gpu, figures, &v),
                           (struct simt_kernel_advice){SIMT_ADVICE_PAD, i, b.ways,
                                                       (double)b.suggested_padding_elements, 0, 0, 0});
            }
        }
        /* coalesce a wasteful global access */
        if (a->space == SIMT_SPACE_GLOBAL) {
            struct simt_coalescing_result co;
            if (simt_coalescing_compute(gpu, &a->pattern, &co, NULL) == SIMT_OK && co.efficiency < 0.99) {
                v = *req;
                v.accesses[i].pattern.explicit_addresses = 0;
                v.accesses[i].pattern.lane_stride_elements = 1;
                v.accesses[i].pattern.offset_elements = 0;
                add_advice(res, base, variant_time(gpu, figures, &v),
                           (struct simt_kernel_advice){SIMT_ADVICE_COALESCE, i, co.efficiency, 1.0, 0, 0, 0});
            }
        }
        /* widen unit-stride accesses to 16-byte vectors */
        if ((a->space == SIMT_SPACE_GLOBAL || a->space == SIMT_SPACE_SHARED) &&
            !a->pattern.explicit_addresses && a->pattern.lane_stride_elements == 1 &&
            a->pattern.element_bytes < 16 && a->count >= 2.0) {
            double factor = 16.0 / a->pattern.element_bytes;
            if (factor > a->count)
                factor = pow(2.0, floor(log2(a->count)));
            v = *req;
            struct simt_kernel_access *va = &v.accesses[i];
            va->pattern.element_bytes = (int)(a->pattern.element_bytes * factor);
            va->pattern.offset_elements = 0;
            va->count = a->count / factor;
            va->independent = fmax(1.0, a->independent / factor);
            add_advice(res, base, variant_time(gpu, figures, &v),
                       (struct simt_kernel_advice){SIMT_ADVICE_WIDEN, i, a->pattern.element_bytes,
                                                   va->pattern.element_bytes, 0, 0, 0});
        }
        /* more independent loads in flight */
        if (a->op == SIMT_OP_LOAD && a->independent < a->count) {
            v = *req;
            v.accesses[i].independent = fmin(a->count, fmax(4.0, 4.0 * a->independent));
            add_advice(res, base, variant_time(gpu, figures, &v),
                       (struct simt_kernel_advice){SIMT_ADVICE_ILP, i, a->independent,
                                                   v.accesses[i].independent, 0, 0, 0});
        }
    }
    advise_occupancy(gpu, figures, req, res);
    /* restructure a divergent branch */
    if (res->divergence_serialization > 1.0) {
        v = *req;
        simt_branch_init(&v.branch, req->branch.lanes);
        add_advice(
            res, base, variant_time(gpu, figures, &v),
            (struct simt_kernel_advice){SIMT_ADVICE_BRANCH, -1, res->divergence_serialization, 1.0, 0, 0, 0});
    }
}

int simt_kernel_predict(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                        const struct simt_kernel_request *req, struct simt_kernel_result *out,
                        struct simt_diag *diag)
{
    struct simt_kernel_result res;
    int rc = predict_core(gpu, figures, req, &res, diag);
    if (rc != SIMT_OK)
        return rc;
    advise(gpu, figures, req, &res);
    *out = res;
    return SIMT_OK;
}
