/* kernel.c - POST /v1/kernel: one launch from its shape (grid, block,
 * resources, per-thread work), read strictly, predicted by the whole-kernel
 * model; the answer carries time, bound, occupancy, breakdown, traffic and
 * ranked advice. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "occupancy_json.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"
#include "warp_json.h"

#define MAX_BYTES ((int64_t)1 << 40)

static const char *const spaces[] = {"global", "shared", "constant", "local", NULL}; /* enum simt_space */
static const char *const ops[] = {"load", "store", "atomic", NULL};                  /* enum simt_op */

#define K struct simt_kernel_request
static const struct simt_api_field launch_fields[] = {
    SIMT_ROW_RANGE("grid", SIMT_API_SHAPE, SIMT_API_REQUIRED, 1, 2147483647, 1,
                   "Blocks: an integer or a list of up to three."),
    SIMT_ROW_RANGE("block", SIMT_API_SHAPE, SIMT_API_REQUIRED, 1, 1024, 1,
                   "Threads per block: an integer or a list of up to three."),
    SIMT_ROW_INT("dynamic_shared_bytes", 0, 0, MAX_BYTES, 0, K, dynamic_shared_bytes,
                 "Dynamic shared memory per block."),
};
static const struct simt_api_field resource_fields[] = {
    SIMT_ROW_INT("registers_per_thread", SIMT_API_REQUIRED, 0, 1 << 16, 0, K, registers_per_thread,
                 "Registers."),
    SIMT_ROW_INT("static_shared_bytes", 0, 0, MAX_BYTES, 0, K, static_shared_bytes, "Static shared memory."),
    SIMT_ROW_INT("block_barriers", 0, 0, 1024, 1, K, block_barriers, "Named barriers."),
};
static const struct simt_api_field flops_fields[] = {
    SIMT_ROW_NUMBER("fp32", 0, 0.0, 1e15, 0.0, K, flops_fp32, "fp32 flops per thread (an FMA counts 2)."),
    SIMT_ROW_NUMBER("fp64", 0, 0.0, 1e15, 0.0, K, flops_fp64, "fp64 flops per thread."),
    SIMT_ROW_NUMBER("fp16", 0, 0.0, 1e15, 0.0, K, flops_fp16, "fp16 flops per thread."),
    /* tensor cores, one row per enum simt_dtype; 422 where the GPU's tensor cores lack the type */
    SIMT_ROW_NUMBER("tensor_fp64", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_FP64],
                    "Tensor-core fp64 flops per thread (an MMA's 2mnk over the warp's lanes)."),
    SIMT_ROW_NUMBER("tensor_fp32", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_FP32],
                    "Matrix-core fp32 flops per thread (CDNA)."),
    SIMT_ROW_NUMBER("tensor_tf32", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_TF32],
                    "Tensor-core tf32 flops per thread."),
    SIMT_ROW_NUMBER("tensor_fp16", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_FP16],
                    "Tensor-core fp16 flops per thread."),
    SIMT_ROW_NUMBER("tensor_bf16", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_BF16],
                    "Tensor-core bf16 flops per thread."),
    SIMT_ROW_NUMBER("tensor_fp8", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_FP8],
                    "Tensor-core fp8 flops per thread."),
    SIMT_ROW_NUMBER("tensor_int8", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_INT8],
                    "Tensor-core int8 operations per thread."),
    SIMT_ROW_NUMBER("tensor_int4", 0, 0.0, 1e15, 0.0, K, flops_tensor[SIMT_DTYPE_INT4],
                    "Tensor-core int4 operations per thread."),
};
#define A struct simt_kernel_access
static const struct simt_api_field access_fields[] = {
    SIMT_ROW_CHOICE("space", SIMT_API_REQUIRED, spaces, 0, A, space, "Memory space."),
    SIMT_ROW_CHOICE("op", 0, ops, 0, A, op, "Operation; default load."),
    SIMT_ROW_NUMBER("count", 0, 0.0, 1e12, 1.0, A, count, "Times each thread does it."),
    SIMT_ROW_NUMBER("independent", 0, 1.0, 1e12, 1.0, A, independent,
                    "How many of count may be in flight at once."),
    SIMT_ROW_RANGE("repeats", SIMT_API_INTEGER, 0, 0, SIMT_KERNEL_MAX_ACCESSES - 1, 0,
                   "Index of an earlier access whose addresses this one reads again."),
    SIMT_ROW_RANGE(
        "depends_on", SIMT_API_INTEGER, 0, 0, SIMT_KERNEL_MAX_ACCESSES - 1, 0,
        "Index of an earlier access this one waits for: its addresses are computed from that access's "
        "values (a gather's table read after its index load), or it runs in a later loop. Without "
        "it, consecutive global loads in the stride form (not repeats or tables) are in flight "
        "together."),
    SIMT_ROW_NUMBER(
        "distinct_addresses", 0, 1.0, 1e15, 0.0, A, distinct_addresses,
        "Atomics: over how many addresses the whole grid's atomics of this access spread; a global "
        "load: how many distinct elements of a table the whole grid reads; a global store: how many "
        "distinct elements of a table the whole grid writes (a scatter's)."),
    SIMT_WARP_ROW_ELEMENT_BYTES(0),
    SIMT_WARP_ROW_STRIDE,
    SIMT_WARP_ROW_OFFSET,
    SIMT_WARP_ROW_ADDRESSES,
    SIMT_WARP_ROW_ACTIVE,
};
#undef A
static const struct simt_api_field branch_fields[] = {SIMT_BRANCH_ROWS};
static const struct simt_api_field per_thread_fields[] = {
    SIMT_ROW_OBJECT("flops", SIMT_API_OBJECT, 0, flops_fields, "Per precision: {\"fp32\": n}."),
    SIMT_ROW_NUMBER("sfu_ops", 0, 0.0, 1e15, 0.0, K, sfu_ops, "Special-function operations."),
    SIMT_ROW_NUMBER("int_ops", 0, 0.0, 1e15, 0.0, K, int_ops,
                    "Integer ALU instructions per thread: add, logic, shift, compare, address arithmetic."),
    SIMT_ROW_NUMBER("int_mul_ops", 0, 0.0, 1e15, 0.0, K, int_mul_ops,
                    "Integer multiplies and multiply-adds per thread (IMAD, IMUL, and the adds and shifts "
                    "the compiler issues as IMAD): the FMA pipe."),
    SIMT_ROW_NUMBER("alu_chains", 0, 1.0, 1e6, 1.0, K, alu_chains,
                    "Independent dependent chains the thread's floating-point and SFU arithmetic forms."),
    SIMT_ROW_NUMBER("barriers", 0, 0.0, 1e15, 0.0, K, barriers,
                    "Block barriers (__syncthreads) a thread passes; each waits for the block's warps."),
    SIMT_ROW_NUMBER("shuffles", 0, 0.0, 1e15, 0.0, K, shuffles,
                    "Warp shuffles (__shfl_*_sync) a thread executes, in dependent chains (a butterfly "
                    "reduction: 5)."),
    SIMT_ROW_OBJECT("accesses", SIMT_API_ARRAY, 0, access_fields, "The memory accesses a thread makes."),
    SIMT_ROW_OBJECT("branch", SIMT_API_OBJECT, 0, branch_fields, "Divergence, as /v1/divergence."),
};
#undef K
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_OBJECT("launch", SIMT_API_OBJECT, SIMT_API_REQUIRED, launch_fields, "Launch configuration."),
    SIMT_ROW_OBJECT("resources", SIMT_API_OBJECT, SIMT_API_REQUIRED, resource_fields, "What ptxas reports."),
    SIMT_ROW_OBJECT("per_thread", SIMT_API_OBJECT, 0, per_thread_fields, "One thread's work along one path."),
    SIMT_ROW_BOOL("l2_warm", 0, 0, struct simt_kernel_request, l2_warm,
                  "The kernel's data was just written or read (by the launch before, back to back): what "
                  "fits of it is in L2, and no other work's dirty lines are."),
};

/* grid / block: an integer or a list of 1 to 3 integers. */
static int read_dims(struct simt_call *call, json_t *launch, const struct simt_api_field *row, int64_t *dims)
{
    const char *key = row->name;
    const int64_t max = (int64_t)row->max;
    char field[64];
    simt_read_path(field, sizeof field, "launch", key);
    dims[0] = dims[1] = dims[2] = 1;
    json_t *v = json_object_get(launch, key);
    if (v == NULL)
        return simt_call_fail(call, 400, "missing_field", field, "%s is required", field);
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 1 || json_integer_value(v) > max)
            return simt_call_fail(call, 400, "invalid_argument", field, "%s must be 1..%lld", field,
                                  (long long)max);
        dims[0] = (int64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > 3)
        return simt_call_fail(call, 400, "invalid_argument", field,
                              "%s must be an integer or a list of 1 to 3", field);
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *x = json_array_get(v, i);
        if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > max) {
            char item[96];
            snprintf(item, sizeof item, "%s[%d]", field, (int)i);
            return simt_call_fail(call, 400, "invalid_argument", item, "%s must be an integer 1..%lld", item,
                                  (long long)max);
        }
        dims[i] = (int64_t)json_integer_value(x);
    }
    return 0;
}

static int read_access(struct simt_call *call, json_t *item, const char *path, int lanes,
                       struct simt_kernel_access *a)
{
    if (!json_is_object(item))
        return simt_call_fail(call, 400, "invalid_argument", path, "%s must be an object", path);
    int rc = simt_read_check_keys(call, item, path, access_fields, SIMT_COUNT_OF(access_fields));
    if (rc == 0)
        rc = simt_read_fields(call, item, path, access_fields, SIMT_COUNT_OF(access_fields), 0, NULL, a);
    if (rc != 0)
        return rc;
    if (a->space == SIMT_SPACE_CONSTANT && a->op != SIMT_OP_LOAD) {
        char field[192];
        simt_read_path(field, sizeof field, path, "op");
        return simt_call_fail(call, 400, "invalid_argument", field,
                              "constant memory is read-only: op must be load");
    }
    /* repeats: stored as 1 + the index, 0 when absent; the model checks it is earlier */
    int repeats = -1;
    if ((rc = simt_read_int(call, item, path, "repeats", 0, 0, SIMT_KERNEL_MAX_ACCESSES - 1, -1, &repeats)) !=
        0)
        return rc;
    a->repeats_of = repeats + 1;
    /* depends_on: likewise 1 + the index */
    int depends_on = -1;
    if ((rc = simt_read_int(call, item, path, "depends_on", 0, 0, SIMT_KERNEL_MAX_ACCESSES - 1, -1,
                            &depends_on)) != 0)
        return rc;
    a->depends_on = depends_on + 1;
    return simt_api_warp_json_read_access(call, item, path, lanes, 0, &a->pattern);
}

static int read_per_thread(struct simt_call *call, json_t *per_thread, int lanes,
                           struct simt_kernel_request *req)
{
    int rc = simt_read_check_keys(call, per_thread, "per_thread", per_thread_fields,
                                  SIMT_COUNT_OF(per_thread_fields));
    if (rc != 0)
        return rc;
    json_t *flops = NULL, *branch = NULL;
    if ((rc = simt_read_object(call, per_thread, "per_thread", "flops", 0, &flops)) != 0 ||
        (rc = simt_read_object(call, per_thread, "per_thread", "branch", 0, &branch)) != 0)
        return rc;
    if (flops != NULL) {
        rc = simt_read_check_keys(call, flops, "per_thread.flops", flops_fields, SIMT_COUNT_OF(flops_fields));
        if (rc == 0)
            rc = simt_read_fields(call, flops, "per_thread.flops", flops_fields, SIMT_COUNT_OF(flops_fields),
                                  0, NULL, req);
        if (rc != 0)
            return rc;
    }
    rc = simt_read_fields(call, per_thread, "per_thread", per_thread_fields, SIMT_COUNT_OF(per_thread_fields),
                          0, NULL, req);
    if (rc != 0)
        return rc;
    json_t *accesses = json_object_get(per_thread, "accesses");
    if (accesses != NULL) {
        if (!json_is_array(accesses))
            return simt_call_fail(call, 400, "invalid_argument", "per_thread.accesses",
                                  "per_thread.accesses must be a list");
        if (json_array_size(accesses) > SIMT_KERNEL_MAX_ACCESSES)
            return simt_call_fail(call, 400, "invalid_argument", "per_thread.accesses", "at most %d accesses",
                                  SIMT_KERNEL_MAX_ACCESSES);
        for (size_t i = 0; i < json_array_size(accesses); i++) {
            char path[64];
            snprintf(path, sizeof path, "per_thread.accesses[%zu]", i);
            rc = read_access(call, json_array_get(accesses, i), path, lanes, &req->accesses[i]);
            if (rc != 0)
                return rc;
            req->access_count++;
        }
    }
    if (branch != NULL) {
        rc = simt_read_check_keys(call, branch, "per_thread.branch", branch_fields,
                                  SIMT_COUNT_OF(branch_fields));
        if (rc == 0)
            rc = simt_api_warp_json_read_branch(call, branch, "per_thread.branch", lanes, &req->branch);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int read_request(struct simt_call *call, int lanes, struct simt_kernel_request *req)
{
    json_t *launch = NULL, *resources = NULL, *per_thread = NULL;
    int rc;
    if ((rc = simt_read_object(call, call->body, "", "launch", 1, &launch)) != 0 ||
        (rc = simt_read_object(call, call->body, "", "resources", 1, &resources)) != 0 ||
        (rc = simt_read_object(call, call->body, "", "per_thread", 0, &per_thread)) != 0)
        return rc;
    if ((rc = simt_read_check_keys(call, launch, "launch", launch_fields, SIMT_COUNT_OF(launch_fields))) !=
            0 ||
        (rc = simt_read_check_keys(call, resources, "resources", resource_fields,
                                   SIMT_COUNT_OF(resource_fields))) != 0)
        return rc;
    int64_t block[3];
    if ((rc = read_dims(call, launch, &launch_fields[0], req->grid)) != 0 ||
        (rc = read_dims(call, launch, &launch_fields[1], block)) != 0)
        return rc;
    for (int d = 0; d < 3; d++)
        req->block[d] = (int)block[d];
    if ((rc = simt_read_fields(call, launch, "launch", launch_fields, SIMT_COUNT_OF(launch_fields), 0, NULL,
                               req)) != 0 ||
        (rc = simt_read_fields(call, resources, "resources", resource_fields, SIMT_COUNT_OF(resource_fields),
                               0, NULL, req)) != 0)
        return rc;
    if ((rc = simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, req)) != 0)
        return rc;
    if (per_thread != NULL)
        return read_per_thread(call, per_thread, lanes, req);
    return 0;
}

static const char *const space_names[] = {"global", "shared", "constant", "local"};
static const char *const op_names[] = {"load", "store", "atomic"};

/* One piece of advice, an object of the answer's "advice" list. */
static void write_advice(struct simt_jsonw *w, const struct simt_kernel_request *req,
                         const struct simt_kernel_advice *a)
{
    char message[320];
    char what[96] = "";
    if (a->access_index >= 0) {
        const struct simt_kernel_access *x = &req->accesses[a->access_index];
        snprintf(what, sizeof what, "access %d (%s %s)", a->access_index, space_names[x->space],
                 op_names[x->op]);
    }
    switch (a->kind) {
    case SIMT_ADVICE_PAD:
        snprintf(message, sizeof message, "pad the shared tile by %g element%s: %s has %g-way bank conflicts",
                 a->to, a->to > 1.0 ? "s" : "", what, a->from);
        break;
    case SIMT_ADVICE_COALESCE:
        snprintf(message, sizeof message,
                 "coalesce %s: put consecutive lanes on consecutive elements, e.g. through a shared-memory "
                 "tile (it uses %.0f%% of the bytes it moves)",
                 what, 100.0 * a->from);
        break;
    case SIMT_ADVICE_WIDEN:
        snprintf(message, sizeof message, "widen %s from %g-byte to %g-byte vector accesses (e.g. float4)",
                 what, a->from, a->to);
        break;
    case SIMT_ADVICE_ILP:
        snprintf(message, sizeof message, "add ILP: let %g of %s's loads be in flight at once instead of %g",
                 a->to, what, a->from);
        break;
    case SIMT_ADVICE_OCCUPANCY:
        if (a->limiter == SIMT_LIMIT_REGISTERS)
            snprintf(message, sizeof message,
                     "raise occupancy from %.3g to %.3g: use at most %g registers per thread (e.g. "
                     "__launch_bounds__)",
                     a->from, a->to, a->limit_value);
        else
            snprintf(message, sizeof message,
                     "raise occupancy from %.3g to %.3g: use at most %g bytes of shared "
                     "memory per block",
                     a->from, a->to, a->limit_value);
        break;
    case SIMT_ADVICE_BRANCH:
        snprintf(
            message, sizeof message,
            "restructure the divergent branch: warps run %.3g paths one after another; make lanes of a warp "
            "take the same path (e.g. sort or bin the work by path)",
            a->from);
        break;
    default:
        snprintf(message, sizeof message, "change %s", what);
        break;
    }
    static const char *const kinds[] = {"pad", "coalesce", "widen", "ilp", "occupancy", "branch"};
    simt_jsonw_object_begin(w);
    simt_jsonw_key_string(w, "message", message);
    simt_jsonw_key_real(w, "estimated_speedup", a->estimated_speedup);
    simt_jsonw_key_string(w, "kind", kinds[a->kind]);
    if (a->access_index >= 0)
        simt_jsonw_key_int(w, "access", a->access_index);
    simt_jsonw_object_end(w);
}

/* What the kernel model assumed (simt_kernel_result.assumed), in the order
 * the answer lists them. */
static const struct {
    simt_kernel_assumed bit;
    const char *text;
} kernel_assumed[] = {
    {SIMT_KERNEL_ASSUMED_COLD_DRAM,
     "global data comes from DRAM once per launch (nothing left in L2 by earlier launches), and the dirty "
     "lines its fills evict are written back"},
    {SIMT_KERNEL_ASSUMED_NO_REUSE,
     "a strided global access in a one-row block: the rest of each sector it touches serves no other warp"},
    {SIMT_KERNEL_ASSUMED_ROW_REUSE,
     "a strided global access in a multi-row block is a column of a 2D tile: the block's other rows use the "
     "rest of each sector, merged in L2 (DRAM bytes at most the per-warp sectors divided by the rows)"},
    {SIMT_KERNEL_ASSUMED_FMA, "flops are FMAs: 2 flops per instruction (4 for packed fp16)"},
    {SIMT_KERNEL_ASSUMED_DEPENDENT_ALU,
     "arithmetic latency: one dependent chain per thread (each instruction waits for the previous)"},
    {SIMT_KERNEL_ASSUMED_PARTIAL_WARP, "the block's last warp is partial and priced as a full warp"},
    {SIMT_KERNEL_ASSUMED_LOCAL_L1, "local memory (spills) hits in L1"},
    {SIMT_KERNEL_ASSUMED_CONSTANT_L1, "constant cache: distinct addresses served one after another at "
                                      "constant_requests_per_s; latency taken as L1's"},
    {SIMT_KERNEL_ASSUMED_L2_LATENCY,
     "L2 latency: absent from the GPU record; an L2 hit is taken to cost a DRAM access"},
    {SIMT_KERNEL_ASSUMED_SRAM_LATENCY,
     "shared memory and L1 are one SRAM: the record lacks one of their latencies and the other stands in"},
    {SIMT_KERNEL_ASSUMED_NO_ROW_LIMIT,
     "DRAM row activations not limited: the GPU record has no measured dram_row_activations_per_s, so "
     "accesses 256 B or more apart are priced by their bytes alone (on an H200 such reads reach 60% of the "
     "read bandwidth)"},
    {SIMT_KERNEL_ASSUMED_REPEAT_L1, "a repeated access hits L1: what the SM's resident warps read with the "
                                    "access it repeats fits in the L1 left beside their shared memory"},
    {SIMT_KERNEL_ASSUMED_REPEAT_L2,
     "a repeated access hits L2: its working set exceeds the SM's L1 but the whole wave's fits in L2"},
    {SIMT_KERNEL_ASSUMED_REPEAT_L1_PART,
     "a repeated access hits L1 only in part: what the SM's resident warps read with the access it repeats "
     "is "
     "past the share of the L1 beside their shared memory that a re-read finds whole (repeat_whole_fraction "
     "of "
     "it), so the share of its reads that hit L1 falls linearly to none when the set fills that L1; the rest "
     "go to L2 (by the L2's rule for a repeat) or DRAM"},
    {SIMT_KERNEL_ASSUMED_REPEAT_L2_PART,
     "a repeated access hits L2 only in part: the wave's working set exceeds the SM's L1 and is past the "
     "share of L2 a re-read finds whole (repeat_whole_fraction of the reuse share), so the share of its "
     "reads that hit falls linearly to none at the reuse share (l2_reuse_fraction of l2_bytes); the rest "
     "are read from DRAM again"},
    {SIMT_KERNEL_ASSUMED_REPEAT_DRAM,
     "a repeated access misses: the wave's working set exceeds L2, so it is read from DRAM again"},
    {SIMT_KERNEL_ASSUMED_L2_WARM, "l2_warm: the launch's global data fits in L2 and is there already; no "
                                  "DRAM traffic, L2 latency and bandwidth"},
    {SIMT_KERNEL_ASSUMED_L2_WARM_MISS,
     "l2_warm, but the launch's data exceeds L2: streamed through an LRU cache, none of it is left there, so "
     "it comes from DRAM (with no other work's dirty lines to write back)"},
    {SIMT_KERNEL_ASSUMED_INT_PIPE,
     "int_ops take issue slots and the INT32 pipe (int32_ops_per_s); they are off the dependent chain"},
    {SIMT_KERNEL_ASSUMED_PARTIAL_STORE, "a store that leaves part of each DRAM granule unwritten is a "
                                        "read-modify-write: the granule is read, merged and written back"},
    {SIMT_KERNEL_ASSUMED_STORE_TABLE,
     "stores over distinct_addresses that fit in L2 are written there (the slices allocate the lines "
     "without reading DRAM); the dirty table is written back after the launch"},
    {SIMT_KERNEL_ASSUMED_STORE_TABLE_PART,
     "stores over distinct_addresses too many for L2 to keep whole (a table written at random keeps a share "
     "of its lines, as a gather's does): a store to a line L2 keeps lands there; one to a line it does not "
     "keep, or to a sector of a kept line not yet written in its stay, goes back to DRAM as a "
     "read-modify-write of that sector"},
    {SIMT_KERNEL_ASSUMED_FP64_HOLDS_ISSUE,
     "an FP64 instruction holds its warp scheduler while the FP64 pipe takes it (fp64_issue_hold_fraction): "
     "the scheduler issues nothing else meanwhile, so a loop's other instructions cost their issue slots on "
     "top of the FP64 pipe's time, not under it"},
    {SIMT_KERNEL_ASSUMED_WAVES_IN_STEP,
     "the pipes, not memory, set the pace: each wave's warps share them evenly and finish together, so the "
     "next wave's blocks issue their first loads together and wait out that round's latency with nothing "
     "to run (one load latency a wave on top of the pipe work)"},
    {SIMT_KERNEL_ASSUMED_PARTIAL_SECTOR_STORE,
     "a store that writes part of an L2 sector costs the slice two requests: it reads the sector, merges "
     "and writes it"},
    {SIMT_KERNEL_ASSUMED_L2_REQUESTS,
     "L2 hits take a slice request per line a warp touches (l2_requests_per_s): scattered sectors cost "
     "a request each, whatever their bytes"},
    {SIMT_KERNEL_ASSUMED_NO_L2_REQUEST_RATE,
     "scattered L2 hits, but the GPU record has no measured l2_requests_per_s: priced by their bytes "
     "alone, which is optimistic"},
    {SIMT_KERNEL_ASSUMED_WARP_LINES,
     "a round of loads touches more lines than one warp keeps in flight (warp_lines_in_flight): it goes out "
     "in waves, each waiting its latency"},
    {SIMT_KERNEL_ASSUMED_NO_INT_PIPE,
     "int_ops: the GPU record has no INT32 figure; they take issue slots only"},
    {SIMT_KERNEL_ASSUMED_INT_MUL_PIPE, "int_mul_ops run on the FMA pipe (int32_mul_ops_per_clock_per_sm) and "
                                       "take its FP32 issue; off the dependent chain"},
    {SIMT_KERNEL_ASSUMED_NO_INT_MUL_RATE,
     "int_mul_ops: the GPU record has no int32_mul_ops_per_clock_per_sm; priced at the INT32 rate"},
    {SIMT_KERNEL_ASSUMED_ATOMIC_SLICES,
     "contended atomics: each warp instruction sends one request per line its lanes touch to the L2 slice "
     "holding the line; a slice serves a request's lanes at l2_slice_atomic_lanes_per_clock, lanes on one "
     "address one after another, and the addresses spread over one slice per l2_atomic_slice_bytes"},
    {SIMT_KERNEL_ASSUMED_ATOMIC_CONTENTION, "contended atomics: the lanes on one address are served one "
                                            "after another at the L2 (l2_same_address_atomics_per_clock)"},
    {SIMT_KERNEL_ASSUMED_ATOMIC_L2,
     "atomics over distinct_addresses that fit in L2 are served there (no DRAM traffic); every line request "
     "takes a slot of the L2's atomic units (l2_atomics_per_clock)"},
    {SIMT_KERNEL_ASSUMED_NO_ATOMIC_RATE,
     "distinct_addresses given, but the GPU record has no l2_same_address_atomics_per_clock: contention "
     "across warps not priced"},
    {SIMT_KERNEL_ASSUMED_TENSOR_PIPE,
     "tensor flops run on the SM's tensor pipe at the GPU's dense tensor figure for their type / SMs / "
     "clock, one warp instruction per mma.sync shape (m16n8k16 for 16-bit types), MMA latency hidden by "
     "independent accumulators; mma.sync operands come from registers loaded from shared memory (the "
     "request's shared accesses), and wgmma reading its operands from shared memory directly is priced at "
     "the same pipe rate"},
    {SIMT_KERNEL_ASSUMED_TENSOR_FEW_WARPS,
     "fewer warps resident per SM than warp schedulers: an MMA issues on its warp's own scheduler, so the "
     "tensor pipe reaches only warps / schedulers of its rate"},
    {SIMT_KERNEL_ASSUMED_BARRIERS,
     "each block barrier holds a warp until its block's last warp arrives: the barrier's latency plus its "
     "block's warps' arrivals, which the SM's barrier unit takes one at a time for every resident block "
     "(barrier_latency_cycles, barrier_cycles_per_warp); the block's barrier takes the SM's data path "
     "(barrier_data_path_cycles), and a barrier after shared stores waits for them to land; the SM's "
     "resident blocks, alike and started together, pass their barriers together, so a wave with memory work "
     "takes at least its memory phase and its barrier phases one after the other, each barrier also waiting "
     "for the other resident blocks' arrivals as far as their loads came back together (1 - the DRAM "
     "utilisation)"},
    {SIMT_KERNEL_ASSUMED_NO_BARRIER_FIGURES,
     "barriers: the GPU record has no barrier figures; they take issue slots only"},
    {SIMT_KERNEL_ASSUMED_SHUFFLES, "warp shuffles: one data-path wavefront each (32 lanes a clock per SM), "
                                   "one after another in a dependent chain (shuffle_latency_cycles each)"},
    {SIMT_KERNEL_ASSUMED_SHUFFLE_LATENCY, "shuffle latency: absent from the GPU record; the shared-memory "
                                          "latency stands in (shuffles cross the same data path)"},
    {SIMT_KERNEL_ASSUMED_NO_LAUNCH, "launch overhead: 0 (the GPU record has no launch_overhead_s)"},
};

static void kernel_assumptions(struct simt_call *call, const struct simt_kernel_result *r)
{
    for (size_t i = 0; i < sizeof kernel_assumed / sizeof kernel_assumed[0]; i++)
        if (r->assumed & kernel_assumed[i].bit)
            simt_call_assume(call, "%s", kernel_assumed[i].text);
    simt_call_assume(call,
                     "stores do not stall the warp; each dependent round of loads waits for its latency");
    if (r->loads_together)
        simt_call_assume(call,
                         "consecutive global loads whose addresses follow from the thread index (the stride "
                         "form; not a repeat, a table or depends_on) are issued together: each round of "
                         "them waits for the slowest once");
    simt_call_assume(
        call, "resident warps form a closed queueing network over issue, pipes, the L1/shared data "
              "path and the SM's share of L2, DRAM bandwidth and DRAM row activations (mean-value analysis)");
}

static json_t *answer_kernel(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    int lanes = simt_api_warp_json_lanes(&gpu->spec);
    static struct simt_kernel_request zero;
    struct simt_kernel_request req = zero;
    simt_kernel_request_init(&req, lanes);
    if (read_request(call, lanes, &req) != 0)
        return NULL;
    struct simt_kernel_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_kernel_predict(&gpu->spec, &gpu->figures, &req, &r, &diag);
    if (rc != SIMT_OK) {
        simt_call_fail_diag(call, rc, "", &diag);
        return NULL;
    }
    /* written as text, members in the order the answer has always had */
    struct simt_jsonw *w = simt_call_write_begin(call);
    if (w == NULL)
        return NULL;
    simt_jsonw_key_real(w, "time_s", r.time_s);
    simt_jsonw_key_string(w, "bound", simt_kernel_bound_name(r.bound));
    simt_jsonw_key(w, "occupancy");
    simt_jsonw_object_begin(w);
    if (call->has_gpu)
        simt_jsonw_key_string(w, "gpu", call->gpu.record->id);
    simt_api_occupancy_write(w, &gpu->spec, &r.occupancy);
    simt_jsonw_key_real(w, "waves", r.waves);
    simt_jsonw_object_end(w);
    simt_jsonw_key(w, "breakdown");
    simt_jsonw_object_begin(w);
    static const char *const keys[SIMT_BOUND_COUNT] = {"dram_s", "l2_s",      "shared_s", "compute_s",
                                                       "sfu_s",  "latency_s", "launch_s"};
    for (int b = 0; b < SIMT_BOUND_COUNT; b++)
        simt_jsonw_key_real(w, keys[b], r.breakdown_s[b]);
    simt_jsonw_key_real(w, "issue_s", r.issue_s);
    simt_jsonw_key_real(w, "fp32_s", r.fp32_s);
    simt_jsonw_key_real(w, "fp64_s", r.fp64_s);
    simt_jsonw_key_real(w, "fp16_s", r.fp16_s);
    simt_jsonw_key_real(w, "constant_s", r.constant_s);
    simt_jsonw_key_real(w, "int32_s", r.int32_s);
    simt_jsonw_key_real(w, "tensor_s", r.tensor_s);
    simt_jsonw_object_end(w);
    simt_jsonw_key(w, "traffic");
    simt_jsonw_object_begin(w);
    simt_jsonw_key_real(w, "dram_bytes", r.dram_bytes);
    simt_jsonw_key_real(w, "l2_bytes", r.l2_bytes);
    simt_jsonw_key_real(w, "useful_bytes", r.useful_bytes);
    simt_jsonw_key_real(w, "shared_wavefronts", r.shared_wavefronts);
    simt_jsonw_key_real(w, "l1_wavefronts", r.l1_wavefronts);
    simt_jsonw_key_real(w, "warp_instructions", r.warp_instructions);
    simt_jsonw_object_end(w);
    simt_jsonw_key(w, "advice");
    simt_jsonw_array_begin(w);
    for (int i = 0; i < r.advice_count; i++)
        write_advice(w, &req, &r.advice[i]);
    simt_jsonw_array_end(w);
    simt_jsonw_key_real(w, "execution_s", r.execution_s);
    simt_jsonw_key_int(w, "blocks", r.blocks);
    simt_jsonw_key_real(w, "waves", r.waves);
    simt_jsonw_key_real(w, "divergence_serialization", r.divergence_serialization);
    simt_jsonw_key_real(w, "latency_rounds_per_warp", r.latency_rounds_per_warp);
    if (r.latency_rounds_per_warp > 0.0)
        simt_jsonw_key_real(w, "loaded_latency_cycles", r.loaded_latency_cycles);
    simt_jsonw_key_real(w, "achieved_dram_bandwidth_bytes_per_s", r.achieved_dram_bandwidth_bytes_per_s);
    kernel_assumptions(call, &r);
    simt_call_assume_figures(call, &gpu->figures, r.figures_used);
    return simt_call_write_end(call);
}

const struct simt_api_endpoint simt_api_kernel_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/kernel", answer_kernel, fields,
    "One launch from its shape: time, bound, occupancy, breakdown, traffic and ranked advice.");
