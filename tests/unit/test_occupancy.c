/* test_occupancy.c - the occupancy model on cases worked by hand from the
 * documented rules: every limit, ties between limiters, the carveout snapped
 * and overridden, the shared memory the driver reserves, the register
 * sub-partition rounding, every unsatisfiable field, waves, the block-size
 * suggestion's tie-breaking, and AMD CDNA waves from VGPR/SGPR/LDS
 * allocation. The specs are written out here, so these cases test the rules
 * alone; tests/oracle compares the rules with NVIDIA's calculator on the
 * database's GPUs. */
#include <check.h>
#include <string.h>

#include "hwdb.h"
#include "occupancy.h"

#define NL SIMT_OCCUPANCY_NO_LIMIT
#define KIB 1024

/* ---- specs, from the CUDA Programming Guide's per-compute-capability table ---- */

static struct simt_gpu_spec nvidia_base(int major, int minor, int sms, int threads_per_sm, int blocks_per_sm)
{
    struct simt_gpu_spec s;
    memset(&s, 0, sizeof s);
    s.vendor = SIMT_VENDOR_NVIDIA;
    s.compute_major = major;
    s.compute_minor = minor;
    s.sm_count = sms;
    s.warp_size = 32;
    s.max_threads_per_sm = threads_per_sm;
    s.max_warps_per_sm = threads_per_sm / 32;
    s.max_blocks_per_sm = blocks_per_sm;
    s.max_threads_per_block = 1024;
    s.registers_per_sm = 65536;
    s.max_registers_per_block = 65536;
    s.max_registers_per_thread = 255;
    s.register_allocation_unit = 256;
    s.register_file_partitions = 4;
    s.shared_bytes_per_block = 48 * KIB;
    s.shared_allocation_unit_bytes = 128;
    return s;
}

static void set_carveouts(struct simt_gpu_spec *s, const int *kib, int count)
{
    s->shared_carveout_count = count;
    for (int i = 0; i < count; i++)
        s->shared_carveout_bytes[i] = (int64_t)kib[i] * KIB;
    s->shared_bytes_per_sm = s->shared_carveout_bytes[count - 1];
}

/* H200 SXM: compute capability 9.0, 132 SMs */
static struct simt_gpu_spec h200(void)
{
    static const int kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    struct simt_gpu_spec s = nvidia_base(9, 0, 132, 2048, 32);
    set_carveouts(&s, kib, 10);
    s.shared_bytes_per_block_optin = 227 * KIB;
    s.reserved_shared_bytes_per_block = 1 * KIB;
    s.max_barriers_per_sm = 64;
    return s;
}

/* V100: compute capability 7.0, 80 SMs; no reserved bytes, 256-byte unit */
static struct simt_gpu_spec v100(void)
{
    static const int kib[] = {0, 8, 16, 32, 64, 96};
    struct simt_gpu_spec s = nvidia_base(7, 0, 80, 2048, 32);
    set_carveouts(&s, kib, 6);
    s.shared_bytes_per_block_optin = 96 * KIB;
    s.shared_allocation_unit_bytes = 256;
    return s;
}

/* T4: compute capability 7.5, 40 SMs; carveouts 32 and 64 KiB only */
static struct simt_gpu_spec t4(void)
{
    static const int kib[] = {32, 64};
    struct simt_gpu_spec s = nvidia_base(7, 5, 40, 1024, 16);
    set_carveouts(&s, kib, 2);
    s.shared_bytes_per_block_optin = 64 * KIB;
    s.shared_allocation_unit_bytes = 256;
    return s;
}

/* MI300X (CDNA3, gfx942): 304 CUs of 4 SIMDs, wave64, 8 waves per SIMD,
 * 512 VGPRs per lane (AccVGPRs included) in units of 8, 800 SGPRs per SIMD
 * in units of 16, 64 KiB of LDS per CU in 512-byte granules. */
static struct simt_gpu_spec mi300x(void)
{
    struct simt_gpu_spec s;
    memset(&s, 0, sizeof s);
    s.vendor = SIMT_VENDOR_AMD;
    s.compute_major = 9;
    s.sm_count = 304;
    s.warp_size = 64;
    s.max_threads_per_block = 1024;
    s.max_blocks_per_sm = 32;
    s.max_warps_per_sm = 32;
    s.simds_per_cu = 4;
    s.max_waves_per_simd = 8;
    s.vgprs_per_simd_lane = 512;
    s.vgpr_allocation_unit = 8;
    s.max_vgprs_per_wave = 512;
    s.sgprs_per_simd = 800;
    s.sgpr_allocation_unit = 16;
    s.max_sgprs_per_wave = 102;
    s.lds_bytes_per_cu = 64 * KIB;
    s.lds_allocation_unit_bytes = 512;
    s.max_lds_bytes_per_workgroup = 64 * KIB;
    return s;
}

/* ---- occupancy cases ---- */

enum gpu_id { H200, V100, T4, MI300X };

static struct simt_gpu_spec spec_of(enum gpu_id id)
{
    switch (id) {
    case H200:
        return h200();
    case V100:
        return v100();
    case T4:
        return t4();
    case MI300X:
        return mi300x();
    }
    return h200();
}

struct occ_case {
    const char *name;
    enum gpu_id gpu;
    /* request; the struct's defaults where a row leaves max_dynamic, carveout, barriers at DEF */
    int block_size, registers;
    int64_t static_bytes, dynamic_bytes, max_dynamic;
    int carveout, barriers;
    int64_t grid;
    int sgprs;
    /* expected */
    int rc;
    const char *field; /* on SIMT_EUNSAT */
    int blocks;
    unsigned limiters;
    int warps, regs, smem, blk, bars; /* the five limits */
    int64_t regs_per_block, smem_per_block, carveout_bytes;
    double occupancy, waves;
};

#define DEF (-1)
/* the expected half of a row that cannot launch or is malformed */
#define REFUSED(rc, field) rc, field, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0

/* clang-format off */
static const struct occ_case occ_cases[] = {
    /* API.md's example. Registers: 64 x 32 = 2048 per warp; a partition's
     * 16384 hold 8 warps, the SM 32, a block of 8 warps 4 times. Shared: the
     * 1 KiB the driver reserves; the default carveout is the largest, 228 KiB:
     * 233472 / 1024 = 228. Barriers: 64 / 1. Waves 1000 / (4 x 132). */
    {"h200 api example", H200, 256, 64, 0, 0, DEF, DEF, 1, 1000, 0,
     SIMT_OK, NULL, 4, SIMT_LIMIT_REGISTERS, 8, 4, 228, 32, 64, 16384, 1024, 233472, 0.5, 1000.0 / 528.0},
    /* 32 registers: 1024 per warp, 64 warps = 8 blocks, equal to the warps' 64 / 8 */
    {"h200 warps and registers tie", H200, 256, 32, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 8, SIMT_LIMIT_WARPS | SIMT_LIMIT_REGISTERS, 8, 8, 228, 32, 64, 8192, 1024, 233472, 1.0, 0.0},
    /* one warp a block, no registers: 32 blocks, the SM's block limit */
    {"h200 blocks limit", H200, 32, 0, 0, 0, DEF, DEF, 1, 264, 0,
     SIMT_OK, NULL, 32, SIMT_LIMIT_BLOCKS, 64, NL, 228, 32, 64, 0, 1024, 233472, 0.5, 264.0 / (32.0 * 132.0)},
    /* 48 KiB dynamic + 1 KiB reserved = 50176 bytes; 233472 / 50176 = 4 */
    {"h200 shared limit", H200, 128, 32, 0, 48 * KIB, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 4, SIMT_LIMIT_SHARED, 16, 16, 4, 32, 64, 4096, 50176, 233472, 0.25, 0.0},
    /* carveout 25%: 233472 x 25 / 100 = 58368, snapped up to 64 KiB: one block */
    {"h200 carveout 25% snapped up", H200, 128, 32, 0, 48 * KIB, DEF, 25, 1, 0, 0,
     SIMT_OK, NULL, 1, SIMT_LIMIT_SHARED, 16, 16, 1, 32, 64, 4096, 50176, 65536, 1.0 / 16.0, 0.0},
    /* carveout 0 asks for 0 KiB, but a block needs 50176: the driver takes 64 KiB */
    {"h200 carveout below one block", H200, 128, 32, 0, 48 * KIB, DEF, 0, 1, 0, 0,
     SIMT_OK, NULL, 1, SIMT_LIMIT_SHARED, 16, 16, 1, 32, 64, 4096, 50176, 65536, 1.0 / 16.0, 0.0},
    /* carveout 50%: 116736 bytes, snapped to 132 KiB = 135168; 1000 + 1024 -> 2048 allocated: 66.
     * 16 registers: 512 a warp, 128 warps: 4 blocks, above the warps' 2 */
    {"h200 carveout 50% small blocks", H200, 1024, 16, 1000, 0, DEF, 50, 1, 0, 0,
     SIMT_OK, NULL, 2, SIMT_LIMIT_WARPS, 2, 4, 66, 32, 64, 16384, 2048, 135168, 1.0, 0.0},
    /* 16 barriers a block: 64 / 16 = 4 blocks */
    {"h200 barriers limit", H200, 64, 32, 0, 0, DEF, DEF, 16, 0, 0,
     SIMT_OK, NULL, 4, SIMT_LIMIT_BARRIERS, 32, 32, 228, 32, 4, 2048, 1024, 233472, 0.125, 0.0},
    /* no barriers used: no barrier limit */
    {"h200 zero barriers", H200, 64, 32, 0, 0, DEF, DEF, 0, 0, 0,
     SIMT_OK, NULL, 32, SIMT_LIMIT_WARPS | SIMT_LIMIT_REGISTERS | SIMT_LIMIT_BLOCKS, 32, 32, 228, 32, NL, 2048, 1024,
     233472, 1.0, 0.0},
    /* 255 registers: 8160 per warp, allocated 8192; 2 warps per partition, 8 per SM */
    {"h200 255 registers", H200, 32, 255, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 8, SIMT_LIMIT_REGISTERS, 64, 8, 228, 32, 64, 8192, 1024, 233472, 0.125, 0.0},
    /* 200 threads = 7 warps (the last partial), 40 registers -> 1280 per warp:
     * 12 warps per partition, 48 per SM, 6 blocks */
    {"h200 partial warp", H200, 200, 40, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 6, SIMT_LIMIT_REGISTERS, 9, 6, 228, 32, 64, 8960, 1024, 233472, 42.0 / 64.0, 0.0},
    /* Volta: nothing reserved, 256-byte unit: 100 bytes take 256; 98304 / 256 = 384 */
    {"v100 shared rounding", V100, 1024, 32, 100, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 2, SIMT_LIMIT_WARPS | SIMT_LIMIT_REGISTERS, 2, 2, 384, 32, NL, 32768, 256, 98304, 1.0, 0.0},
    /* Volta without shared memory: no shared limit; barriers are no limit before 9.0 */
    {"v100 no shared memory", V100, 64, 16, 0, 0, DEF, DEF, 16, 0, 0,
     SIMT_OK, NULL, 32, SIMT_LIMIT_WARPS | SIMT_LIMIT_BLOCKS, 32, 64, NL, 32, NL, 1024, 0, 98304, 1.0, 0.0},
    /* Turing: carveout 0 snaps up to 32 KiB; 10000 bytes take 10240: 3 blocks */
    {"t4 carveout 0 is 32 KiB", T4, 64, 32, 10000, 0, DEF, 0, 1, 0, 0,
     SIMT_OK, NULL, 3, SIMT_LIMIT_SHARED, 16, 32, 3, 16, NL, 2048, 10240, 32768, 6.0 / 32.0, 0.0},
    /* opt-in on Turing: 64 KiB dynamic, the whole SM */
    {"t4 opt-in 64 KiB", T4, 256, 32, 0, 64 * KIB, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 1, SIMT_LIMIT_SHARED, 4, 8, 1, 16, NL, 8192, 65536, 65536, 0.25, 0.0},

    /* ---- cannot launch ---- */
    {"block too large", H200, 1025, 32, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "block_size")},
    {"registers over 255", H200, 32, 256, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "registers_per_thread")},
    /* 288 threads = 9 warps at 200 registers (6400 a warp): 57600 fit 65536,
     * but the launch check counts 12 warps (3 per partition): 76800 */
    {"registers per block, partition rounding", H200, 288, 200, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT,
     "registers_per_thread")},
    {"registers per block", H200, 1024, 65, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "registers_per_thread")},
    {"static over 48 KiB", H200, 128, 32, 48 * KIB + 1, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "static_shared_bytes")},
    /* 40000 static + 200000 max dynamic > 227 KiB opt-in */
    {"max dynamic over opt-in", H200, 128, 32, 40000, 0, 200000, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT,
     "max_dynamic_shared_bytes")},
    {"dynamic over the kernel's max", H200, 128, 32, 0, 10000, 8192, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT,
     "dynamic_shared_bytes")},
    /* default max dynamic = 227 KiB - 1000 static */
    {"dynamic over opt-in", H200, 128, 32, 1000, 227 * KIB - 999, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT,
     "dynamic_shared_bytes")},
    {"dynamic at opt-in", H200, 128, 32, 1000, 227 * KIB - 1000, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 1, SIMT_LIMIT_SHARED, 16, 16, 1, 32, 64, 4096, 233472, 233472, 4.0 / 64.0, 0.0},
    {"barriers over 16", H200, 128, 32, 0, 0, DEF, DEF, 17, 0, 0, REFUSED(SIMT_EUNSAT, "block_barriers")},
    {"first field wins", H200, 2048, 300, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "block_size")},

    /* ---- malformed ---- */
    {"block size 0", H200, 0, 32, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EINVAL, "block_size")},
    {"negative registers", H200, 32, -1, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EINVAL, "registers_per_thread")},
    {"carveout 101", H200, 32, 32, 0, 0, DEF, 101, 1, 0, 0, REFUSED(SIMT_EINVAL, "carveout_percent")},
    {"negative dynamic", H200, 32, 32, 0, -5, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EINVAL, "dynamic_shared_bytes")},
    {"max dynamic -2", H200, 32, 32, 0, 0, -2, DEF, 1, 0, 0, REFUSED(SIMT_EINVAL, "max_dynamic_shared_bytes")},
    {"negative grid", H200, 32, 32, 0, 0, DEF, DEF, 1, -1, 0, REFUSED(SIMT_EINVAL, "grid_size")},

    /* ---- AMD MI300X, worked from HIP's and LLVM's documented rules ---- */
    /* 4 waves, 128 VGPRs: 512 / 128 = 4 waves per SIMD, 16 per CU: 4 workgroups */
    {"mi300x vgpr limit", MI300X, 256, 128, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 4, SIMT_LIMIT_REGISTERS, 8, 4, NL, 32, NL, 128 * 64 * 4, 0, 65536, 0.5, 0.0},
    /* 16 waves, 64 VGPRs: 8 waves per SIMD, 2 workgroups; LDS 40000 -> 40448: one */
    {"mi300x lds limit", MI300X, 1024, 64, 40000, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 1, SIMT_LIMIT_SHARED, 2, 2, 1, 32, NL, 64 * 64 * 16, 40448, 65536, 0.5, 0.0},
    /* 100 VGPRs are allocated as 104: 512 / 104 = 4 waves per SIMD, 16 one-wave workgroups */
    {"mi300x vgpr granule", MI300X, 64, 100, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 16, SIMT_LIMIT_REGISTERS, 32, 16, NL, 32, NL, 104 * 64, 0, 65536, 0.5, 0.0},
    /* 102 SGPRs take 112: 800 / 112 = 7 waves per SIMD, 28 per CU */
    {"mi300x sgpr limit", MI300X, 64, 32, 0, 0, DEF, DEF, 1, 0, 102,
     SIMT_OK, NULL, 28, SIMT_LIMIT_REGISTERS, 32, 28, NL, 32, NL, 32 * 64, 0, 65536, 28.0 / 32.0, 0.0},
    /* 96 SGPRs: 800 / 96 = 8, no lower than the wave slots: warps, registers and blocks tie */
    {"mi300x full", MI300X, 64, 64, 0, 0, DEF, DEF, 1, 608, 96,
     SIMT_OK, NULL, 32, SIMT_LIMIT_WARPS | SIMT_LIMIT_REGISTERS | SIMT_LIMIT_BLOCKS, 32, 32, NL, 32, NL, 64 * 64, 0,
     65536, 1.0, 608.0 / (32.0 * 304.0)},
    /* 65 work-items are 2 waves */
    {"mi300x partial wave", MI300X, 65, 256, 0, 0, DEF, DEF, 1, 0, 0,
     SIMT_OK, NULL, 4, SIMT_LIMIT_REGISTERS, 16, 4, NL, 32, NL, 256 * 64 * 2, 0, 65536, 0.25, 0.0},
    {"mi300x vgprs over 512", MI300X, 64, 513, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "registers_per_thread")},
    {"mi300x lds over 64 KiB", MI300X, 64, 32, 32 * KIB, 32 * KIB + 1, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT,
     "dynamic_shared_bytes")},
    {"mi300x sgprs over 102", MI300X, 64, 32, 0, 0, DEF, DEF, 1, 0, 104, REFUSED(SIMT_EUNSAT, "sgprs_per_wave")},
    {"mi300x workgroup too large", MI300X, 1088, 32, 0, 0, DEF, DEF, 1, 0, 0, REFUSED(SIMT_EUNSAT, "block_size")},
};
/* clang-format on */

static struct simt_occupancy_request request_of(const struct occ_case *c)
{
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    req.block_size = c->block_size;
    req.registers_per_thread = c->registers;
    req.static_shared_bytes = c->static_bytes;
    req.dynamic_shared_bytes = c->dynamic_bytes;
    if (c->max_dynamic != DEF)
        req.max_dynamic_shared_bytes = c->max_dynamic;
    if (c->carveout != DEF)
        req.carveout_percent = c->carveout;
    req.block_barriers = c->barriers;
    req.grid_size = c->grid;
    req.sgprs_per_wave = c->sgprs;
    return req;
}

START_TEST(occupancy_table)
{
    const struct occ_case *c = &occ_cases[_i];
    struct simt_gpu_spec gpu = spec_of(c->gpu);
    struct simt_occupancy_request req = request_of(c);
    struct simt_occupancy_result res;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_compute(&gpu, &req, &res, &diag);
    ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d (%s: %s)", c->name, rc, c->rc, diag.field,
                  diag.message);
    if (rc != SIMT_OK) {
        ck_assert_msg(strcmp(diag.field, c->field) == 0, "%s: field '%s', expected '%s'", c->name, diag.field,
                      c->field);
        ck_assert_msg(diag.message[0] != '\0', "%s: no message", c->name);
        ck_assert_int_eq(res.active_blocks_per_sm, 0);
        ck_assert_int_eq(res.active_warps_per_sm, 0);
        return;
    }
    ck_assert_msg(res.active_blocks_per_sm == c->blocks, "%s: %d blocks, expected %d", c->name,
                  res.active_blocks_per_sm, c->blocks);
    ck_assert_msg(res.limiters == c->limiters, "%s: limiters 0x%x, expected 0x%x", c->name, res.limiters,
                  c->limiters);
    ck_assert_int_eq(res.limit_warps, c->warps);
    ck_assert_int_eq(res.limit_registers, c->regs);
    ck_assert_int_eq(res.limit_shared, c->smem);
    ck_assert_int_eq(res.limit_blocks, c->blk);
    ck_assert_int_eq(res.limit_barriers, c->bars);
    ck_assert_int_eq(res.registers_per_block, c->regs_per_block);
    ck_assert_int_eq(res.shared_bytes_per_block, c->smem_per_block);
    ck_assert_int_eq(res.shared_carveout_bytes, c->carveout_bytes);
    ck_assert_double_eq_tol(res.occupancy, c->occupancy, 1e-12);
    ck_assert_double_eq_tol(res.waves, c->waves, 1e-12);
}
END_TEST

/* ---- assumptions and AMD's own fields ---- */

START_TEST(assumptions)
{
    struct simt_gpu_spec gpu = h200();
    struct simt_occupancy_request req;
    struct simt_occupancy_result res;
    struct simt_diag diag;
    simt_occupancy_request_init(&req);
    ck_assert_int_eq(req.block_barriers, 1);
    ck_assert_int_eq(req.carveout_percent, -1);
    ck_assert_int_eq(req.max_dynamic_shared_bytes, -1);
    req.block_size = 128;
    req.registers_per_thread = 32;
    ck_assert_int_eq(simt_occupancy_compute(&gpu, &req, &res, &diag), SIMT_OK);
    ck_assert_uint_eq(res.assumed, SIMT_OCCUPANCY_ASSUMED_MAX_DYNAMIC | SIMT_OCCUPANCY_ASSUMED_CARVEOUT);
    req.max_dynamic_shared_bytes = 4096;
    req.carveout_percent = 100;
    ck_assert_int_eq(simt_occupancy_compute(&gpu, &req, &res, &diag), SIMT_OK);
    ck_assert_uint_eq(res.assumed, 0);
    ck_assert_int_eq(res.waves_per_cu, 0); /* AMD fields stay 0 on NVIDIA */
}
END_TEST

START_TEST(amd_fields)
{
    struct simt_gpu_spec gpu = mi300x();
    struct simt_occupancy_request req;
    struct simt_occupancy_result res;
    struct simt_diag diag;
    simt_occupancy_request_init(&req);
    /* 5 waves a workgroup, 100 VGPRs (104 allocated: 4 waves per SIMD, 16 per
     * CU): 3 workgroups, 15 waves on 4 SIMDs (4, 4, 4, 3); 30 SGPRs take 32;
     * 3000 bytes of LDS take 3072 */
    req.block_size = 320;
    req.registers_per_thread = 100;
    req.sgprs_per_wave = 30;
    req.static_shared_bytes = 3000;
    ck_assert_int_eq(simt_occupancy_compute(&gpu, &req, &res, &diag), SIMT_OK);
    ck_assert_int_eq(res.active_blocks_per_sm, 3);
    ck_assert_int_eq(res.waves_per_cu, 15);
    ck_assert_int_eq(res.waves_per_simd, 4);
    ck_assert_int_eq(res.vgprs_per_wave, 104);
    ck_assert_int_eq(res.sgprs_per_wave, 32);
    ck_assert_int_eq(res.lds_bytes_per_workgroup, 3072);
    ck_assert_int_eq(res.limit_shared, 21);
    ck_assert_uint_eq(res.assumed, 0);
    req.sgprs_per_wave = 0;
    ck_assert_int_eq(simt_occupancy_compute(&gpu, &req, &res, &diag), SIMT_OK);
    ck_assert_uint_eq(res.assumed, SIMT_OCCUPANCY_ASSUMED_SGPRS);
}
END_TEST

START_TEST(incomplete_gpu)
{
    struct simt_gpu_spec gpu = h200();
    gpu.max_warps_per_sm = 0;
    struct simt_occupancy_request req;
    struct simt_occupancy_result res;
    struct simt_diag diag;
    simt_occupancy_request_init(&req);
    req.block_size = 128;
    ck_assert_int_eq(simt_occupancy_compute(&gpu, &req, &res, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "gpu.max_warps_per_sm");
}
END_TEST

/* ---- the bundled database's records give the same answers ---- */

START_TEST(database_records)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == SIMT_OK, "%s:%d:%d %s",
                  diag.file, diag.line, diag.column, diag.message);
    struct simt_occupancy_request req;
    struct simt_occupancy_result res;

    /* API.md's example on h200-sxm */
    const struct simt_hwdb_gpu *h200_sxm = simt_hwdb_find(db, "h200-sxm");
    ck_assert_ptr_nonnull(h200_sxm);
    simt_occupancy_request_init(&req);
    req.block_size = 256;
    req.registers_per_thread = 64;
    req.grid_size = 1000;
    ck_assert_int_eq(simt_occupancy_compute(&h200_sxm->spec, &req, &res, &diag), SIMT_OK);
    ck_assert_int_eq(res.active_blocks_per_sm, 4);
    ck_assert_int_eq(res.active_warps_per_sm, 32);
    ck_assert_int_eq(res.max_warps_per_sm, 64);
    ck_assert_uint_eq(res.limiters, SIMT_LIMIT_REGISTERS);
    ck_assert_int_eq(res.registers_per_block, 16384);
    ck_assert_int_eq(res.shared_bytes_per_block, 1024);
    ck_assert_int_eq(res.shared_carveout_bytes, 233472);
    ck_assert_double_eq_tol(res.occupancy, 0.5, 1e-12);
    ck_assert_double_eq_tol(res.waves, 1000.0 / 528.0, 1e-12);

    /* mi300x: 4 waves a workgroup at 128 VGPRs: 4 waves per SIMD, 4 workgroups */
    const struct simt_hwdb_gpu *mi = simt_hwdb_find(db, "mi300x");
    ck_assert_ptr_nonnull(mi);
    simt_occupancy_request_init(&req);
    req.block_size = 256;
    req.registers_per_thread = 128;
    ck_assert_int_eq(simt_occupancy_compute(&mi->spec, &req, &res, &diag), SIMT_OK);
    ck_assert_int_eq(res.active_blocks_per_sm, 4);
    ck_assert_int_eq(res.waves_per_cu, 16);
    ck_assert_int_eq(res.waves_per_simd, 4);
    ck_assert_double_eq_tol(res.occupancy, 0.5, 1e-12);
    simt_hwdb_unref(db);
}
END_TEST

/* ---- suggestions ---- */

struct suggest_case {
    const char *name;
    enum gpu_id gpu;
    int registers;
    int64_t static_bytes, dynamic_bytes, per_thread;
    int max_block_size;
    int rc;
    int block_size, min_grid_size, blocks;
    double occupancy;
};

/* clang-format off */
static const struct suggest_case suggest_cases[] = {
    /* 1024 threads at 32 registers: 2 blocks fill the SM; the first try wins */
    {"h200 full at 1024", H200, 32, 0, 0, 0, 0, SIMT_OK, 1024, 264, 2, 1.0},
    /* 64 registers: every size holds 1024 threads (1024 x 1, 512 x 2, 256 x 4
     * ...): none holds strictly more, so the largest stays */
    {"h200 tie keeps the largest", H200, 64, 0, 0, 0, 0, SIMT_OK, 1024, 132, 1, 0.5},
    /* limit 100: 100 (4 warps: 16 blocks, 1600 threads), 96 (3 warps: 21,
     * 2016), 64 (2 warps: 32, 2048: the SM is full, stop) */
    {"h200 max block 100", H200, 0, 0, 0, 0, 100, SIMT_OK, 64, 32 * 132, 32, 1.0},
    /* 200 bytes a thread: 576 threads need 115200 + 1024 bytes; two fit 228
     * KiB: 1152 threads, more than any other size */
    {"h200 per-thread shared", H200, 0, 0, 0, 200, 0, SIMT_OK, 576, 264, 2, 36.0 / 64.0},
    /* 120 KiB dynamic + 1 KiB reserved: one block of any size in 228 KiB; the largest stays */
    {"h200 fixed dynamic 120 KiB", H200, 0, 0, 120 * KIB, 0, 0, SIMT_OK, 1024, 132, 1, 0.5},
    {"h200 nothing fits", H200, 0, 0, 300 * KIB, 0, 0, SIMT_EUNSAT, 0, 0, 0, 0.0},
    /* MI300X, 128 VGPRs: 4 waves per SIMD, 16 per CU: 1024 threads, one workgroup */
    {"mi300x 128 vgprs", MI300X, 128, 0, 0, 0, 0, SIMT_OK, 1024, 304, 1, 0.5},
};
/* clang-format on */

START_TEST(suggest_table)
{
    const struct suggest_case *c = &suggest_cases[_i];
    struct simt_gpu_spec gpu = spec_of(c->gpu);
    struct simt_suggest_request req;
    simt_suggest_request_init(&req);
    req.registers_per_thread = c->registers;
    req.static_shared_bytes = c->static_bytes;
    req.dynamic_shared_bytes = c->dynamic_bytes;
    req.dynamic_shared_bytes_per_thread = c->per_thread;
    req.max_block_size = c->max_block_size;
    struct simt_suggest_result res;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_suggest(&gpu, &req, &res, &diag);
    ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
    if (rc != SIMT_OK) {
        ck_assert_msg(diag.field[0] != '\0', "%s: no field", c->name);
        return;
    }
    ck_assert_msg(res.block_size == c->block_size, "%s: block %d, expected %d", c->name, res.block_size,
                  c->block_size);
    ck_assert_int_eq(res.min_grid_size, c->min_grid_size);
    ck_assert_int_eq(res.active_blocks_per_sm, c->blocks);
    ck_assert_double_eq_tol(res.occupancy, c->occupancy, 1e-12);
}
END_TEST

/* ---- thread-block clusters, worked by hand ---- */

enum layout { SMALL, H200_LAYOUT, NO_LAYOUT, OLD_GPU, AMD_GPU, SMS_CHANGED };

/* SMALL: 8 SMs in groups of 4, 3 and 1; at most 2 cluster blocks an SM;
 * clusters of up to 4 blocks portable, 8 with the attribute. H200: the
 * layout tests/oracle found for the H200 (hwdb/gpus/h200-sxm.yaml). */
static struct simt_gpu_spec cluster_gpu(enum layout which)
{
    static const int small[] = {4, 3, 1};
    static const int h200_groups[] = {18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2};
    struct simt_gpu_spec s = nvidia_base(9, 0, 8, 2048, 32);
    const int *groups = small;
    int count = 3;
    s.cluster_max_blocks_per_sm = 2;
    s.cluster_max_portable_size = 4;
    s.cluster_max_size = 8;
    if (which == H200_LAYOUT) {
        s.sm_count = 132;
        groups = h200_groups;
        count = 12;
        s.cluster_max_blocks_per_sm = 8;
        s.cluster_max_portable_size = 8;
        s.cluster_max_size = 16;
    }
    for (int i = 0; i < count && which != NO_LAYOUT; i++)
        s.gpc_sms[i] = groups[i];
    if (which == OLD_GPU)
        s.compute_major = 8;
    if (which == AMD_GPU)
        s.vendor = SIMT_VENDOR_AMD;
    if (which == SMS_CHANGED)
        s.sm_count = 9; /* a what-if: the layout no longer covers the GPU */
    return s;
}

struct cluster_case {
    const char *name;
    enum layout layout;
    int blocks_per_sm; /* the occupancy answer fed in */
    int dims[3];
    int non_portable;
    int64_t grid;
    int rc;
    const char *field; /* at fault, when rc != 0 */
    int64_t clusters;
};

/* clang-format off */
static const struct cluster_case cluster_cases[] = {
    /* b 1, c 1: every SM one cluster: 4 + 3 + 1 */
    {"small, 1 block, size 1", SMALL, 1, {1, 1, 1}, 0, 0, SIMT_OK, NULL, 8},
    /* b 5 capped at 2: 2 x 4 + 2 x 3 + 2 x 1 */
    {"small, cap of 2 blocks an SM", SMALL, 5, {1, 1, 1}, 0, 0, SIMT_OK, NULL, 16},
    /* c 2: floor(4/2) + floor(3/2) + (1 SM < 2: none) */
    {"small, size 2", SMALL, 1, {2, 1, 1}, 0, 0, SIMT_OK, NULL, 3},
    /* b 2, c 3: floor(8/3) + floor(6/3) + none */
    {"small, 2 blocks, size 3", SMALL, 2, {3, 1, 1}, 0, 0, SIMT_OK, NULL, 4},
    /* 2 x 2 x 1 = 4 blocks: only the group of 4 has room: floor(4/4) */
    {"small, 2x2 cluster", SMALL, 1, {2, 2, 1}, 0, 0, SIMT_OK, NULL, 1},
    /* b 2, c 4: floor(8/4) in the group of 4 */
    {"small, 2 blocks, size 4", SMALL, 2, {1, 4, 1}, 0, 0, SIMT_OK, NULL, 2},
    {"small, size 5 not portable", SMALL, 2, {5, 1, 1}, 0, 0, SIMT_EUNSAT, "cluster_size", 0},
    /* size 5 with the attribute: no group has 5 SMs: none at all (the runtime answers 0) */
    {"small, size 5 non-portable", SMALL, 2, {5, 1, 1}, 1, 0, SIMT_OK, NULL, 0},
    {"small, size 9 too large", SMALL, 2, {3, 3, 1}, 1, 0, SIMT_EUNSAT, "cluster_size", 0},
    {"small, grid of 10 in 4s", SMALL, 2, {4, 1, 1}, 0, 10, SIMT_EUNSAT, "grid_size", 0},
    {"small, grid of 12 in 4s", SMALL, 2, {4, 1, 1}, 0, 12, SIMT_OK, NULL, 2},
    {"cc 8.0", OLD_GPU, 2, {2, 1, 1}, 0, 0, SIMT_EUNSAT, "cluster_size", 0},
    {"amd", AMD_GPU, 2, {2, 1, 1}, 0, 0, SIMT_EUNSAT, "cluster_size", 0},
    {"no layout", NO_LAYOUT, 2, {2, 1, 1}, 0, 0, SIMT_ENOENT, "cluster_size", 0},
    {"sm_count changed by a what-if", SMS_CHANGED, 2, {2, 1, 1}, 0, 0, SIMT_ENOENT, "cluster_size", 0},
    {"zero dimension", SMALL, 2, {2, 0, 1}, 0, 0, SIMT_EINVAL, "cluster_size", 0},
    /* H200 (the first rows of tests/oracle/data/cluster_h200.csv: 12 registers,
     * 32 threads, 32 blocks an SM, capped at 8): c 1: 8 x 132 */
    {"h200 size 1", H200_LAYOUT, 32, {1, 1, 1}, 0, 0, SIMT_OK, NULL, 1056},
    /* c 2: 2 x 72 + 5 x 64 + 32 + 4 x 8 */
    {"h200 size 2", H200_LAYOUT, 32, {2, 1, 1}, 0, 0, SIMT_OK, NULL, 528},
    /* c 13: 2 x floor(144/13) + 5 x floor(128/13); the 8 and 2s have no room */
    {"h200 size 13", H200_LAYOUT, 32, {13, 1, 1}, 1, 0, SIMT_OK, NULL, 67},
    /* c 16 as 4 x 4: 2 x 9 + 5 x 8 */
    {"h200 4x4", H200_LAYOUT, 32, {4, 4, 1}, 1, 0, SIMT_OK, NULL, 58},
    /* b 1, c 9: the two groups of 18 hold 2 each, the five of 16 one each, the rest none */
    {"h200 one block, size 9", H200_LAYOUT, 1, {9, 1, 1}, 1, 0, SIMT_OK, NULL, 9},
};
/* clang-format on */

START_TEST(cluster_table)
{
    const struct cluster_case *c = &cluster_cases[_i];
    struct simt_gpu_spec gpu = cluster_gpu(c->layout);
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    memcpy(req.cluster_dims, c->dims, sizeof req.cluster_dims);
    req.non_portable_cluster_size = c->non_portable;
    req.grid_size = c->grid;
    struct simt_occupancy_result occ;
    memset(&occ, 0, sizeof occ);
    occ.active_blocks_per_sm = c->blocks_per_sm;
    struct simt_cluster_result res;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_clusters(&gpu, &req, &occ, &res, &diag);
    ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d (%s)", c->name, rc, c->rc, diag.message);
    if (rc != SIMT_OK) {
        ck_assert_msg(strcmp(diag.field, c->field) == 0, "%s: field %s, expected %s", c->name, diag.field,
                      c->field);
        ck_assert_msg(diag.message[0] != '\0', "%s: no message", c->name);
        ck_assert_int_eq(res.active_clusters_per_gpu, 0);
        return;
    }
    ck_assert_msg(res.active_clusters_per_gpu == c->clusters, "%s: %lld clusters, expected %lld", c->name,
                  (long long)res.active_clusters_per_gpu, (long long)c->clusters);
    ck_assert_int_eq(res.cluster_blocks, c->dims[0] * c->dims[1] * c->dims[2]);
}
END_TEST

/* The database's records: h200-sxm has a layout of 132 SMs, every other GPU none. */
START_TEST(cluster_layouts_in_database)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    ck_assert_int_eq(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag), SIMT_OK);
    int with_layout = 0;
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *g = simt_hwdb_at(db, i);
        int sum = 0;
        for (int k = 0; k < SIMT_MAX_GPCS; k++)
            sum += g->spec.gpc_sms[k];
        if (sum > 0) {
            with_layout++;
            ck_assert_str_eq(g->id, "h200-sxm");
            ck_assert_int_eq(sum, g->spec.sm_count);
        }
    }
    ck_assert_int_eq(with_layout, 1);
    simt_hwdb_unref(db);
}
END_TEST

static Suite *occupancy_suite(void)
{
    Suite *s = suite_create("occupancy");
    TCase *tc = tcase_create("occupancy");
    tcase_add_loop_test(tc, occupancy_table, 0, (int)(sizeof occ_cases / sizeof occ_cases[0]));
    tcase_add_test(tc, assumptions);
    tcase_add_test(tc, amd_fields);
    tcase_add_test(tc, incomplete_gpu);
    tcase_add_test(tc, database_records);
    tcase_add_loop_test(tc, suggest_table, 0, (int)(sizeof suggest_cases / sizeof suggest_cases[0]));
    tcase_add_loop_test(tc, cluster_table, 0, (int)(sizeof cluster_cases / sizeof cluster_cases[0]));
    tcase_add_test(tc, cluster_layouts_in_database);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(occupancy_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
