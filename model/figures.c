/* figures.c - picks each effective figure (measured over datasheet, per-clock
 * rates times the clock in use) and names it for the assumptions. Pure. */
#include "figures.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* DRAM row cycle time tRC (ACT to ACT in one bank). JEDEC speed bins put it
 * at 45 to 52.5 ns from DDR3 (e.g. DDR3-800: 50-52.5 ns) through DDR4, DDR5,
 * GDDR and HBM: it is set by the cells' sense and restore time, which has
 * barely moved in twenty years. */
#define SIMT_DRAM_ROW_CYCLE_S 48e-9

/* Distinct constant-cache addresses served per clock per SM. NVIDIA
 * documents that a warp's constant read is split into one request per
 * distinct address but not the request rate; an H200 serves one every 2.09
 * cycles per SM (tests/gpu/micro/constant.cu, 1 to 32 distinct addresses,
 * exactly linear), taken as one every 2 cycles. */
#define SIMT_CONSTANT_REQUESTS_PER_CLOCK_PER_SM 0.5

/* Contiguous bytes of the address space one DRAM row holds before the
 * address map moves on to another channel. NVIDIA documents global memory
 * as divided into partitions 256 bytes wide (G. Ruetsch, P. Micikevicius,
 * "Optimizing Matrix Transpose in CUDA", NVIDIA, 2009, on partition
 * camping); later GPUs hash which partition a 256-byte piece goes to, not
 * its width. Measured on an H200 (simt-calibrate run 3,
 * tests/gpu/results/h200/calibrate-run3.yaml): 8-byte reads 128 B apart run
 * at 5.99e10/s (two per 256 B: the L2's line rate binds), 256 B apart at
 * 4.65e10, 512 B at 4.42e10, 1 KiB at 4.26e10, 2 KiB at 4.12e10: from 256 B
 * on, every read opens a row of its own. */
#define SIMT_DRAM_INTERLEAVE_BYTES 256.0

/* The fraction of an NVLink's per-direction line rate that NCCL moves, its
 * protocols' cost taken out: NCCL broadcasts of 1, 2 and 4 GiB between two
 * H200s joined by NV18 (one direction, no reduction: the purest measure of
 * the link; NCCL 2.28.9, CUDA-graph timed) move 364-369 of the 450 GB/s
 * sold (tests/gpu/results/h200x2/collectives.json): 0.82. (The NCCL
 * maintainers quote the same ~20% protocol cost; the published table's
 * ring row, tests/published, judges this fraction and is not its source.) */
#define SIMT_NVLINK_NCCL_FRACTION 0.82
#define SIMT_NVLINK_NCCL_SOURCE                                                                              \
    "NCCL broadcasts of 1-4 GiB between two H200s joined by NV18 move 364-369 of 450 GB/s per direction "    \
    "(tests/gpu/results/h200x2/collectives.json, NCCL 2.28.9): NCCL's protocols cost 18%"
/* PCIe: the same NCCL protocol fraction times the share of a PCIe link that
 * carries payload: a 256-byte TLP payload travels with a 16-byte 4-DW
 * header, 2 bytes of sequence number, 4 of LCRC and 2 of framing (PCI
 * Express Base Specification 5.0, section 2 and 4.2.3), 256 / 280 = 0.914
 * (the 128b/130b encoding is already out of the record's figure): 0.82 x
 * 0.914 = 0.75. */
#define SIMT_PCIE_NCCL_FRACTION 0.75
#define SIMT_PCIE_NCCL_SOURCE                                                                                \
    "NCCL's protocol share on NVLink (0.82: broadcasts between two H200s, "                                  \
    "tests/gpu/results/h200x2/collectives.json) times PCIe's payload share, 256 of 280 bytes a TLP (PCI "    \
    "Express Base Specification 5.0: 4-DW header, sequence number, LCRC, framing)"
/* AMD Infinity Fabric (xGMI): RCCL's share of a link's line rate. RCCL's
 * topology puts a gfx94x (MI300) xGMI link at 48 GB/s per direction,
 * "after protocol and error correction overheads", against the link's 64
 * (github.com/ROCm/rccl/issues/1210, an RCCL maintainer; rccl
 * src/graph/topo.h ncclTopoXGMISpeed): 0.75. Checked against 8 MI300X in
 * one node, ROCm 6.4.1: all-reduce busbw 315.5 GB/s at 256 MiB and 322.4
 * GB/s at 1 GiB (github.com/ROCm/rocm-systems/pull/5297). */
#define SIMT_XGMI_RCCL_FRACTION 0.75
#define SIMT_XGMI_RCCL_SOURCE                                                                                \
    "RCCL's topology: a gfx94x xGMI link moves 48 of its 64 GB/s per direction after protocol and error "    \
    "correction overheads (github.com/ROCm/rccl/issues/1210, an RCCL maintainer)"

_Static_assert(SIMT_FIG_COUNT <= 64, "simt_figure_mask holds one bit per figure");

/* per-dtype entries of the tables below, from the one list of dtypes */
#define TENSOR_NAME(suffix, name) [SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_##suffix] = "tensor_flops_per_s." name,
#define SPARSE_NAME(suffix, name)                                                                            \
    [SIMT_FIG_TENSOR_SPARSE_FIRST + SIMT_DTYPE_##suffix] = "tensor_sparse_flops_per_s." name,
#define DENSE_FIELD(suffix, name)                                                                            \
    [SIMT_FIG_TENSOR_FIRST + SIMT_DTYPE_##suffix] = "tensor_dense_flops_per_s." name,

static const char *const figure_names[SIMT_FIG_COUNT] = {
    [SIMT_FIG_CLOCK] = "clock_hz",
    [SIMT_FIG_DRAM_BANDWIDTH] = "dram_bandwidth_bytes_per_s",
    [SIMT_FIG_L2_BANDWIDTH] = "l2_bandwidth_bytes_per_s",
    [SIMT_FIG_SHARED_BANDWIDTH] = "shared_bandwidth_bytes_per_s",
    [SIMT_FIG_DRAM_LATENCY] = "dram_latency_cycles",
    [SIMT_FIG_L2_LATENCY] = "l2_latency_cycles",
    [SIMT_FIG_L1_LATENCY] = "l1_latency_cycles",
    [SIMT_FIG_SHARED_LATENCY] = "shared_latency_cycles",
    [SIMT_FIG_FMA_LATENCY] = "fma_latency_cycles",
    [SIMT_FIG_FP32] = "fp32_flops_per_s",
    [SIMT_FIG_FP64] = "fp64_flops_per_s",
    [SIMT_FIG_FP16] = "fp16_flops_per_s",
    [SIMT_FIG_SFU] = "sfu_ops_per_s",
    [SIMT_FIG_INT32] = "int32_ops_per_s",
    [SIMT_FIG_ISSUE] = "issue_warp_instructions_per_s",
    [SIMT_FIG_LAUNCH_OVERHEAD] = "launch_overhead_s",
    [SIMT_FIG_DRAM_ROW_CYCLE] = "dram_row_cycle_s",
    [SIMT_FIG_CONSTANT_RATE] = "constant_requests_per_s",
    [SIMT_FIG_DRAM_WRITE_BANDWIDTH] = "dram_write_bandwidth_bytes_per_s",
    [SIMT_FIG_DRAM_COPY_BANDWIDTH] = "dram_copy_bandwidth_bytes_per_s",
    [SIMT_FIG_DRAM_ROW_ACTIVATIONS] = "dram_row_activations_per_s",
    [SIMT_FIG_DRAM_INTERLEAVE] = "dram_interleave_bytes",
    [SIMT_FIG_NVLINK_BANDWIDTH] = "nvlink_bandwidth_bytes_per_s",
    [SIMT_FIG_PCIE_BANDWIDTH] = "pcie_bandwidth_bytes_per_s",
    [SIMT_FIG_XGMI_BANDWIDTH] = "xgmi_bandwidth_bytes_per_s",
    [SIMT_FIG_TENSOR_BOOST_WINDOW] = "tensor_boost_window_s",
    [SIMT_FIG_TENSOR_SINGLE_CALL] = "tensor_single_call_ratio",
    [SIMT_FIG_L2_WRITE_BANDWIDTH] = "l2_write_bandwidth_bytes_per_s",
    [SIMT_FIG_L2_REQUESTS] = "l2_requests_per_s",
    [SIMT_FIG_LAUNCH_INTERVAL] = "launch_interval_s",
    [SIMT_FIG_FP64_FMA_LATENCY] = "fp64_fma_latency_cycles",
    [SIMT_FIG_DRAM_PARTIAL_STORES] = "dram_partial_stores_per_s",
    SIMT_DTYPE_LIST(TENSOR_NAME) SIMT_DTYPE_LIST(SPARSE_NAME)};

/* The database field a user would fill in to supply a missing figure. */
static const char *const figure_fields[SIMT_FIG_COUNT] = {
    [SIMT_FIG_CLOCK] = "boost_clock_hz",
    [SIMT_FIG_DRAM_BANDWIDTH] = "dram_bandwidth_bytes_per_s",
    [SIMT_FIG_L2_BANDWIDTH] = "l2_bandwidth_bytes_per_s",
    [SIMT_FIG_SHARED_BANDWIDTH] = "shared_banks",
    [SIMT_FIG_DRAM_LATENCY] = "dram_latency_cycles",
    [SIMT_FIG_L2_LATENCY] = "l2_latency_cycles",
    [SIMT_FIG_L1_LATENCY] = "l1_latency_cycles",
    [SIMT_FIG_SHARED_LATENCY] = "shared_latency_cycles",
    [SIMT_FIG_FMA_LATENCY] = "fma_latency_cycles",
    [SIMT_FIG_FP32] = "fp32_flops_per_clock_per_sm",
    [SIMT_FIG_FP64] = "fp64_flops_per_clock_per_sm",
    [SIMT_FIG_FP16] = "fp16_flops_per_clock_per_sm",
    [SIMT_FIG_SFU] = "sfu_ops_per_clock_per_sm",
    [SIMT_FIG_INT32] = "int32_ops_per_clock_per_sm",
    [SIMT_FIG_ISSUE] = "issue_slots_per_clock_per_sm",
    [SIMT_FIG_LAUNCH_OVERHEAD] = "launch_overhead_s",
    [SIMT_FIG_DRAM_ROW_CYCLE] = "dram_row_cycle_s",
    [SIMT_FIG_CONSTANT_RATE] = "constant_requests_per_s",
    [SIMT_FIG_DRAM_WRITE_BANDWIDTH] = "measured_dram_write_bandwidth_bytes_per_s",
    [SIMT_FIG_DRAM_COPY_BANDWIDTH] = "measured_dram_copy_bandwidth_bytes_per_s",
    [SIMT_FIG_DRAM_ROW_ACTIVATIONS] = "measured_dram_row_activations_per_s",
    [SIMT_FIG_DRAM_INTERLEAVE] = "dram_interleave_bytes",
    [SIMT_FIG_NVLINK_BANDWIDTH] = "nvlink_bandwidth_bytes_per_s",
    [SIMT_FIG_PCIE_BANDWIDTH] = "pcie_bandwidth_bytes_per_s",
    [SIMT_FIG_XGMI_BANDWIDTH] = "xgmi_bandwidth_bytes_per_s",
    [SIMT_FIG_TENSOR_BOOST_WINDOW] = "tensor_boost_window_s",
    [SIMT_FIG_TENSOR_SINGLE_CALL] = "tensor_single_call_ratio",
    [SIMT_FIG_L2_WRITE_BANDWIDTH] = "measured_l2_write_bandwidth_bytes_per_s",
    [SIMT_FIG_L2_REQUESTS] = "measured_l2_requests_per_s",
    [SIMT_FIG_LAUNCH_INTERVAL] = "measured_launch_interval_s",
    [SIMT_FIG_FP64_FMA_LATENCY] = "measured_fp64_fma_latency_cycles",
    [SIMT_FIG_DRAM_PARTIAL_STORES] = "measured_dram_partial_stores_per_s",
    SIMT_DTYPE_LIST(DENSE_FIELD) SIMT_DTYPE_LIST(SPARSE_NAME)};

static int valid_id(enum simt_figure_id id)
{
    return (int)id >= 0 && id < SIMT_FIG_COUNT;
}

/* The rule of simt_figure_set_init_overridden for one figure. */
static void pick_achievable(struct simt_figure_set *set, enum simt_figure_id id, double measured,
                            double datasheet, double fraction)
{
    simt_figure_mask bit = SIMT_FIG_BIT(id);
    int measured_overridden = (set->overrides.measured & bit) != 0;
    int datasheet_overridden = (set->overrides.datasheet & bit) != 0;
    set->datasheet[id] = 0.0;
    set->fraction[id] = 0.0;
    if (set->policy == SIMT_POLICY_PREFER_MEASURED && measured > 0.0) {
        set->value[id] = measured;
        set->source[id] = measured_overridden    ? SIMT_FIGURE_OVERRIDE
                          : datasheet_overridden ? SIMT_FIGURE_SCALED_MEASURED
                                                 : SIMT_FIGURE_MEASURED;
    } else if (datasheet > 0.0 && fraction > 0.0 && fraction <= 1.0) {
        set->value[id] = datasheet * fraction;
        set->source[id] = SIMT_FIGURE_ACHIEVABLE;
        set->datasheet[id] = datasheet;
        set->fraction[id] = fraction;
    } else if (datasheet > 0.0) {
        set->value[id] = datasheet;
        set->source[id] = datasheet_overridden ? SIMT_FIGURE_OVERRIDE : SIMT_FIGURE_DATASHEET;
    } else {
        set->value[id] = 0.0;
        set->source[id] = SIMT_FIGURE_ABSENT;
    }
}

static void pick(struct simt_figure_set *set, enum simt_figure_id id, double measured, double datasheet)
{
    pick_achievable(set, id, measured, datasheet, 0.0);
}

/* A chip-wide rate from a per-SM per-clock datasheet rate, at the clock in
 * use, times its achievable fraction when the record has one. */
static void per_clock(struct simt_figure_set *set, enum simt_figure_id id, double measured,
                      double per_clock_per_sm, int sm_count, double fraction)
{
    double clock = set->value[SIMT_FIG_CLOCK];
    double rate = per_clock_per_sm * (double)sm_count * clock;
    pick_achievable(set, id, measured, rate, fraction);
    if (set->source[id] == SIMT_FIGURE_DATASHEET &&
        (set->source[SIMT_FIG_CLOCK] == SIMT_FIGURE_MEASURED ||
         set->source[SIMT_FIG_CLOCK] == SIMT_FIGURE_SCALED_MEASURED))
        set->source[id] = SIMT_FIGURE_DERIVED;
}

/* A figure the card lacks takes `value` (a related figure in use), marked
 * a stand-in; a figure it has, or a value of 0, is left as it is. */
static void stand_in(struct simt_figure_set *set, enum simt_figure_id id, double value)
{
    if (set->source[id] != SIMT_FIGURE_ABSENT || !(value > 0.0))
        return;
    set->value[id] = value;
    set->source[id] = SIMT_FIGURE_STAND_IN;
}

void simt_figure_set_init(const struct simt_gpu_spec *gpu, enum simt_figure_policy policy,
                          struct simt_figure_set *out)
{
    simt_figure_set_init_overridden(gpu, policy, NULL, out);
}

/* The interconnect figures: the record's per-direction link rate times the
 * documented fraction NCCL moves of it. */
static void interconnect(const struct simt_gpu_spec *gpu, struct simt_figure_set *out)
{
    pick_achievable(out, SIMT_FIG_NVLINK_BANDWIDTH, 0.0,
                    gpu->nvlink_generation > 0 ? gpu->nvlink_bandwidth_bytes_per_s : 0.0,
                    SIMT_NVLINK_NCCL_FRACTION);
    pick_achievable(out, SIMT_FIG_PCIE_BANDWIDTH, 0.0, gpu->pcie_bandwidth_bytes_per_s,
                    SIMT_PCIE_NCCL_FRACTION);
    pick_achievable(out, SIMT_FIG_XGMI_BANDWIDTH, 0.0,
                    gpu->xgmi_links > 0 ? gpu->xgmi_bandwidth_bytes_per_s : 0.0, SIMT_XGMI_RCCL_FRACTION);
}

void simt_figure_set_init_overridden(const struct simt_gpu_spec *gpu, enum simt_figure_policy policy,
                                     const struct simt_figure_overrides *overrides,
                                     struct simt_figure_set *out)
{
    memset(out, 0, sizeof *out);
    out->policy = policy;
    if (overrides != NULL)
        out->overrides = *overrides;
    pick(out, SIMT_FIG_CLOCK, gpu->measured_clock_hz, gpu->boost_clock_hz);
    pick_achievable(out, SIMT_FIG_DRAM_BANDWIDTH, gpu->measured_dram_bandwidth_bytes_per_s,
                    gpu->dram_bandwidth_bytes_per_s, gpu->achievable_dram_bandwidth);
    pick_achievable(out, SIMT_FIG_L2_BANDWIDTH, gpu->measured_l2_bandwidth_bytes_per_s,
                    gpu->l2_bandwidth_bytes_per_s, gpu->achievable_l2_bandwidth);
    per_clock(out, SIMT_FIG_SHARED_BANDWIDTH, 0.0, (double)gpu->shared_banks * (double)gpu->shared_bank_bytes,
              gpu->sm_count, 0.0);
    pick(out, SIMT_FIG_DRAM_LATENCY, gpu->measured_dram_latency_cycles, gpu->dram_latency_cycles);
    pick(out, SIMT_FIG_L2_LATENCY, gpu->measured_l2_latency_cycles, gpu->l2_latency_cycles);
    pick(out, SIMT_FIG_L1_LATENCY, gpu->measured_l1_latency_cycles, gpu->l1_latency_cycles);
    pick(out, SIMT_FIG_SHARED_LATENCY, gpu->measured_shared_latency_cycles, gpu->shared_latency_cycles);
    pick(out, SIMT_FIG_FMA_LATENCY, gpu->measured_fma_latency_cycles, gpu->fma_latency_cycles);
    per_clock(out, SIMT_FIG_FP32, gpu->measured_fp32_flops_per_s, gpu->fp32_flops_per_clock_per_sm,
              gpu->sm_count, gpu->achievable_fp32);
    per_clock(out, SIMT_FIG_FP64, gpu->measured_fp64_flops_per_s, gpu->fp64_flops_per_clock_per_sm,
              gpu->sm_count, gpu->achievable_fp64);
    per_clock(out, SIMT_FIG_FP16, 0.0, gpu->fp16_flops_per_clock_per_sm, gpu->sm_count, 0.0);
    per_clock(out, SIMT_FIG_SFU, gpu->measured_sfu_ops_per_s, gpu->sfu_ops_per_clock_per_sm, gpu->sm_count,
              0.0);
    per_clock(out, SIMT_FIG_INT32, 0.0, gpu->int32_ops_per_clock_per_sm, gpu->sm_count, 0.0);
    per_clock(out, SIMT_FIG_ISSUE, 0.0, gpu->issue_slots_per_clock_per_sm, gpu->sm_count, 0.0);
    pick(out, SIMT_FIG_LAUNCH_OVERHEAD, gpu->measured_launch_overhead_s, gpu->launch_overhead_s);
    out->value[SIMT_FIG_DRAM_ROW_CYCLE] = SIMT_DRAM_ROW_CYCLE_S;
    out->source[SIMT_FIG_DRAM_ROW_CYCLE] = SIMT_FIGURE_DOCUMENTED;
    out->value[SIMT_FIG_CONSTANT_RATE] =
        SIMT_CONSTANT_REQUESTS_PER_CLOCK_PER_SM * (double)gpu->sm_count * out->value[SIMT_FIG_CLOCK];
    out->source[SIMT_FIG_CONSTANT_RATE] =
        out->value[SIMT_FIG_CONSTANT_RATE] > 0.0 ? SIMT_FIGURE_DOCUMENTED : SIMT_FIGURE_ABSENT;
    /* DRAM by direction. Datasheets quote one DRAM figure; a measured card
     * gives write and copy beside the read. Without them the DRAM figure in
     * use stands in for writes, and a copy costs the read and the write with
     * no bus turnaround. */
    double read = out->value[SIMT_FIG_DRAM_BANDWIDTH];
    pick_achievable(out, SIMT_FIG_DRAM_WRITE_BANDWIDTH, gpu->measured_dram_write_bandwidth_bytes_per_s,
                    gpu->achievable_dram_write_bandwidth > 0.0 ? gpu->dram_bandwidth_bytes_per_s : 0.0,
                    gpu->achievable_dram_write_bandwidth);
    stand_in(out, SIMT_FIG_DRAM_WRITE_BANDWIDTH, read);
    double write = out->value[SIMT_FIG_DRAM_WRITE_BANDWIDTH];
    pick_achievable(out, SIMT_FIG_DRAM_COPY_BANDWIDTH, gpu->measured_dram_copy_bandwidth_bytes_per_s,
                    gpu->achievable_dram_copy_bandwidth > 0.0 ? gpu->dram_bandwidth_bytes_per_s : 0.0,
                    gpu->achievable_dram_copy_bandwidth);
    if (out->source[SIMT_FIG_DRAM_COPY_BANDWIDTH] == SIMT_FIGURE_ABSENT && read > 0.0 && write > 0.0) {
        out->value[SIMT_FIG_DRAM_COPY_BANDWIDTH] = 2.0 / (1.0 / read + 1.0 / write);
        out->source[SIMT_FIG_DRAM_COPY_BANDWIDTH] = SIMT_FIGURE_STAND_IN;
    }
    pick(out, SIMT_FIG_DRAM_ROW_ACTIVATIONS, gpu->measured_dram_row_activations_per_s, 0.0);
    /* L2 by direction and by request: measured only. Stores the L2 keeps
     * move at the write figure, the read figure standing in where the card
     * has none; the request rate, where absent, is not limited. */
    pick(out, SIMT_FIG_L2_WRITE_BANDWIDTH, gpu->measured_l2_write_bandwidth_bytes_per_s, 0.0);
    stand_in(out, SIMT_FIG_L2_WRITE_BANDWIDTH, out->value[SIMT_FIG_L2_BANDWIDTH]);
    pick(out, SIMT_FIG_L2_REQUESTS, gpu->measured_l2_requests_per_s, 0.0);
    /* back-to-back launches: measured only; the single launch stands in */
    pick(out, SIMT_FIG_LAUNCH_INTERVAL, gpu->measured_launch_interval_s, 0.0);
    stand_in(out, SIMT_FIG_LAUNCH_INTERVAL, out->value[SIMT_FIG_LAUNCH_OVERHEAD]);
    /* the FP64 FMA's dependent latency: measured only; the FP32 one stands in */
    pick(out, SIMT_FIG_FP64_FMA_LATENCY, gpu->measured_fp64_fma_latency_cycles, 0.0);
    stand_in(out, SIMT_FIG_FP64_FMA_LATENCY, out->value[SIMT_FIG_FMA_LATENCY]);
    /* read-modify-writes of sectors on rows of their own: measured only;
     * half the row activations stand in (the read and the write-back open
     * the row apart), none where the card has no row figure */
    pick(out, SIMT_FIG_DRAM_PARTIAL_STORES, gpu->measured_dram_partial_stores_per_s, 0.0);
    stand_in(out, SIMT_FIG_DRAM_PARTIAL_STORES, 0.5 * out->value[SIMT_FIG_DRAM_ROW_ACTIVATIONS]);
    out->value[SIMT_FIG_DRAM_INTERLEAVE] = SIMT_DRAM_INTERLEAVE_BYTES;
    out->source[SIMT_FIG_DRAM_INTERLEAVE] = SIMT_FIGURE_DOCUMENTED;
    interconnect(gpu, out);

    /* Datasheet tensor rates are quoted at the boost clock; at a measured
     * clock they scale with it (the units are clocked). */
    double clock_ratio = 1.0;
    int clocked = 0;
    if ((out->source[SIMT_FIG_CLOCK] == SIMT_FIGURE_MEASURED ||
         out->source[SIMT_FIG_CLOCK] == SIMT_FIGURE_SCALED_MEASURED) &&
        gpu->boost_clock_hz > 0.0) {
        clock_ratio = out->value[SIMT_FIG_CLOCK] / gpu->boost_clock_hz;
        clocked = 1;
    }
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        enum simt_figure_id id = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + d);
        pick_achievable(out, id, gpu->measured_tensor_flops_per_s[d],
                        gpu->tensor_dense_flops_per_s[d] * clock_ratio, gpu->achievable_tensor[d]);
        if (out->source[id] == SIMT_FIGURE_DATASHEET && clocked)
            out->source[id] = SIMT_FIGURE_DERIVED;
        /* 2:4 sparse: no card measures it; the datasheet's sparse rate
         * times the fraction a library GEMM reaches of the dense one */
        enum simt_figure_id sparse = (enum simt_figure_id)(SIMT_FIG_TENSOR_SPARSE_FIRST + d);
        pick_achievable(out, sparse, 0.0, gpu->tensor_sparse_flops_per_s[d] * clock_ratio,
                        gpu->achievable_tensor[d]);
        if (out->source[sparse] == SIMT_FIGURE_DATASHEET && clocked)
            out->source[sparse] = SIMT_FIGURE_DERIVED;
    }
    /* a single call's boost before the power limit: measured, or a sibling
     * card's figure in the record's throughput group */
    pick(out, SIMT_FIG_TENSOR_SINGLE_CALL, gpu->measured_tensor_single_call_ratio,
         gpu->tensor_single_call_ratio);
    pick(out, SIMT_FIG_TENSOR_BOOST_WINDOW, gpu->measured_tensor_boost_window_s, gpu->tensor_boost_window_s);
#ifndef NDEBUG
    for (int id = 0; id < SIMT_FIG_COUNT; id++) {
        assert(out->value[id] >= 0.0 && !isinf(out->value[id]));
        assert(out->fraction[id] >= 0.0 && out->fraction[id] <= 1.0);
        assert((out->value[id] > 0.0) == (out->source[id] != SIMT_FIGURE_ABSENT));
    }
#endif
}

double simt_figure_get(const struct simt_figure_set *set, enum simt_figure_id id)
{
    if (!valid_id(id))
        return 0.0;
    return set->value[id];
}

int simt_figure_require(const struct simt_figure_set *set, enum simt_figure_id id, struct simt_diag *diag)
{
    if (valid_id(id) && set->value[id] > 0.0)
        return SIMT_OK;
    if (diag != NULL) {
        const char *field = valid_id(id) ? figure_fields[id] : "";
        snprintf(diag->field, sizeof diag->field, "%s", field);
        snprintf(diag->message, sizeof diag->message,
                 "this GPU has no %s (database field %s); the model needs it",
                 valid_id(id) ? figure_names[id] : "such figure", field);
    }
    return SIMT_EUNSAT;
}

const char *simt_figure_name(enum simt_figure_id id)
{
    return valid_id(id) ? figure_names[id] : NULL;
}

const char *simt_figure_source_name(enum simt_figure_source source)
{
    switch (source) {
    case SIMT_FIGURE_DATASHEET:
        return "datasheet";
    case SIMT_FIGURE_MEASURED:
        return "measured";
    case SIMT_FIGURE_DERIVED:
    case SIMT_FIGURE_ACHIEVABLE:
        return "derived";
    case SIMT_FIGURE_DOCUMENTED:
        return "documented";
    case SIMT_FIGURE_STAND_IN:
        return "stand-in";
    case SIMT_FIGURE_OVERRIDE:
        return "override";
    case SIMT_FIGURE_SCALED_MEASURED:
        return "scaled_measured";
    case SIMT_FIGURE_ABSENT:
        break;
    }
    return "absent";
}

const char *simt_figure_api_source(const struct simt_figure_set *set, enum simt_figure_id id)
{
    if (!valid_id(id))
        return NULL;
    switch (set->source[id]) {
    case SIMT_FIGURE_DATASHEET:
    case SIMT_FIGURE_DOCUMENTED:
        return "datasheet";
    case SIMT_FIGURE_MEASURED:
        return "measured";
    case SIMT_FIGURE_DERIVED:
    case SIMT_FIGURE_ACHIEVABLE:
        return "derived";
    case SIMT_FIGURE_OVERRIDE:
        return "override";
    case SIMT_FIGURE_SCALED_MEASURED:
        return "scaled_measured";
    case SIMT_FIGURE_STAND_IN:
        /* the source of the figure that stands in: the read figure's for
         * the writes (the copy: read and write, whose own source is the
         * read's when it stands in too), the single launch's for the
         * interval, the FP32 FMA's for the FP64 FMA */
        if (id == SIMT_FIG_L2_WRITE_BANDWIDTH)
            return simt_figure_api_source(set, SIMT_FIG_L2_BANDWIDTH);
        if (id == SIMT_FIG_LAUNCH_INTERVAL)
            return simt_figure_api_source(set, SIMT_FIG_LAUNCH_OVERHEAD);
        if (id == SIMT_FIG_FP64_FMA_LATENCY)
            return simt_figure_api_source(set, SIMT_FIG_FMA_LATENCY);
        if (id == SIMT_FIG_DRAM_PARTIAL_STORES)
            return simt_figure_api_source(set, SIMT_FIG_DRAM_ROW_ACTIVATIONS);
        return simt_figure_api_source(set, id == SIMT_FIG_DRAM_COPY_BANDWIDTH &&
                                                   set->source[SIMT_FIG_DRAM_WRITE_BANDWIDTH] !=
                                                       SIMT_FIGURE_STAND_IN
                                               ? SIMT_FIG_DRAM_WRITE_BANDWIDTH
                                               : SIMT_FIG_DRAM_BANDWIDTH);
    case SIMT_FIGURE_ABSENT:
        break;
    }
    return NULL;
}

const char *simt_figure_fraction_source(const struct simt_figure_set *set, enum simt_figure_id id)
{
    if (!valid_id(id) || set->source[id] != SIMT_FIGURE_ACHIEVABLE)
        return NULL;
    if (id == SIMT_FIG_NVLINK_BANDWIDTH)
        return SIMT_NVLINK_NCCL_SOURCE;
    if (id == SIMT_FIG_PCIE_BANDWIDTH)
        return SIMT_PCIE_NCCL_SOURCE;
    if (id == SIMT_FIG_XGMI_BANDWIDTH)
        return SIMT_XGMI_RCCL_SOURCE;
    return NULL;
}

int simt_figure_describe(const struct simt_figure_set *set, enum simt_figure_id id, char *buf, size_t size)
{
    if (!valid_id(id)) {
        if (size > 0)
            buf[0] = '\0';
        return -1;
    }
    const char *how;
    switch (set->source[id]) {
    case SIMT_FIGURE_MEASURED:
        how = "measured on a real card";
        break;
    case SIMT_FIGURE_DERIVED:
        how = "datasheet per-clock rate at the measured clock";
        break;
    case SIMT_FIGURE_DOCUMENTED:
        how =
            id == SIMT_FIG_CONSTANT_RATE
                ? "0.5 addresses per clock per SM, as measured on an H200; no database figure yet"
            : id == SIMT_FIG_DRAM_INTERLEAVE
                ? "documented: NVIDIA's 256-byte memory partitions; reads this far apart each open a DRAM row"
                : "documented constant of the technology: JEDEC DRAM row cycle";
        break;
    case SIMT_FIGURE_STAND_IN:
        how = id == SIMT_FIG_DRAM_COPY_BANDWIDTH
                  ? "no measured copy figure: read and write combined with no bus-turnaround cost"
              : id == SIMT_FIG_L2_WRITE_BANDWIDTH
                  ? "no measured L2 write figure: the L2 bandwidth figure stands in"
              : id == SIMT_FIG_LAUNCH_INTERVAL
                  ? "no measured back-to-back interval: the single launch's overhead stands in"
                  : "no measured write figure: the DRAM bandwidth figure stands in";
        break;
    case SIMT_FIGURE_ACHIEVABLE:
        return snprintf(
            buf, size, "%s = %.4g (%s %.4g x achievable fraction %.3g %s)", figure_names[id], set->value[id],
            (set->overrides.datasheet & SIMT_FIG_BIT(id)) ? "overridden" : "datasheet", set->datasheet[id],
            set->fraction[id],
            simt_figure_fraction_source(set, id) != NULL ? "documented for NCCL" : "from the database");
    case SIMT_FIGURE_OVERRIDE:
        how = "the what-if's value";
        break;
    case SIMT_FIGURE_SCALED_MEASURED:
        how =
            "measured on a real card, moved in proportion to the what-if's override of its datasheet figure";
        break;
    case SIMT_FIGURE_DATASHEET:
        how = (id == SIMT_FIG_SHARED_BANDWIDTH || (id >= SIMT_FIG_FP32 && id <= SIMT_FIG_ISSUE))
                  ? "datasheet per-clock rate at boost clock"
              : id == SIMT_FIG_TENSOR_BOOST_WINDOW || id == SIMT_FIG_TENSOR_SINGLE_CALL
                  ? "the record's figure, not measured on this card: its sources say whose it is"
                  : "datasheet";
        break;
    case SIMT_FIGURE_ABSENT:
    default:
        how = "absent";
        break;
    }
    return snprintf(buf, size, "%s = %.4g (%s)", figure_names[id], set->value[id], how);
}
