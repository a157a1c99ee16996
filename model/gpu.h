/* gpu.h - the numbers that describe one GPU to the models: limits that
 * occupancy uses, the SM's make-up, clocks, memory, throughputs, latencies,
 * interconnect and what was measured on a real card. Plain data, no
 * behaviour: hwdb/ fills it from YAML, api/ copies it and applies a request's
 * what-if overrides, model/ reads it. Every field's unit is in its name.
 *
 * A field that the database does not give for a GPU (an NVLink count on a
 * PCIe card, a measured figure on a card nobody measured) holds 0; models
 * treat 0 as "absent" where the field is optional and say so in their
 * assumptions. Pure. */
#ifndef SIMT_GPU_H
#define SIMT_GPU_H

#include <stddef.h>
#include <stdint.h>

#define SIMT_MAX_CARVEOUTS 16
#define SIMT_MAX_GPCS 32 /* entries of gpc_sms */

enum simt_vendor { SIMT_VENDOR_NVIDIA = 0, SIMT_VENDOR_AMD = 1 };

/* Data types with a tensor-core (matrix-core) rate. Index into the
 * tensor_*_flops_per_s arrays; the names are the API's dtype strings. The
 * sub-byte and block-scaled types come last, so that the older indices keep
 * their place: fp6 and fp4 are the E2M3/E3M2 and E2M1 floats; mxfp8, mxfp6
 * and mxfp4 the OCP microscaling formats (fp8, fp6, fp4 elements with one
 * 8-bit E8M0 scale per 32); nvfp4 NVIDIA's (E2M1 elements with one 8-bit
 * E4M3 scale per 16, and one fp32 scale per tensor). */
#define SIMT_DTYPE_LIST(X)                                                                                   \
    X(FP64, "fp64")                                                                                          \
    X(FP32, "fp32")                                                                                          \
    X(TF32, "tf32")                                                                                          \
    X(FP16, "fp16")                                                                                          \
    X(BF16, "bf16")                                                                                          \
    X(FP8, "fp8")                                                                                            \
    X(INT8, "int8")                                                                                          \
    X(INT4, "int4")                                                                                          \
    X(FP6, "fp6")                                                                                            \
    X(FP4, "fp4")                                                                                            \
    X(MXFP8, "mxfp8")                                                                                        \
    X(MXFP6, "mxfp6")                                                                                        \
    X(MXFP4, "mxfp4")                                                                                        \
    X(NVFP4, "nvfp4")

/* SIMT_DTYPE_LIST(X) calls X(SUFFIX, "name") once per type, in enum order:
 * tables keyed by dtype are written from it, so a new type is one line. */
#define SIMT_DTYPE_ENUM(suffix, name) SIMT_DTYPE_##suffix,
enum simt_dtype { SIMT_DTYPE_LIST(SIMT_DTYPE_ENUM) SIMT_DTYPE_COUNT };
#undef SIMT_DTYPE_ENUM

/* Returns the API name of a dtype ("bf16"), or NULL when out of range. */
const char *simt_dtype_name(enum simt_dtype dtype);
/* Writes every API dtype name, comma-separated ("fp64, fp32, ..."), into buf
 * (truncated to size); for messages that list the choices. Returns buf. */
char *simt_dtype_list(char *buf, size_t size);
/* Parses an API dtype name; returns 0 and sets *out, or SIMT_EINVAL. */
int simt_dtype_parse(const char *name, enum simt_dtype *out) __attribute__((warn_unused_result));
/* Bits of one element as stored, block scales not counted (fp64 64, tf32 32
 * as it is held in memory, fp6 and mxfp6 6, int4, fp4, mxfp4 and nvfp4 4);
 * 0 out of range. */
int simt_dtype_element_bits(enum simt_dtype dtype);
/* Elements that share one 8-bit block scale: 32 for the mx types, 16 for
 * nvfp4, 0 for a type without block scales (or out of range). */
int simt_dtype_scale_block(enum simt_dtype dtype);
/* Bytes one element costs in memory, its share of the block scales
 * included: element_bits / 8 + 1 / scale_block (mxfp4: 0.5 + 1/32; nvfp4:
 * 0.5 + 1/16; the per-tensor scale of nvfp4 is not counted). 0 out of range. */
double simt_dtype_bytes(enum simt_dtype dtype);

struct simt_gpu_spec {
    enum simt_vendor vendor;
    int compute_major; /* NVIDIA compute capability; AMD: gfx major (9 for gfx942) */
    int compute_minor;
    int sm_count; /* SMs (NVIDIA) or CUs (AMD) */

    /* --- limits (occupancy) --- */
    int warp_size; /* 32 NVIDIA, 64 AMD wave64 */
    int max_threads_per_sm;
    int max_warps_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int registers_per_sm; /* 32-bit registers */
    int max_registers_per_block;
    int max_registers_per_thread;
    int register_allocation_unit;   /* registers, allocated per warp */
    int register_file_partitions;   /* warps' registers come from one of these */
    int64_t shared_bytes_per_sm;    /* largest carveout */
    int64_t shared_bytes_per_block; /* without opt-in */
    int64_t shared_bytes_per_block_optin;
    int64_t reserved_shared_bytes_per_block; /* taken by the driver per block */
    int64_t shared_allocation_unit_bytes;
    int shared_carveout_count;
    int64_t shared_carveout_bytes[SIMT_MAX_CARVEOUTS]; /* ascending */
    int max_barriers_per_sm;                           /* named block barriers per SM; 0 = not a limit */

    /* --- AMD only (0 on NVIDIA) --- */
    int simds_per_cu;
    int max_waves_per_simd;
    int vgprs_per_simd_lane; /* VGPR file per lane of one SIMD */
    int vgpr_allocation_unit;
    int max_vgprs_per_wave;
    int sgprs_per_simd;
    int sgpr_allocation_unit;
    int max_sgprs_per_wave;
    int64_t lds_bytes_per_cu;
    int64_t lds_allocation_unit_bytes;
    int64_t max_lds_bytes_per_workgroup;

    /* --- the SM's make-up --- */
    int sub_partitions; /* warp schedulers per SM */
    int fp32_lanes_per_sm;
    int fp64_lanes_per_sm;
    int int32_lanes_per_sm;
    int sfu_lanes_per_sm;
    int load_store_units_per_sm;
    int tensor_cores_per_sm;
    int shared_banks;
    int shared_bank_bytes;

    /* --- thread-block clusters (compute capability 9.0 on): the layout the
     * runtime places clusters in, as measured on one card, all 0 where the
     * database lacks it (clusters then cannot be answered) --- */
    int gpc_sms[SIMT_MAX_GPCS];    /* SMs of each GPC as the runtime counts them; 0 after the last */
    int cluster_max_blocks_per_sm; /* blocks of clusters one SM takes at most */
    int cluster_max_portable_size; /* blocks a cluster may have without the non-portable attribute */
    int cluster_max_size; /* blocks a cluster may have with cudaFuncAttributeNonPortableClusterSizeAllowed */

    /* --- clocks --- */
    double base_clock_hz;
    double boost_clock_hz;
    double memory_clock_hz;

    /* --- memory --- */
    double dram_bytes;
    double dram_bandwidth_bytes_per_s;
    int dram_bus_width_bits;
    double l2_bytes;
    double l2_bandwidth_bytes_per_s; /* whole chip */
    double l1_bytes_per_sm;          /* combined L1/shared array */
    int sector_bytes;
    int cache_line_bytes;
    int dram_access_granularity_bytes;
    int constant_cache_bytes_per_sm;
    double l2_atomics_per_clock; /* chip, SM clocks: atomics to distinct addresses the L2 completes a clock;
                                    0 = unknown */
    double l2_same_address_atomics_per_clock; /* chip, SM clocks: atomics to ONE address the L2 completes a
                                                 clock (they serialize there); 0 = unknown */
    double
        l2_slice_atomic_lanes_per_clock; /* one L2 slice, SM clocks: lanes of one warp's atomic request to one
                                            line it completes a clock (distinct addresses); 0 = unknown */
    double
        l2_atomic_slice_bytes; /* contiguous bytes per L2 slice as atomics spread over slices; 0 = unknown */
    int l2_partitions; /* L2 partitions that each cache the lines their own SMs read: a line that every SM
                          reads is held once in each, so a table shared by the grid has l2_bytes / this */
    double l2_reuse_fraction;     /* of l2_bytes: the largest working set the next of back-to-back launches
                                     over it finds in L2 (0: not known, all of l2_bytes) */
    double repeat_whole_fraction; /* of a cache's room for a re-read (L1 beside shared memory, L2's reuse
                                     share): the largest set a repeated read finds whole, its hit share
                                     falling linearly to none at the room (0: not known, whole up to it) */
    int l2_effective_ways;        /* lines of a table read at random that one L2 set keeps: the table's
                                     lines fall on the sets at random (0: not known, an LRU edge) */
    double warp_lines_in_flight;  /* line requests one warp keeps in flight to L2 and DRAM at once; its
                                     loads past that wait for earlier ones to come back (0: not limited) */

    /* --- throughputs, per SM per clock unless the name says per_s --- */
    double fp32_flops_per_clock_per_sm; /* an FMA counts 2 */
    double fp64_flops_per_clock_per_sm;
    double fp16_flops_per_clock_per_sm;    /* non-tensor half2 */
    double int32_ops_per_clock_per_sm;     /* integer ALU: add, logic, shift, compare */
    double int32_mul_ops_per_clock_per_sm; /* integer multiply-add (IMAD) on the FMA pipe; 0 = unknown */
    double sfu_ops_per_clock_per_sm;
    double issue_slots_per_clock_per_sm; /* warp instructions per clock */
    double fp64_issue_hold_fraction;     /* of an FP64 warp instruction's time on its pipe, the share its
                                            scheduler issues nothing else (0: not known, the pipe overlaps
                                            issue as every pipe does) */
    double tensor_dense_flops_per_s[SIMT_DTYPE_COUNT]; /* 0 = no tensor path */
    double tensor_sparse_flops_per_s[SIMT_DTYPE_COUNT];

    /* --- latencies, cycles --- */
    double fma_latency_cycles;
    double shared_latency_cycles;
    double l1_latency_cycles;
    double l2_latency_cycles;
    double dram_latency_cycles;
    double launch_overhead_s;
    /* block barriers and warp shuffles (the whole-kernel model); 0 = unknown */
    double barrier_latency_cycles;   /* a __syncthreads once the block's warps are there, cycles */
    double barrier_cycles_per_warp;  /* the block's warps reach a barrier one after another: per warp */
    double barrier_data_path_cycles; /* cycles of the SM's L1/shared data path one block barrier takes */
    double block_launch_cycles;      /* SM cycles per block the SMs take new blocks at; 0: not priced */
    /* A tensor-core GEMM that, run back to back, holds the board at its
     * power limit runs faster as one call after the GPU idled: the clock
     * starts high and the limiter pulls it down only after a while. The
     * single call's rate over the sustained one, the kind of rate the
     * tensor figures are (0: no boost known), and how long the high rate lasts, in
     * seconds of a call's tensor work (0: no boost known). A sibling's
     * figures for a card not measured, measured_* for the measured card. */
    double tensor_single_call_ratio;
    double tensor_boost_window_s;
    double shuffle_latency_cycles; /* a dependent warp shuffle (shfl.sync), cycles */

    /* --- interconnect --- */
    int nvlink_generation; /* 0 = none */
    int nvlink_links;
    double nvlink_bandwidth_bytes_per_s; /* per direction, all links together */
    int nvswitch;                        /* 1 when the platform joins GPUs through NVSwitch */
    int pcie_generation;
    int pcie_lanes;
    double pcie_bandwidth_bytes_per_s; /* per direction */
    /* AMD Infinity Fabric (xGMI) between GPUs: a full mesh, one link to each peer */
    int xgmi_links;                    /* links to peer GPUs; 0 = none */
    double xgmi_bandwidth_bytes_per_s; /* per direction, all links together */

    /* --- measured on a real card (issue: calibration); 0 = not measured --- */
    double measured_dram_bandwidth_bytes_per_s;
    double measured_l2_bandwidth_bytes_per_s;
    double measured_dram_latency_cycles;
    double measured_l2_latency_cycles;
    double measured_l1_latency_cycles;
    double measured_shared_latency_cycles;
    double measured_fma_latency_cycles;
    double measured_fp32_flops_per_s;
    double measured_fp64_flops_per_s;
    double measured_sfu_ops_per_s;
    double measured_tensor_flops_per_s[SIMT_DTYPE_COUNT];
    double measured_tensor_single_call_ratio; /* see tensor_single_call_ratio */
    double measured_tensor_boost_window_s;    /* see tensor_boost_window_s */
    double measured_launch_overhead_s;
    double measured_clock_hz; /* SM clock the card ran at while measured */
    /* DRAM by direction: measured_dram_bandwidth_bytes_per_s is the best of
     * read, write and copy (in practice the read); these two give the rest */
    double measured_dram_write_bandwidth_bytes_per_s; /* stores only */
    double measured_dram_copy_bandwidth_bytes_per_s;  /* a copy, bytes read plus bytes written per second */
    double measured_dram_row_activations_per_s;       /* DRAM rows opened per second: reads that share no
                                                       * row with another (simt-calibrate: 8-byte reads
                                                       * 1 KiB apart), reads per second */
    double measured_l2_write_bandwidth_bytes_per_s;   /* stores that stay in L2 (simt-calibrate: a 16 MiB
                                                       * buffer written over and over) */
    double measured_l2_requests_per_s;                /* requests the L2 slices take a second: 4-byte
                                                       * reads at random from an L2-resident buffer */
    double measured_fp64_fma_latency_cycles;          /* a dependent FP64 FMA chain, cycles an instruction */
    double measured_dram_partial_stores_per_s;        /* DRAM read-modify-writes a second: 4-byte stores
                                                       * 1 KiB apart, each a sector on a row of its own */
    double measured_launch_interval_s;                /* per launch of empty kernels queued back to back */

    /* --- achievable: of a datasheet figure, the fraction real code reaches
     * (0..1, 0 when not given). Data, each with its source in the database:
     * measured on a card of the architecture, or published. A figure that
     * is not measured is the datasheet's times its fraction
     * (figures.h: source ACHIEVABLE). --- */
    double achievable_dram_bandwidth;       /* of dram_bandwidth_bytes_per_s, a streaming read */
    double achievable_dram_write_bandwidth; /* of dram_bandwidth_bytes_per_s, a kernel that only stores */
    double achievable_dram_copy_bandwidth;  /* of dram_bandwidth_bytes_per_s, a copy (bytes read + written) */
    double achievable_l2_bandwidth;         /* of l2_bandwidth_bytes_per_s */
    double achievable_fp32;                 /* of the FP32 rate at boost clock */
    double achievable_fp64;                 /* of the FP64 rate at boost clock */
    double achievable_tensor[SIMT_DTYPE_COUNT]; /* of tensor_dense_flops_per_s, a library GEMM */
};

#endif
