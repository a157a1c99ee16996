/* kernel_internal.h - what the whole-kernel model's two files share: the
 * network's service centers, one warp's priced lifetime, and the figures
 * the model reads per SM per cycle. Not part of the model's interface. */
#ifndef SIMT_KERNEL_INTERNAL_H
#define SIMT_KERNEL_INTERNAL_H

#include "kernel.h"

/* The network's service centers, one warp's demand at each in SM cycles. */
enum center {
    C_DRAM = 0, /* the SM's share of DRAM bandwidth */
    C_ROWS,     /* the SM's share of the DRAM's row activations */
    C_L2,       /* the SM's port into L2 */
    C_DATA,     /* L1/shared data path: one wavefront a cycle */
    C_ISSUE,    /* warp schedulers */
    C_FP32,
    C_FP64,
    C_FP16,
    C_SFU,
    C_CONSTANT,     /* constant cache: one address a cycle */
    C_INT32,        /* the INT32 (ALU) pipe */
    C_IMAD,         /* the FMA pipe's integer half (IMAD, IMUL) */
    C_ATOMIC,       /* the SM's share of the L2 slices its contended atomics serialize at */
    C_ATOMIC_UNITS, /* the SM's share of the L2's atomic line requests (chip-wide) */
    C_TENSOR,       /* the tensor pipe (kernel_tensor.h) */
    C_LAUNCH,       /* the SM taking new blocks: launch and retire, one block at a time */
    C_BARRIER,      /* the SM's barrier unit: one warp's arrival at a block barrier at a time */
    C_COUNT
};

/* One warp's lifetime (on one path, before divergence). */
struct warp_cost {
    double dram_bytes, l2_bytes, useful_bytes;
    double dram_read_bytes, dram_write_bytes; /* dram_bytes by direction (atomics count as reads) */
    double dram_rows;      /* DRAM rows it opens: interleave chunks its DRAM accesses touch */
    int sparse;            /* some access opens more rows than its bytes fill */
    double l2_lines;       /* line requests between the SM and L2, in lines' worth of the port */
    double l2_write_lines; /* the part of l2_lines that stores leave in L2 (at the L2 write figure) */
    double l2_requests;    /* requests the L2 slices take: one per line a warp access touches, two
                              where a store hit writes part of a sector */
    double l2_fill_bytes;  /* L2 lines a store table allocates (no DRAM read), per warp */
    int scattered_hits;    /* some L2 hit carries less than a line a request */
    double data_wavefronts, shared_wavefronts, l1_wavefronts;
    double constant_requests;
    double instructions;
    double fp32_flops, fp64_flops, fp16_flops, sfu_ops; /* per lane */
    double int_ops;                                     /* per lane, the ALU pipe */
    double int_mul_ops;                                 /* per lane, the FMA pipe */
    double contended_atomics; /* slice cycles (SM clocks) a warp's contended atomics take at the L2 slices
                                 that hold their addresses, per slice */
    double atomic_ops;        /* global atomic line requests per warp */
    double load_count, load_rounds;
    double memory_delay_cycles;  /* exposed load latency at no load (order statistics included) */
    double dram_queue_rounds;    /* load rounds that wait in DRAM bank queues (miss-weighted) */
    double alu_delay_cycles;     /* exposed dependent-arithmetic latency */
    double sync_delay_cycles;    /* exposed block-barrier waits and dependent warp shuffles */
    double barrier_delay_cycles; /* the block-barrier part of sync_delay_cycles */
    double tensor_cycles;        /* demand on the SM's whole tensor pipe (kernel_tensor.h) */
    double launch_cycles;        /* the warp's share of its block's launch and retire (SM cycles) */
    double barrier_cycles;       /* the warp's arrivals at block barriers, SM barrier-unit cycles */
    double slot_delay_cycles;    /* its block's slot idle for the block's launch and retire (SM cycles) */
    double block_warps;          /* warps in its block */
    int loads_together;          /* some of its global loads share rounds (kernel_issue.c) */
};

/* Figures the model reads, per SM per cycle. */
struct rates {
    double clock_hz;
    int sms;
    int lanes;
    double dram_bytes_per_s, l2_bytes_per_s;
    double l2_write_bytes_per_s; /* stores the L2 keeps; the L2 figure where the card has none */
    double l2_requests_per_s;    /* slice requests a second, chip; 0 = not limited (figure absent) */
    double dram_write_bytes_per_s, dram_copy_bytes_per_s; /* copy: read + written bytes per second */
    int direction_figures;  /* the two above are the GPU's figures, not the read figure standing in */
    double dram_rows_per_s; /* row activations per second, chip; 0 = not limited (figure absent) */
    double rmw_requests;    /* slice requests' worth of a read-modify-write beyond its own store's request
                             * (0: priced as rows instead) */
    double rmw_rows;        /* row activations' worth of one sector's read-modify-write: row activations
                             * over dram_partial_stores_per_s (2 where half the rows stand in) */
    double dram_interleave; /* bytes of one row chunk */
    double fp32_per_cycle, fp64_per_cycle, fp16_per_cycle, sfu_per_cycle, issue_per_cycle;
    double dram_latency, l2_latency, l1_latency, shared_latency, fma_latency;
    double fp64_fma_latency;   /* a dependent FP64 FMA's (fma_latency where the card has none) */
    double fp64_issue_hold;    /* of an FP64 instruction's pipe time, the share its scheduler is held */
    double dram_row_cycle;     /* cycles: tRC, the spread of DRAM latency and a bank's service time */
    double dram_granularity;   /* bytes */
    double line_bytes;         /* L2 cache line */
    double constant_per_cycle; /* distinct constant addresses per cycle per SM */
    double launch_s;
    double int32_per_cycle;           /* INT32 lane operations per cycle per SM; 0: not priced */
    double int_mul_per_cycle;         /* IMAD lane operations per cycle per SM; 0: not priced */
    double l1_bytes_per_sm, l2_bytes; /* capacities for the working-set rules */
    double l2_reuse_bytes;            /* the largest working set back-to-back launches find in L2 */
    double repeat_whole;              /* of a cache's room for a re-read, the set it keeps whole (1: all) */
    double l2_repeat_whole_bytes;     /* the largest wave set a repeated read finds whole in L2 */
    double l2_ways;                   /* lines of a random table one L2 set keeps (0: an LRU edge) */
    double l2_partitions;             /* L2 partitions each holding a line every SM reads (>= 1) */
    double atomic_same_address_per_s; /* one address's atomics per second at the L2; 0: not priced */
    double atomics_per_s;             /* the L2's atomic line requests a second; 0: not priced */
    double atomic_slice_lanes_per_cycle; /* lanes of one request a slice completes per SM clock; 0: none */
    double atomic_slice_bytes;           /* contiguous bytes per slice of an atomic set; 0: one slice */
    double sector_bytes;                 /* L2 sector: the unit a slice's atomic step updates */
    double warp_lines;                   /* line requests a warp keeps in flight; 0: not limited */
    double tensor_per_cycle[SIMT_DTYPE_COUNT]; /* tensor flops per SM per cycle; 0: unused */
    int sub_partitions;                        /* warp schedulers per SM, one tensor unit each */
    double barrier_latency,
        barrier_per_warp;     /* cycles: a barrier's wait, and each warp's arrival at the SM's barrier unit */
    double barrier_data_path; /* data-path cycles of one block barrier; 0: not priced */
    double block_launch;      /* SM cycles per block taken; 0: not priced */
    double shuffle_latency;   /* cycles of a dependent warp shuffle */
};

/* Where a launch puts its warps: what the working-set rules need. */
struct launch_shape {
    int rows;               /* threads per block along y and z */
    double resident_warps;  /* per SM, full wave */
    double resident_blocks; /* per SM, full wave */
    double warps_total;     /* whole grid */
    double warps_per_block;
    double shared_bytes_per_block;
};

/* Which global loads issue together (kernel_issue.c): leader[i] is the
 * first access of access i's group (i itself when alone), in_flight[i] the
 * loads of its group one thread has in flight at once (each member's
 * independent, clipped to its count, summed). Consecutive loads indexed by
 * the thread alone form a group; every other access stands alone. */
void simt_kernel_issue_groups(const struct simt_kernel_request *req, int *leader, double *in_flight);

/* A warp's DRAM bytes in bytes of read time: writes at the write figure's
 * rate and the bus turnarounds of the mix (kernel_cost.c). */
double simt_kernel_dram_read_equivalent_bytes(const struct warp_cost *w, const struct rates *r);

/* A global atomic's requests and slice steps, and the grid's contention
 * over the slices that hold its distinct addresses (kernel_atomics.c). */
void simt_kernel_contend(const struct simt_kernel_access *a, const struct rates *r, struct warp_cost *w,
                         simt_kernel_assumed *assumed);

/* Reads the barrier, shuffle and block-launch figures into r (kernel_cost.c). */
void simt_kernel_read_sync_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                                 const struct simt_kernel_request *req, struct rates *r,
                                 simt_figure_mask *used, simt_kernel_assumed *assumed);

/* One phase of the network (kernel_network.c): how long `warps` resident
 * warps per SM take to finish a lifetime each, with `active_sms` SMs
 * sharing DRAM. */
struct phase {
    double cycles; /* time for the resident warps to finish */
    double delay;  /* one stream's latency per lifetime, loaded */
    double dram_utilisation;
    double alone;      /* time one warp would take with the SM to itself */
    double cycle_time; /* one stream's mean round, queueing included */
    double memory_residence;
    double step_cycles; /* the same warps' time with the waves in step (compute_step_cycles); 0: not so */
};

/* A scheduler's cycles per FP64 warp instruction on its share of the FP64
 * pipe (2.05 on an H200); over 1, a held scheduler waits that long. */
static inline double simt_kernel_fp64_issue_cycles(const struct rates *r)
{
    return r->fp64_per_cycle > 0.0 ? 2.0 * r->lanes * r->issue_per_cycle / r->fp64_per_cycle : 0.0;
}

/* A warp's time on the SM's FP64 pipe, SM cycles (kernel_network.c): its
 * center's demand before an FP64 instruction's hold on its scheduler
 * (fp64_issue_hold) moves a share of it to the issue center. */
double simt_kernel_fp64_pipe_cycles(const struct warp_cost *w, const struct rates *r, double serialization);

/* The per-warp demand at each center, SM cycles (kernel_network.c). */
void simt_kernel_demands(const struct warp_cost *w, const struct rates *r, double serialization,
                         int active_sms, double resident_warps, double *d);

int simt_kernel_run_phase(const struct warp_cost *w, const struct rates *r, double serialization,
                          int active_sms, double warps, struct phase *out);

/* Prices one warp's lifetime with the access models (kernel_cost.c). */
int simt_kernel_cost_warp(const struct simt_gpu_spec *gpu, const struct simt_kernel_request *req,
                          const struct rates *r, const struct launch_shape *shape, struct warp_cost *w,
                          simt_kernel_assumed *assumed, struct simt_diag *diag);

#endif
