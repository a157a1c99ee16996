/* occupancy.c - blocks of a kernel resident on one SM, resource by resource,
 * for NVIDIA compute capability 7.0 to 12.x, equal to what the CUDA
 * runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor answers; the block
 * size cudaOccupancyMaxPotentialBlockSize suggests; and AMD CDNA workgroups
 * and waves per CU from AMD's documented allocation rules. Pure: every
 * number comes from struct simt_gpu_spec, nothing is allocated, no I/O.
 *
 * NVIDIA rules, and where they are written down:
 *  - Warps. A block occupies ceil(threads / warp size) warp slots; an SM
 *    holds max_warps_per_sm of them (CUDA C++ Programming Guide, "Hardware
 *    Multithreading" and the per-compute-capability table "Technical
 *    Specifications": maximum resident warps, blocks and threads per SM).
 *  - Registers. Registers are allocated per warp: registers per thread times
 *    the warp size, rounded up to the register allocation unit (256 on 7.x to
 *    12.x). The register file is split among the SM's sub-partitions and a
 *    warp takes its registers from one of them, so the warps an SM holds are
 *    (registers per partition / registers per warp, rounded down) times the
 *    partitions (CUDA Occupancy Calculator, "register allocation
 *    granularity"; Volta tuning guide: four processing blocks each with its
 *    own 16K-register file). A block must fit the per-block register limit;
 *    the launch check counts the block's warps rounded up to a multiple of
 *    the partitions, since it assumes every partition is filled at once. More
 *    registers per thread than the per-thread maximum cannot launch.
 *  - Shared memory. A block takes static + dynamic + the bytes the driver
 *    reserves per block (1 KiB from 8.0 on: Programming Guide, "Shared Memory"
 *    sections of Compute Capability 8.x/9.0/10.0/12.0), rounded up to the
 *    shared allocation unit. Per block it may use the default limit (48 KiB)
 *    or, if the kernel opted in through cudaFuncAttributeMaxDynamicSharedMemorySize,
 *    the opt-in limit; the reserved bytes come on top of either. Static
 *    shared memory is itself limited to 48 KiB (larger needs dynamic memory
 *    and opt-in), dynamic shared memory to the kernel's
 *    max_dynamic_shared_bytes, and static + max dynamic to the opt-in limit
 *    (cudaFuncSetAttribute's documentation). The SM's shared capacity is the
 *    carveout: the preference (cudaFuncAttributePreferredSharedMemoryCarveout,
 *    a percentage of the largest capacity; the default asks for the largest)
 *    rounded up to the next capacity the architecture supports (Programming
 *    Guide: "the percentage is rounded up to the nearest supported shared
 *    memory capacity"). The preference is only a hint: when one block needs
 *    more than it, the driver takes the smallest capacity that fits a block.
 *  - Blocks. At most max_blocks_per_sm resident blocks.
 *  - Barriers (9.0 on). A block uses block_barriers of the SM's named
 *    barriers (max_barriers_per_sm); up to 16 per block (PTX ISA, bar/barrier:
 *    barrier ids 0..15).
 * Limiters are every limit equal to the result, as the calculator reports.
 *
 * AMD CDNA rules (MI300X, gfx942): HIP's hipOccupancyMaxActiveBlocksPerMultiprocessor
 * (ROCm clr, hip_platform.cpp) and the LLVM AMDGPU backend's occupancy
 * (AMDGPUUsage, "Occupancy"; GCNSubtarget): a wave's VGPRs (AccVGPRs
 * included: one unified file of vgprs_per_simd_lane per lane of a SIMD) are
 * allocated in units of vgpr_allocation_unit; waves per SIMD from VGPRs =
 * file / allocated VGPRs; from SGPRs = sgprs_per_simd / SGPRs rounded up to
 * sgpr_allocation_unit; both capped by max_waves_per_simd. A CU holds
 * simds_per_cu times that many waves; a workgroup of ceil(size / 64) waves is
 * placed whole on one CU. LDS: workgroups per CU = LDS per CU / the
 * workgroup's LDS rounded up to the LDS allocation granule, at most
 * max_lds_bytes_per_workgroup each. The hardware's workgroups-per-CU cap is
 * max_blocks_per_sm when the database gives one. Assumptions stated in the
 * result: SGPR use unknown means SGPRs do not limit. */
#include "occupancy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* PTX ISA: named barriers 0..15 per CTA on every architecture. */
#define MAX_BARRIERS_PER_BLOCK 16

void simt_occupancy_request_init(struct simt_occupancy_request *req)
{
    memset(req, 0, sizeof *req);
    req->max_dynamic_shared_bytes = -1;
    req->carveout_percent = -1;
    req->block_barriers = 1;
}

void simt_suggest_request_init(struct simt_suggest_request *req)
{
    memset(req, 0, sizeof *req);
    req->carveout_percent = -1;
    req->block_barriers = 1;
}

static void vset_diag(struct simt_diag *diag, const char *field, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void vset_diag(struct simt_diag *diag, const char *field, const char *fmt, va_list ap)
{
    memset(diag, 0, sizeof *diag);
    snprintf(diag->field, sizeof diag->field, "%s", field);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
}

/* The first reason a configuration cannot launch; later ones are dropped so
 * that diag names the first field in request order. */
struct refusal {
    int refused;
    struct simt_diag *diag;
};

static void refuse(struct refusal *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void refuse(struct refusal *r, const char *field, const char *fmt, ...)
{
    if (r->refused++ || r->diag == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vset_diag(r->diag, field, fmt, ap);
    va_end(ap);
}

static int div_up(int x, int y)
{
    return (x + y - 1) / y;
}

static int64_t round_up64(int64_t x, int64_t unit)
{
    if (unit <= 1)
        return x;
    return (x + unit - 1) / unit * unit;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* Blocks per SM as an int, from a 64-bit quotient (never over INT_MAX here,
 * but the conversion is explicit). */
static int clamp_int(int64_t v)
{
    if (v > INT_MAX)
        return INT_MAX;
    if (v < 0)
        return 0;
    return (int)v;
}

static int check_request(const struct simt_occupancy_request *req, struct simt_diag *diag)
{
    if (req->block_size <= 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "block_size", "block_size must be at least 1");
    if (req->registers_per_thread < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "registers_per_thread",
                              "registers_per_thread must not be negative");
    if (req->static_shared_bytes < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "static_shared_bytes",
                              "static_shared_bytes must not be negative");
    if (req->dynamic_shared_bytes < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "dynamic_shared_bytes",
                              "dynamic_shared_bytes must not be negative");
    if (req->max_dynamic_shared_bytes < -1)
        return simt_diag_fail(diag, SIMT_EINVAL, "max_dynamic_shared_bytes",
                              "max_dynamic_shared_bytes must be -1 (the GPU's opt-in limit) or a byte count");
    if (req->carveout_percent < -1 || req->carveout_percent > 100)
        return simt_diag_fail(diag, SIMT_EINVAL, "carveout_percent",
                              "carveout_percent must be -1 (driver default) or 0..100");
    if (req->block_barriers < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "block_barriers", "block_barriers must not be negative");
    if (req->grid_size < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "grid_size", "grid_size must not be negative");
    if (req->sgprs_per_wave < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "sgprs_per_wave", "sgprs_per_wave must not be negative");
    return SIMT_OK;
}

/* Fields every vendor needs; a zero there is a database hole, not a GPU. */
/* A figure of the GPU record a computation needs ("gpu.<field>"). */
struct needed {
    const char *name;
    int64_t value;
};

/* SIMT_EINVAL naming the first figure that is not positive. */
static int require_positive(const struct needed *need, size_t count, struct simt_diag *diag)
{
    for (size_t i = 0; i < count; i++) {
        if (need[i].value <= 0)
            return simt_diag_fail(diag, SIMT_EINVAL, need[i].name,
                                  "the GPU record lacks %s (must be positive)", need[i].name + 4);
    }
    return SIMT_OK;
}

static int check_gpu_common(const struct simt_gpu_spec *gpu, struct simt_diag *diag)
{
    const struct needed need[] = {
        {"gpu.sm_count", gpu->sm_count},
        {"gpu.warp_size", gpu->warp_size},
        {"gpu.max_threads_per_block", gpu->max_threads_per_block},
    };
    return require_positive(need, sizeof need / sizeof need[0], diag);
}

static int check_gpu_nvidia(const struct simt_gpu_spec *gpu, struct simt_diag *diag)
{
    const struct needed need[] = {
        {"gpu.max_warps_per_sm", gpu->max_warps_per_sm},
        {"gpu.max_blocks_per_sm", gpu->max_blocks_per_sm},
        {"gpu.registers_per_sm", gpu->registers_per_sm},
        {"gpu.max_registers_per_block", gpu->max_registers_per_block},
        {"gpu.max_registers_per_thread", gpu->max_registers_per_thread},
        {"gpu.shared_bytes_per_sm", gpu->shared_bytes_per_sm},
        {"gpu.shared_bytes_per_block", gpu->shared_bytes_per_block},
    };
    return require_positive(need, sizeof need / sizeof need[0], diag);
}

/* The smallest supported carveout of at least `bytes`; -1 when none is. A
 * record without a carveout list has one capacity, shared_bytes_per_sm. */
static int64_t snap_carveout(const struct simt_gpu_spec *gpu, int64_t bytes)
{
    if (gpu->shared_carveout_count <= 0)
        return bytes <= gpu->shared_bytes_per_sm ? gpu->shared_bytes_per_sm : -1;
    int64_t best = -1;
    for (int i = 0; i < gpu->shared_carveout_count && i < SIMT_MAX_CARVEOUTS; i++) {
        int64_t c = gpu->shared_carveout_bytes[i];
        if (c >= bytes && (best < 0 || c < best))
            best = c;
    }
    return best;
}

static void finish(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                   int warps_per_block, struct simt_occupancy_result *out)
{
    int blocks = min_int(min_int(out->limit_warps, out->limit_registers),
                         min_int(min_int(out->limit_shared, out->limit_blocks), out->limit_barriers));
    out->active_blocks_per_sm = blocks;
    out->limiters = 0;
    if (blocks == out->limit_warps)
        out->limiters |= SIMT_LIMIT_WARPS;
    if (blocks == out->limit_registers)
        out->limiters |= SIMT_LIMIT_REGISTERS;
    if (blocks == out->limit_shared)
        out->limiters |= SIMT_LIMIT_SHARED;
    if (blocks == out->limit_blocks)
        out->limiters |= SIMT_LIMIT_BLOCKS;
    if (blocks == out->limit_barriers)
        out->limiters |= SIMT_LIMIT_BARRIERS;
    out->active_warps_per_sm = blocks * warps_per_block;
    out->occupancy =
        out->max_warps_per_sm > 0 ? (double)out->active_warps_per_sm / (double)out->max_warps_per_sm : 0.0;
    if (req->grid_size > 0 && blocks > 0)
        out->waves = (double)req->grid_size / ((double)blocks * (double)gpu->sm_count);
    else
        out->waves = 0.0;
}

/* When no limit refused but one still comes out at zero (a database whose
 * numbers cannot hold even one block), name the resource. */
static void refuse_zero_limits(const struct simt_occupancy_result *out, struct refusal *r)
{
    if (out->limit_warps == 0)
        refuse(r, "block_size", "a block of this size does not fit the SM's warp slots");
    if (out->limit_registers == 0)
        refuse(r, "registers_per_thread", "not one block fits the SM's register file");
    if (out->limit_shared == 0)
        refuse(r, "dynamic_shared_bytes", "not one block fits the SM's shared memory");
    if (out->limit_blocks == 0)
        refuse(r, "block_size", "the GPU holds no blocks per SM");
    if (out->limit_barriers == 0)
        refuse(r, "block_barriers", "not one block fits the SM's barriers");
}

static void nvidia_shared(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                          struct simt_occupancy_result *out, struct refusal *r)
{
    const int64_t static_bytes = req->static_shared_bytes;
    const int64_t dynamic_bytes = req->dynamic_shared_bytes;
    const int64_t reserved = gpu->reserved_shared_bytes_per_block;
    const int64_t default_limit = gpu->shared_bytes_per_block;
    const int64_t optin_limit =
        gpu->shared_bytes_per_block_optin > default_limit ? gpu->shared_bytes_per_block_optin : default_limit;
    int ok = 1;

    /* The carveout the preference alone asks for. */
    int64_t wanted = gpu->shared_bytes_per_sm;
    if (req->carveout_percent < 0)
        out->assumed |= SIMT_OCCUPANCY_ASSUMED_CARVEOUT;
    else
        wanted = (int64_t)req->carveout_percent * gpu->shared_bytes_per_sm / 100;
    int64_t carveout = snap_carveout(gpu, wanted);
    if (carveout < 0)
        carveout = gpu->shared_bytes_per_sm;
    out->shared_carveout_bytes = carveout;

    if (static_bytes > default_limit) {
        refuse(r, "static_shared_bytes",
               "static shared memory is limited to %lld bytes per block; more needs dynamic shared "
               "memory and opt-in",
               (long long)default_limit);
        ok = 0;
    }
    int64_t max_dynamic = req->max_dynamic_shared_bytes;
    if (ok) {
        if (max_dynamic < 0) {
            max_dynamic = optin_limit - static_bytes;
            out->assumed |= SIMT_OCCUPANCY_ASSUMED_MAX_DYNAMIC;
        } else if (max_dynamic > optin_limit - static_bytes) {
            refuse(r, "max_dynamic_shared_bytes",
                   "max_dynamic_shared_bytes %lld plus static %lld exceeds the opt-in limit of %lld "
                   "bytes per block",
                   (long long)max_dynamic, (long long)static_bytes, (long long)optin_limit);
            ok = 0;
        }
    }
    if (ok && dynamic_bytes > max_dynamic) {
        refuse(r, "dynamic_shared_bytes", "dynamic_shared_bytes %lld exceeds the kernel's maximum of %lld",
               (long long)dynamic_bytes, (long long)max_dynamic);
        ok = 0;
    }
    if (!ok) {
        /* what would be allocated, when the numbers are in a sane range */
        if (static_bytes <= INT32_MAX && dynamic_bytes <= INT32_MAX)
            out->shared_bytes_per_block =
                round_up64(static_bytes + dynamic_bytes + reserved, gpu->shared_allocation_unit_bytes);
        out->limit_shared = 0;
        return;
    }

    /* The kernel opted in when the most it can ask for passes the default. */
    const int opted_in = static_bytes + reserved + max_dynamic > default_limit;
    const int64_t block_limit = (opted_in ? optin_limit : default_limit) + reserved;
    const int64_t allocated =
        round_up64(static_bytes + dynamic_bytes + reserved, gpu->shared_allocation_unit_bytes);
    out->shared_bytes_per_block = allocated;
    if (allocated > block_limit) {
        refuse(r, dynamic_bytes > 0 ? "dynamic_shared_bytes" : "static_shared_bytes",
               "a block needs %lld bytes of shared memory (reserved bytes and rounding included); "
               "the limit is %lld",
               (long long)allocated, (long long)block_limit);
        out->limit_shared = 0;
        return;
    }
    /* The preference is a hint: a block that needs more gets the smallest
     * capacity that holds it. */
    if (allocated > carveout) {
        carveout = snap_carveout(gpu, allocated);
        if (carveout < 0) {
            refuse(r, dynamic_bytes > 0 ? "dynamic_shared_bytes" : "static_shared_bytes",
                   "a block needs %lld bytes of shared memory, more than any carveout of this GPU",
                   (long long)allocated);
            out->limit_shared = 0;
            return;
        }
        out->shared_carveout_bytes = carveout;
    }
    out->limit_shared = allocated > 0 ? clamp_int(carveout / allocated) : SIMT_OCCUPANCY_NO_LIMIT;
}

static int nvidia_compute(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                          struct simt_occupancy_result *out, struct simt_diag *diag)
{
    int rc = check_gpu_nvidia(gpu, diag);
    if (rc != SIMT_OK)
        return rc;

    struct refusal r = {0, diag};
    const int warp = gpu->warp_size;
    const int warps_per_block = div_up(req->block_size, warp);
    const int partitions = gpu->register_file_partitions > 0 ? gpu->register_file_partitions : 1;

    out->max_warps_per_sm = gpu->max_warps_per_sm;

    /* warps */
    if (req->block_size > gpu->max_threads_per_block) {
        refuse(&r, "block_size", "block_size %d exceeds the %d threads a block may have", req->block_size,
               gpu->max_threads_per_block);
        out->limit_warps = 0;
    } else {
        out->limit_warps = gpu->max_warps_per_sm / warps_per_block;
    }

    /* registers */
    if (req->registers_per_thread > gpu->max_registers_per_thread) {
        refuse(&r, "registers_per_thread", "registers_per_thread %d exceeds the maximum of %d",
               req->registers_per_thread, gpu->max_registers_per_thread);
        out->limit_registers = 0;
    } else {
        const int64_t per_warp =
            round_up64((int64_t)req->registers_per_thread * warp, gpu->register_allocation_unit);
        const int64_t per_block = per_warp * warps_per_block;
        const int64_t per_block_checked =
            per_warp * (int64_t)(div_up(warps_per_block, partitions) * partitions);
        out->registers_per_block = per_block;
        if (per_block > gpu->max_registers_per_block || per_block_checked > gpu->max_registers_per_block) {
            refuse(&r, "registers_per_thread",
                   "a block of %d threads at %d registers per thread needs %lld registers (%lld as the "
                   "launch check counts them, warps rounded to %d partitions); the limit per block is %d",
                   req->block_size, req->registers_per_thread, (long long)per_block,
                   (long long)per_block_checked, partitions, gpu->max_registers_per_block);
            out->limit_registers = 0;
        } else if (per_warp == 0) {
            out->limit_registers = SIMT_OCCUPANCY_NO_LIMIT;
        } else {
            const int64_t warps_per_partition = (int64_t)(gpu->registers_per_sm / partitions) / per_warp;
            out->limit_registers = clamp_int(warps_per_partition * partitions / warps_per_block);
        }
    }

    /* shared memory */
    nvidia_shared(gpu, req, out, &r);

    /* blocks */
    out->limit_blocks = gpu->max_blocks_per_sm;

    /* barriers: a limit from Hopper on, where the record gives the SM's count */
    if (req->block_barriers > MAX_BARRIERS_PER_BLOCK) {
        refuse(&r, "block_barriers", "a block may use at most %d named barriers", MAX_BARRIERS_PER_BLOCK);
        out->limit_barriers = 0;
    } else if (gpu->compute_major >= 9 && gpu->max_barriers_per_sm > 0 && req->block_barriers > 0) {
        out->limit_barriers = gpu->max_barriers_per_sm / req->block_barriers;
    } else {
        out->limit_barriers = SIMT_OCCUPANCY_NO_LIMIT;
    }

    if (!r.refused)
        refuse_zero_limits(out, &r);
    finish(gpu, req, warps_per_block, out);
    if (r.refused) {
        out->active_blocks_per_sm = 0;
        out->active_warps_per_sm = 0;
        out->occupancy = 0.0;
        out->waves = 0.0;
        return SIMT_EUNSAT;
    }
    return SIMT_OK;
}

static int check_gpu_amd(const struct simt_gpu_spec *gpu, struct simt_diag *diag)
{
    const struct needed need[] = {
        {"gpu.simds_per_cu", gpu->simds_per_cu},
        {"gpu.max_waves_per_simd", gpu->max_waves_per_simd},
        {"gpu.vgprs_per_simd_lane", gpu->vgprs_per_simd_lane},
        {"gpu.max_vgprs_per_wave", gpu->max_vgprs_per_wave},
        {"gpu.sgprs_per_simd", gpu->sgprs_per_simd},
        {"gpu.max_sgprs_per_wave", gpu->max_sgprs_per_wave},
        {"gpu.lds_bytes_per_cu", gpu->lds_bytes_per_cu},
        {"gpu.max_lds_bytes_per_workgroup", gpu->max_lds_bytes_per_workgroup},
    };
    return require_positive(need, sizeof need / sizeof need[0], diag);
}

static int amd_compute(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                       struct simt_occupancy_result *out, struct simt_diag *diag)
{
    int rc = check_gpu_amd(gpu, diag);
    if (rc != SIMT_OK)
        return rc;

    struct refusal r = {0, diag};
    const int wave = gpu->warp_size;
    const int waves_per_group = div_up(req->block_size, wave);
    const int simds = gpu->simds_per_cu;

    out->max_warps_per_sm = simds * gpu->max_waves_per_simd;

    /* wave slots: max_waves_per_simd on each SIMD */
    if (req->block_size > gpu->max_threads_per_block) {
        refuse(&r, "block_size", "block_size %d exceeds the %d work-items a workgroup may have",
               req->block_size, gpu->max_threads_per_block);
        out->limit_warps = 0;
    } else {
        out->limit_warps = out->max_warps_per_sm / waves_per_group;
    }

    /* vector and scalar registers: waves per SIMD each allows */
    int gpr_waves_per_simd = SIMT_OCCUPANCY_NO_LIMIT;
    if (req->registers_per_thread > gpu->max_vgprs_per_wave) {
        refuse(&r, "registers_per_thread", "%d VGPRs exceed the %d a wave may address",
               req->registers_per_thread, gpu->max_vgprs_per_wave);
        gpr_waves_per_simd = 0;
    } else if (req->registers_per_thread > 0) {
        const int64_t vgprs = round_up64(req->registers_per_thread, gpu->vgpr_allocation_unit);
        out->vgprs_per_wave = (int)vgprs;
        out->registers_per_block = vgprs * wave * waves_per_group;
        gpr_waves_per_simd = clamp_int(gpu->vgprs_per_simd_lane / vgprs);
    }
    if (req->sgprs_per_wave == 0) {
        out->assumed |= SIMT_OCCUPANCY_ASSUMED_SGPRS;
    } else if (req->sgprs_per_wave > gpu->max_sgprs_per_wave) {
        refuse(&r, "sgprs_per_wave", "%d SGPRs exceed the %d a wave may have", req->sgprs_per_wave,
               gpu->max_sgprs_per_wave);
        gpr_waves_per_simd = 0;
    } else {
        const int64_t sgprs = round_up64(req->sgprs_per_wave, gpu->sgpr_allocation_unit);
        out->sgprs_per_wave = (int)sgprs;
        gpr_waves_per_simd = min_int(gpr_waves_per_simd, clamp_int(gpu->sgprs_per_simd / sgprs));
    }
    if (gpr_waves_per_simd == SIMT_OCCUPANCY_NO_LIMIT)
        out->limit_registers = SIMT_OCCUPANCY_NO_LIMIT;
    else
        out->limit_registers = clamp_int((int64_t)simds * gpr_waves_per_simd / waves_per_group);

    /* LDS */
    if (req->static_shared_bytes > gpu->max_lds_bytes_per_workgroup) {
        refuse(&r, "static_shared_bytes", "static LDS of %lld bytes exceeds the %lld a workgroup may have",
               (long long)req->static_shared_bytes, (long long)gpu->max_lds_bytes_per_workgroup);
        out->limit_shared = 0;
    } else if (req->dynamic_shared_bytes > gpu->max_lds_bytes_per_workgroup - req->static_shared_bytes) {
        refuse(&r, "dynamic_shared_bytes", "LDS of %lld + %lld bytes exceeds the %lld a workgroup may have",
               (long long)req->static_shared_bytes, (long long)req->dynamic_shared_bytes,
               (long long)gpu->max_lds_bytes_per_workgroup);
        out->limit_shared = 0;
    } else {
        const int64_t lds =
            round_up64(req->static_shared_bytes + req->dynamic_shared_bytes, gpu->lds_allocation_unit_bytes);
        out->lds_bytes_per_workgroup = lds;
        out->shared_bytes_per_block = lds;
        out->limit_shared = lds > 0 ? clamp_int(gpu->lds_bytes_per_cu / lds) : SIMT_OCCUPANCY_NO_LIMIT;
    }
    out->shared_carveout_bytes = gpu->lds_bytes_per_cu;

    /* workgroups per CU, when the record gives the cap */
    out->limit_blocks = gpu->max_blocks_per_sm > 0 ? gpu->max_blocks_per_sm : SIMT_OCCUPANCY_NO_LIMIT;
    out->limit_barriers = SIMT_OCCUPANCY_NO_LIMIT;

    if (!r.refused)
        refuse_zero_limits(out, &r);
    finish(gpu, req, waves_per_group, out);
    if (r.refused) {
        out->active_blocks_per_sm = 0;
        out->active_warps_per_sm = 0;
        out->occupancy = 0.0;
        out->waves = 0.0;
        return SIMT_EUNSAT;
    }
    out->waves_per_cu = out->active_warps_per_sm;
    out->waves_per_simd = div_up(out->waves_per_cu, simds);
    return SIMT_OK;
}

int simt_occupancy_compute(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                           struct simt_occupancy_result *out, struct simt_diag *diag)
{
    memset(out, 0, sizeof *out);
    int rc = check_request(req, diag);
    if (rc != SIMT_OK)
        return rc;
    rc = check_gpu_common(gpu, diag);
    if (rc != SIMT_OK)
        return rc;
    if (gpu->vendor == SIMT_VENDOR_AMD)
        return amd_compute(gpu, req, out, diag);
    return nvidia_compute(gpu, req, out, diag);
}

/* ---- thread-block clusters ---- */

/* The cluster rule, found from this card's runtime answers (not from a
 * document): a cluster's c blocks go to c distinct SMs of one group; an SM
 * takes at most min(b, cluster_max_blocks_per_sm) cluster blocks. So a
 * group of n SMs holds floor(min(b, cap) * n / c) clusters when c <= n, none
 * otherwise, and the GPU the sum over its groups. On h200-sxm this equals
 * cudaOccupancyMaxActiveClusters on all 38,656 committed cases
 * (tests/oracle/data/cluster_h200.csv); other chips, even of one product,
 * may group their SMs differently, which is why the layout is per GPU. */
static int64_t clusters_in_layout(const int *gpc_sms, int groups, int blocks_per_sm, int cluster_blocks)
{
    int64_t total = 0;
    for (int g = 0; g < groups; g++) {
        if (gpc_sms[g] >= cluster_blocks)
            total += (int64_t)blocks_per_sm * gpc_sms[g] / cluster_blocks;
    }
    return total;
}

static int check_cluster_size(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                              int blocks, struct simt_diag *diag)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA)
        return simt_diag_fail(diag, SIMT_EUNSAT, "cluster_size",
                              "clusters need compute capability 9.0 (an NVIDIA feature; this GPU is AMD)");
    if (gpu->compute_major < 9)
        return simt_diag_fail(diag, SIMT_EUNSAT, "cluster_size",
                              "clusters need compute capability 9.0 (this GPU is %d.%d)", gpu->compute_major,
                              gpu->compute_minor);
    if (gpu->gpc_sms[0] <= 0 || gpu->cluster_max_blocks_per_sm <= 0 || gpu->cluster_max_size <= 0)
        return simt_diag_fail(diag, SIMT_ENOENT, "cluster_size",
                              "no GPC layout for this GPU in the database");
    if (blocks > gpu->cluster_max_size)
        return simt_diag_fail(diag, SIMT_EUNSAT, "cluster_size",
                              "a cluster of %d blocks is larger than this GPU allows (%d, non-portable)",
                              blocks, gpu->cluster_max_size);
    if (blocks > gpu->cluster_max_portable_size && !req->non_portable_cluster_size)
        return simt_diag_fail(
            diag, SIMT_EUNSAT, "cluster_size",
            "a cluster of %d blocks is above the portable %d: set non_portable_cluster_size "
            "(cudaFuncAttributeNonPortableClusterSizeAllowed)",
            blocks, gpu->cluster_max_portable_size);
    if (req->grid_size > 0 && req->grid_size % blocks != 0)
        return simt_diag_fail(diag, SIMT_EUNSAT, "grid_size",
                              "a grid of %lld blocks is not a whole number of clusters of %d blocks",
                              (long long)req->grid_size, blocks);
    return SIMT_OK;
}

int simt_occupancy_clusters(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                            const struct simt_occupancy_result *occ, struct simt_cluster_result *out,
                            struct simt_diag *diag)
{
    memset(out, 0, sizeof *out);
    int64_t blocks = 1;
    for (int i = 0; i < 3; i++) {
        if (req->cluster_dims[i] < 1)
            return simt_diag_fail(diag, SIMT_EINVAL, "cluster_size", "cluster dimensions must be 1 or more");
        blocks *= req->cluster_dims[i];
        if (blocks > INT_MAX / 1024)
            blocks = INT_MAX / 1024; /* far above any limit: refused below */
    }
    int rc = check_cluster_size(gpu, req, (int)blocks, diag);
    if (rc != SIMT_OK)
        return rc;
    int groups = 0;
    int64_t layout_sms = 0;
    while (groups < SIMT_MAX_GPCS && gpu->gpc_sms[groups] > 0)
        layout_sms += gpu->gpc_sms[groups++];
    if (layout_sms != gpu->sm_count)
        return simt_diag_fail(
            diag, SIMT_ENOENT, "cluster_size",
            "the GPC layout holds %lld SMs but the GPU has %d (a what-if changed sm_count): "
            "no layout for it",
            (long long)layout_sms, gpu->sm_count);
    out->cluster_blocks = (int)blocks;
    out->blocks_per_sm = min_int(occ->active_blocks_per_sm, gpu->cluster_max_blocks_per_sm);
    out->active_clusters_per_gpu = clusters_in_layout(gpu->gpc_sms, groups, out->blocks_per_sm, (int)blocks);
    return SIMT_OK;
}

/* cudaOccupancyMaxPotentialBlockSize's search, as its documentation
 * describes it: try every block size from the largest allowed down in steps
 * of the warp size (the largest first, even when it is not a multiple of
 * the warp), keep the first that holds the most threads per SM (a later,
 * smaller block size must hold strictly more to win), and stop early once a
 * size fills the SM. The dynamic shared memory of a try is the fixed bytes
 * plus bytes per thread times its size. */
int simt_occupancy_suggest(const struct simt_gpu_spec *gpu, const struct simt_suggest_request *req,
                           struct simt_suggest_result *out, struct simt_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (req->dynamic_shared_bytes_per_thread < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "dynamic_shared_bytes_per_thread",
                              "dynamic_shared_bytes_per_thread must not be negative");
    if (req->max_block_size < 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "max_block_size",
                              "max_block_size must be 0 (the GPU's limit) or positive");
    int rc = check_gpu_common(gpu, diag);
    if (rc != SIMT_OK)
        return rc;

    const int warp = gpu->warp_size;
    int limit = gpu->max_threads_per_block;
    if (req->max_block_size > 0 && req->max_block_size < limit)
        limit = req->max_block_size;
    const int64_t full_sm_threads =
        gpu->vendor == SIMT_VENDOR_AMD
            ? (int64_t)gpu->simds_per_cu * gpu->max_waves_per_simd * warp
            : (gpu->max_threads_per_sm > 0 ? gpu->max_threads_per_sm : (int64_t)gpu->max_warps_per_sm * warp);

    struct simt_occupancy_request occ;
    simt_occupancy_request_init(&occ);
    occ.registers_per_thread = req->registers_per_thread;
    occ.static_shared_bytes = req->static_shared_bytes;
    occ.carveout_percent = req->carveout_percent;
    occ.block_barriers = req->block_barriers;

    int best_size = 0, best_blocks = 0;
    int64_t best_threads = 0;
    struct simt_diag last_refusal;
    memset(&last_refusal, 0, sizeof last_refusal);
    for (int aligned = div_up(limit, warp) * warp; aligned > 0; aligned -= warp) {
        const int size = min_int(limit, aligned);
        int64_t dynamic = req->dynamic_shared_bytes;
        if (req->dynamic_shared_bytes_per_thread > 0) {
            if (req->dynamic_shared_bytes_per_thread > (INT64_MAX - dynamic) / size)
                dynamic = INT64_MAX;
            else
                dynamic += req->dynamic_shared_bytes_per_thread * size;
        }
        occ.block_size = size;
        occ.dynamic_shared_bytes = dynamic;
        struct simt_occupancy_result res;
        struct simt_diag d;
        rc = simt_occupancy_compute(gpu, &occ, &res, &d);
        if (rc == SIMT_EUNSAT) {
            last_refusal = d;
            continue;
        }
        if (rc != SIMT_OK) {
            if (diag != NULL)
                *diag = d;
            return rc;
        }
        const int64_t threads = (int64_t)size * res.active_blocks_per_sm;
        if (threads > best_threads) {
            best_threads = threads;
            best_size = size;
            best_blocks = res.active_blocks_per_sm;
        }
        if (best_threads == full_sm_threads)
            break;
    }
    if (best_size == 0) {
        if (diag != NULL)
            *diag = last_refusal;
        return SIMT_EUNSAT;
    }
    out->block_size = best_size;
    out->active_blocks_per_sm = best_blocks;
    out->min_grid_size = clamp_int((int64_t)best_blocks * gpu->sm_count);
    const int warps = div_up(best_size, warp) * best_blocks;
    const int max_warps =
        gpu->vendor == SIMT_VENDOR_AMD ? gpu->simds_per_cu * gpu->max_waves_per_simd : gpu->max_warps_per_sm;
    out->occupancy = max_warps > 0 ? (double)warps / (double)max_warps : 0.0;
    return SIMT_OK;
}
