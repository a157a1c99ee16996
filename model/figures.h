/* figures.h - the effective figures every model computes with (clock,
 * bandwidths, latencies, peaks, launch overhead), chosen once from a struct
 * simt_gpu_spec so that all models prefer a measured figure to a datasheet
 * one in the same way and can say which they used. Each figure is a value
 * plus its source; a model reports the figures it read as a bit mask
 * (simt_figure_mask), and the API turns the mask into assumption strings
 * with simt_figure_describe.
 *
 * Rules, applied per figure:
 *   - policy PREFER_MEASURED and spec.measured_<x> > 0: that value, source
 *     MEASURED;
 *   - else the datasheet field times the record's achievable fraction
 *     (spec.achievable_<x>, 0..1) when the record gives one, source
 *     ACHIEVABLE; under policy DATASHEET too (it ignores measured figures,
 *     not fractions);
 *   - else the datasheet field, source DATASHEET;
 *   - per-clock datasheet rates (fp32_flops_per_clock_per_sm, shared banks,
 *     issue slots) are multiplied by the clock figure: boost_clock_hz, or
 *     measured_clock_hz when measured; in the latter case the source is
 *     DERIVED (a datasheet rate at a measured clock);
 *   - a figure neither measured nor in the datasheet is ABSENT with value 0;
 *     models refuse (SIMT_EUNSAT) rather than invent it;
 *   - the DRAM write and copy bandwidths: measured, else the datasheet DRAM
 *     bandwidth times their own achievable fraction; without either the
 *     DRAM bandwidth figure in use (measured read, or the datasheet's)
 *     stands in, source STAND_IN, and the describe line says so.
 * Pure: no allocation, no globals, no I/O. */
#ifndef SIMT_FIGURES_H
#define SIMT_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "simt_error.h"

enum simt_figure_policy {
    SIMT_POLICY_PREFER_MEASURED = 0, /* measured where the spec has it */
    SIMT_POLICY_DATASHEET = 1        /* ignore spec.measured_* entirely */
};

enum simt_figure_source {
    SIMT_FIGURE_ABSENT = 0,
    SIMT_FIGURE_DATASHEET,
    SIMT_FIGURE_MEASURED,
    SIMT_FIGURE_DERIVED,    /* a datasheet per-clock rate times a measured clock */
    SIMT_FIGURE_DOCUMENTED, /* a physical constant of the technology, the same for every GPU (see its id) */
    SIMT_FIGURE_STAND_IN,   /* not known for this GPU; another figure stands in (see its id) */
    SIMT_FIGURE_ACHIEVABLE, /* the datasheet figure times the record's achievable fraction (API: "derived") */
    SIMT_FIGURE_OVERRIDE,   /* a what-if's value: the measured field overridden, or a datasheet field
                             * overridden where neither a measured figure nor a fraction applies */
    SIMT_FIGURE_SCALED_MEASURED /* the measured figure moved in proportion to a what-if's override of
                                 * its datasheet counterpart (hwdb/whatif.h) */
};

/* One id per figure; the name (simt_figure_name) is the API's field name. */
enum simt_figure_id {
    SIMT_FIG_CLOCK = 0,            /* clock_hz: SM clock the rates are taken at */
    SIMT_FIG_DRAM_BANDWIDTH,       /* dram_bandwidth_bytes_per_s, chip */
    SIMT_FIG_L2_BANDWIDTH,         /* l2_bandwidth_bytes_per_s, chip */
    SIMT_FIG_SHARED_BANDWIDTH,     /* shared_bandwidth_bytes_per_s, chip: banks*bank_bytes*SMs*clock */
    SIMT_FIG_DRAM_LATENCY,         /* dram_latency_cycles */
    SIMT_FIG_L2_LATENCY,           /* l2_latency_cycles */
    SIMT_FIG_L1_LATENCY,           /* l1_latency_cycles */
    SIMT_FIG_SHARED_LATENCY,       /* shared_latency_cycles */
    SIMT_FIG_FMA_LATENCY,          /* fma_latency_cycles */
    SIMT_FIG_FP32,                 /* fp32_flops_per_s, chip, non-tensor */
    SIMT_FIG_FP64,                 /* fp64_flops_per_s, chip, non-tensor */
    SIMT_FIG_FP16,                 /* fp16_flops_per_s, chip, non-tensor (half2) */
    SIMT_FIG_SFU,                  /* sfu_ops_per_s, chip */
    SIMT_FIG_INT32,                /* int32_ops_per_s, chip */
    SIMT_FIG_ISSUE,                /* issue_warp_instructions_per_s, chip */
    SIMT_FIG_LAUNCH_OVERHEAD,      /* launch_overhead_s */
    SIMT_FIG_DRAM_ROW_CYCLE,       /* dram_row_cycle_s: DRAM tRC, the time a bank is busy with one
                                    * row activation; DOCUMENTED: 48 ns, within the 45-52 ns of JEDEC
                                    * speed bins from DDR3 (tRC 50-52.5 ns) to DDR5 and HBM */
    SIMT_FIG_CONSTANT_RATE,        /* constant_requests_per_s, chip: distinct constant-cache addresses
                                    * served per second; DOCUMENTED as 0.5 per clock per SM, measured
                                    * on an H200 (tests/gpu/micro/constant.cu: 2.09 cycles per warp
                                    * load per distinct address per SM) and taken for every NVIDIA GPU
                                    * until the database measures it per card */
    SIMT_FIG_DRAM_WRITE_BANDWIDTH, /* dram_write_bandwidth_bytes_per_s, chip, a kernel that only stores;
                                    * without a measured one the DRAM bandwidth figure stands in */
    SIMT_FIG_DRAM_COPY_BANDWIDTH,  /* dram_copy_bandwidth_bytes_per_s, chip, a copy: bytes read plus
                                    * written per second; without a measured one it stands in as read
                                    * and write combined with no bus-turnaround cost,
                                    * 2 / (1 / read + 1 / write) */
    SIMT_FIG_DRAM_ROW_ACTIVATIONS, /* dram_row_activations_per_s, chip: DRAM rows opened per second when no
                                    * two reads share a row; measured only (absent otherwise: the model
                                    * then does not limit activations and says so) */
    SIMT_FIG_DRAM_INTERLEAVE,      /* dram_interleave_bytes: contiguous bytes of the address space one
                                    * DRAM row holds before the address map moves to another channel;
                                    * DOCUMENTED: 256 B, NVIDIA's memory-partition width, and on an H200
                                    * reads 256 B apart already open a row each (see figures.c) */
    SIMT_FIG_NVLINK_BANDWIDTH,     /* nvlink_bandwidth_bytes_per_s, per GPU per direction, as NCCL moves it
                                    * (the link rate less the protocol's cost; see figures.c) */
    SIMT_FIG_PCIE_BANDWIDTH,       /* pcie_bandwidth_bytes_per_s, per GPU per direction, likewise */
    SIMT_FIG_XGMI_BANDWIDTH,       /* xgmi_bandwidth_bytes_per_s, all of a GPU's Infinity Fabric links
                                    * together per direction, as RCCL moves it (see figures.c) */
    SIMT_FIG_TENSOR_FIRST,         /* tensor_flops_per_s.<dtype>, dense, chip: */
    SIMT_FIG_TENSOR_LAST = SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_COUNT - 1, /* id = FIRST + dtype */
    SIMT_FIG_TENSOR_SPARSE_FIRST, /* tensor_sparse_flops_per_s.<dtype>, 2:4 sparse A, chip: the
                                   * datasheet's sparse rate times the dtype's achievable
                                   * fraction (no sparse GEMM measured); id = FIRST + dtype */
    SIMT_FIG_TENSOR_SPARSE_LAST = SIMT_FIG_TENSOR_SPARSE_FIRST + SIMT_DTYPE_COUNT - 1,
    SIMT_FIG_TENSOR_BOOST_WINDOW, /* tensor_boost_window_s: how long, in seconds of tensor work, a
                                   * call that starts after the GPU idled keeps its boosted rate before
                                   * the board's power limit pulls the clock down */
    SIMT_FIG_TENSOR_SINGLE_CALL,  /* tensor_single_call_ratio: that boosted rate over the sustained one
                                   * (the tensor figures'), for the kernels that reach the power limit */
    SIMT_FIG_L2_WRITE_BANDWIDTH,  /* l2_write_bandwidth_bytes_per_s, chip, stores that stay in L2;
                                   * without a measured one the L2 figure stands in */
    SIMT_FIG_L2_REQUESTS,         /* l2_requests_per_s, chip: requests the L2's slices take a second
                                   * (a tag lookup each, one line or one sector of it); measured only
                                   * (absent otherwise: the model then prices L2 hits by bytes alone
                                   * and says so) */
    SIMT_FIG_LAUNCH_INTERVAL,     /* launch_interval_s: the GPU's time per launch of kernels queued back
                                   * to back (the next one's launch overlaps the one before); without a
                                   * measured one launch_overhead_s stands in */
    SIMT_FIG_FP64_FMA_LATENCY,    /* fp64_fma_latency_cycles: a dependent FP64 FMA chain, cycles an
                                   * instruction; without a measured one fma_latency_cycles stands in */
    SIMT_FIG_DRAM_PARTIAL_STORES, /* dram_partial_stores_per_s: sectors the DRAM reads, merges and writes
                                   * back a second, each on a row of its own; without a measured one,
                                   * half the row activations (the read and the write-back each open
                                   * the row) stand in */
    SIMT_FIG_COUNT
};

/* A set of figure ids: bit (1 << id). */
typedef uint64_t simt_figure_mask;
#define SIMT_FIG_BIT(id) ((simt_figure_mask)1 << (unsigned)(id))

/* Which figures a what-if touched (hwdb/whatif.h fills it): `datasheet`,
 * figures whose datasheet field (or a field they are computed from: the
 * clock, the SM count) was overridden; `measured`, figures whose measured
 * field was overridden itself; `fraction`, figures whose achievable
 * fraction was. A figure in `datasheet` whose measured field is present was
 * moved in proportion by the what-if: source SCALED_MEASURED. */
struct simt_figure_overrides {
    simt_figure_mask datasheet;
    simt_figure_mask measured;
    simt_figure_mask fraction;
};

struct simt_figure_set {
    enum simt_figure_policy policy;
    struct simt_figure_overrides overrides;
    double value[SIMT_FIG_COUNT]; /* unit: the figure's name */
    enum simt_figure_source source[SIMT_FIG_COUNT];
    /* source ACHIEVABLE: the datasheet figure and the fraction it was
     * multiplied by (value = datasheet * fraction); 0 otherwise */
    double datasheet[SIMT_FIG_COUNT];
    double fraction[SIMT_FIG_COUNT];
};

/* Fills *out from gpu under policy. Never fails; absent figures are 0 with
 * source ABSENT. The rule, per figure (the API's "Figures: where every
 * number comes from"):
 *   1. a measured field the what-if overrode: source OVERRIDE (policy
 *      PREFER_MEASURED only; the datasheet policy ignores measured fields);
 *   2. policy PREFER_MEASURED and a measured figure: MEASURED, or
 *      SCALED_MEASURED when the what-if overrode its datasheet counterpart
 *      (the spec's measured field already moved in proportion);
 *   3. the datasheet figure (overridden or not) times its achievable
 *      fraction: ACHIEVABLE (API "derived", datasheet = the override);
 *   4. the datasheet figure alone: OVERRIDE when overridden, else DATASHEET
 *      (DERIVED for a per-clock rate at a measured clock).
 * overrides may be NULL (no what-if). */
void simt_figure_set_init_overridden(const struct simt_gpu_spec *gpu, enum simt_figure_policy policy,
                                     const struct simt_figure_overrides *overrides,
                                     struct simt_figure_set *out);
/* The same with no what-if. */
void simt_figure_set_init(const struct simt_gpu_spec *gpu, enum simt_figure_policy policy,
                          struct simt_figure_set *out);

/* The API's source name of a figure, one of "override", "measured",
 * "scaled_measured", "datasheet", "derived": DERIVED and ACHIEVABLE are
 * "derived", a DOCUMENTED constant "datasheet" (a documented figure of the
 * technology), and a STAND_IN the source of the figure standing in. NULL for
 * an ABSENT figure or an id out of range. */
const char *simt_figure_api_source(const struct simt_figure_set *set, enum simt_figure_id id);
/* Where a fraction that is not the GPU record's came from (a documented
 * protocol fraction of the interconnect figures), else NULL: the API then
 * names the record's sources.achievable. */
const char *simt_figure_fraction_source(const struct simt_figure_set *set, enum simt_figure_id id);

/* The value of one figure (0 when absent or id out of range). */
double simt_figure_get(const struct simt_figure_set *set, enum simt_figure_id id);

/* Returns SIMT_OK when the figure is present (value > 0); otherwise
 * SIMT_EUNSAT with diag->field set to the database field a user would add
 * ("l2_bandwidth_bytes_per_s") and a message naming the figure. diag may be
 * NULL. */
int simt_figure_require(const struct simt_figure_set *set, enum simt_figure_id id,
                        struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Static strings: "dram_bandwidth_bytes_per_s", "tensor_flops_per_s.bf16";
 * NULL for an id out of range. */
const char *simt_figure_name(enum simt_figure_id id);
/* "measured", "datasheet", "derived" (DERIVED and ACHIEVABLE), "documented",
 * "stand-in", "absent". */
const char *simt_figure_source_name(enum simt_figure_source source);

/* Writes one assumption line for a used figure into buf, e.g.
 * "dram_bandwidth_bytes_per_s = 4.02e+12 (measured)" or
 * "fp32_flops_per_s = 6.69e+13 (datasheet rate at boost clock 1.98e+09 Hz)".
 * Always NUL-terminates (truncating); returns the snprintf length, or -1 for
 * an id out of range. */
int simt_figure_describe(const struct simt_figure_set *set, enum simt_figure_id id, char *buf, size_t size);

#endif
