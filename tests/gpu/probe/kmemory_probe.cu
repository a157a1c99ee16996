/* kmemory_probe.cu - microbenchmarks that settle the kernel model's memory
 * and barrier figures on one GPU (issue 11, fit data only):
 *  1. block barriers: a loop of phases, each a dependent shared-memory read
 *     of a neighbour's word, an add and a store (a tree reduction's step),
 *     ended by __syncthreads() or by __syncwarp() (no block barrier), for
 *     block sizes 64..1024, with one block per SM (latency) and with the SM
 *     full of blocks (throughput); the difference per phase is what one
 *     barrier costs the block.
 *  2. warp shuffles: one dependent chain of __shfl_xor_sync (latency) and
 *     eight independent chains in every warp of a full SM (throughput).
 *  3. L2 working sets 8..160 MiB read as 16-byte words by 2^18 threads:
 *     "warm" (20 back-to-back launches over the same data after 3 untimed;
 *     time / 20, median of 5 windows), "cold_dirty" (a 256 MiB write, then
 *     one launch: the L2 full of dirty lines) and "cold_clean" (a 256 MiB
 *     read, then one launch: no dirty lines), median of 9.
 * Every timing is GPU time between CUDA events with no CPU gap: a 50 us
 * spin kernel first covers the host's queueing. Writes one JSON document
 * to argv[1]. Build: nvcc -O3 -gencode=arch=compute_90,code=sm_90. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe.cuh"

/* phases of: read a neighbour's word, add, store, barrier */
template <bool BLOCK_BARRIER>
__global__ void phases(int iters, float *out) {
    extern __shared__ float s[];
    unsigned t = threadIdx.x;
    s[t] = (float)t;
    __syncthreads();
    float v = 0.f;
    for (int i = 0; i < iters; i++) {
        v = s[t ^ 1] + 1.0f;
        s[t] = v;
        if (BLOCK_BARRIER)
            __syncthreads();
        else
            __syncwarp();
    }
    if (v == -1.0f) out[blockIdx.x] = v;
}

__global__ void shfl_chains(int iters, int chains, float *out) {
    float v[8];
#pragma unroll
    for (int c = 0; c < 8; c++) v[c] = (float)(threadIdx.x + c);
    for (int i = 0; i < iters; i++) {
        if (chains == 1) {
            v[0] += __shfl_xor_sync(0xffffffffu, v[0], 1);
        } else {
#pragma unroll
            for (int c = 0; c < 8; c++) v[c] += __shfl_xor_sync(0xffffffffu, v[c], 1 + c % 4);
        }
    }
    float a = 0.f;
#pragma unroll
    for (int c = 0; c < 8; c++) a += v[c];
    if (a == -1.0f) out[blockIdx.x] = a;
}

__global__ void l2_read(const uint4 *__restrict__ p, int per_thread, unsigned *out) {
    size_t T = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned a = 0;
#pragma unroll 4
    for (int j = 0; j < per_thread; j++) {
        uint4 v = p[j * T + t];
        a ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (a == 0x31337u) out[0] = a;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kmemory_probe OUT.json\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount;
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    int driver = 0, runtime = 0;
    CK(cudaDriverGetVersion(&driver));
    CK(cudaRuntimeGetVersion(&runtime));
    probe_events();
    float *outf;
    unsigned *outu;
    CK(cudaMalloc(&outf, 1 << 20));
    CK(cudaMalloc(&outu, 1 << 20));
    std::string json = "{\n  \"card\": \"" + std::string(prop.name) + "\", \"sm_count\": " + std::to_string(sms) +
                       ", \"l2_bytes\": " + std::to_string(prop.l2CacheSize) +
                       ", \"max_sm_clock_hz\": " + std::to_string(clock_khz * 1000.0) +
                       ", \"cuda_driver_api_version\": " + std::to_string(driver) +
                       ", \"cuda_runtime_version\": " + std::to_string(runtime) + ",\n";
    char line[512];

    /* 1. barriers */
    json += "  \"barrier_phases\": [\n";
    const int iters = 4096;
    bool first = true;
    for (int full = 0; full <= 1; full++) {
        for (int threads : {64, 128, 256, 512, 1024}) {
            int per_sm = full ? 2048 / threads : 1;
            int grid = sms * per_sm;
            double t[2];
            for (int bar = 0; bar <= 1; bar++) {
                std::vector<double> v;
                for (int rep = 0; rep < 7; rep++)
                    v.push_back(timed([&] {
                        if (bar)
                            phases<true><<<grid, threads, threads * 4>>>(iters, outf);
                        else
                            phases<false><<<grid, threads, threads * 4>>>(iters, outf);
                    }));
                t[bar] = median(v);
            }
            /* per phase, per block resident on an SM: the SM runs per_sm blocks at once */
            std::snprintf(line, sizeof line,
                          "%s    {\"threads\": %d, \"blocks_per_sm\": %d, \"iters\": %d, \"syncwarp_s\": %.6e, "
                          "\"syncthreads_s\": %.6e, \"ns_per_phase_syncwarp\": %.3f, "
                          "\"ns_per_phase_syncthreads\": %.3f}",
                          first ? "" : ",\n", threads, per_sm, iters, t[0], t[1], t[0] / iters * 1e9,
                          t[1] / iters * 1e9);
            json += line;
            first = false;
            std::printf("barrier threads %4d blocks/SM %2d: %.2f ns/phase syncwarp, %.2f ns/phase syncthreads\n",
                        threads, per_sm, t[0] / iters * 1e9, t[1] / iters * 1e9);
        }
    }
    json += "\n  ],\n";

    /* 2. shuffles */
    json += "  \"shuffles\": [\n";
    first = true;
    for (int chains : {1, 8}) {
        for (int full = 0; full <= 1; full++) {
            int threads = full ? 1024 : 32;
            int grid = full ? sms * 2 : sms;
            int it = 8192;
            std::vector<double> v;
            for (int rep = 0; rep < 7; rep++)
                v.push_back(timed([&] { shfl_chains<<<grid, threads>>>(it, chains, outf); }));
            double s = median(v);
            double per_sm_shfl = (double)it * chains * (threads / 32) * (grid / sms);
            std::snprintf(line, sizeof line,
                          "%s    {\"chains\": %d, \"warps_per_sm\": %d, \"iters\": %d, \"time_s\": %.6e, "
                          "\"ns_per_dependent_step\": %.3f, \"warp_shuffles_per_sm_per_s\": %.4e}",
                          first ? "" : ",\n", chains, threads / 32 * (grid / sms), it, s, s / it * 1e9,
                          per_sm_shfl / s);
            json += line;
            first = false;
            std::printf("shfl chains %d warps/SM %2d: %.2f ns/step, %.3e warp shuffles/SM/s\n", chains,
                        threads / 32 * (grid / sms), s / it * 1e9, per_sm_shfl / s);
        }
    }
    json += "\n  ],\n";

    /* 3. L2 working sets */
    const size_t flush_bytes = (size_t)256 << 20;
    uint4 *flush, *data;
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMalloc(&data, (size_t)160 << 20));
    CK(cudaMemset(data, 0x5a, (size_t)160 << 20));
    json += "  \"l2_read\": [\n";
    first = true;
    for (int mib : {8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160}) {
        size_t words = ((size_t)mib << 20) / 16;
        size_t threads = (size_t)1 << 18;
        int per = (int)(words / threads);
        unsigned grid = (unsigned)(threads / 256);
        auto launch = [&] { l2_read<<<grid, 256>>>(data, per, outu); };
        /* warm: back to back */
        for (int i = 0; i < 3; i++) launch();
        std::vector<double> warm;
        for (int rep = 0; rep < 5; rep++)
            warm.push_back(timed([&] {
                               for (int i = 0; i < 20; i++) launch();
                           }) /
                           20.0);
        std::vector<double> dirty, clean;
        for (int rep = 0; rep < 9; rep++) {
            flush_write<<<sms * 4, 512>>>(flush, flush_bytes / 16);
            dirty.push_back(timed(launch));
            flush_read<<<sms * 4, 512>>>(flush, flush_bytes / 16, outu);
            clean.push_back(timed(launch));
        }
        /* the spin kernel sits between flush and launch; it touches no memory */
        std::snprintf(line, sizeof line,
                      "%s    {\"working_set_bytes\": %zu, \"grid\": %u, \"block\": 256, \"per_thread\": %d, "
                      "\"warm_s\": %.6e, \"cold_dirty_s\": %.6e, \"cold_clean_s\": %.6e}",
                      first ? "" : ",\n", (size_t)mib << 20, grid, per, median(warm), median(dirty), median(clean));
        json += line;
        first = false;
        std::printf("l2 %4d MiB: warm %.2f us, cold dirty %.2f us, cold clean %.2f us\n", mib, median(warm) * 1e6,
                    median(dirty) * 1e6, median(clean) * 1e6);
    }
    json += "\n  ]\n}\n";
    FILE *f = std::fopen(argv[1], "w");
    if (!f) return 1;
    std::fputs(json.c_str(), f);
    std::fclose(f);
    return 0;
}
