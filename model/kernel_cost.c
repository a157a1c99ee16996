/* kernel_cost.c - one warp's lifetime priced with the access models:
 * coalescing and DRAM rows for global accesses, banks for shared ones,
 * serialization for constant reads; where each global access is served
 * (L1, L2 or DRAM) from the working sets and the tables the grid shares;
 * the dirty lines a cold launch writes back; the arithmetic and integer
 * work. Pure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "banks.h"
#include "coalescing.h"
#include "constant.h"
#include "kernel_internal.h"
#include "l2_state.h"
#include "latency.h"

/* The DRAM bytes one warp's global access moves when it misses: the
 * footprint for contiguous lanes (the neighbouring warps share boundary
 * granules), the sectors for strided ones (shared with the block's other
 * rows in a multi-row block). Fills *co. */
static int dram_bytes_of(const struct simt_gpu_spec *gpu, const struct simt_kernel_access *a, int rows,
                         struct simt_coalescing_result *co, double *dram, simt_kernel_assumed *assumed,
                         struct simt_diag *diag)
{
    int rc = simt_coalescing_compute(gpu, &a->pattern, co, diag);
    if (rc != SIMT_OK)
        return rc;
    *dram = (double)co->dram_bytes;
    double useful = (double)co->useful_bytes;
    int64_t stride = a->pattern.lane_stride_elements;
    if (!a->pattern.explicit_addresses && (stride == 1 || stride == -1)) {
        /* contiguous lanes: the warps of the grid tile a contiguous
         * range, so the granules a misaligned warp shares with its
         * neighbours are fetched once (DRAM moves the footprint) */
        *dram = useful;
    } else if (!a->pattern.explicit_addresses && (stride > 1 || stride < -1) && *dram > useful) {
        if (rows > 1) {
            /* a column of a 2D tile: the block's other rows use the
             * rest of each sector while it sits in L2 */
            *dram = fmax(useful, *dram / rows);
            *assumed |= SIMT_KERNEL_ASSUMED_ROW_REUSE;
        } else {
            *assumed |= SIMT_KERNEL_ASSUMED_NO_REUSE;
        }
    }
    return SIMT_OK;
}

/* Where a global access is served. */
enum level { LEVEL_DRAM = 0, LEVEL_L2, LEVEL_L1 };

/* A read-only table the whole grid shares: where its reads are served. */
struct table {
    double hit;               /* share of its reads that hit (at the access's level) */
    double first_touch_bytes; /* DRAM bytes per warp: the table's lines, fetched once a launch */
    double l2_hit;            /* at L1: the share of its misses that hit L2 (0: all to DRAM) */
};

/* A global access that hits in L2 (cost_global). */
static void cost_l2_hit(const struct simt_kernel_access *a, const struct simt_coalescing_result *co,
                        double useful, const struct rates *r, struct warp_cost *w,
                        simt_kernel_assumed *assumed)
{
    /* A hit in L2: the SM's port carries the sectors it reads, no DRAM.
     * Unlike a miss, which holds a whole line's slot while the L2
     * allocates the line and fills it from DRAM (simt_kernel_demands), a
     * hit needs no line; stores the L2 keeps move at its write figure.
     * Behind the ports, each line a warp touches is a request the slice
     * takes on its own (a tag lookup): four sectors of a stream share one,
     * a scattered sector has one to itself, so random sector reads run at
     * the request rate, about half the streaming byte rate (H200: the
     * gather fit probes of 2 and 16 MiB tables, 118.5 and 127.8 us, where
     * bytes alone priced 85 us; the request rate, 123.5 us). A store that
     * writes part of a sector is two requests: the slice reads the sector,
     * merges the bytes and writes it back (its ECC covers the whole
     * sector): simt-calibrate's random 4-byte stores into an L2-resident
     * buffer run at half the rate of its random reads (H100 SXM,
     * tests/gpu/results/h100/calibrate-run1.json: 6.50e10
     * against 1.32e11 a second, 2.03 times), and the H100's scatters into 2
     * and 16 MiB tables come out within 12% (kernels_probe.json). */
    double lines = a->count * (double)co->sector_bytes_moved / r->line_bytes;
    w->l2_bytes += a->count * (double)co->sector_bytes_moved;
    w->l2_lines += lines;
    w->useful_bytes += a->count * useful;
    double requests = a->count * (double)co->cache_lines;
    if (a->op == SIMT_OP_STORE) {
        w->l2_write_lines += lines;
        if (useful < (double)co->sector_bytes_moved) {
            requests *= 2.0;
            *assumed |= SIMT_KERNEL_ASSUMED_PARTIAL_SECTOR_STORE;
        }
    }
    w->l2_requests += requests;
    if ((double)co->cache_lines * r->line_bytes > 1.000001 * (double)co->sector_bytes_moved)
        w->scattered_hits = 1;
}

/* A store that leaves part of its sectors unwritten (after the
 * block's other rows filled what they could) goes back to DRAM as
 * a read-modify-write of each dirty sector (ECC covers the whole
 * sector): the sector is read, merged and written, and each line's
 * read and write-back open its row apart. H200, 4-byte stores
 * (kernels.json, confirm/kernels.json): 32, 64 and 128 bytes apart
 * all write one sector a store, yet take 265, 364 and 723 us for
 * 2^24 stores: the bytes bind the first, the lines' rows (4, 2 and
 * 1 stores a line) the others; 256 bytes apart 490 us for 2^23.
 * Where each line has a row chunk of its own, a line's
 * read-modify-write goes at its own measured rate
 * (dram_partial_stores_per_s, 4-byte stores 256 B to 1 KiB apart;
 * half the row activations where the card has none): on an H100
 * SXM 1.36e10 a second at 1 KiB, 1.45e10 at 256 B, against 3.17e10
 * row-opening reads (simt-calibrate run 5), 2.33 rows' worth each,
 * not 2. The slices carry it: a slice evicts the line, has the
 * sector read and merges it, and takes no other request meanwhile,
 * so a scatter's stores that hit L2 and those that go back add
 * their times rather than overlap (H100 SXM, check4 and the
 * counters' read-modify-writes a store: 40 MiB 645 us, 0.36 of its
 * stores going back, between 266 us all hits and 1250 us none).
 * Where the card has the slices' request rate, a read-modify-write
 * is priced there, as that many requests' time less its own store's
 * (l2_requests_per_s / dram_partial_stores_per_s - 1), its row
 * openings as two; without it, as rows. Lines that share a chunk
 * keep the two openings a line (the H200's 128-B rows above). */
static void cost_partial_store(const struct simt_kernel_access *a, const struct simt_coalescing_result *co,
                               double dram, double useful, double opened, const struct rates *r,
                               struct warp_cost *w, simt_kernel_assumed *assumed)
{
    double reuse = co->dram_bytes > 0 ? dram / (double)co->dram_bytes : 1.0;
    double sectors = fmax(useful, fmin(dram, (double)co->sector_bytes_moved * reuse));
    double lines = (double)co->cache_lines * reuse;
    double line_rows = fmax(opened, lines);
    double per_line = 2.0;
    if (opened >= 0.999999 * lines) {
        if (r->rmw_requests > 0.0)
            w->l2_requests += a->count * lines * r->rmw_requests;
        else
            per_line = r->rmw_rows;
    }
    w->dram_bytes += a->count * (2.0 * sectors - dram);
    w->dram_write_bytes += a->count * (sectors - dram);
    w->dram_read_bytes += a->count * sectors;
    w->dram_rows += a->count * (per_line * line_rows - opened);
    *assumed |= SIMT_KERNEL_ASSUMED_PARTIAL_STORE;
}

/* One global (or local) access of a warp served at `level`: its L1 and L2
 * traffic, its DRAM bytes and rows, and the latency of one round of it. */
static int cost_global(const struct simt_gpu_spec *gpu, const struct simt_kernel_access *a, int rows,
                       enum level level, double independent, double rounds, const struct rates *r,
                       struct warp_cost *w, simt_kernel_assumed *assumed, double *latency,
                       struct simt_diag *diag)
{
    struct simt_coalescing_result co;
    int is_load = a->op == SIMT_OP_LOAD;
    double dram = 0.0;
    simt_kernel_assumed reuse_assumed = 0;
    int rc = dram_bytes_of(gpu, a, rows, &co, &dram, &reuse_assumed, diag);
    if (rc != SIMT_OK)
        return rc;
    w->l1_wavefronts += a->count * co.cache_lines;
    w->data_wavefronts += a->count * co.cache_lines;
    if (a->space == SIMT_SPACE_LOCAL || level == LEVEL_L1) {
        if (a->space == SIMT_SPACE_LOCAL)
            *assumed |= SIMT_KERNEL_ASSUMED_LOCAL_L1;
        *latency = r->l1_latency;
        return SIMT_OK;
    }
    double useful = (double)co.useful_bytes;
    int64_t stride = a->pattern.lane_stride_elements;
    if (level == LEVEL_L2) {
        cost_l2_hit(a, &co, useful, r, w, assumed);
        *latency = r->l2_latency;
        return SIMT_OK;
    }
    *assumed |= SIMT_KERNEL_ASSUMED_COLD_DRAM | reuse_assumed;
    /* DRAM rows. The address map gives each DRAM row 256
     * contiguous bytes (dram_interleave) before it moves to another
     * channel, so the accesses of a warp (and of its neighbours,
     * for contiguous lanes) that fall in one such chunk share one
     * row activation, and accesses in distinct chunks each open
     * their own. A pseudo-channel opens rows at a limited rate
     * whatever they deliver (tRRD, tFAW: the activation current),
     * which the database holds as dram_row_activations_per_s.
     * Why rows, and not the L1's outstanding misses or the L2's
     * request rate: on the H200, 8-byte reads 128 B apart and 256 B
     * apart cost the same per read everywhere but in DRAM rows (one
     * line request, one sector, one 64-B DRAM access each; 16 and
     * 32 chunks a warp), yet the first runs at 6.0e10 reads/s (the
     * L2's line rate) and the second at 4.3e10 to 4.65e10
     * (kernels.json; simt-calibrate run 3): a per-line or per-miss
     * limit would slow the first, which does more of them a second,
     * before the second. Reads 512 B, 1 KiB and 2 KiB apart run at
     * the 256-B rate (within 10%), so from 256 B on each read opens
     * its own row. Dense streams open one row per 256 B, 1.8e10 a
     * second at 4.5 TB/s, well below the H200's 4.26e10: the limit
     * binds only for sparse accesses (4-byte strides up to 16 and
     * 8-byte up to 8 fill their chunks and stay bus-bound). */
    double opened = dram / r->dram_interleave;
    if (!(!a->pattern.explicit_addresses && (stride == 1 || stride == -1)) && co.dram_bytes > 0) {
        double chunks = simt_coalescing_distinct_blocks(&a->pattern, (int64_t)r->dram_interleave);
        opened = chunks * dram / (double)co.dram_bytes; /* the same reuse as the bytes */
    }
    opened = fmin(fmax(opened, dram / r->dram_interleave), dram / r->dram_granularity);
    if (opened > 1.000001 * dram / r->dram_interleave)
        w->sparse = 1;
    w->dram_rows += a->count * opened;
    double l2 = (double)co.sector_bytes_moved;
    w->dram_bytes += a->count * dram;
    if (a->op == SIMT_OP_STORE)
        w->dram_write_bytes += a->count * dram;
    else
        w->dram_read_bytes += a->count * dram;
    if (a->op == SIMT_OP_STORE && dram > 1.000001 * useful)
        cost_partial_store(a, &co, dram, useful, opened, r, w, assumed);
    w->l2_bytes += a->count * l2;
    w->l2_lines += a->count * co.cache_lines;
    w->l2_requests += a->count * co.cache_lines;
    w->useful_bytes += a->count * useful;
    double miss = l2 > 0.0 ? fmin(1.0, dram / l2) : 1.0;
    /* A round of `independent` loads completes with the slowest of
     * its DRAM granule accesses: each takes the fastest latency plus
     * an exponential spread of one row cycle (so one access costs the
     * measured pointer-chase mean), and the expected maximum of n is
     * the row cycle times the n-th harmonic number. */
    double granules = fmax(1.0, ceil(dram / r->dram_granularity - 1e-9));
    double spread = fmin(r->dram_row_cycle, r->dram_latency);
    double dram_round = (r->dram_latency - spread) + spread * simt_harmonic(independent * granules);
    *latency = miss * dram_round + (1.0 - miss) * r->l2_latency;
    if (is_load)
        w->dram_queue_rounds += rounds * miss;
    return SIMT_OK;
}

/* A shared table's reads: the hit share at its level, the rest from DRAM,
 * and its lines' first touch; the round waits the mix of the two latencies. */
static int cost_table(const struct simt_gpu_spec *gpu, const struct simt_kernel_access *a, int rows,
                      enum level level, const struct table *t, double independent, double rounds,
                      const struct rates *r, struct warp_cost *w, simt_kernel_assumed *assumed,
                      double *latency, struct simt_diag *diag)
{
    struct simt_kernel_access part = *a;
    double hit_latency = 0.0, l2_latency = 0.0, miss_latency = 0.0;
    double l2_share = level == LEVEL_L1 ? (1.0 - t->hit) * t->l2_hit : 0.0;
    double miss = 1.0 - t->hit - l2_share;
    int rc;
    part.count = a->count * t->hit;
    if (part.count > 0.0 && (rc = cost_global(gpu, &part, rows, level, independent, rounds * t->hit, r, w,
                                              assumed, &hit_latency, diag)) != SIMT_OK)
        return rc;
    part.count = a->count * l2_share;
    if (part.count > 0.0 && (rc = cost_global(gpu, &part, rows, LEVEL_L2, independent, rounds * l2_share, r,
                                              w, assumed, &l2_latency, diag)) != SIMT_OK)
        return rc;
    part.count = a->count * miss;
    if (part.count > 0.0 && (rc = cost_global(gpu, &part, rows, LEVEL_DRAM, independent, rounds * miss, r, w,
                                              assumed, &miss_latency, diag)) != SIMT_OK)
        return rc;
    if (a->op != SIMT_OP_STORE) { /* a store table's lines are allocated on the write, not read */
        w->dram_bytes += t->first_touch_bytes;
        w->dram_read_bytes += t->first_touch_bytes;
        w->dram_rows += t->first_touch_bytes / r->dram_interleave;
    }
    *latency = t->hit * hit_latency + l2_share * l2_latency + miss * miss_latency;
    return SIMT_OK;
}

/* The share of a table's reads that hit an L2 which keeps a share q of
 * the table's lines, where a miss fills only the DRAM access it needed (a
 * granule of the line's sectors) and g such fills make a line. NVIDIA's
 * L1 and L2 lines are 128 B of four 32-B sectors, and a miss fetches only
 * the sectors that missed, not the whole line (NVIDIA developer forums,
 * "Understanding L1/TEX Cache Sectors/Req" and "Pascal L1 cache", answers
 * by NVIDIA staff); from DRAM a sector comes in its DRAM access (the
 * record's dram_access_granularity_bytes, 64 B on the H200). So a read
 * hits only when its line is resident and its own granule was filled
 * since the line came in. Reads uniform over the table (Che's
 * approximation of LRU: a line is resident when its previous read is
 * within the cache's characteristic time, probability q): looking back,
 * the line's reads form a chain each link of which is resident with
 * probability q; the read hits when the chain reached its granule,
 * h = sum_k (1 - q) q^k (1 - (1 - 1/g)^k) = q / (g - q (g - 1)).
 * g = 1 (a warp reads whole lines) gives q; q = 1 gives 1. H200: 4-byte
 * reads 1 KiB apart, 64-B DRAM accesses in 128-B lines (g = 2), of a
 * 64 MiB table beside 30 MiB of L2 (q 0.47): 0.31 of reads hit, not 0.47
 * (a simulation of an LRU of sectored lines under uniform reads: 0.306). */
static double sectored_hit(double q, double fills_per_line)
{
    double g = fmax(1.0, fills_per_line);
    return q / (g - q * (g - 1.0));
}

/* The share of a table's lines an L2 share of `share` bytes keeps when
 * the table, `table` bytes, is read at random. Without a way count (ways
 * 0) an LRU edge: all of it up to the share, share / table past it. With
 * one, the table's lines fall on the sets at random, so a set is dealt a
 * Poisson number of them, mean ways x table / share, and keeps at most
 * ways: a table near the share already loses its fuller sets' overflow.
 * H100 SXM, Nsight Compute counters of gathers (tests/gpu/results/h100/
 * ncu/gather-*.json, the table's L2 read hits): of a 25 MiB share, tables
 * of 24 and 32 MiB hit 0.75 and 0.53 of their 4-byte reads; 4 ways (with
 * sectored_hit, two fills a line) gives 0.69 and 0.54, the LRU edge 1 and
 * 0.64; 48 MiB to 1 GiB agree either way (0.32 to 0.04 counted). */
static double table_kept(double table, double share, double ways)
{
    if (!(ways > 0.0))
        return table > share ? share / table : 1.0;
    double mean = ways * table / share, p = exp(-mean), short_of = 0.0;
    for (int k = 0; k < (int)ways; k++) { /* the sum of (ways - k) P(k) */
        short_of += (ways - k) * p;
        p *= mean / (k + 1);
    }
    return (ways - short_of) / mean;
}

/* A global load with `distinct_addresses` D reads a table of D elements
 * that every warp of the grid shares (a gather's lookup table, a GEMV's x
 * vector). Its lines come from DRAM once a launch; after that a read hits
 * L1 when the table fits in the L1 left beside the resident blocks' shared
 * memory, else L2 when it fits there. An L2 split into partitions that
 * each cache what their own SMs read (l2_partitions: A100, H100, H200 2)
 * holds a line every SM reads once in each, so the table has l2_bytes /
 * l2_partitions of it; a larger table, read at random, keeps that much of
 * itself resident, so that share of its reads hits and the rest misses to
 * DRAM (an LRU cache under uniform reads). */
static int table_fits(const struct simt_kernel_access *a, const struct rates *r)
{
    return a->distinct_addresses * a->pattern.element_bytes <= r->l2_bytes / r->l2_partitions;
}

static void place_table(const struct simt_kernel_access *a, const struct rates *r,
                        const struct launch_shape *shape, double l1_free, double fills_per_line,
                        enum level *level, struct table *t)
{
    double table_bytes = a->distinct_addresses * a->pattern.element_bytes;
    double lines = ceil(table_bytes / r->line_bytes);
    double l2_share = r->l2_bytes / r->l2_partitions;
    t->first_touch_bytes = lines * r->line_bytes / shape->warps_total;
    t->hit = 1.0;
    if (table_bytes <= l1_free) {
        *level = LEVEL_L1;
    } else if (l2_share > 0.0) {
        *level = LEVEL_L2;
        double kept = table_kept(table_bytes, l2_share, r->l2_ways);
        if (kept < 1.0) {
            t->hit = sectored_hit(kept, fills_per_line);
            t->first_touch_bytes = kept * table_bytes / shape->warps_total; /* the resident part */
        }
    } else {
        *level = LEVEL_DRAM;
        t->hit = 0.0;
        t->first_touch_bytes = 0.0;
    }
}

/* A store table written at random: the share of its stores that do not go
 * back to DRAM as a read-modify-write. L2 keeps a share h of the table's
 * lines (table_kept over the whole L2: a store goes to its line's home
 * slice, not to a copy near the SM, as a read does); a line stays while it
 * is hit, so a stay holds 1 + Geometric(h) stores, each to one of the
 * line's g sectors at random, and every sector a stay touches leaves dirty
 * in part: one read-modify-write each. The expected sectors of a stay over
 * its expected stores: r = (1 - h) g (1 - E[(1 - 1/g)^k]), with E[(1 -
 * 1/g)^k] = (1 - 1/g)(1 - h) / (1 - h (1 - 1/g)). H100 SXM, Nsight Compute
 * counters of the scatters (tests/gpu/results/h100/ncu/gather-*.json, DRAM
 * bytes read beyond the index and value streams, over 32-B sectors):
 * 4-byte stores into tables of 64, 96, 128, 256 and 1024 MiB read back
 * 0.68, 0.83, 0.88, 0.95 and 0.99 sectors a store; g = 4 and sm_90's 4
 * ways give 0.63, 0.79, 0.86, 0.94 and 0.99. */
static double store_table_kept(double table_bytes, double sectors_per_line, const struct rates *r)
{
    double h = table_kept(table_bytes, r->l2_bytes, r->l2_ways);
    double g = fmax(1.0, sectors_per_line), left = 1.0 - 1.0 / g;
    double untouched = left * (1.0 - h) / (1.0 - h * left);
    return 1.0 - (1.0 - h) * g * (1.0 - untouched);
}

/* The share of a repeated read that a cache of `capacity` bytes of room
 * for it serves when the set read again is `set` bytes: all of it up to
 * `whole` (repeat_whole_fraction of the room), then falling linearly to
 * none at the room, none past it. Warps read their rows while others read
 * theirs and write their results, so a line waits for its re-read among
 * lines that came in after it; the larger the set, the more of its lines
 * are evicted first. The room is the L1 left beside the resident blocks'
 * shared memory for the SM's set, the L2's reuse share (l2_reuse_bytes) for
 * the wave's. H100 SXM, Nsight Compute counters of softmax and layer norm
 * rows (tests/gpu/results/h100/ncu/everyday-*.json, L2 read sectors
 * against DRAM bytes read): a wave's set of 0.29 of the reuse share re-read
 * whole, 0.39 0.78 to 0.97 of it, 0.78 0.25 to 0.36, 1.16 0.10 (sm_90's
 * 0.25 gives 0.95, 0.81, 0.29 and 0); in L1 (L2 read sectors against the
 * first pass's) an SM's set of 64 KiB of 240 re-read whole, 96 KiB 0.63,
 * 128 KiB 0.47, 256 KiB 0.14 to 0.23 (0.25 gives 0.98, 0.80, 0.62 and 0). */
static double share_kept(double set, double whole, double capacity)
{
    if (set > capacity)
        return 0.0;
    if (set <= whole || !(capacity > whole))
        return 1.0;
    return (capacity - set) / (capacity - whole);
}

static double repeat_hit(double wave, const struct rates *r)
{
    return share_kept(wave, r->l2_repeat_whole_bytes, r->l2_reuse_bytes);
}

/* Where each global access is served (levels[i]):
 * - `repeats` j: the addresses of access j read again. The SM's working set
 *   is what its resident warps touch with access j (sectors); it hits L1
 *   when that fits in the L1 left beside the resident blocks' shared
 *   memory, else L2 when the wave's working set (every SM's) fits in the
 *   L2's reuse share (l2_reuse_fraction), else it misses to DRAM like a
 *   first touch; past repeat_whole_fraction of either room only a share
 *   hits there (share_kept), the rest going to the next level. A repeated
 *   store is written back once: it stays priced as a store.
 * - `l2_warm`: the launch's working set (the DRAM bytes of its first
 *   touches) is already in L2 when it fits; streamed through an LRU cache
 *   larger sets keep nothing, so they are priced cold.
 * - a global load with `distinct_addresses`: a table the grid shares
 *   (place_table above).
 * - else DRAM on first touch. */
static int place_accesses(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                          const struct rates *r, const struct launch_shape *shape, enum level *levels,
                          struct table *tables, simt_kernel_assumed *assumed, struct simt_diag *diag)
{
    double footprint[SIMT_KERNEL_MAX_ACCESSES] = {0}; /* sector bytes per warp */
    double fills[SIMT_KERNEL_MAX_ACCESSES] = {0};     /* DRAM accesses that fill a line */
    double launch_bytes = 0.0;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        levels[i] = LEVEL_DRAM;
        if (a->space != SIMT_SPACE_GLOBAL || a->count <= 0.0)
            continue;
        struct simt_coalescing_result co;
        double dram = 0.0;
        simt_kernel_assumed ignored = 0;
        int rc = dram_bytes_of(gpu, a, shape->rows, &co, &dram, &ignored, diag);
        if (rc != SIMT_OK)
            return rc;
        footprint[i] = a->count * (double)co.sector_bytes_moved;
        /* the DRAM accesses a miss fills per line it touches */
        fills[i] = co.cache_lines > 0 && dram > 0.0
                       ? r->line_bytes / fmax(r->dram_granularity, dram / (double)co.cache_lines)
                       : 1.0;
        if (a->repeats_of == 0)
            launch_bytes += a->op != SIMT_OP_ATOMIC && a->distinct_addresses > 0.0
                                ? a->distinct_addresses * a->pattern.element_bytes
                                : shape->warps_total * a->count * dram;
    }
    double l1_free = r->l1_bytes_per_sm - shape->resident_blocks * shape->shared_bytes_per_block;
    /* Back-to-back launches read their set in the same order, so an LRU
     * cache that cannot hold all of it keeps none of it for the next; the
     * set conflicts of a hashed, partitioned L2 bring that edge below
     * l2_bytes (l2_reuse_fraction). H200 (60 MiB): 40 MiB read back to back
     * is found whole, 48 MiB mostly (fit half: l2_read_48MiB_warm), 56 MiB
     * not at all; H100 SXM (50 MiB): 36 MiB whole, 44 MiB not. */
    int warm = req->l2_warm && r->l2_bytes > 0.0 && launch_bytes <= r->l2_reuse_bytes;
    if (req->l2_warm)
        *assumed |= warm ? SIMT_KERNEL_ASSUMED_L2_WARM : SIMT_KERNEL_ASSUMED_L2_WARM_MISS;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        tables[i] = (struct table){0.0, 0.0, 0.0};
        if (a->space != SIMT_SPACE_GLOBAL || a->count <= 0.0)
            continue;
        if (a->op == SIMT_OP_LOAD && a->distinct_addresses > 0.0) {
            place_table(a, r, shape, l1_free, fills[i], &levels[i], &tables[i]);
            if (warm && table_fits(a, r))
                tables[i] = (struct table){1.0, 0.0, 0.0};
            continue;
        }
        /* A store table (a scatter's): the grid writes D elements at
         * random. When they fit in L2 the slices allocate their lines on
         * the write (no DRAM read: the sectors keep byte masks) and keep
         * them; the dirty table goes back to DRAM after the launch. */
        if (a->op == SIMT_OP_STORE && a->distinct_addresses > 0.0 && r->l2_bytes > 0.0) {
            double table_bytes = a->distinct_addresses * a->pattern.element_bytes;
            double touched = fmax(r->sector_bytes, (double)a->pattern.element_bytes); /* a store's */
            double kept = store_table_kept(table_bytes, r->line_bytes / touched, r);
            if (kept >= 0.99) { /* at most 1% of its stores go back: whole */
                levels[i] = LEVEL_L2;
                tables[i].first_touch_bytes = table_bytes / shape->warps_total;
                *assumed |= SIMT_KERNEL_ASSUMED_STORE_TABLE;
                continue;
            }
            if (kept > 0.001) {
                levels[i] = LEVEL_L2;
                tables[i] = (struct table){kept, fmin(table_bytes, r->l2_bytes) / shape->warps_total, 0.0};
                *assumed |= SIMT_KERNEL_ASSUMED_STORE_TABLE_PART;
            }
            continue;
        }
        if (a->repeats_of > 0 && a->op != SIMT_OP_STORE) {
            double per_sm = shape->resident_warps * footprint[a->repeats_of - 1];
            /* the wave's set, read again in the order it was read: the
             * same edge as back-to-back launches' (l2_reuse_fraction);
             * past repeat_whole_fraction of it only a share hits */
            double hit = r->l2_bytes > 0.0 ? repeat_hit(per_sm * r->sms, r) : 0.0;
            double l1_hit = share_kept(per_sm, r->repeat_whole * l1_free, l1_free);
            if (l1_hit >= 1.0) {
                levels[i] = LEVEL_L1;
                *assumed |= SIMT_KERNEL_ASSUMED_REPEAT_L1;
            } else if (l1_hit > 0.0) {
                levels[i] = LEVEL_L1;
                tables[i].hit = l1_hit;
                tables[i].l2_hit = warm ? 1.0 : hit;
                *assumed |= SIMT_KERNEL_ASSUMED_REPEAT_L1_PART;
            } else if (hit > 0.0) {
                levels[i] = LEVEL_L2;
                if (hit < 1.0 && !warm) {
                    tables[i].hit = hit;
                    *assumed |= SIMT_KERNEL_ASSUMED_REPEAT_L2_PART;
                } else {
                    *assumed |= SIMT_KERNEL_ASSUMED_REPEAT_L2;
                }
            } else {
                *assumed |= SIMT_KERNEL_ASSUMED_REPEAT_DRAM;
            }
        }
        /* atomics over a set of addresses that fits in L2 stay there */
        if (a->op == SIMT_OP_ATOMIC && a->distinct_addresses > 0.0 && r->l2_bytes > 0.0 &&
            a->distinct_addresses * a->pattern.element_bytes <= r->l2_bytes) {
            levels[i] = LEVEL_L2;
            *assumed |= SIMT_KERNEL_ASSUMED_ATOMIC_L2;
        }
        if (warm && levels[i] == LEVEL_DRAM)
            levels[i] = LEVEL_L2;
    }
    return SIMT_OK;
}

/* A repeat that reads more than the access it repeats (a stencil's
 * neighbours: count 8 over a centre's count 1) reads, besides the warp's own
 * data, data its neighbouring warps fetch at the same time: those lines are
 * still on their way (a hit under a miss), so that share of its loads waits
 * as long as the first fetch, DRAM bank queues included, though no byte
 * moves twice. The warp's own share hits at the cache's latency. */
static void wait_for_neighbours(const struct simt_kernel_access *a, const struct simt_kernel_access *first,
                                double first_round_latency, double first_miss, double rounds,
                                struct warp_cost *w, double *latency)
{
    if (!(a->count > first->count) || !(first->count > 0.0))
        return;
    double own = first->count / a->count;
    *latency = own * *latency + (1.0 - own) * first_round_latency;
    w->dram_queue_rounds += rounds * (1.0 - own) * first_miss;
}

/* The dirty lines a cold launch finds in L2 (other work's, evicted at
 * random by its fills: model/l2_state.h). A launch marked `l2_warm` follows
 * work on its own data (just read, or just written and read again): none. */
static void write_back_dirty(const struct rates *r, const struct launch_shape *shape, struct warp_cost *w)
{
    if (!(r->l2_bytes > 0.0) || !(shape->warps_total > 0.0))
        return;
    double fills = shape->warps_total * (w->dram_read_bytes + w->dram_write_bytes + w->l2_fill_bytes);
    double own = shape->warps_total * w->dram_write_bytes;
    double evicted = simt_cold_l2_write_back(r->l2_bytes, fills, own);
    if (!(evicted > 0.0))
        return;
    double per_warp = evicted / shape->warps_total;
    w->dram_bytes += per_warp;
    w->dram_write_bytes += per_warp;
    w->dram_rows += per_warp / r->dram_interleave;
}

/* Shared memory moved across a barrier: its loads' dependent rounds, and
 * whether the request stores to shared memory too. */
static double shared_load_rounds(const struct simt_kernel_request *req, int *loads, int *stores)
{
    double rounds = 0.0;
    *loads = *stores = 0;
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        if (a->space != SIMT_SPACE_SHARED || !(a->count > 0.0))
            continue;
        if (a->op == SIMT_OP_STORE) {
            *stores = 1;
            continue;
        }
        if (a->op != SIMT_OP_LOAD)
            continue;
        *loads = 1;
        rounds += ceil(a->count / fmin(a->independent, a->count) - 1e-9);
    }
    return rounds;
}

/* Block barriers and warp shuffles (per_thread.barriers, .shuffles).
 * A __syncthreads holds each warp of the block until the last one arrives
 * (CUDA C++ Programming Guide, Synchronization Functions). The SM takes the
 * arrivals one warp at a time (barrier_cycles_per_warp), so a warp that
 * passes one waits the barrier's own latency plus its block's arrivals,
 * and the SM's arrivals, every resident block's, queue for that one unit
 * (C_BARRIER); the SM also spends data-path cycles on each block's barrier.
 * H200, fit data: kmemory_probe.json, phases of {read a neighbour's shared
 * word, add, store} cost 13, 16, 24 and 36 cycles more with __syncthreads
 * than with __syncwarp for blocks of 2, 4, 8 and 16 warps alone on an SM
 * (10 + 1.67 a warp), and with the SM full 26, 31, 54, 74 and 124 cycles
 * more per SM for 2 to 32 blocks (3.2 a block beyond the latency's share);
 * kblock_probe.json, bare __syncthreads with no memory traffic: alone on
 * the SM 20, 24, 32, 44 and 76 cycles each for blocks of 2 to 32 warps
 * (1.85 a warp), and with the SM full 16.1, 31.3 and 64.9 cycles of the SM
 * per block barrier for blocks of 8, 16 and 32 warps: 2.0 a warp however
 * the SM's 64 warps are cut into blocks, a rate no other center of the SM
 * explains (no memory, 3 instructions a warp between barriers).
 * A warp shuffle moves 32 lanes through the same data path as a shared
 * access (CUDA C++ Programming Guide, throughput table: 32 results per
 * clock per SM for warp shuffles from cc 5.0; measured 0.99 warp shuffles
 * a clock per SM), and a reduction's shuffles depend on each other: each
 * waits the shuffle's latency. */
static void cost_barriers(const struct simt_kernel_request *req, const struct rates *r,
                          const struct launch_shape *shape, struct warp_cost *w)
{
    w->instructions += req->barriers;
    double before = w->sync_delay_cycles;
    w->sync_delay_cycles +=
        req->barriers * (r->barrier_latency + r->barrier_per_warp * shape->warps_per_block);
    w->barrier_cycles = req->barriers * r->barrier_per_warp;
    if (shape->warps_per_block > 0.0)
        w->data_wavefronts += req->barriers * r->barrier_data_path / shape->warps_per_block;
    /* A barrier orders shared memory: after it the block's warps read what
     * the others wrote before it, so no warp passes it before the block's
     * earlier shared stores have landed, and after it the reads wait their
     * own latency. Each barrier's phase of a block that passes data through
     * shared memory thus holds a dependent shared store and read on the
     * block's critical path, also where the request's per-thread average
     * (a tree's halving active threads) gives the warp fewer rounds than
     * barriers. H200 (kblock_probe.json, tree rows, one block per SM): a
     * tree level {if (t < s) s[t] += s[t + s]; __syncthreads} takes 74, 84,
     * 105 and 148 cycles for blocks of 4, 8, 16 and 32 warps, against 24,
     * 32, 44 and 76 for a bare barrier: some 45 cycles more, the store's and
     * the read's latency (23 each). */
    int loads = 0, stores = 0;
    double rounds = shared_load_rounds(req, &loads, &stores);
    if (loads && req->barriers > rounds)
        w->sync_delay_cycles += (req->barriers - rounds) * r->shared_latency;
    if (loads && stores)
        w->sync_delay_cycles += req->barriers * r->shared_latency;
    w->barrier_delay_cycles = w->sync_delay_cycles - before;
}

/* Block barriers and warp shuffles: the GPU record's figures (measured on
 * the H200 for cc 9.0: tests/gpu/results/h200/kmemory_probe.json). A GPU
 * without barrier figures prices barriers as issue slots only; one without
 * a shuffle latency takes the shared-memory latency (shuffles cross the same
 * SM data path), each stated in the assumptions. */
void simt_kernel_read_sync_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                                 const struct simt_kernel_request *req, struct rates *r,
                                 simt_figure_mask *used, simt_kernel_assumed *assumed)
{
    r->block_launch = gpu->block_launch_cycles;
    if (req->barriers > 0.0) {
        r->barrier_latency = gpu->barrier_latency_cycles;
        r->barrier_per_warp = gpu->barrier_cycles_per_warp;
        r->barrier_data_path = gpu->barrier_data_path_cycles;
        *assumed |=
            r->barrier_latency > 0.0 ? SIMT_KERNEL_ASSUMED_BARRIERS : SIMT_KERNEL_ASSUMED_NO_BARRIER_FIGURES;
    }
    if (req->shuffles > 0.0) {
        r->shuffle_latency = gpu->shuffle_latency_cycles;
        if (!(r->shuffle_latency > 0.0)) {
            r->shuffle_latency = simt_figure_get(figures, SIMT_FIG_SHARED_LATENCY);
            *used |= SIMT_FIG_BIT(SIMT_FIG_SHARED_LATENCY);
            *assumed |= SIMT_KERNEL_ASSUMED_SHUFFLE_LATENCY;
        }
        *assumed |= SIMT_KERNEL_ASSUMED_SHUFFLES;
    }
}

static void cost_sync(const struct simt_kernel_request *req, const struct rates *r,
                      const struct launch_shape *shape, struct warp_cost *w)
{
    /* Each SM takes its new blocks one at a time, one per block_launch
     * cycles (the block's launch and retire: its warps, registers and
     * shared memory set up and freed), however short the block's life.
     * H200 (block_probe.json, fit data): 2^16 to 2^18 empty blocks of 64 or
     * 256 threads run at 157 cycles a block per SM, blocks of 1, 5 and 20
     * barrier phases of 64 threads no slower: many short blocks are bound
     * by the rate the SMs take them, not by their occupancy. Each warp
     * carries its share of its block's.
     * The block's slot on the SM is not free during that time: it waits
     * for the block's launch before its first warp runs, and after its last
     * warp exits for its retire, each taken as long as one launch (the
     * retire undoes what the launch set up), before the next block can
     * have the slot. H200 (kblock_probe.json, bar rows with no barriers,
     * fit data): 65536 empty blocks held to one resident block per SM by
     * their shared memory run at 383, 389, 408 and 439 cycles a block per
     * SM for 2, 4, 8 and 16 warps, two resident at half that, against 157
     * with the SM full: the slot's idle time, 2 x 157 cycles, plus the
     * launcher's own. */
    if (r->block_launch > 0.0 && shape->warps_per_block > 0.0) {
        w->launch_cycles = r->block_launch / shape->warps_per_block;
        w->slot_delay_cycles = 2.0 * r->block_launch;
    }
    if (req->barriers > 0.0)
        cost_barriers(req, r, shape, w);
    if (req->shuffles > 0.0) {
        w->instructions += req->shuffles;
        w->data_wavefronts += req->shuffles;
        w->sync_delay_cycles += req->shuffles * r->shuffle_latency;
    }
}

/* A block with barriers loads, then meets at a __syncthreads to share what
 * it loaded (a reduction's first phase, a tile's fill): no warp of it
 * passes the barrier before the last one's loads have arrived (CUDA C++
 * Programming Guide, Synchronization Functions), so a round of its global
 * loads lasts as long as the slowest of the whole block's DRAM accesses,
 * not of one warp's: the expected maximum of warps_per_block times as many
 * latencies (the harmonic spread in cost_global). The request does not say
 * which loads a barrier follows; every global load round of a block with
 * barriers is taken to end at one. */
static double block_wait_of(const struct simt_kernel_request *req, const struct launch_shape *shape)
{
    if (!(req->barriers > 0.0) || !(shape->warps_per_block > 1.0))
        return 1.0;
    return shape->warps_per_block;
}

/* A warp's DRAM traffic in bytes of read time: the DRAM bus spends
 * read / R + write / W on the two directions, and each change of direction
 * idles it for a turnaround (tWTR after writes, tRTW after reads). A memory
 * controller drains writes in batches; the scarcer direction sets how many
 * batches interrupt the other, so the turnarounds cost in proportion to
 * min(read, write). The measured copy (read = write = b / 2 in b / C) fixes
 * that cost per byte: b / C = b / 2R + b / 2W + b p, so
 * p = 1 / C - 1 / 2R - 1 / 2W (0 when the copy figure is the stand-in).
 * H200: R 4.50, W 4.32, C 3.92 TB/s: a copy's bytes cost 14.7% more than
 * reads, a store stream 4.2% more. */
double simt_kernel_dram_read_equivalent_bytes(const struct warp_cost *w, const struct rates *r)
{
    double read = r->dram_bytes_per_s, write = r->dram_write_bytes_per_s, copy = r->dram_copy_bytes_per_s;
    if (!(w->dram_write_bytes > 0.0) || !(write > 0.0) || !(copy > 0.0))
        return w->dram_bytes;
    double turnaround = 1.0 / copy - 0.5 / read - 0.5 / write; /* seconds per byte of the scarcer direction */
    if (turnaround < 0.0)
        turnaround = 0.0;
    return w->dram_read_bytes + w->dram_write_bytes * read / write +
           2.0 * fmin(w->dram_read_bytes, w->dram_write_bytes) * turnaround * read;
}

/* The rounds of one group of loads in flight together (kernel_issue.c):
 * the group waits as long as its longest member, and a round waits in the
 * DRAM bank queues once however many of its loads miss. A group of one
 * adds what the access alone costs. */
struct load_group {
    double rounds, delay_cycles, queue_rounds;
};

static void close_group(struct load_group *g, struct warp_cost *w)
{
    w->load_rounds += g->rounds;
    w->memory_delay_cycles += g->delay_cycles;
    w->dram_queue_rounds += g->queue_rounds;
    *g = (struct load_group){0.0, 0.0, 0.0};
}

/* A warp keeps at most warp_lines line requests in flight: a round of
 * loads whose lines exceed that goes out in lines / warp_lines waves, each
 * waiting its own latency. Measured on the GH100 (H100 SXM, tests/gpu/
 * results/h100/kernels_probe.json): 16-byte loads, 4 lines a warp
 * instruction, of 2 warps an SM at ILP 4 (16 lines) take 143 us for 128
 * MiB, at ILP 16 (64 lines) 115 us, not the quarter the loads in flight
 * alone would give; 3, 4 and 6 warps at ILP 8 (32 lines) likewise run
 * at about 16 to 20 lines a warp. Returns the factor (>= 1) on the round
 * count of a global or local load served beyond L1. */
static double warp_line_split(const struct simt_gpu_spec *gpu, const struct simt_kernel_access *a,
                              enum level level, double in_flight, const struct rates *r,
                              simt_kernel_assumed *assumed)
{
    if (!(r->warp_lines > 0.0) || level == LEVEL_L1 ||
        (a->space != SIMT_SPACE_GLOBAL && a->space != SIMT_SPACE_LOCAL))
        return 1.0;
    struct simt_coalescing_result co;
    if (simt_coalescing_compute(gpu, &a->pattern, &co, NULL) != SIMT_OK)
        return 1.0;
    double lines = fmax(1.0, in_flight) * (double)co.cache_lines;
    if (lines <= r->warp_lines)
        return 1.0;
    *assumed |= SIMT_KERNEL_ASSUMED_WARP_LINES;
    return lines / r->warp_lines;
}

/* Whether an access is priced as a table: a share of it served where
 * place_accesses put it, the rest by DRAM (cost_table). */
static int served_in_part(const struct simt_kernel_access *a, const struct table *t)
{
    if (a->op == SIMT_OP_LOAD)
        return a->distinct_addresses > 0.0 || (a->repeats_of > 0 && t->hit > 0.0);
    return a->op == SIMT_OP_STORE && t->hit > 0.0 && t->hit < 1.0; /* a store table past L2 */
}

int simt_kernel_cost_warp(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                          const struct rates *r, const struct launch_shape *shape, struct warp_cost *w,
                          simt_kernel_assumed *assumed, struct simt_diag *diag)
{
    memset(w, 0, sizeof *w);
    w->block_warps = shape->warps_per_block;
    enum level levels[SIMT_KERNEL_MAX_ACCESSES];
    struct table tables[SIMT_KERNEL_MAX_ACCESSES];
    double first_latency[SIMT_KERNEL_MAX_ACCESSES] = {0}, first_miss[SIMT_KERNEL_MAX_ACCESSES] = {0};
    int rc = place_accesses(gpu, req, r, shape, levels, tables, assumed, diag);
    if (rc != SIMT_OK)
        return rc;
    double block_wait = block_wait_of(req, shape);
    int leader[SIMT_KERNEL_MAX_ACCESSES];
    double in_flight[SIMT_KERNEL_MAX_ACCESSES];
    simt_kernel_issue_groups(req, leader, in_flight);
    struct load_group group = {0.0, 0.0, 0.0};
    int open = -1; /* the leader of the group being summed */
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        if (a->count <= 0.0)
            continue;
        double independent = a->independent < a->count ? a->independent : a->count;
        double rounds = ceil(a->count / independent - 1e-9);
        /* the accesses whose slowest sets the round's latency: the loads
         * of its group in flight with it, and in a block with barriers
         * every warp's (block_wait) */
        double waited = in_flight[i] * block_wait;
        int is_load = a->op == SIMT_OP_LOAD;
        double latency = 0.0;
        double queued_before = w->dram_queue_rounds;
        w->instructions += a->count;
        switch (a->space) {
        case SIMT_SPACE_GLOBAL:
        case SIMT_SPACE_LOCAL: {
            double queued = w->dram_queue_rounds;
            if (served_in_part(a, &tables[i]))
                rc = cost_table(gpu, a, shape->rows, levels[i], &tables[i], waited, rounds, r, w, assumed,
                                &latency, diag);
            else
                rc = cost_global(gpu, a, shape->rows, levels[i], waited, rounds, r, w, assumed, &latency,
                                 diag);
            if (a->op == SIMT_OP_STORE)
                w->l2_fill_bytes += tables[i].first_touch_bytes; /* a store table's lines */
            if (rc != SIMT_OK)
                return rc;
            first_latency[i] = latency;
            first_miss[i] = rounds > 0.0 ? (w->dram_queue_rounds - queued) / rounds : 0.0;
            if (a->repeats_of > 0 && levels[i] != LEVEL_DRAM && is_load)
                wait_for_neighbours(a, &req->accesses[a->repeats_of - 1], first_latency[a->repeats_of - 1],
                                    first_miss[a->repeats_of - 1], rounds, w, &latency);
            simt_kernel_contend(a, r, w, assumed);
            break;
        }
        case SIMT_SPACE_SHARED: {
            struct simt_banks_result b;
            rc = simt_banks_compute(gpu, &a->pattern, &b, diag);
            if (rc != SIMT_OK)
                return rc;
            w->shared_wavefronts += a->count * b.wavefronts;
            w->data_wavefronts += a->count * b.wavefronts;
            latency = r->shared_latency;
            break;
        }
        case SIMT_SPACE_CONSTANT: {
            struct simt_constant_result c;
            rc = simt_constant_compute(&a->pattern, &c, diag);
            if (rc != SIMT_OK)
                return rc;
            w->constant_requests += a->count * c.serialization;
            *assumed |= SIMT_KERNEL_ASSUMED_CONSTANT_L1;
            latency = r->l1_latency;
            break;
        }
        }
        if (is_load) {
            if (leader[i] != open)
                close_group(&group, w);
            open = leader[i];
            w->loads_together |= leader[i] != i;
            double queue = w->dram_queue_rounds - queued_before;
            w->dram_queue_rounds = queued_before;
            w->load_count += a->count;
            double split = warp_line_split(gpu, a, levels[i], in_flight[i], r, assumed);
            group.rounds = fmax(group.rounds, rounds * split);
            group.delay_cycles = fmax(group.delay_cycles, rounds * split * latency);
            group.queue_rounds = fmax(group.queue_rounds, queue * split);
        }
    }
    close_group(&group, w);
    w->fp32_flops = req->flops_fp32;
    w->fp64_flops = req->flops_fp64;
    w->fp16_flops = req->flops_fp16;
    w->sfu_ops = req->sfu_ops;
    w->int_ops = req->int_ops;
    w->int_mul_ops = req->int_mul_ops;
    double alu_instructions =
        req->flops_fp32 / 2.0 + req->flops_fp64 / 2.0 + req->flops_fp16 / 4.0 + req->sfu_ops;
    if (req->flops_fp32 + req->flops_fp64 + req->flops_fp16 > 0.0)
        *assumed |= SIMT_KERNEL_ASSUMED_FMA;
    double chains = req->alu_chains >= 1.0 ? req->alu_chains : 1.0;
    if (alu_instructions > 0.0 && chains <= 1.0)
        *assumed |= SIMT_KERNEL_ASSUMED_DEPENDENT_ALU;
    if (req->int_ops > 0.0)
        *assumed |= r->int32_per_cycle > 0.0 ? SIMT_KERNEL_ASSUMED_INT_PIPE : SIMT_KERNEL_ASSUMED_NO_INT_PIPE;
    /* integer and address instructions take issue slots and their pipe
     * (ALU or, for multiply-adds, FMA); they are off the dependent chain
     * (index arithmetic overlaps) */
    w->instructions += alu_instructions + req->int_ops + req->int_mul_ops;
    /* the arithmetic's dependent chains: `alu_chains` of them interleave,
     * so a thread waits the FMA latency once per instruction of its
     * longest chain, an FP64 FMA's for its FP64 instructions (on an H100
     * SXM 8.19 cycles against the FP32 FMA's 4.44: simt-calibrate run 4) */
    double fp64_instructions = req->flops_fp64 / 2.0;
    w->alu_delay_cycles =
        ((alu_instructions - fp64_instructions) * r->fma_latency + fp64_instructions * r->fp64_fma_latency) /
        chains;
    cost_sync(req, r, shape, w);
    if (!req->l2_warm)
        write_back_dirty(r, shape, w);
    return SIMT_OK;
}
