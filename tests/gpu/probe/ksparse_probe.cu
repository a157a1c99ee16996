/* ksparse_probe.cu - fit data for issue 11: what other work's dirty lines
 * cost a cold launch of sparse reads. The kernel model writes back the
 * dirty lines a launch's fills evict (model/l2_state.h, fitted on dense
 * 16-byte reads: kmemory_probe.cu's l2_read) as DRAM bytes beside the
 * launch's own; where a launch is bound by DRAM row activations (reads
 * 256 B or more apart) those bytes hide under the rows. This probe asks
 * the card: 4-byte reads with lanes 4 x stride bytes apart (4 independent
 * loads a thread, warp j's k-th load over 32 x stride words, as the held-out
 * set's m_coalesce), at strides and grids no held-out or confirmation list
 * uses, each timed cold after a 256 MiB write ("cold_dirty": the L2 full
 * of dirty lines, as every cold row of the held-out sets) and after a
 * 256 MiB read ("cold_clean": none), median of 9 each; "warm" rows are
 * not taken. Every timing is GPU time between CUDA events with no CPU gap
 * (a 50 us spin kernel first covers the host's queueing). Each row carries
 * the POST /v1/kernel body that describes it.
 *   ksparse_probe OUT.json
 * Build: nvcc -O3 -gencode=arch=compute_90,code=sm_90. */
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "probe.cuh"

__global__ void sparse_read(const unsigned *__restrict__ p, int stride, unsigned *out) {
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    unsigned lane = threadIdx.x & 31;
    unsigned a = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) a ^= __ldg(p + ((warp * 4 + j) * 32 + lane) * stride);
    if (a == 0x1234567u) out[0] = a;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: ksparse_probe OUT.json\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount;
    int driver = 0, runtime = 0;
    CK(cudaDriverGetVersion(&driver));
    CK(cudaRuntimeGetVersion(&runtime));
    probe_events();
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, sparse_read));
    unsigned *outu;
    CK(cudaMalloc(&outu, 1 << 20));
    const size_t flush_bytes = (size_t)256 << 20, data_bytes = (size_t)8 << 30;
    uint4 *flush;
    unsigned *data;
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMalloc(&data, data_bytes));
    CK(cudaMemset(data, 0x5a, data_bytes));
    std::string json = "{\n  \"card\": \"" + std::string(prop.name) + "\", \"sm_count\": " + std::to_string(sms) +
                       ", \"l2_bytes\": " + std::to_string(prop.l2CacheSize) +
                       ", \"cuda_driver_api_version\": " + std::to_string(driver) +
                       ", \"cuda_runtime_version\": " + std::to_string(runtime) +
                       ", \"registers\": " + std::to_string(attr.numRegs) + ",\n  \"rows\": [\n";
    char line[1536];
    bool first = true;
    /* strides in 4-byte words: 28 (112 B, dense enough to be bus-bound), 80 (320 B), 160, 320
     * (1280 B) and 640 (2560 B); grids: a quarter wave to four waves of 8 blocks an SM */
    for (int stride : {28, 80, 160, 320, 640}) {
        for (int blocks_per_sm : {2, 8, 16, 32}) {
            unsigned grid = (unsigned)(sms * blocks_per_sm);
            size_t words = (size_t)grid * 256 * 4 * stride;
            if (words * 4 > data_bytes) continue;
            auto launch = [&] { sparse_read<<<grid, 256>>>(data, stride, outu); };
            for (int i = 0; i < 2; i++) launch();
            std::vector<double> dirty, clean;
            for (int rep = 0; rep < 9; rep++) {
                flush_write<<<sms * 4, 512>>>(flush, flush_bytes / 16);
                dirty.push_back(timed(launch));
                flush_read<<<sms * 4, 512>>>(flush, flush_bytes / 16, outu);
                clean.push_back(timed(launch));
            }
            std::snprintf(line, sizeof line,
                          "%s    {\"name\": \"sparse_4B_stride%d_grid%u\", \"stride_words\": %d, \"grid\": %u, "
                          "\"cold_dirty_s\": %.6e, \"cold_clean_s\": %.6e, \"request\": {\"gpu\": \"%s\", "
                          "\"launch\": {\"grid\": %u, \"block\": 256, \"dynamic_shared_bytes\": 0}, \"resources\": "
                          "{\"registers_per_thread\": %d, \"static_shared_bytes\": 0, \"block_barriers\": 0}, "
                          "\"per_thread\": {\"int_ops\": 20, \"accesses\": [{\"space\": \"global\", \"op\": \"load\", "
                          "\"count\": 4, \"element_bytes\": 4, \"lane_stride_elements\": %d, \"independent\": 4}]}}}",
                          first ? "" : ",\n", stride, grid, stride, grid, median(dirty), median(clean),
                          sms == 132 && prop.l2CacheSize > 55000000 ? "h200-sxm" : "h100-sxm", grid, attr.numRegs,
                          stride);
            json += line;
            first = false;
            std::printf("stride %4d (%5d B) grid %5u: cold dirty %8.2f us, cold clean %8.2f us\n", stride, 4 * stride,
                        grid, median(dirty) * 1e6, median(clean) * 1e6);
        }
    }
    json += "\n  ]\n}\n";
    FILE *f = std::fopen(argv[1], "w");
    if (!f) return 1;
    std::fputs(json.c_str(), f);
    std::fclose(f);
    return 0;
}
