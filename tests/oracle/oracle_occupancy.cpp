/* oracle_occupancy.cpp - compares simtd's occupancy model with NVIDIA's own
 * occupancy calculator, cuda_occupancy.h from the CUDA toolkit, used as an
 * oracle and never copied: for every NVIDIA GPU of the bundled hardware
 * database, the header is fed that GPU's properties and both answer the same
 * random configurations (fixed seed, printed; block sizes 1..1024 and a few
 * beyond, registers 0..255, static and dynamic shared memory over their whole
 * range, max dynamic shared memory set or defaulted, every carveout
 * preference, 0..16 block barriers), then the same for block-size
 * suggestions with fixed and per-thread dynamic shared memory. Any difference
 * is printed with the configuration and both answers, and fails the test.
 *
 * Agreement: the header's active blocks, every per-resource limit, the
 * limiting factors and the allocated registers and shared memory equal
 * ours; a configuration the header cannot place (0 blocks, or an error) is
 * agreement only when ours refuses it too (SIMT_EUNSAT), and the reverse.
 *
 * Usage: oracle_occupancy [seed] [configs-in-total]. */
#include <cuda_occupancy.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "hwdb.h"
#include "occupancy.h"
}

namespace
{

/* splitmix64: small, fast, and the same sequence on every platform. */
struct rng {
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /* uniform in [lo, hi] */
    int64_t range(int64_t lo, int64_t hi)
    {
        if (hi <= lo)
            return lo;
        return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
    }
    bool chance(int percent)
    {
        return (int)(next() % 100) < percent;
    }
};

/* FNV-1a of a GPU id: each GPU draws its own, reproducible sequence. */
uint64_t id_hash(const std::string &id)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char ch : id)
        h = (h ^ ch) * 0x100000001b3ULL;
    return h;
}

struct gpu_entry {
    std::string id;
    struct simt_gpu_spec spec;
};

/* request fields our refusals may name, for the summary */
const char *const refusal_fields[] = {"block_size",           "registers_per_thread",
                                      "static_shared_bytes",  "max_dynamic_shared_bytes",
                                      "dynamic_shared_bytes", "block_barriers"};
const size_t refusal_field_count = sizeof refusal_fields / sizeof refusal_fields[0];

struct counts {
    long refused_by_field[sizeof refusal_fields / sizeof refusal_fields[0]] = {};
    long configs = 0;
    long launchable = 0;
    long both_refused = 0;
    long suggests = 0;
    long mismatches = 0;
};

cudaOccDeviceProp device_prop(const struct simt_gpu_spec &s)
{
    cudaOccDeviceProp p;
    p.computeMajor = s.compute_major;
    p.computeMinor = s.compute_minor;
    p.maxThreadsPerBlock = s.max_threads_per_block;
    p.maxThreadsPerMultiprocessor = s.max_threads_per_sm;
    p.regsPerBlock = s.max_registers_per_block;
    p.regsPerMultiprocessor = s.registers_per_sm;
    p.warpSize = s.warp_size;
    p.sharedMemPerBlock = (size_t)s.shared_bytes_per_block;
    p.sharedMemPerMultiprocessor = (size_t)s.shared_bytes_per_sm;
    p.numSms = s.sm_count;
    p.sharedMemPerBlockOptin = (size_t)s.shared_bytes_per_block_optin;
    p.reservedSharedMemPerBlock = (size_t)s.reserved_shared_bytes_per_block;
    return p;
}

/* The kernel's attributes as the runtime passes them: opt-in honoured, the
 * max dynamic size the kernel set (or, by simtd's contract, the most it may). */
cudaOccFuncAttributes func_attrs(const struct simt_gpu_spec &s, int registers, int64_t static_bytes,
                                 int64_t max_dynamic, int barriers, int max_threads)
{
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = max_threads;
    a.numRegs = registers;
    a.sharedSizeBytes = (size_t)static_bytes;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes =
        (size_t)(max_dynamic >= 0 ? max_dynamic : s.shared_bytes_per_block_optin - static_bytes);
    a.numBlockBarriers = barriers;
    a.virtualResourceCount = 0;
    return a;
}

/* The limits equal to the header's result, from the header's own per-limit
 * numbers. (Its limitingFactors field is not used: it marks the limits equal
 * to the minimum before the barrier limit is applied, so when barriers lower
 * the result it still names limits that no longer bind.) */
unsigned their_limiters(const cudaOccResult &t)
{
    const int blocks = t.activeBlocksPerMultiprocessor;
    unsigned bits = 0;
    if (t.blockLimitWarps == blocks)
        bits |= SIMT_LIMIT_WARPS;
    if (t.blockLimitRegs == blocks)
        bits |= SIMT_LIMIT_REGISTERS;
    if (t.blockLimitSharedMem == blocks)
        bits |= SIMT_LIMIT_SHARED;
    if (t.blockLimitBlocks == blocks)
        bits |= SIMT_LIMIT_BLOCKS;
    if (t.blockLimitBarriers == blocks)
        bits |= SIMT_LIMIT_BARRIERS;
    return bits;
}

void print_request(const char *gpu, const struct simt_occupancy_request &r)
{
    std::printf("  gpu=%s block_size=%d registers=%d static=%lld dynamic=%lld max_dynamic=%lld carveout=%d "
                "barriers=%d\n",
                gpu, r.block_size, r.registers_per_thread, (long long)r.static_shared_bytes,
                (long long)r.dynamic_shared_bytes, (long long)r.max_dynamic_shared_bytes, r.carveout_percent,
                r.block_barriers);
}

/* Returns true when both agree; prints the difference otherwise. */
bool compare_one(const gpu_entry &g, const struct simt_occupancy_request &req, counts &c)
{
    const struct simt_gpu_spec &s = g.spec;
    cudaOccDeviceProp prop = device_prop(s);
    cudaOccFuncAttributes attrs =
        func_attrs(s, req.registers_per_thread, req.static_shared_bytes, req.max_dynamic_shared_bytes,
                   req.block_barriers, s.max_threads_per_block);
    cudaOccDeviceState state;
    state.carveoutConfig = req.carveout_percent;
    cudaOccResult theirs;
    std::memset(&theirs, 0, sizeof theirs);
    cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&theirs, &prop, &attrs, &state, req.block_size,
                                                               (size_t)req.dynamic_shared_bytes);

    struct simt_occupancy_result ours;
    struct simt_diag diag;
    std::memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_compute(&s, &req, &ours, &diag);

    c.configs++;
    const bool they_refuse = err != CUDA_OCC_SUCCESS || theirs.activeBlocksPerMultiprocessor == 0;
    const bool we_refuse = rc != SIMT_OK;
    if (they_refuse && we_refuse) {
        c.both_refused++;
        for (size_t i = 0; i < refusal_field_count; i++)
            if (std::strcmp(diag.field, refusal_fields[i]) == 0)
                c.refused_by_field[i]++;
        return true;
    }
    bool same = they_refuse == we_refuse;
    if (same) {
        same = theirs.activeBlocksPerMultiprocessor == ours.active_blocks_per_sm &&
               theirs.blockLimitWarps == ours.limit_warps && theirs.blockLimitRegs == ours.limit_registers &&
               theirs.blockLimitSharedMem == ours.limit_shared &&
               theirs.blockLimitBlocks == ours.limit_blocks &&
               theirs.blockLimitBarriers == ours.limit_barriers && their_limiters(theirs) == ours.limiters &&
               (int64_t)theirs.allocatedRegistersPerBlock == ours.registers_per_block &&
               (int64_t)theirs.allocatedSharedMemPerBlock == ours.shared_bytes_per_block;
    }
    if (same) {
        c.launchable++;
        return true;
    }
    c.mismatches++;
    if (c.mismatches <= 20) {
        std::printf("MISMATCH\n");
        print_request(g.id.c_str(), req);
        std::printf(
            "  cuda_occupancy.h: err=%d blocks=%d limits warps=%d regs=%d smem=%d blocks=%d barriers=%d "
            "factors=0x%x (limits equal to the result: 0x%x) regs/block=%d smem/block=%zu\n",
            (int)err, theirs.activeBlocksPerMultiprocessor, theirs.blockLimitWarps, theirs.blockLimitRegs,
            theirs.blockLimitSharedMem, theirs.blockLimitBlocks, theirs.blockLimitBarriers,
            theirs.limitingFactors, their_limiters(theirs), theirs.allocatedRegistersPerBlock,
            theirs.allocatedSharedMemPerBlock);
        std::printf(
            "  simtd:            rc=%d blocks=%d limits warps=%d regs=%d smem=%d blocks=%d barriers=%d "
            "factors=0x%x regs/block=%lld smem/block=%lld carveout=%lld%s%s\n",
            rc, ours.active_blocks_per_sm, ours.limit_warps, ours.limit_registers, ours.limit_shared,
            ours.limit_blocks, ours.limit_barriers, ours.limiters, (long long)ours.registers_per_block,
            (long long)ours.shared_bytes_per_block, (long long)ours.shared_carveout_bytes,
            we_refuse ? " refused: " : "", we_refuse ? diag.field : "");
    }
    return false;
}

struct smem_per_thread {
    int64_t fixed;
    int64_t per_thread;
    size_t operator()(int block_size) const
    {
        return (size_t)(fixed + per_thread * block_size);
    }
};

bool compare_suggest(const gpu_entry &g, const struct simt_suggest_request &req, bool variable, counts &c)
{
    const struct simt_gpu_spec &s = g.spec;
    cudaOccDeviceProp prop = device_prop(s);
    int max_threads = req.max_block_size > 0 ? req.max_block_size : s.max_threads_per_block;
    cudaOccFuncAttributes attrs =
        func_attrs(s, req.registers_per_thread, req.static_shared_bytes, -1, req.block_barriers, max_threads);
    cudaOccDeviceState state;
    state.carveoutConfig = req.carveout_percent;
    int their_grid = 0, their_block = 0;
    cudaOccError err;
    if (variable) {
        smem_per_thread f{req.dynamic_shared_bytes, req.dynamic_shared_bytes_per_thread};
        err = cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&their_grid, &their_block, &prop, &attrs,
                                                                &state, f);
    } else {
        err = cudaOccMaxPotentialOccupancyBlockSize(&their_grid, &their_block, &prop, &attrs, &state,
                                                    (size_t)req.dynamic_shared_bytes);
    }

    struct simt_suggest_result ours;
    struct simt_diag diag;
    std::memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_suggest(&s, &req, &ours, &diag);

    c.suggests++;
    const bool they_refuse = err != CUDA_OCC_SUCCESS || their_block == 0;
    const bool we_refuse = rc != SIMT_OK;
    if (they_refuse && we_refuse)
        return true;
    if (they_refuse == we_refuse && their_block == ours.block_size && their_grid == ours.min_grid_size)
        return true;
    c.mismatches++;
    if (c.mismatches <= 20) {
        std::printf("MISMATCH (suggest, %s dynamic shared memory)\n", variable ? "per-thread" : "fixed");
        std::printf(
            "  gpu=%s registers=%d static=%lld dynamic=%lld per_thread=%lld max_block_size=%d carveout=%d "
            "barriers=%d\n",
            g.id.c_str(), req.registers_per_thread, (long long)req.static_shared_bytes,
            (long long)req.dynamic_shared_bytes, (long long)req.dynamic_shared_bytes_per_thread,
            req.max_block_size, req.carveout_percent, req.block_barriers);
        std::printf("  cuda_occupancy.h: err=%d block_size=%d min_grid_size=%d\n", (int)err, their_block,
                    their_grid);
        std::printf("  simtd:            rc=%d block_size=%d min_grid_size=%d%s%s\n", rc, ours.block_size,
                    ours.min_grid_size, we_refuse ? " refused: " : "", we_refuse ? diag.field : "");
    }
    return false;
}

/* One random configuration over the whole input space of a GPU. */
struct simt_occupancy_request random_request(const struct simt_gpu_spec &s, rng &r)
{
    struct simt_occupancy_request q;
    simt_occupancy_request_init(&q);

    const int max_block = s.max_threads_per_block;
    const int64_t block_roll = r.range(0, 99);
    if (block_roll < 60)
        q.block_size = (int)r.range(1, max_block); /* any size, most not a multiple of the warp */
    else if (block_roll < 80)
        q.block_size = s.warp_size * (int)r.range(1, max_block / s.warp_size);
    else if (block_roll < 90)
        q.block_size = (int)r.range(1, 96);
    else
        q.block_size = (int)r.range(max_block - 40, max_block + 8); /* around the limit, a few over */

    const int64_t register_roll = r.range(0, 99);
    if (register_roll < 25)
        q.registers_per_thread = (int)r.range(0, 255);
    else if (register_roll < 50)
        q.registers_per_thread = (int)r.range(0, 16);
    else
        q.registers_per_thread = (int)r.range(16, 64);

    const int64_t static_max = s.shared_bytes_per_block; /* static shared memory is limited to 48 KiB */
    const int64_t static_roll = r.range(0, 99);
    if (static_roll < 25)
        q.static_shared_bytes = 0;
    else if (static_roll < 50)
        q.static_shared_bytes = 1024 * r.range(0, static_max / 1024);
    else
        q.static_shared_bytes = r.range(0, static_max);

    const int64_t optin_room = s.shared_bytes_per_block_optin - q.static_shared_bytes;
    q.max_dynamic_shared_bytes = r.chance(50) ? -1 : r.range(0, optin_room);
    const int64_t max_dynamic = q.max_dynamic_shared_bytes >= 0 ? q.max_dynamic_shared_bytes : optin_room;
    const int64_t dynamic_roll = r.range(0, 99);
    if (dynamic_roll < 20)
        q.dynamic_shared_bytes = 0;
    else if (dynamic_roll < 40)
        q.dynamic_shared_bytes = r.range(0, 16384);
    else if (dynamic_roll < 60)
        q.dynamic_shared_bytes = r.range(max_dynamic - 2048, max_dynamic + 512); /* around the limit */
    else
        q.dynamic_shared_bytes = r.range(0, max_dynamic);
    if (q.dynamic_shared_bytes < 0)
        q.dynamic_shared_bytes = 0;

    q.carveout_percent = (int)r.range(-1, 100);
    q.block_barriers = r.chance(40) ? 1 : (int)r.range(0, 16);
    return q;
}

struct simt_suggest_request random_suggest(const struct simt_gpu_spec &s, rng &r, bool variable)
{
    struct simt_suggest_request q;
    simt_suggest_request_init(&q);
    q.registers_per_thread = (int)r.range(0, 255);
    q.static_shared_bytes = r.chance(30) ? 0 : r.range(0, s.shared_bytes_per_block);
    if (variable) {
        q.dynamic_shared_bytes = r.chance(70) ? 0 : r.range(0, 8192);
        q.dynamic_shared_bytes_per_thread = r.range(1, r.chance(50) ? 64 : 256);
    } else {
        q.dynamic_shared_bytes =
            r.chance(30) ? 0 : r.range(0, s.shared_bytes_per_block_optin - q.static_shared_bytes);
    }
    q.max_block_size = r.chance(60) ? 0 : (int)r.range(1, s.max_threads_per_block);
    q.carveout_percent = (int)r.range(-1, 100);
    q.block_barriers = r.chance(40) ? 1 : (int)r.range(0, 16);
    return q;
}

std::vector<gpu_entry> load_gpus(struct simt_hwdb **db_out)
{
    std::vector<gpu_entry> gpus;
    struct simt_diag diag;
    std::memset(&diag, 0, sizeof diag);
    struct simt_hwdb *db = nullptr;
    int rc = simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag);
    if (rc != SIMT_OK) {
        std::printf("FAIL: cannot load the hardware database %s: %s:%d:%d %s: %s\n", SIMT_SOURCE_DIR "/hwdb",
                    diag.file, diag.line, diag.column, diag.field, diag.message);
        return gpus;
    }
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *g = simt_hwdb_at(db, i);
        if (g->spec.vendor == SIMT_VENDOR_NVIDIA)
            gpus.push_back(gpu_entry{g->id, g->spec});
    }
    *db_out = db;
    return gpus;
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = 20240611;
    long total_wanted = 120000;
    if (argc > 1)
        seed = std::strtoull(argv[1], nullptr, 0);
    if (argc > 2)
        total_wanted = std::strtol(argv[2], nullptr, 0);

    struct simt_hwdb *db = nullptr;
    std::vector<gpu_entry> gpus = load_gpus(&db);
    if (gpus.empty()) {
        std::printf("FAIL: no NVIDIA GPU in the hardware database\n");
        simt_hwdb_unref(db);
        return 1;
    }

    std::printf("occupancy oracle: cuda_occupancy.h (max compute capability %d.%d) against simtd, seed %llu, "
                "%zu NVIDIA GPUs\n",
                __CUDA_OCC_MAJOR__, __CUDA_OCC_MINOR__, (unsigned long long)seed, gpus.size());

    const long per_gpu = (total_wanted + (long)gpus.size() - 1) / (long)gpus.size();
    const long suggests_per_gpu = 600; /* per form: fixed and per-thread dynamic shared memory */
    counts total;
    for (const gpu_entry &g : gpus) {
        rng r{seed ^ id_hash(g.id)};
        counts c;
        /* every block size once, the rest of the configuration random */
        for (int bs = 1; bs <= g.spec.max_threads_per_block + 1; bs++) {
            struct simt_occupancy_request q = random_request(g.spec, r);
            q.block_size = bs;
            compare_one(g, q, c);
        }
        while (c.configs < per_gpu)
            compare_one(g, random_request(g.spec, r), c);
        for (long i = 0; i < suggests_per_gpu; i++) {
            compare_suggest(g, random_suggest(g.spec, r, false), false, c);
            compare_suggest(g, random_suggest(g.spec, r, true), true, c);
        }
        std::printf(
            "  %-16s sm_%d%d: %6ld configurations (%6ld launchable, %6ld refused by both), %4ld suggestions, "
            "%ld mismatches\n",
            g.id.c_str(), g.spec.compute_major, g.spec.compute_minor, c.configs, c.launchable, c.both_refused,
            c.suggests, c.mismatches);
        total.configs += c.configs;
        total.launchable += c.launchable;
        total.both_refused += c.both_refused;
        total.suggests += c.suggests;
        total.mismatches += c.mismatches;
        for (size_t i = 0; i < refusal_field_count; i++)
            total.refused_by_field[i] += c.refused_by_field[i];
    }
    std::printf("refused by both, by the field simtd names:");
    for (size_t i = 0; i < refusal_field_count; i++)
        std::printf(" %s %ld%s", refusal_fields[i], total.refused_by_field[i],
                    i + 1 < refusal_field_count ? "," : "\n");
    std::printf("total: %ld configurations and %ld suggestions over %zu GPUs, %ld mismatches\n",
                total.configs, total.suggests, gpus.size(), total.mismatches);
    simt_hwdb_unref(db);
    if (total.mismatches != 0) {
        std::printf("FAIL\n");
        return 1;
    }
    std::printf("PASS\n");
    return 0;
}
