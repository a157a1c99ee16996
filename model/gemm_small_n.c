/* gemm_small_n.c - cuBLAS's streaming kernels for FP32 GEMMs of few rows
 * (m = 2 to 16; cuBLAS's N: torch's row-major product reaches cuBLAS with
 * the operands swapped): gemmSN_NN_kernel, one block per 64 columns of B
 * (grid.y of 1, 2 or 4 for the rows), and sgemm_largek_lds64, the same 64
 * columns with K cut over grid.z and the pieces summed in C under a lock
 * (its last two arguments are int arrays). Both stream B once with no K
 * stage pipeline, so a block draws the bytes its threads keep in flight
 * per memory latency (Little's law), and the latency grows as the blocks
 * load DRAM: every access queues at its bank, an M/M/1 server busy one
 * row cycle tRC, W = tRC u / (1 - u) at DRAM utilisation u (the kernel
 * model's rule, latency.h); u is what the blocks that read B from DRAM
 * draw, a fixed point solved by bisection. Pure.
 *
 * Evidence, fit and probe data only (tests/gpu/results/h200/
 * gemm_probe_smalln.json, gemm_probe_classes.json groups "sn" and
 * "largek", with the kernels' grids, blocks, registers and shared memory):
 * gemmSN's 256-thread blocks (64 registers, 12 KiB: 4 an SM on an H200)
 * stream at about 12.5, 12, 11 and 7.7 GB/s a block with 64, 128, 256 and
 * 512 of them reading DRAM: 17.6 B in flight a thread (4.5 KiB a block),
 * with the queue, gives 12.7, 12.2, 10.8 and 7.6 (fitted: the one
 * constant). The y blocks of one column slab read it together: one of
 * them loads DRAM, the others hit L2 (m = 8, 12 and 16 at n = 8192 take
 * m = 4's time). 151 gemmSN and sgemm_largek rows: median 3%, worst
 * 33% (m = 12 against n = 32768, two rounds).
 * sgemm_largek (128 threads, 32 registers, 4740 B of shared memory) at
 * K = 4096 to 24576: its time rises with K / split and with the split
 * itself, about 3 us a piece at the same K a piece (split 7 against 10 at
 * m = 2, n = 4096): the pieces of a column slab add into C one after
 * another, each taking the lock, reading the sum so far and writing it
 * back, fenced: several memory round trips; 8.7 DRAM latencies a piece
 * (fitted with the block's bytes in flight, 1.2 KiB, 9.4 B a thread, over
 * the 54 sgemm_largek rows: median 1.6%, worst 22%, m = 8 against n =
 * 16384 and more). cuBLAS's split was 6 to 64 (6 for m = 6 and 7, 7, 8 or
 * 10 for m <= 4, 8 for m = 8, 32 and 64 at K = 24576); the model takes the
 * split of least predicted time among those seen. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"
#include "occupancy.h"

/* gemmSN_NN_kernel<float, 256, ...>: 64 registers, 12 KiB of shared
 * memory (gemm_probe_smalln.json, m = 4..16) */
#define SN_THREADS 256
#define SN_REGISTERS 64
#define SN_SHARED_BYTES 12288
#define SN_BYTES_IN_FLIGHT_PER_THREAD 17.6
/* sgemm_largek_lds64: block [32, 4, 1], 32 registers, 4740 B */
#define LK_THREADS 128
#define LK_REGISTERS 32
#define LK_SHARED_BYTES 4740
#define LK_BYTES_IN_FLIGHT_PER_THREAD 9.4
#define LK_PIECE_LATENCIES 8.7

/* Where each runs, as seen on an H200 (cuBLAS 13.1; rows of the files
 * above). gemmSN from 64 column slabs on (n = 4096) for m = 2 to 16, or
 * at K of 64 and less for m <= 4 (gemm_probe_splitk2.json,
 * gemm_probe_tiny.json); not past 1024 blocks (m = 16 against n = 32768
 * ran sm80_xmma tiles). sgemm_largek for m <= 8 where K is over half of
 * n and at least 4096 (m = 2 and 4: 4096x4096 largek, 8192x4096 gemmSN,
 * 8192x8192 largek, 4096x2048 CUTLASS's split SIMT SGEMM; m = 6:
 * 6144x3072 largek, 12288x6144 gemmSN, 4096x3072 SIMT), for m = 8 from
 * K = 5120 (4096x4096 SIMT, 4096x6144 largek; ESTIMATE between), and
 * for m = 8 against n of 16384 and more from K = 4096. Past n = 8192
 * (128 slabs) gemmSN keeps going while K is no more than n
 * (gemm_probe_classes_largek2.json: m = 3, 4, 5 against n = 9216 to 12288
 * at K = 6144 to 10240 ran gemmSN in 28 of 35, sgemm_largek at 9216 x
 * 10240 and, for m = 4 and 5, 9216 x 8192), but not where K is not a
 * multiple of 4 (7x10099x5223 ran sgemm_largek). Under 96 slabs
 * (n = 4096 seen) gemmSN stops past K = 1024 (1536 and 2048 ran the
 * split SIMT SGEMM) for m <= 12, past K = 4608 for m = 13 to 16 (3072
 * gemmSN, 6144 SIMT; ESTIMATE between). For m = 9 to 16 the tile kernels
 * take over beyond a weight of n x K elements: 2^27 for m <= 12 (12 x
 * 32768 x 4096 gemmSN, x 8192 sm80_xmma), 44e6 for m = 13 to 16 (seen:
 * 37.7e6 gemmSN, 50.3e6 sm80_xmma; ESTIMATE between). Seen otherwise,
 * not followed: the 128-thread gemmSN (some n = 32768 shapes). ESTIMATE
 * beyond what was seen. */
#define SN_MIN_M 2
#define SN_SHORT_K_MAX_M 4
#define SN_MIN_SLABS 64
#define SN_MAX_SHORT_K 64
#define SN_MAX_BLOCKS 1024
#define LK_MAX_M 8
#define LK_MIN_K 4096
#define LK_MIN_K_WIDE_M 5120
#define LK_WIDE_M 8
#define LK_WIDE_N 16384
#define LK_WIDE_K 4096
#define LK_SN_MIN_N 8192
#define LK_SN_K_ALIGN 4
#define SN_MID_M 12
#define SN_MID_WEIGHT 134217728.0
#define SN_WIDE_WEIGHT 44.0e6
#define SN_NARROW_SLABS 96
#define SN_NARROW_K_MID 1024
#define SN_NARROW_K_WIDE 4608
/* Fewer slabs at mid K: an H100 (gemm_probe_windows3.json, fit data) ran
 * gemmSN for 2 and 4 rows against n = 800, 1100 and 1500 (13 to 24 slabs)
 * at K = 300 and 450 (11.5 to 14.8 us), and at K = 600 its 128-thread
 * form (gemmSN_NN_kernel<float, 128, 2, 4, ...>: 26.0 to 26.5 us, half
 * the loads in flight) for 2 rows and for 4 rows of 13 slabs (4 x 1100
 * and 1500 ran the split SIMT SGEMM); an H200 the 256-thread form for 2
 * and 4 x 1024 and 4 x 2048 at K = 256 (gemm_probe_smalln.json; 2 x 2048
 * the 128-thread one). From 13 slabs (ESTIMATE: fewer not seen past K =
 * 64) to K = 600 (ESTIMATE past it), the 128-thread form past K = 450. */
#define SN_MID_MIN_SLABS 13
#define SN_MID_MAX_K 600
#define SN_MID_HALF_K 450
#define SN_MID_HALF_MAX_SLABS_WIDE_M 13
#define SN_HALF_THREADS 128

static int64_t slabs_of(const struct simt_gemm_request *req)
{
    return (req->n + SIMT_GEMM_SMALL_N_COLUMNS - 1) / SIMT_GEMM_SMALL_N_COLUMNS * req->batch;
}

static int rows_per_block_count(int64_t m)
{
    return m <= 4 ? 1 : m <= 12 ? 2 : 4; /* grid.y of gemmSN */
}

/* bf16 of a few rows against a narrow B whose n is not a multiple of 8
 * (the 16-bit kernels' alignment), at K under the align1 kernels' split
 * (gemm_splitk.c, from K = 1000): cuBLAS runs the same gemmSN_NN kernel
 * (gemmSN_NN_kernel<float, 256, ...>, one or two blocks), unsplit. Seen on
 * an H200 (fit data): m = 2, 4, 8 against n = 15, 27, 45, 99 at K = 255
 * and 543 (gemm_probe_classes_bf16s.json, 24 of 24; K = 1023 and 2047 ran
 * the align1 split), 6x7x511 and 7x5x512 (gemm_probe_splitk.json). Its
 * threads keep the same loads in flight as for fp32, of two bytes each:
 * 8.2 to 9.4 us at K = 255, 13.3 to 14.5 at 543 whatever n, the fp32
 * kernel's walk of K. Not seen: fp16, K under 255 (ESTIMATE: not taken),
 * n past 99 (taken to 128). */
#define SN_BF16_MAX_M 8
#define SN_BF16_MIN_K 255
#define SN_BF16_MAX_K 999
#define SN_BF16_MAX_N 128

static int bf16_small_n(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && req->dtype == SIMT_DTYPE_BF16 && !req->sparse &&
           req->batch == 1 && req->m >= SN_MIN_M && req->m <= SN_BF16_MAX_M &&
           req->n % simt_gemm_alignment_elements(req->dtype) != 0 && req->n <= SN_BF16_MAX_N &&
           req->k >= SN_BF16_MIN_K && req->k <= SN_BF16_MAX_K && simt_gemm_align1_split(gpu, req) == 0;
}

int simt_gemm_small_n_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (bf16_small_n(gpu, req))
        return SIMT_GEMM_STREAM_SN;
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || req->dtype != SIMT_DTYPE_FP32 || req->sparse ||
        req->m < SN_MIN_M || req->m > SIMT_GEMM_SMALL_N_M)
        return SIMT_GEMM_STREAM_NONE;
    int64_t slabs = slabs_of(req);
    if (slabs < SN_MIN_SLABS) {
        if (req->k <= SN_MAX_SHORT_K)
            return req->m <= SN_SHORT_K_MAX_M ? SIMT_GEMM_STREAM_SN : SIMT_GEMM_STREAM_NONE;
        int mid =
            req->m <= SN_SHORT_K_MAX_M && slabs >= SN_MID_MIN_SLABS && req->k <= SN_MID_MAX_K &&
            (req->k <= SN_MID_HALF_K || req->m < SN_SHORT_K_MAX_M || slabs <= SN_MID_HALF_MAX_SLABS_WIDE_M);
        return mid ? SIMT_GEMM_STREAM_SN : SIMT_GEMM_STREAM_NONE;
    }
    if (req->m <= LK_MAX_M &&
        ((2 * req->k > req->n && req->k >= (req->m < LK_WIDE_M ? LK_MIN_K : LK_MIN_K_WIDE_M) &&
          (req->n <= LK_SN_MIN_N || req->k > req->n || req->k % LK_SN_K_ALIGN != 0)) ||
         (req->m == LK_WIDE_M && req->n >= LK_WIDE_N && req->k >= LK_WIDE_K)))
        return SIMT_GEMM_STREAM_LARGEK;
    if (slabs < SN_NARROW_SLABS && req->k > (req->m <= SN_MID_M ? SN_NARROW_K_MID : SN_NARROW_K_WIDE))
        return SIMT_GEMM_STREAM_NONE;
    if (slabs * rows_per_block_count(req->m) > SN_MAX_BLOCKS)
        return SIMT_GEMM_STREAM_NONE;
    if (req->m > LK_MAX_M) {
        double weight = (double)req->n * (double)req->k;
        if (weight > (req->m <= SN_MID_M ? SN_MID_WEIGHT : SN_WIDE_WEIGHT))
            return SIMT_GEMM_STREAM_NONE;
    }
    return SIMT_GEMM_STREAM_SN;
}

/* Blocks of the kernel resident on an SM, by the occupancy rules. */
static int resident_per_sm(const struct simt_gpu_spec *gpu, int threads, int registers, int shared)
{
    struct simt_occupancy_request o;
    simt_occupancy_request_init(&o);
    o.block_size = threads;
    o.registers_per_thread = registers;
    o.static_shared_bytes = shared;
    struct simt_occupancy_result occ;
    if (simt_occupancy_compute(gpu, &o, &occ, NULL) != SIMT_OK || occ.active_blocks_per_sm < 1)
        return 1;
    return occ.active_blocks_per_sm;
}

/* One block's rate, bytes a second, with readers blocks reading DRAM at
 * once, each bytes_in_flight over the latency plus the bank queue. */
static double block_rate(const struct simt_gemm_small_n_inputs *in, double readers, double bytes_in_flight)
{
    if (!(in->queue_bytes_per_s > 0.0) || !(in->row_cycle_s > 0.0))
        return bytes_in_flight / in->latency_s;
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) { /* u rises, the rate falls: one crossing */
        double u = 0.5 * (lo + hi);
        double r = bytes_in_flight / (in->latency_s + in->row_cycle_s * u / (1.0 - u));
        if (readers * r / in->queue_bytes_per_s > u)
            lo = u;
        else
            hi = u;
    }
    return bytes_in_flight / (in->latency_s + in->row_cycle_s * lo / (1.0 - lo));
}

/* Rounds of resident blocks, each streaming slab_bytes; distinct of the
 * blocks of a round read DRAM (the rest the same slabs from L2). */
static double stream_time(const struct simt_gemm_small_n_inputs *in, int64_t blocks, int64_t slots,
                          int64_t distinct, double slab_bytes, double bytes_in_flight, double *rounds)
{
    /* the full rounds alike, then the part round: closed form, whatever
     * the count of blocks */
    int64_t full = blocks / slots, part = blocks % slots;
    double t = 0.0;
    if (full > 0)
        t += (double)full * slab_bytes /
             block_rate(in, (double)(slots < distinct ? slots : distinct), bytes_in_flight);
    if (part > 0)
        t += slab_bytes / block_rate(in, (double)(part < distinct ? part : distinct), bytes_in_flight);
    *rounds = (double)full + (part > 0 ? 1.0 : 0.0);
    return t;
}

void simt_gemm_small_n_stream(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              const struct simt_gemm_small_n_inputs *in, struct simt_gemm_small_n *out)
{
    int64_t slabs = slabs_of(req);
    int64_t sms = gpu->sm_count > 1 ? gpu->sm_count : 1;
    out->kernel = simt_gemm_small_n_runs(gpu, req);
    out->chain_s = 0.0;
    if (out->kernel != SIMT_GEMM_STREAM_LARGEK) {
        out->split = 1;
        out->rows_per_block = rows_per_block_count(req->m);
        out->blocks = slabs * out->rows_per_block;
        /* the 128-thread form past K = 450 under 64 slabs (above) */
        int threads = slabs < SN_MIN_SLABS && req->k > SN_MID_HALF_K && req->dtype == SIMT_DTYPE_FP32
                          ? SN_HALF_THREADS
                          : SN_THREADS;
        int64_t slots = (int64_t)resident_per_sm(gpu, threads, SN_REGISTERS, SN_SHARED_BYTES) * sms;
        double slab_bytes = (double)req->k * SIMT_GEMM_SMALL_N_COLUMNS * in->element_bytes;
        /* the same loads in flight whatever the element's size */
        out->stream_s =
            stream_time(in, out->blocks, slots, slabs, slab_bytes,
                        SN_BYTES_IN_FLIGHT_PER_THREAD * in->element_bytes / 4.0 * threads, &out->rounds);
        return;
    }
    /* sgemm_largek: the split of least time among those cuBLAS ran */
    static const int splits[] = {6, 7, 8, 10, 16, 32, 64};
    int64_t slots = (int64_t)resident_per_sm(gpu, LK_THREADS, LK_REGISTERS, LK_SHARED_BYTES) * sms;
    double best = HUGE_VAL;
    out->rows_per_block = 1;
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        int split = splits[i];
        if (split > req->k)
            break;
        int64_t blocks = slabs * split;
        double piece = ceil((double)req->k / (double)split);
        double rounds;
        double t =
            stream_time(in, blocks, slots, blocks, piece * SIMT_GEMM_SMALL_N_COLUMNS * in->element_bytes,
                        LK_BYTES_IN_FLIGHT_PER_THREAD * LK_THREADS, &rounds);
        double chain = (double)split * LK_PIECE_LATENCIES * in->latency_s;
        if (t + chain < best) {
            best = t + chain;
            out->split = split;
            out->blocks = blocks;
            out->rounds = rounds;
            out->stream_s = t;
            out->chain_s = chain;
        }
    }
}

int simt_gemm_small_n_line(const struct candidate *c, char *buf, size_t size)
{
    if (!c->small_n)
        return 0;
    snprintf(
        buf, size,
        "kernel: cuBLAS's small-N streaming kernel gemmSN (as for FP32 of 2 to 16 rows, bf16 of 2 to 8 on "
        "an H200): blocks of %d threads per %d columns of B and 4 to 8 rows, streaming B once, 4.4 loads "
        "in flight a thread (4.5 KiB a block of fp32) over the memory latency plus DRAM's bank queue, tRC "
        "u / (1 - u) (fitted on an H200)",
        SIMT_GEMM_SMALL_N_THREADS, SIMT_GEMM_SMALL_N_COLUMNS);
    return 1;
}
