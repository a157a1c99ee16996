/* model_fixture.h - a synthetic GPU with round numbers, so that the model
 * suites' expected values can be worked by hand: 100 SMs at 1 GHz, 2 TB/s
 * DRAM, 8 TB/s L2, 32 banks of 4 bytes, 256 FP32 flops per clock per SM,
 * 500-cycle DRAM latency. Tests that need a real card load the bundled
 * database instead. Header-only, static: each suite is one executable. */
#ifndef SIMT_MODEL_FIXTURE_H
#define SIMT_MODEL_FIXTURE_H

#include <string.h>

#include "gpu.h"

static inline struct simt_gpu_spec fixture_gpu(void)
{
    struct simt_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.vendor = SIMT_VENDOR_NVIDIA;
    g.compute_major = 9;
    g.compute_minor = 0;
    g.sm_count = 100;
    g.warp_size = 32;
    g.max_threads_per_sm = 2048;
    g.max_warps_per_sm = 64;
    g.max_blocks_per_sm = 32;
    g.max_threads_per_block = 1024;
    g.registers_per_sm = 65536;
    g.max_registers_per_block = 65536;
    g.max_registers_per_thread = 255;
    g.register_allocation_unit = 256;
    g.register_file_partitions = 4;
    g.shared_bytes_per_sm = 233472;
    g.shared_bytes_per_block = 49152;
    g.shared_bytes_per_block_optin = 232448;
    g.reserved_shared_bytes_per_block = 1024;
    g.shared_allocation_unit_bytes = 128;
    g.shared_carveout_count = 1;
    g.shared_carveout_bytes[0] = 233472;
    g.sub_partitions = 4;
    g.fp32_lanes_per_sm = 128;
    g.fp64_lanes_per_sm = 64;
    g.sfu_lanes_per_sm = 16;
    g.load_store_units_per_sm = 32;
    g.shared_banks = 32;
    g.shared_bank_bytes = 4;
    g.base_clock_hz = 0.8e9;
    g.boost_clock_hz = 1.0e9;
    g.dram_bandwidth_bytes_per_s = 2.0e12;
    g.l2_bytes = 50.0e6;
    g.l2_bandwidth_bytes_per_s = 8.0e12;
    g.sector_bytes = 32;
    g.cache_line_bytes = 128;
    g.dram_access_granularity_bytes = 64;
    g.fp32_flops_per_clock_per_sm = 256;
    g.fp64_flops_per_clock_per_sm = 128;
    g.fp16_flops_per_clock_per_sm = 512;
    g.int32_ops_per_clock_per_sm = 64;
    g.sfu_ops_per_clock_per_sm = 16;
    g.issue_slots_per_clock_per_sm = 4;
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP16] = 5.0e14;
    g.tensor_dense_flops_per_s[SIMT_DTYPE_BF16] = 5.0e14;
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP64] = 5.0e13;
    g.fma_latency_cycles = 4;
    g.shared_latency_cycles = 30;
    g.l1_latency_cycles = 40;
    g.l2_latency_cycles = 200;
    g.dram_latency_cycles = 500;
    g.launch_overhead_s = 2.0e-6;
    return g;
}

#endif
