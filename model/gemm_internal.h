/* gemm_internal.h - what the GEMM model's files share (gemm.c prices,
 * gemm_request.c checks, gemm_family.c says which kernels cuBLAS runs and
 * their tiles, gemm_cost.c prices traffic and sums a time, gemm_small_n.c
 * prices its small-N kernel, gemm_tiny.c the load/store path of the kernels
 * without TMA, gemm_reduce.c the split-K reduction kernel, gemm_skinny.c
 * the DRAM queue of loads in flight, gemm_splitk.c how far cuBLAS splits K
 * for outputs of a few tiles, gemm_shortk.c FP32's FMA kernels at K of one
 * stage). Not for other modules. */
#ifndef SIMT_GEMM_INTERNAL_H
#define SIMT_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

/* Sizes and dtype in range, a GPU with SMs: SIMT_OK, or the error
 * simt_gemm_predict returns, with diag filled. */
int simt_gemm_check_request(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            struct simt_diag *diag) SIMT_WARN_UNUSED;

/* A's bytes per element of the dense A when it is 2:4 structured sparse:
 * half the values plus their 2-bit metadata. */
double simt_gemm_sparse_a_bytes(enum simt_dtype dtype);
/* Bytes of one element of C: fp8 and the narrower float types write bf16,
 * int8 and int4 int32, the rest their own type. */
int simt_gemm_output_bytes(enum simt_dtype dtype);
/* 1 for the types narrower than a byte or block-scaled (int4, fp6, fp4, mx*,
 * nvfp4): they have no fallback kernels for unaligned shapes. */
int simt_gemm_narrow(enum simt_dtype dtype);
/* Bits a tile's K depth is counted in (6-bit types staged a byte each). */
int simt_gemm_tile_bits(enum simt_dtype dtype);
/* Elements k and n must be multiples of: whole 16-byte pieces (and whole
 * scale blocks for the block-scaled types). */
int simt_gemm_alignment_elements(enum simt_dtype dtype);
/* A narrow type's k or n that is not a multiple of the alignment: SIMT_EUNSAT
 * naming "k" or "n"; SIMT_OK otherwise (and for every wider type). */
int simt_gemm_check_alignment(const struct simt_gemm_request *req, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* SIMT_EUNSAT naming "dtype": the GPU's tensor cores lack the type (the
 * message lists those they have). Always returns SIMT_EUNSAT. */
int simt_gemm_lacks_dtype(const struct simt_gpu_spec *gpu, enum simt_dtype dtype, struct simt_diag *diag);
/* sparse set: SIMT_OK when the GPU has a sparse rate for the dtype, else
 * SIMT_EUNSAT naming "dtype" (no dense path either) or "sparse". */
int simt_gemm_check_sparse(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                           enum simt_dtype dtype, int sparse, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* Elements one load of the fallback kernels (unaligned leading dimensions)
 * carries: as many as the alignment of k and n allows, at most 4 bytes. */
int simt_gemm_slot_elements(int64_t k, int64_t n, double element_bytes);
/* The operands' assumption line (bits, scales, alignment, sparse A). */
void simt_gemm_describe_operands(const struct simt_gemm_request *req, int alignment_elements, char *buf,
                                 size_t size);

/* The pricing's own types (gemm.c; gemm_small_n.c prices its kernel
 * beside them). A thread-block tile's output shape. */
struct tile_shape {
    int m;
    int n;
    int stages; /* K stages the kernel's shared-memory pipeline holds, from its name; 0: not known */
};

/* What one candidate kernel costs. */
/* The FP32 kernels cuBLAS runs where the model's usual choice (gemmSN,
 * sgemm_largek, the least-time split) is not what runs (gemm_tiny.c). */
enum simt_gemm_fma_window {
    SIMT_GEMM_FMA_USUAL = 0,
    SIMT_GEMM_FMA_XMMA_LONE,  /* sm80_xmma's 32x64 or 32x128 tile, unsplit, a block an SM */
    SIMT_GEMM_FMA_SPLIT_SIMT, /* CUTLASS's split SIMT SGEMM and splitKreduce */
    SIMT_GEMM_FMA_FILL_SPLIT, /* sm80_xmma 64x64 split over twice the SMs, its second launch */
};

struct shape_context {
    const struct simt_gemm_request *req;
    double element_bytes; /* of A and B, block scales included */
    double a_weight;      /* A's bytes per element over element_bytes: 1, or less for 2:4 sparse A */
    int out_bytes;
    int sm_count;
    double dram_bytes_per_s; /* reads */
    double dram_write_bytes_per_s;
    double dram_copy_bytes_per_s; /* bytes read plus written per second when both flow */
    double l2_bytes_per_s;        /* 0: no figure (partials then go through DRAM) */
    double launch_s;              /* the launch overhead figure (single calls), else 0 */
    double floor_s;               /* fixed cost of the GEMM kernel */
    double second_kernel_s;       /* fixed cost of a second kernel right behind it (split-K reduction) */
    int reduce_in_kernel;         /* split-K partials may be reduced in the GEMM kernel through L2 */
    double l2_latency_s;          /* one L2 access (0: no figure) */
    double dirty_bytes;           /* other work's dirty lines in L2 when the call starts */
    double l2_total_bytes;        /* the L2's size */
    double fill_s;                /* per wave: first loads and last stores, one DRAM latency each */
    double memset_s;              /* in-kernel split-K / stream-K: zeroing their workspace first */
    int split_k;                  /* 1: the library's kernels may split K; 0: one block per output tile */
    int fixed_split; /* >0: the library splits K this many ways (gemm_family.c), not the least time */
    int reduce_kernel_always;     /* the second (reduction) kernel runs even unsplit */
    int bf16_align1;              /* bf16 at align1: cuBLAS's s1688 kernels (gemm_align1.c) */
    int split_piece_k;            /* >0: the least piece of K a split takes, else the tile's K depth */
    int fma_skinny_rows;          /* cuBLAS's FP32 FMA kernels: 17..32 rows against a wide B run 64-row tiles
                                     (gemm_skinny.c) */
    int epilogue_after_mainloop;  /* data-parallel waves in step: C's writes follow the math, unhidden */
    int last_wave_stores_exposed; /* the last wave's stores of C follow its math, unhidden */
    int serial_reduce_kernel;     /* split-K pieces summed by a second kernel, one after another */
    int outer_product;            /* cuBLAS's K = 1 outer-product kernel replaced the tiles (gemm_k1.c) */
    double serial_piece_s;        /* one piece of that sum: a memory round trip */
    int fma_serial;               /* fp32 FMA splits summed in the kernel in turn (gemm_splitk.c) */
    enum simt_gemm_fma_window fma_window; /* fp32 of few rows or columns: which of cuBLAS's FMA kernels
                                             runs in gemmSN's place (gemm_tiny.c) */
    int xmma_two_pass; /* fp32 FMA splits summed by a second launch of the kernel (gemm_reduce.c) */
    /* the split-K reduction kernel (gemm_reduce.c) */
    double dram_latency_s;    /* one DRAM access (0: no figure) */
    double l2_capacity_bytes; /* partials that fit are read back from L2 */
    int reduce_blocks_per_sm; /* splitKreduce_kernel's blocks one SM holds at once */
    /* int8's mma.sync kernels on Hopper (gemm_mma_sync.c): the GPU whose
     * occupancy says how many of their blocks share an SM (NULL: one block
     * per SM, the waves of gemm.c), and the latency their loads wait */
    const struct simt_gpu_spec *resident_gpu;
    /* tf32's CUTLASS 2.x kernels: their blocks dealt to the SMs by the
     * swizzled grid (gemm_swizzle.c); NULL elsewhere */
    const struct simt_gpu_spec *swizzle_gpu;
    double resident_latency_s;
    /* a block's own chain of warp-level K steps (gemm_mma_sync.c): its
     * MMAs at the tensor cores' full rate, resident_issue_share of the math
     * as priced, plus resident_step_s a step that one warp a sub-partition
     * leaves exposed (0: no clock figure, no chain) */
    double resident_issue_share;
    double resident_step_s;
    /* FP32 with K in one stage of the FMA kernels (gemm_shortk.c): the GPU
     * whose occupancy says how many of their blocks share an SM (NULL:
     * elsewhere) */
    const struct simt_gpu_spec *shortk_gpu;
    /* fp16 and bf16 off 16 bytes (gemm_family.c): the GPU whose occupancy
     * says how many blocks of the fallback kernels' small tiles share an SM
     * (NULL: elsewhere) */
    const struct simt_gpu_spec *fallback16_gpu;
    /* Hopper's 16-bit asynchronous-MMA kernels: an SM's bytes of C a second
     * staged out of the accumulators after each tile's math, before the next
     * tile's (0: none; gemm_cost.c) */
    double staged_epilogue_bytes_per_s;
    /* DRAM's read rate that operand loads in flight queue at (gemm_skinny.c);
     * 0: no queue (operands served from L2, or no latency figure) */
    double dram_queue_bytes_per_s;
};

/* How fast an SM runs one kind of kernel. */
struct kernel_rate {
    double sm_flops_per_s;          /* math, aligned kernels */
    int unaligned;                  /* the fallback kernels (no TMA, narrow loads) */
    double loads_per_s_per_sm;      /* their operand loads an SM issues per second */
    double staged_per_s_per_sm;     /* FMA kernels: elements an SM moves through load/store per second (0: no
                                       limit) */
    double register_b_per_s_per_sm; /* tf32 on wgmma: B elements an SM feeds through registers (0: none) */
    double l2_bytes_per_s;          /* shared by the SMs that are busy; 0: no limit */
    double l2_floor_per_sm;         /* an SM is never fed less than its largest tile needs */
    double in_flight_stages_per_s;  /* K stages of operands an SM draws per second at most: its stages in
                                       flight over the memory latency (HUGE_VAL: no latency figure) */
    double column_share;            /* of a tile's B columns one block fetches from L2 (multicast) */
    double stage_latency_s;         /* 16-bit align1 kernels: the latency each K stage past the first waits
                                       while an SM holds one block (0: none; gemm_align1.c) */
    int stage_latency_k;            /* the K depth of those kernels' stages */
    int64_t stage_latency_blocks;   /* that while the kernel's blocks are at most this many */
    double sm_intake_bytes_per_s;   /* operand bytes one SM takes from L2 at most, however few SMs are
                                       busy (0: no cap; tf32's mma.sync kernels, gemm_family.c) */
};

struct candidate {
    const struct tile_shape *tile;
    int tile_k;
    int split;
    int gemv;
    int gemv_walk;    /* cuBLAS's GEMV kernel whose walk of K binds (gemm_gemv.c): SIMT_GEMM_GEMV_WALK_* */
    int small_n;      /* cuBLAS's streaming kernels of few rows (fp32, gemm_small_n.c): SIMT_GEMM_STREAM_* */
    int narrow;       /* FP32 tall narrow outputs priced by the outputs resident an SM (gemm_narrow.c) */
    int fp64u;        /* FP64 of odd n or K at short K (gemm_fp64u.c): 0, or which kernel + 1 */
    int walk16;       /* bf16 of 2 to 4 rows off 16 bytes, one block walking K (gemm_walk16.c) */
    int column_split; /* FP32 of a few columns, CUTLASS's split SIMT kernel (gemm_shortk.c) */
    int stream_k;
    int64_t tiles;
    double waves;
    double compute_s;
    double l2_s;
    double dram_s;
    double dram_bytes;
    double dram_read_s;  /* A and B alone, at the read rate */
    double dram_write_s; /* C (and evicted dirty lines) alone, at the write rate */
    double evicted_s;    /* the evicted dirty lines alone, at the write rate */
    double overhead_s;
    double reduce_s;   /* split-K: partial sums through L2 after the main loop */
    int serial_reduce; /* split-K reduced in the GEMM kernel, split after split (else a second kernel) */
    double time_s;
};

/* The FP64 tensor-core (DMMA) kernels' tiles (gemm_family.c): *tiles and
 * *count set to a static list. */
void simt_gemm_dmma_tiles(const struct tile_shape **tiles, size_t *count);

/* The tensor-core kernels' tiles: *tiles and *count set to a static list. */
void simt_gemm_tensor_tiles(const struct tile_shape **tiles, size_t *count);
/* The FMA (SIMT) SGEMM/DGEMM kernels' tiles: *tiles and *count set to a
 * static list. */
void simt_gemm_fma_tiles(const struct tile_shape **tiles, size_t *count);
/* The int8 mma.sync kernels' tiles (torch._int_mm on Hopper) that cuBLAS
 * chooses among for req: *tiles and *count set to a static list. */
void simt_gemm_int8_mma_sync_tiles(const struct simt_gemm_request *req, const struct tile_shape **tiles,
                                   size_t *count);
/* 1 when cuBLAS takes only the 128-row and wider of them for req (long K,
 * large outputs). */
int simt_gemm_int8_large_tile(const struct simt_gemm_request *req);
/* 1 when cuBLAS runs that tile of the list for req: the 128-row ones alone
 * for long K and large outputs, the 64-row ones alone for m <= 128
 * otherwise (applied where their blocks are priced in rounds,
 * gemm_mma_sync.c). */
int simt_gemm_int8_runs_tile(const struct simt_gemm_request *req, const struct tile_shape *tile);
/* The same, with the SMs: 64x64 also where 64x128 leaves more than half
 * of them idle (gemm_family.c). */
int simt_gemm_int8_runs_tile_on(const struct simt_gemm_request *req, const struct tile_shape *tile,
                                int sm_count);
/* 1 when cuBLAS runs tf32 as Ampere's mma.sync kernels on this GPU
 * (Hopper: short K or small outputs; gemm_family.c). */
int simt_gemm_tf32_mma_sync(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* Their tiles: *tiles and *count set to a static list. */
void simt_gemm_tf32_mma_sync_tiles(const struct tile_shape **tiles, size_t *count);
/* the tiles of cuBLAS's fallback kernels for unaligned fp16 and bf16
 * (gemm_family.c); sets ctx->fallback16_gpu to gpu */
void simt_gemm_fallback16_tiles(const struct simt_gpu_spec *gpu, struct shape_context *ctx,
                                const struct tile_shape **tiles, size_t *count);
/* Their small tiles' blocks share an SM: *fills (the waves of one block an
 * SM whose first loads and last stores are exposed) set to the rounds of
 * the blocks an SM holds at once, where c's tile is one of them. */
void simt_gemm_fallback16_fills(const struct shape_context *ctx, const struct candidate *c, double *fills);
/* bf16 of 2 to 4 rows off 16 bytes on Hopper (gemm_walk16.c): 1 where
 * cuBLAS runs one block walking K; then c priced as that block, and its
 * kernel line (1 and buf written where c is it, else 0). */
int simt_gemm_walk16_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
void simt_gemm_walk16_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            const struct shape_context *ctx, struct candidate *c);
int simt_gemm_walk16_line(const struct candidate *c, char *buf, size_t size);
/* 1 when those kernels run with cuBLAS's split-K reduction kernel behind
 * them whatever the split (outputs of a few tiles). */
int simt_gemm_tf32_reduce_kernel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* The most operand bytes per second one SM of those kernels takes from L2:
 * the L2's bandwidth over all the SMs (0 when l2_bytes_per_s or the SM
 * count is not positive: no cap). */
double simt_gemm_tf32_sm_intake(const struct simt_gpu_spec *gpu, double l2_bytes_per_s);

/* How many of that list cuBLAS runs for req (the skinny-M tile, last,
 * left out for fp32 with a narrow B on NVIDIA GPUs): count or count - 1. */
size_t simt_gemm_fma_tile_count(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                size_t count);
/* gemm_splitk.c: 1 when the split-K kernel of tile split ways may run for
 * ctx's request at rate: up to 16 ways always; beyond, only for the FMA
 * kernels (rate's staged_per_s_per_sm > 0), and tf32 and the unaligned
 * 16-bit kernels in pieces of K of 256 or more (128 for bf16's align1
 * split form, ctx's bf16_align1 and reduce_kernel_always), and only where one wave of
 * the SMs holds all their blocks.
 * Else 0. */
/* a split that fills one wave of the SMs, for the unaligned 16-bit kernels, or 0 */
int simt_gemm_fill_split(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int tile_k);
int simt_gemm_split_fits(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int split);
/* The split of K cuBLAS takes for its align1 16-bit kernels of outputs of
 * at most 256 elements with K of 1000 to 8192 not a multiple of 8 (pieces
 * of 8 under a cap of blocks), or 0 where it does not apply
 * (gemm_splitk.c). */
/* gemm_align1.c: bf16 with odd n or K (align1) and m of 17 or more on
 * NVIDIA GPUs of compute capability 8.0 on, where cuBLAS runs its s1688
 * kernels (1 when it does, else 0); whether it runs them in the form with
 * its reduction kernel behind, even unsplit (1 or 0); the setup that keeps
 * *tiles' first *count entries to those 64 or more a side and sets
 * ctx->bf16_align1, and ctx->reduce_kernel_always for that form (nothing
 * for other requests); and the answer's words for what ctx's setup set (a
 * static string, "" where it set nothing). */
int simt_gemm_bf16_align1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
int simt_gemm_bf16_align1_split_form(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
void simt_gemm_bf16_align1_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                 double latency_s, struct shape_context *ctx, struct kernel_rate *rate,
                                 const struct tile_shape **tiles, size_t *count);
const char *simt_gemm_bf16_align1_phrase(const struct shape_context *ctx);
int simt_gemm_align1_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* bf16 of 6 to 8 rows against even n and K off 16 bytes: cuBLAS's align2
 * wmma kernels in pieces of 8 of K (gemm_splitk.c), not gemmSN */
int simt_gemm_bf16_align2_fine(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* FP32's in-kernel serial split of outputs of a few rows by 65 to 128
 * columns (gemm_splitk.c): the split cuBLAS takes, or 0 where it does not
 * run; the setup that fixes it, its tile and ctx->fma_serial (where ctx's
 * L2 latency is known); and a candidate's reduce_s under it (one L2
 * latency a split after a memset; else nothing). */
int simt_gemm_fma_serial_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
void simt_gemm_fma_serial_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                struct shape_context *ctx, const struct tile_shape **tiles, size_t *count);
void simt_gemm_fma_serial_reduce(const struct shape_context *ctx, int split, struct candidate *c);
/* The answer's words for a split fixed_split (> 0) set for req: which of
 * cuBLAS's rules it is (a static string; "" for 0). */
const char *simt_gemm_fixed_split_phrase(const struct simt_gemm_request *req, int fixed_split);
/* Stream-K's K steps one SM takes: per_sm (the even share), raised to
 * the piece of K cuBLAS's Hopper kernels give a block at least (21
 * 128-byte K steps, at most the tile's k_tiles). */
double simt_gemm_stream_k_share(double per_sm, int64_t k_tiles);
/* FP32 FMA kernels: the split of K cuBLAS takes for outputs of few tiles,
 * or 0 where the least-time split stands (gemm_family.c). */
int simt_gemm_fma_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);

/* A candidate's DRAM traffic (gemm_cost.c): c->dram_bytes, dram_s (the
 * read/write/copy mix), dram_read_s and dram_write_s. */
void simt_gemm_dram_traffic(const struct shape_context *ctx, struct candidate *c);
/* Its time from busy (its work), its traffic, reduce_s and the fixed
 * costs of a kernel of full_waves waves: c->overhead_s and c->time_s. */
void simt_gemm_finish(const struct shape_context *ctx, double busy, double full_waves, struct candidate *c);
/* The staged epilogue's rate for req on gpu (gemm_cost.c): bytes of C an
 * SM stages a second, or 0 where it does not apply. */
double simt_gemm_staged_epilogue_rate(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                      int async_mma, double clock_hz);
/* The factor the SM's math rate takes so that the calibration GEMM c
 * (priced on cal at the de-quantized rate, wave_efficiency) reproduces its
 * figure with the staging paid: 1 where there is none. */
double simt_gemm_staged_epilogue_factor(const struct shape_context *cal, const struct candidate *c,
                                        double wave_efficiency);

/* FP64 on Hopper (gemm_fp64.c). The split of K over every SM that cuBLAS
 * takes for small products with long K (the SMs over the output's 32x32
 * tiles), or 0 where it does not. */
int simt_gemm_fp64_serial_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* For a tensor-core request: sets ctx's last_wave_stores_exposed (FP64's
 * DMMA kernels, Hopper on) and, where that split runs and latency_s (DRAM's)
 * is known, its fixed_split, serial_reduce_kernel and serial_piece_s, with
 * *tiles and *count set to its one tile (a static list). Else nothing. */
void simt_gemm_fp64_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                          double latency_s, struct shape_context *ctx, const struct tile_shape **tiles,
                          size_t *count);
/* FP64 at K = 1 (gemm_k1.c): 1 when cuBLAS runs its outer-product kernel
 * for req on gpu (NVIDIA compute capability 9, fp64, dense, K = 1, batch
 * 1, m and n of 14 or more), else 0. Where it runs, simt_gemm_k1_try
 * replaces *best with its price (C's DRAM traffic behind the launch and
 * three DRAM latencies; back to back, ctx's floor_s and two) and sets
 * ctx->outer_product; else nothing changes. simt_gemm_k1_line writes the
 * answer's kernel line into buf (size bytes, truncated) and returns 1
 * where ctx->outer_product is set, else returns 0 with buf untouched. */
int simt_gemm_k1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
void simt_gemm_k1_try(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                      struct shape_context *ctx, struct candidate *best);
int simt_gemm_k1_line(const struct shape_context *ctx, char *buf, size_t size);
/* The split-K reduction kernel (gemm_reduce.c). Sets ctx's dram_latency_s
 * (dram_latency_s, 0 when there is no figure), l2_capacity_bytes and
 * reduce_blocks_per_sm from gpu. */
void simt_gemm_reduce_setup(const struct simt_gpu_spec *gpu, double dram_latency_s,
                            struct shape_context *ctx);
/* A reduction kernel's grid: its blocks, the outputs of the fullest one,
 * how many of its blocks an SM holds at once, how many partials a thread
 * reads before it waits for them, and the latency it waits (0: L2's when
 * the partials fit in L2 and the GPU has the figure, else DRAM's). */
struct simt_gemm_reduce_grid {
    double blocks;
    double block_outputs;
    int blocks_per_sm;
    int in_flight;
    double latency_s;
};
/* Its time for split partials of each output element of ctx's request:
 * its fixed cost (ctx->second_kernel_s), the GEMM kernel's stores of the
 * partials, and the longer of its reads' latency (one latency a group of
 * in_flight, one for the store of C, in rounds of the blocks the SMs hold)
 * and their bytes at the busiest SM's share of L2's (or DRAM's) rate. */
double simt_gemm_reduce_kernel_time(const struct shape_context *ctx, const struct simt_gemm_reduce_grid *grid,
                                    int split);
/* cuBLAS's splitKreduce_kernel behind a GEMM split split ways (1: the
 * kernel that outputs of few tiles get unsplit): its time, as above. */
double simt_gemm_split_k_reduce(const struct shape_context *ctx, int split);
/* cuBLAS's FP32 sm80_xmma kernels split over grid.z (ctx->xmma_two_pass):
 * c->reduce_s set to the second launch that sums the splits of tile's
 * outputs. Else nothing. */
void simt_gemm_xmma_second_pass(const struct shape_context *ctx, int split, const struct tile_shape *tile,
                                struct candidate *c);
/* A split candidate under that split: c->reduce_s set to its reduction
 * kernel's time (c->serial_reduce cleared). Else nothing. */
void simt_gemm_fp64_serial_reduce(const struct shape_context *ctx, int split, struct candidate *c);
/* The answer's assumption lines (appended to out->assumptions while room
 * is left): the last wave's stores, where they count for best; the split
 * over every SM, where best has it (1 then, else 0 and nothing written). */
void simt_gemm_fp64_assume_epilogue(const struct shape_context *ctx, const struct candidate *best,
                                    struct simt_gemm_result *out);
int simt_gemm_fp64_assume_split(const struct shape_context *ctx, const struct candidate *best,
                                struct simt_gemm_result *out);

/* The int8 mma.sync kernels with several blocks an SM (gemm_mma_sync.c).
 * Blocks of tile (stages > 0, tile_k deep) resident on one SM of gpu at
 * once, by the occupancy model from the shared memory its stages take
 * (1 when gpu is NULL, the tile has no stage count, or nothing fits). */
int simt_gemm_mma_sync_resident(const struct simt_gpu_spec *gpu, const struct tile_shape *tile, int tile_k,
                                double element_bytes);
/* Sets ctx->resident_gpu and resident_latency_s (the latency an operand
 * load waits), and the chain of a block's warps: issue_share, the full
 * tensor rate's share of the rate its math is priced at (the math's time
 * at the full rate over its time as priced), and the exposed time a warp
 * K step at clock_hz (0: no clock figure, no chain). From then on
 * simt_gemm_finish prices ctx's tiles of known stages in rounds of their
 * resident blocks. */
void simt_gemm_mma_sync_setup(const struct simt_gpu_spec *gpu, double latency_s, double clock_hz,
                              double issue_share, struct shape_context *ctx);
/* For such a candidate (unsplit, data-parallel): *busy set to its blocks'
 * time in rounds of the resident count per SM, each round as long as its
 * busiest SM's math, its L2 intake or the round's share of DRAM reads
 * (HUGE_VAL for a tile cuBLAS does not run for the shape), *rounds to
 * their number; returns 1, or 2 when the loads of its first round wait
 * longer in the DRAM queue than for their transfer from L2 (gemm_skinny.c).
 * Else 0 and nothing changes. */
int simt_gemm_mma_sync_rounds(const struct shape_context *ctx, const struct candidate *c, double *busy,
                              double *rounds);

/* FP32 with K in one to three K stages of the FMA kernels (gemm_shortk.c).
 * 1 when cuBLAS's short-K FMA kernels run for req on gpu (NVIDIA, compute
 * capability 8.0 on, fp32, dense, k <= 3 tile_k, tile_k the FMA kernels'
 * K depth). */
int simt_gemm_shortk_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int tile_k);
/* 1 when cuBLAS runs its split-K kernels with the reduction kernel behind
 * them, split or not, for req on gpu at short K: fp32 of small outputs, and
 * tf32 whose rows are not 16-byte multiples (alignment_ok 0) at mid
 * outputs. */
int simt_gemm_shortk_reduce_kernel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                   int alignment_ok);
/* FP32 on the FMA units: sets ctx->reduce_kernel_always where that rule
 * says so; where the short-K kernels run, also ctx->shortk_gpu and *tiles
 * and *count to their tiles (a static list); else nothing more. */
void simt_gemm_shortk_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int tile_k,
                            struct shape_context *ctx, const struct tile_shape **tiles, size_t *count);
/* Blocks of tile's kernel (a tile of that list) resident on one SM of gpu
 * at once, by the occupancy model from its threads, registers and shared
 * memory (1 when gpu is NULL, the tile is not of the list or has no
 * resources given, or nothing fits). */
int simt_gemm_shortk_resident(const struct simt_gpu_spec *gpu, const struct tile_shape *tile);
/* Blocks of a kernel of threads, registers a thread and shared_bytes an SM
 * of gpu holds at once, by the occupancy rules (1 where none fits or the
 * rules refuse). */
int simt_gemm_blocks_resident(const struct simt_gpu_spec *gpu, int threads, int registers,
                              int64_t shared_bytes);
/* One block's time in the load/store path on a tile of that list: the
 * operands of the K that exists (in one stage; past it, the stages' whole
 * depth) and C's elements (the larger in one stage, their sum past it) at
 * rate->staged_per_s_per_sm; slot_s (simt_gemm_slot_time) unchanged
 * elsewhere. */
double simt_gemm_shortk_slot_time(const struct shape_context *ctx, const struct kernel_rate *rate,
                                  const struct tile_shape *tile, double slot_s);
/* For an unsplit data-parallel candidate on such a tile whose kernel keeps
 * two or more blocks resident per SM: *fills (the first loads and last
 * stores its time pays) set to 1; returns 1. Else 0 and nothing changes
 * (a fill a wave). */
int simt_gemm_shortk_fills(const struct shape_context *ctx, const struct candidate *c, double *fills);
/* The answer's tile line for such a candidate (a tile of that list) into
 * buf (size bytes, truncated); returns 1, or 0 with buf untouched for
 * any other candidate. */
int simt_gemm_shortk_line(const struct shape_context *ctx, const struct candidate *c, char *buf, size_t size);

/* FP32 of 2 to 8 columns against 768 to 2048 rows at K of 64 to 300
 * (gemm_shortk.c): 1 where cuBLAS's split simt_sgemm_128x32 runs; the
 * ways it splits K; *c becomes that kernel where it runs; its line. */
int simt_gemm_column_split_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
int simt_gemm_column_split_ways(const struct simt_gemm_request *req);
void simt_gemm_column_split_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                  const struct shape_context *ctx, double clock_hz, struct candidate *c);
int simt_gemm_column_split_line(const struct candidate *c, char *buf, size_t size);

/* "Volta/Turing", "Ampere/Ada", "Hopper", "Blackwell", "CDNA" (AMD),
 * "pre-Volta": the family a GPU's kernel lists are named for. */
const char *simt_gemm_arch_family(const struct simt_gpu_spec *gpu);

/* The most tiles that do work on one SM when a grid swizzled up to 8
 * wide (CUTLASS 2.x) of tiles_m x tiles_n tiles is resident all at once, blocks
 * dealt to the SMs in turn (gemm_swizzle.c); 0 when the grid is not all
 * resident. */
int64_t simt_gemm_swizzle_busiest(int64_t tiles_m, int64_t tiles_n, int64_t sm_count,
                                  int64_t resident_per_sm);

/* cuBLAS's streaming kernels for FP32 of few rows (gemm_small_n.c):
 * gemmSN_NN (one block of 256 threads per 64 columns of B, grid.y 1, 2 or
 * 4 for the rows) and sgemm_largek (the same columns, K split over
 * grid.z, the pieces added into C under a lock), m = 2 to 16 on NVIDIA
 * GPUs. */
#define SIMT_GEMM_SMALL_N_M 16
#define SIMT_GEMM_SMALL_N_COLUMNS 64
#define SIMT_GEMM_SMALL_N_THREADS 256
enum { SIMT_GEMM_STREAM_NONE = 0, SIMT_GEMM_STREAM_SN = 1, SIMT_GEMM_STREAM_LARGEK = 2 };
struct simt_gemm_small_n_inputs {
    double element_bytes;
    double latency_s;         /* a load's latency on an idle memory */
    double row_cycle_s;       /* DRAM tRC: a bank's service time */
    double queue_bytes_per_s; /* DRAM's read rate the banks' queue is at; 0: no queue (L2-resident) */
};
struct simt_gemm_small_n {
    int kernel;         /* SIMT_GEMM_STREAM_SN or _LARGEK */
    int split;          /* sgemm_largek's pieces of K; 1 for gemmSN */
    int rows_per_block; /* gemmSN's grid.y */
    int64_t blocks;     /* all the kernel's blocks */
    double rounds;      /* of blocks, as many at once as the occupancy rules let an SM hold */
    double stream_s;    /* B streamed by the blocks' bytes in flight (DRAM's rate not applied) */
    double chain_s;     /* sgemm_largek: its pieces added into C one after another */
};
/* SIMT_GEMM_STREAM_SN or _LARGEK when cuBLAS runs one for the request, else _NONE. */
int simt_gemm_small_n_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* That kernel's blocks and their latency-bound streaming time. */
void simt_gemm_small_n_stream(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              const struct simt_gemm_small_n_inputs *in, struct simt_gemm_small_n *out);

/* gemm_gemv.c: cuBLAS's GEMV kernels of one output row whose walk of K at
 * the memory latency sets their time. */
enum {
    SIMT_GEMM_GEMV_WALK_NONE,
    SIMT_GEMM_GEMV_WALK_GEMVX,
    SIMT_GEMM_GEMV_WALK_GEMV2N,
    SIMT_GEMM_GEMV_WALK_GEMVX_WIDE,
    SIMT_GEMM_GEMV_WALK_NSP,
    SIMT_GEMM_GEMV_WALK_DOT
};
struct simt_gemm_gemv_walk {
    int kernel;          /* SIMT_GEMM_GEMV_WALK_* */
    int threads_per_row; /* threads that share one output's K */
    double fixed_s;      /* after the launch: first loads, the sum, the store */
    double walk_s;       /* K walked at latency_s */
};
/* 1 and *out filled when one of them runs for req (latency_s: the
 * latency the loads wait), else 0. */
int simt_gemm_gemv_walk(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                        double latency_s, struct simt_gemm_gemv_walk *out);
/* Where one runs, *c (the streaming GEMV) becomes it: its fixed cost
 * after launch_s, the longer of its walk and c's DRAM time. */
void simt_gemm_gemv_walk_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                               double latency_s, double launch_s, struct candidate *c);
/* The kernel line of a GEMV candidate into buf; 0 when c is no GEMV. */
int simt_gemm_gemv_line(const struct simt_gemm_request *req, const struct candidate *c,
                        double fma_flops_per_s, char *buf, size_t size);

/* gemm_narrow.c: cuBLAS's FP32 FMA kernels for tall, narrow outputs, their
 * math at the rate an SM reaches with the outputs its blocks hold. */
int simt_gemm_fma_narrow_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* An SM's FMA rate with `outputs` resident, sm_flops_per_s the FMA path's. */
double simt_gemm_fma_narrow_rate(double sm_flops_per_s, double outputs);
/* Where they run, *c (an FMA tile candidate) takes their math. */
void simt_gemm_fma_narrow_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                double sm_flops_per_s, struct candidate *c);
/* The kernel line of such a candidate into buf; 0 for any other. */
int simt_gemm_fma_narrow_line(const struct simt_gemm_request *req, const struct candidate *c, char *buf,
                              size_t size);

/* gemm_fp64u.c: cuBLAS's FP64 kernels of odd n or K at K of 32 to 128 on
 * Hopper, an SM's tiles one after another. 1 where they run. */
int simt_gemm_fp64u_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* 1 where cuBLAS's small FP64 products of odd n or K walk K in one block a
 * tile or split it over every SM (gemm_fp64u.c). */
int simt_gemm_fp64_walk_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* Where either runs, *c becomes the one cuBLAS runs. */
void simt_gemm_fp64u_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                           const struct shape_context *ctx, double sm_flops_per_s, double clock_hz,
                           struct candidate *c);
/* The kernel line of such a candidate into buf; 0 for any other. */
int simt_gemm_fp64u_line(const struct candidate *c, char *buf, size_t size);
/* The kernel line of a small-N (gemmSN) candidate into buf; 0 for any
 * other (gemm_small_n.c). */
int simt_gemm_small_n_line(const struct candidate *c, char *buf, size_t size);

/* FP32's FMA kernels of more than 16 rows on NVIDIA (and those of
 * simt_gemm_fma_window_runs): rate's stage latency
 * (a lone block's K stages wait part of a DRAM latency each; gemm_tiny.c). */
void simt_gemm_fma_stage_latency(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                 double latency_s, struct kernel_rate *rate);

/* FP32 of 12 to 16 rows, 800 columns or more, K of 96 or more and m n K
 * of at most 2^21 on Hopper: cuBLAS runs sm80_xmma's 32x64 or 32x128 FMA
 * tiles unsplit, not gemmSN (gemm_tiny.c): 1 where it does. The setup
 * sets ctx->fma_window, *tiles and *count, and ctx's split and second pass
 * for that case and the two like it (8 to 16 rows by 512 to 799 columns:
 * the split SIMT SGEMM; two or three columns at K over 32 x SMs:
 * sm80_xmma's split over twice the SMs); elsewhere it changes nothing. */
int simt_gemm_fma_window_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
/* The kernel line where ctx->fma_window is set, into buf; 0 elsewhere. */
int simt_gemm_fma_window_line(const struct shape_context *ctx, char *buf, size_t size);
void simt_gemm_fma_window_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                struct shape_context *ctx, const struct tile_shape **tiles, size_t *count);

/* gemm_tf32_k1.c: tf32 at K = 1 runs cuBLAS's FP32 FMA kernel (NVIDIA from
 * 8.0): 1 where it does; the answer fp32's, with a line that says so. */
int simt_gemm_tf32_k1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req);
int simt_gemm_tf32_k1_predict(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              struct simt_gemm_result *out, struct simt_diag *diag);

/* gemm_tiny.c: the time one tile spends in the SM's load/store path, for
 * the kernels without TMA: FMA kernels (rate->staged_per_s_per_sm) move
 * the tile's K depth of operands and C's elements; the fallback kernels of
 * unaligned shapes (rate->unaligned, loads_per_s_per_sm) load the tile's K
 * depth of operands, or for 16-bit types the K that exists in the split
 * and C's elements, and where rate gives a stage latency (bf16's align1
 * kernels) that latency less a stage's math for each K stage past the
 * first while the kernel's blocks are one an SM. 0 for the other kernels. */
/* the fallback kernels' loads beyond the slot rate, for the alignment line */
const char *simt_gemm_fallback_phrase(const struct simt_gemm_request *req, int tile_n);
double simt_gemm_slot_time(const struct simt_gemm_request *req, const struct kernel_rate *rate,
                           const struct tile_shape *tile, int tile_k, int split);

/* Skinny GEMMs streaming a wide weight (gemm_stream.c). 1 when cuBLAS runs
 * its 448-wide tile of two stages for req (Hopper, fp16 and bf16, m of 113
 * to 128 or of 33 to 64, the tile that fills the SMs best): *tiles and
 * *count set to it; else 0 and nothing changes. */
int simt_gemm_stream_tile(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int async_mma,
                          const struct tile_shape **tiles, size_t *count);
/* 1 when that tile's clusters pair along m and share B (m of 113 to 128);
 * 0 when they pair along n (m of 33 to 64: one row tile, each block loads
 * its own B). */
int simt_gemm_stream_shares_b(const struct simt_gemm_request *req);
/* Operand bytes per second (counted as stage_bytes counts them) an SM draws
 * through a pipeline of tile->stages (> 0) stages: stages - 1 loads in
 * flight, each one memory latency (fitted_stages over
 * rate->in_flight_stages_per_s) plus the stage's bytes at
 * share_bytes_per_s or, for the 448-wide tile (one block an SM), the longer
 * of that and the DRAM queue of the bytes in flight (queue_s_per_byte,
 * simt_gemm_dram_queue_s_per_byte; 0: none). */
double simt_gemm_stream_feed(const struct kernel_rate *rate, const struct tile_shape *tile,
                             double stage_bytes, double fitted_stages, double share_bytes_per_s,
                             double queue_s_per_byte);
/* The answer's assumption line for that tile, when out ran it and there is
 * room; or for fp8's data-parallel schedule where it applies. */
void simt_gemm_stream_assume(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                             struct simt_gemm_result *out);
/* fp8 on Hopper, outputs of few tiles: cuBLAS's schedule (gemm_stream.c):
 * *stream_k to 0, and *split_k to 0 past a few tiles; unchanged
 * elsewhere. */
void simt_gemm_fp8_schedule(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            int *stream_k, int *split_k);

/* The DRAM queue of loads in flight (gemm_skinny.c): seconds a load waits
 * in it per byte each of active_sms SMs keeps in flight, for a kernel whose
 * blocks load fed_bytes of operands in all (their tiles as their stages
 * count them), of which DRAM supplies A and B once: active_sms times that
 * share (at most 1) over ctx->dram_queue_bytes_per_s; 0 when ctx has no
 * queue. */
double simt_gemm_dram_queue_s_per_byte(const struct shape_context *ctx, double active_sms, double fed_bytes);
/* 0 when cuBLAS does not run that FMA tile for the request: FP32 with m
 * of 17 to 32 and many 32-row tiles runs a 64-row tile (gemm_skinny.c). */
int simt_gemm_fma_skinny_runs_tile(const struct shape_context *ctx, const struct tile_shape *tile);

#endif
