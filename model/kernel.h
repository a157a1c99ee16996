/* kernel.h - one kernel launch predicted from its shape (POST /v1/kernel):
 * grid and block, resources, and what each thread does (flops, SFU ops,
 * warp-wide memory accesses, a branch). Pure: no allocation, no globals;
 * the request and result are plain structs the caller owns.
 *
 * How the time is built (every constant comes from the figure set, i.e. the
 * database or its measured section, or is a documented constant there):
 *   1. Occupancy (simt_occupancy_compute) gives the blocks resident per SM.
 *   2. Each access of one warp is priced by the access models: global and
 *      local accesses by coalescing (L2 line requests, DRAM bytes at the
 *      DRAM granularity, L1 wavefronts = cache lines touched), shared
 *      accesses by banks (wavefronts), constant reads by serialization.
 *      DRAM bytes: a contiguous (stride +-1) access moves its footprint (the
 *      neighbouring warps share boundary granules); a strided one keeps its
 *      granules to itself in a one-row block, and shares them with the
 *      block's other rows in a multi-row block (a 2D tile's column).
 *   3. A warp's lifetime needs service from the SM's resources: issue slots,
 *      the FP32/FP64/FP16/SFU pipes, the L1/shared data path (one wavefront
 *      a cycle), the constant cache (constant_requests_per_s), the SM's port
 *      into L2 (one line request per line_bytes / port, however few sectors
 *      it carries: what the naive transpose's scattered stores and 128-byte
 *      strided reads measured) and its share of DRAM bandwidth (reads at the
 *      read figure, writes at the write figure, and each byte of the scarcer
 *      direction paying the bus turnarounds that the measured copy figure
 *      shows; without write and copy figures the DRAM figure stands in for
 *      both, stated in the assumptions) and of its row activations (an
 *      access opens one DRAM row per 256-byte chunk it touches, shared by
 *      the lanes and, for contiguous lanes, the neighbouring warps in the
 *      chunk; rows open at the measured dram_row_activations_per_s, not
 *      limited when the GPU lacks it, stated in the assumptions); and it waits,
 *      without using any of them, for each dependent round of loads
 *      (ceil(count / independent) rounds per access) and each dependent
 *      arithmetic instruction.
 *   4. A DRAM round ends with the slowest of its granule accesses:
 *      (L0 - tRC) + tRC H(n) for n granules (latency.h), and under load each
 *      access also queues at its DRAM bank, tRC u / (1 - u), u the DRAM
 *      utilisation the kernel itself reaches (solved as a fixed point).
 *   5. The resident warps form a closed queueing network (latency.h): mean
 *      value analysis over those resources gives the SM's warp throughput
 *      for the warps actually resident, so one formula covers the
 *      latency-bound regime (too little in flight: time = rounds x latency),
 *      the throughput-bound regime (time = busiest resource) and the knee
 *      between them.
 *   6. Blocks run in waves; the last, partial wave runs with fewer warps
 *      (and its SMs share DRAM among fewer), which is the tail.
 *   7. A branch with p paths per warp (divergence.h) multiplies the
 *      instructions, pipe work, data-path wavefronts and latency rounds by p.
 *   8. The launch overhead (measured where available) is added.
 * Where a global access is served (kernel_cost.c):
 *   - `repeats` j: access j's addresses read again. It hits L1 when what
 *     the SM's resident warps read with access j (sectors) fits in the L1
 *     left beside their shared memory (l1_bytes_per_sm), else L2 when the
 *     whole wave's set fits in l2_bytes, else DRAM again. A hit moves no
 *     DRAM bytes (L1: no L2 traffic either) and waits the cache's latency;
 *     a repeat that reads more than access j (a stencil's neighbours) reads
 *     its neighbouring warps' lines too, still in flight from their own
 *     fetch, so that share waits as long as access j's round (a hit under
 *     a miss). Fit half: stencils +130% (re-read from DRAM) -> -17%,
 *     softmax's second and third passes +53% -> -15%.
 *   - `l2_warm`: the launch's first-touch DRAM bytes fit in l2_bytes: every
 *     global access is an L2 hit. A larger set streamed through an LRU
 *     cache leaves nothing: cold. Fit half: warm L2 reads +33% -> -5%.
 *   - Atomics with `distinct_addresses` D: over a set that fits in L2
 *     (D x element bytes) they stay in L2. A warp's atomic instruction
 *     sends one request per line its lanes touch to the L2 slice holding
 *     the line (the compiler does not merge lanes: REDG); the slice's
 *     atomic unit works through the request one sector at a time, each
 *     word once a step, so a sector takes as many steps as its busiest word
 *     has lanes: a step that updates the whole sector at
 *     l2_slice_atomic_lanes_per_clock, any other step one same-address time
 *     (l2_same_address_atomics_per_clock) however few lanes it carries. The
 *     set is k chunks of l2_atomic_slice_bytes (at least 2 x set bytes /
 *     chunk up to 2: a chunk's halves alternate over a pair of slices)
 *     hashed over the chip's C
 *     slices (l2_atomics_per_clock over the same-address rate) and runs at
 *     k / (1 + (k - 1) / C) slices' rate; each slice is a chip-wide center
 *     scaled by the SMs issuing. Every line request also takes a slot of
 *     the L2's atomic line requests (l2_atomics_per_clock). H200:
 *     tests/gpu/results/h200/atomics_int_rates.json and
 *     atomics_few_rates.json; fit half: histograms of 4096 bins -32% -> +4%
 *     (1 and 2^20 bins unchanged); without the same-address rate
 *     contention is not priced and an assumption says so.
 *   - A store that leaves part of each DRAM granule unwritten (after the
 *     block's other rows filled what they could) is a read-modify-write:
 *     the granule is read as well as written, its row opened for each.
 *     Fit half: 4-byte stores 16 B apart -52% -> +4%, random scatter
 *     -61% -> -24%.
 *   - `int_ops`: integer ALU instructions (add, logic, shift, compare)
 *     take issue slots and the INT32 pipe (int32_ops_per_s); `int_mul_ops`
 *     (IMAD, IMUL, and the adds and shifts the compiler issues as IMAD)
 *     take the FMA pipe's integer half (int32_mul_ops_per_clock_per_sm)
 *     and FP32 issue beside FFMA; both off the dependent chain. Fit half:
 *     hash loops -90% -> +17%; the integer chains as their SASS splits them
 *     (int_imad_8chains +64% -> +6%, xorshift held-out +90% -> -4%).
 *   - `alu_chains`: the thread's floating-point and SFU arithmetic forms
 *     that many independent chains, so it waits the FMA latency once per
 *     instruction of one chain (fp32_fma_8chains_1block_per_sm +241% -> 0%).
 * Tensor-core work (flops_tensor) is one more center, the SM's tensor
 * pipe, priced in kernel_tensor.h; its term is part of compute.
 * `bound` names the largest of the breakdown terms (launch: the host's
 * launch overhead or the SMs' block launch rate, the larger); advice reruns the model
 * with one change each and ranks the changes by estimated speedup.
 *
 * Block barriers and warp shuffles (kernel_cost.c, cost_sync): each of
 * `barriers` holds a warp for the barrier's latency plus its block's
 * warps' arrivals, which the SM's barrier unit takes one at a time for
 * every resident block (a center, C_BARRIER), and takes data-path cycles
 * per block barrier; each barrier's phase reads at least one shared word
 * another warp wrote (a dependent shared round), and waits for the shared
 * stores before it to land. Each of `shuffles` is one data-path wavefront
 * and one step of a dependent chain. Each block's slot idles for its
 * launch and retire (2 x block_launch_cycles) besides the SM's launcher
 * taking one block at a time. The SM's resident blocks, alike and started
 * together, stay in step (kernel.c, lockstep_cycles): where a warp has
 * barriers and memory work, a wave takes at least its memory phase (every
 * resident warp in the network, the barrier waits left out) plus its
 * barrier phases one after the other, each barrier also waiting for the
 * other resident blocks' arrivals at the barrier unit in the proportion
 * (1 - DRAM utilisation) that their loads came back together. Measured on
 * the H200 (kmemory_probe.json, kblock_probe.json): bare barriers with the
 * SM full within 12% for blocks up to 256 threads; block reductions (tree
 * rows) median 8.4% (14.5% before the blocks kept in step), worst -38%
 * (512-1024-thread blocks, whose slower launch is not priced). Fit half:
 * softmax_65536x256 -48% -> -28% (barrier unit) -> +3% (in step),
 * layernorm_16384x1024 -20% -> -2%, reduce_sum_2^26 -16% -> -7%, scans
 * -24% -> -5% -> +12%.
 * Waves in step (kernel_network.c, compute_step_cycles): where the pipes,
 * not memory, set the pace, the resident warps share them evenly and
 * finish together, so each wave waits out its first load round before its
 * pipe work; the launch takes the larger of that and the network's waves
 * with the one-round fill (H200 hash loops of 8 rounds -28% -> -3%; an
 * H100 set of such kernels measured after the rule, blind: 2.7% / 10.9%).
 * An FP64 instruction holds its scheduler while the FP64 pipe takes it
 * (fp64_issue_hold_fraction, kernel_network.c): on sm_90 a loop's other
 * instructions cost their slots on top of its FP64 time (H100 loops of 8
 * to 512 FP64 FMAs a pass within 3%; fp64_fma_1chain -22.6% -> -14.2%).
 * Known to be missing: where the barriers do hide behind memory work
 * (softmax_8192x2048 runs at a copy's rate, +20%: why its blocks fall out
 * of step while softmax_4096x4096's do not is not known); blocks of 512 and 1024
 * threads launch slower than smaller ones (not priced);
 * data shared by every warp that the request
 * cannot mark (a GEMV's vector, a layer norm's weights, a gather's small
 * table: priced as DRAM traffic per warp, +50% to +230%). Atomics are
 * priced as reads (their write-back is not counted). */
#ifndef SIMT_KERNEL_H
#define SIMT_KERNEL_H

#include <stdint.h>

#include "access.h"
#include "divergence.h"
#include "figures.h"
#include "gpu.h"
#include "occupancy.h"
#include "simt_error.h"

#define SIMT_KERNEL_MAX_ACCESSES 16
#define SIMT_KERNEL_MAX_ADVICE 8

enum simt_space { SIMT_SPACE_GLOBAL = 0, SIMT_SPACE_SHARED, SIMT_SPACE_CONSTANT, SIMT_SPACE_LOCAL };
enum simt_op { SIMT_OP_LOAD = 0, SIMT_OP_STORE, SIMT_OP_ATOMIC };

struct simt_kernel_access {
    enum simt_space space;
    enum simt_op op;
    double count;                    /* times each thread does it, >= 0 */
    double independent;              /* how many of count may be in flight at once, >= 1 (clipped to count) */
    struct simt_warp_access pattern; /* lanes = the GPU's warp size */
    int repeats_of; /* 1 + index of an earlier access whose addresses this one reads again; 0: none */
    double distinct_addresses; /* atomics: addresses the whole grid's atomics of this access spread over;
                                  0: as the lane pattern implies, no contention across warps */
    int depends_on; /* 1 + index of an earlier access this one waits for (its addresses come from that
                       access's values, or it runs in a later loop); 0: none, consecutive loads indexed by
                       the thread overlap (kernel_issue.c) */
};

struct simt_kernel_request {
    int64_t grid[3]; /* blocks per dimension, >= 1 */
    int block[3];    /* threads per dimension, >= 1 */
    int64_t dynamic_shared_bytes;
    int registers_per_thread;
    int64_t static_shared_bytes;
    int block_barriers;
    double flops_fp32; /* per thread; an FMA counts 2 */
    double flops_fp64;
    double flops_fp16;
    double sfu_ops;     /* per thread */
    double int_ops;     /* integer ALU instructions per thread (add, logic, shift, compare) */
    double int_mul_ops; /* integer multiplies and multiply-adds per thread (IMAD, IMUL):
                           the FMA pipe, not the integer ALU */
    double alu_chains;  /* independent dependent chains the thread's arithmetic forms; 0 or 1: one chain */
    double barriers;    /* block barriers (__syncthreads, bar.sync) a thread passes */
    double shuffles;    /* warp shuffles (__shfl_*_sync) a thread executes, in dependent chains */
    double flops_tensor[SIMT_DTYPE_COUNT]; /* per thread, tensor-core flops by enum simt_dtype (an MMA's
                                              2mnk spread over the lanes); kernel_tensor.h */
    int l2_warm;                           /* 1: the global data is already in L2 (where it fits) */
    int access_count;
    struct simt_kernel_access accesses[SIMT_KERNEL_MAX_ACCESSES];
    struct simt_branch branch; /* per warp; lanes = warp size */
};

/* Zeroes the request; grid and block 1x1x1, barriers 1, one path. */
void simt_kernel_request_init(struct simt_kernel_request *req, int warp_size);

enum simt_kernel_bound {
    SIMT_BOUND_DRAM = 0,
    SIMT_BOUND_L2,
    SIMT_BOUND_SHARED,
    SIMT_BOUND_COMPUTE,
    SIMT_BOUND_SFU,
    SIMT_BOUND_LATENCY,
    SIMT_BOUND_LAUNCH,
    SIMT_BOUND_COUNT
};

/* "dram", "l2", "shared", "compute", "sfu", "latency", "launch". */
const char *simt_kernel_bound_name(enum simt_kernel_bound bound);

enum simt_advice_kind {
    SIMT_ADVICE_PAD = 0,   /* access: pad the shared tile by `to` elements (from = ways) */
    SIMT_ADVICE_COALESCE,  /* access: lanes on consecutive elements (from = efficiency) */
    SIMT_ADVICE_WIDEN,     /* access: element bytes from -> to */
    SIMT_ADVICE_ILP,       /* access: independent from -> to */
    SIMT_ADVICE_OCCUPANCY, /* occupancy from -> to; limit_value: registers per thread or shared bytes per
                              block */
    SIMT_ADVICE_BRANCH     /* paths per warp from -> 1 */
};

struct simt_kernel_advice {
    enum simt_advice_kind kind;
    int access_index;   /* -1 when not about one access */
    double from, to;    /* kind-specific, see above */
    unsigned limiter;   /* OCCUPANCY: SIMT_LIMIT_REGISTERS or SIMT_LIMIT_SHARED */
    double limit_value; /* OCCUPANCY: registers per thread, or shared bytes per block, that reach `to` */
    double estimated_speedup; /* time now / time with the change, > 1 */
};

/* assumption bits */
typedef uint64_t simt_kernel_assumed;
#define SIMT_KERNEL_ASSUMED_NO_REUSE                                                                         \
    (1u << 0) /* a strided global access in a one-row block: its sectors serve no other warp */
#define SIMT_KERNEL_ASSUMED_ROW_REUSE                                                                        \
    (1u << 1) /* a strided global access in a multi-row block: the block's other rows use the rest of each   \
                 sector, merged in L2 */
#define SIMT_KERNEL_ASSUMED_FMA (1u << 2) /* flops are FMAs: 2 flops per instruction (4 for fp16 half2) */
#define SIMT_KERNEL_ASSUMED_DEPENDENT_ALU (1u << 3) /* arithmetic forms one dependent chain per thread */
#define SIMT_KERNEL_ASSUMED_PARTIAL_WARP                                                                     \
    (1u << 4)                                  /* the block's last warp is partial; priced as a full warp */
#define SIMT_KERNEL_ASSUMED_LOCAL_L1 (1u << 5) /* local memory hits in L1 */
#define SIMT_KERNEL_ASSUMED_CONSTANT_L1 (1u << 6) /* constant cache latency taken as L1 latency */
#define SIMT_KERNEL_ASSUMED_COLD_DRAM                                                                        \
    (1u << 7) /* every global byte comes from DRAM once (nothing left in L2) */
#define SIMT_KERNEL_ASSUMED_NO_LAUNCH (1u << 8) /* launch overhead absent from the record: 0 */
#define SIMT_KERNEL_ASSUMED_L2_LATENCY                                                                       \
    (1u << 9) /* L2 latency absent: an L2 hit taken to cost a DRAM access */
#define SIMT_KERNEL_ASSUMED_SRAM_LATENCY (1u << 10) /* shared or L1 latency absent: taken as the other's */
#define SIMT_KERNEL_ASSUMED_NO_ROW_LIMIT                                                                     \
    (1u << 11) /* sparse accesses, but no measured row-activation rate: not limited */
#define SIMT_KERNEL_ASSUMED_REPEAT_L1 (1u << 12) /* a repeated access hits L1: the SM's working set fits */
#define SIMT_KERNEL_ASSUMED_REPEAT_L2                                                                        \
    (1u << 13) /* a repeated access hits L2: the wave's working set fits in L2, not in L1 */
#define SIMT_KERNEL_ASSUMED_REPEAT_DRAM                                                                      \
    (1u << 14)                                 /* a repeated access misses: its working set exceeds L2       \
                                                */
#define SIMT_KERNEL_ASSUMED_L2_WARM (1u << 15) /* l2_warm and the working set fits: global data from L2 */
#define SIMT_KERNEL_ASSUMED_L2_WARM_MISS                                                                     \
    (1u << 16) /* l2_warm, but the working set exceeds L2: only the part that fits is a hit */
#define SIMT_KERNEL_ASSUMED_INT_PIPE (1u << 17) /* int_ops run on the INT32 pipe, off the dependent chain */
#define SIMT_KERNEL_ASSUMED_ATOMIC_CONTENTION                                                                \
    (1u << 18) /* contended atomics serialize per address at the L2 (measured same-address rate) */
#define SIMT_KERNEL_ASSUMED_NO_ATOMIC_RATE                                                                   \
    (1u << 19) /* contended atomics, but no same-address atomic rate for this GPU: not priced */
#define SIMT_KERNEL_ASSUMED_PARTIAL_STORE                                                                    \
    (1u << 21) /* a store leaves DRAM granules partly unwritten: each is read, merged, written back */
#define SIMT_KERNEL_ASSUMED_ATOMIC_L2                                                                        \
    (1u << 22) /* atomics over distinct_addresses that fit in L2: served there, no DRAM */
#define SIMT_KERNEL_ASSUMED_NO_INT_PIPE (1u << 20) /* int_ops, but no INT32 figure: issue slots only */
#define SIMT_KERNEL_ASSUMED_INT_MUL_PIPE                                                                     \
    (1u << 23) /* int_mul_ops run on the FMA pipe (int32_mul_ops_per_clock_per_sm), sharing it with FP32 */
#define SIMT_KERNEL_ASSUMED_NO_INT_MUL_RATE                                                                  \
    (1u << 24) /* int_mul_ops, but no multiply-add figure: priced at the INT32 rate */
#define SIMT_KERNEL_ASSUMED_ATOMIC_SLICES                                                                    \
    (1u << 25) /* contended atomics: each warp's line requests serialize at the L2 slice holding the line */
#define SIMT_KERNEL_ASSUMED_BARRIERS                                                                         \
    (1u << 29) /* block barriers: each waits for the block's warps and takes the SM's barrier unit and data  \
                  path (measured) */
#define SIMT_KERNEL_ASSUMED_NO_BARRIER_FIGURES                                                               \
    (1u << 28) /* barriers, but no barrier figures for this GPU: issue slots only */
#define SIMT_KERNEL_ASSUMED_SHUFFLES                                                                         \
    (1u << 27) /* warp shuffles: one data-path wavefront each, one dependent chain (shuffle latency) */
#define SIMT_KERNEL_ASSUMED_SHUFFLE_LATENCY                                                                  \
    (1u << 26) /* warp shuffles, but no shuffle latency for this GPU: the shared-memory latency stands in */
/* tensor work (kernel_tensor.h), from the top of the word */
#define SIMT_KERNEL_ASSUMED_TENSOR_PIPE (1u << 31) /* tensor flops priced on the SM's tensor pipe */
#define SIMT_KERNEL_ASSUMED_TENSOR_FEW_WARPS                                                                 \
    (1u << 30) /* fewer warps resident per SM than warp schedulers: the pipe reaches warps / schedulers */

#define SIMT_KERNEL_ASSUMED_L2_REQUESTS                                                                      \
    (1ull << 32) /* L2 hits take a slice request each (measured request rate): scattered sectors cost more   \
                    than their bytes */
#define SIMT_KERNEL_ASSUMED_NO_L2_REQUEST_RATE                                                               \
    (1ull << 33) /* scattered L2 hits, but no measured L2 request rate for this GPU: priced by bytes alone   \
                  */
#define SIMT_KERNEL_ASSUMED_STORE_TABLE                                                                      \
    (1ull << 34) /* stores over distinct_addresses that fit in L2: written there, the lines written back     \
                    once after the launch */
#define SIMT_KERNEL_ASSUMED_PARTIAL_SECTOR_STORE                                                             \
    (1ull << 35) /* a store hit that writes part of a sector: the slice reads the sector, merges, writes it  \
                    (two requests) */

#define SIMT_KERNEL_ASSUMED_WARP_LINES                                                                       \
    (1ull << 36) /* a round of loads touches more lines than a warp keeps in flight: it goes out in waves */
#define SIMT_KERNEL_ASSUMED_REPEAT_L1_PART                                                                   \
    (1ull << 38) /* a repeated access hits L1 in part: the SM's set is past what L1 keeps whole for a        \
                    re-read; the rest goes to L2 (or DRAM) */
#define SIMT_KERNEL_ASSUMED_STORE_TABLE_PART                                                                 \
    (1ull << 39) /* stores over distinct_addresses too many for L2 to keep whole: a store to a line it keeps \
                    lands there; the rest go back as read-modify-writes */
#define SIMT_KERNEL_ASSUMED_WAVES_IN_STEP                                                                    \
    (1ull << 40) /* the pipes set the pace: each wave's warps finish together, and the next wave waits out   \
                    its first load round with nothing to run */
#define SIMT_KERNEL_ASSUMED_FP64_HOLDS_ISSUE                                                                 \
    (1ull << 41) /* an FP64 instruction holds its scheduler for its pipe's cycles: the scheduler issues      \
                    nothing else meanwhile (fp64_issue_hold_fraction) */
#define SIMT_KERNEL_ASSUMED_REPEAT_L2_PART                                                                   \
    (1ull << 37) /* a repeated access hits L2 in part: the wave's set is past what L2 keeps whole for a      \
                    re-read; the rest misses to DRAM */

struct simt_kernel_result {
    struct simt_occupancy_result occupancy;
    double time_s; /* launch + execution */
    double execution_s;
    enum simt_kernel_bound bound;
    double breakdown_s[SIMT_BOUND_COUNT]; /* each term alone, busiest SM for per-SM terms */
    double issue_s, fp32_s, fp64_s, fp16_s, constant_s, int32_s; /* parts of compute_s */
    double tensor_s;                                             /* part of compute_s: the tensor pipe */
    /* traffic, whole launch */
    double dram_bytes;
    double l2_bytes;     /* sector traffic between SMs and L2 */
    double useful_bytes; /* distinct bytes the lanes asked for, global */
    double shared_wavefronts;
    double l1_wavefronts; /* global and local data-path wavefronts */
    double warp_instructions;
    /* shape */
    int64_t blocks;
    int threads_per_block;
    int warps_per_block;
    double waves; /* blocks / (resident blocks per SM x SMs) */
    double divergence_serialization;
    double latency_rounds_per_warp; /* dependent rounds of loads per warp */
    int loads_together;             /* 1: some consecutive global loads share their rounds (kernel_issue.c) */
    double loaded_latency_cycles;   /* mean warp round trip in the full wave, queueing included */
    double achieved_dram_bandwidth_bytes_per_s;
    int advice_count;
    struct simt_kernel_advice advice[SIMT_KERNEL_MAX_ADVICE]; /* best first */
    simt_figure_mask figures_used;
    simt_kernel_assumed assumed; /* SIMT_KERNEL_ASSUMED_* */
};

/* Predicts one launch. Returns SIMT_OK and fills *out. SIMT_EINVAL for a
 * malformed request; SIMT_EUNSAT when the launch cannot run on this GPU
 * (block too large, too many registers or too much shared memory) or the GPU
 * lacks a figure the model needs. diag->field names the request field as
 * the API spells it ("launch.block", "resources.registers_per_thread",
 * "per_thread.accesses[2].lane_stride_elements", "per_thread.branch.paths")
 * or the database field. *out is untouched on failure; diag may be NULL. */
int simt_kernel_predict(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                        const struct simt_kernel_request *req, struct simt_kernel_result *out,
                        struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
