/* kissue_probe.cu - whether a thread's loads are in flight together (issue
 * 11, fit data only). Three kernels over arrays of 2^24 4-byte words, each
 * thread a grid-stride loop of one element an iteration (no unrolling, so
 * one iteration's loads are all it has in flight):
 *   one: y[i] = a[i] + 1              (one load, one store)
 *   two: y[i] = a[i] + b[i]           (two loads from the thread index)
 *   dep: y[i] = b[idx[i]] + 1, idx[i] = i (the second load's address is
 *        the first's value: the same bytes and lines as two, dependent)
 * at 1, 2, 4, 8 and 16 blocks of 256 threads per SM (8 to 128 warps asked;
 * the SM holds 64), and the same three over a 2^26-word grid at full
 * occupancy. Plus random 4-byte scatters out[idx[i]] = src[i] (2^24
 * threads, idx a hash of i modulo the table) over tables of 16 MiB to
 * 1 GiB, for the record. Timing: a 256 MiB read flushes L2 (no dirty
 * lines), a 50 us spin kernel covers the host's queueing, then CUDA events
 * around one launch; median of 9 after 2 untimed. Writes one JSON document
 * to argv[1]. Build: nvcc -O3 -gencode=arch=compute_90,code=sm_90. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe.cuh"

__host__ __device__ inline unsigned hash32(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__global__ void fill(unsigned *p, size_t n, int identity, unsigned range) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = identity ? (unsigned)i : hash32((unsigned)i * 2654435761u ^ 0x9e37u) % range;
}

__global__ void k_one(const unsigned *__restrict__ a, unsigned *__restrict__ y, size_t n) {
#pragma unroll 1
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = a[i] + 1u;
}

__global__ void k_two(const unsigned *__restrict__ a, const unsigned *__restrict__ b, unsigned *__restrict__ y,
                      size_t n) {
#pragma unroll 1
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = a[i] + b[i];
}

__global__ void k_dep(const unsigned *__restrict__ idx, const unsigned *__restrict__ b, unsigned *__restrict__ y,
                      size_t n) {
#pragma unroll 1
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = b[idx[i]] + 1u;
}

__global__ void k_scatter(const unsigned *__restrict__ idx, const unsigned *__restrict__ src,
                          unsigned *__restrict__ out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    out[idx[i]] = src[i];
}

static cudaEvent_t e0, e1;
static uint4 *flush_buf;
static unsigned *sink;
static const size_t FLUSH_WORDS = (256u << 20) / 16;

template <class F> static double cold(F launch) {
    std::vector<double> v;
    for (int r = 0; r < 11; r++) {
        flush_read<<<1024, 256>>>(flush_buf, FLUSH_WORDS, sink);
        spin<<<1, 1>>>(50000);
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 2) v.push_back(ms * 1e-3);
    }
    return median(v);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kissue_probe OUT.json\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount;
    int driver = 0, runtime = 0;
    CK(cudaDriverGetVersion(&driver));
    CK(cudaRuntimeGetVersion(&runtime));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMalloc(&flush_buf, FLUSH_WORDS * 16));
    CK(cudaMemset(flush_buf, 1, FLUSH_WORDS * 16));
    CK(cudaMalloc(&sink, 64));
    const size_t big = (size_t)1 << 26;
    unsigned *a, *b, *idx, *y, *table;
    CK(cudaMalloc(&a, big * 4));
    CK(cudaMalloc(&b, big * 4));
    CK(cudaMalloc(&idx, big * 4));
    CK(cudaMalloc(&y, big * 4));
    CK(cudaMalloc(&table, (size_t)1 << 30));
    fill<<<1024, 256>>>(a, big, 1, 0);
    fill<<<1024, 256>>>(b, big, 1, 0);
    fill<<<1024, 256>>>(idx, big, 1, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::string json = "{\n  \"card\": \"" + std::string(prop.name) + "\", \"sm_count\": " + std::to_string(sms) +
                       ", \"l2_bytes\": " + std::to_string(prop.l2CacheSize) +
                       ", \"cuda_driver_api_version\": " + std::to_string(driver) +
                       ", \"cuda_runtime_version\": " + std::to_string(runtime) + ",\n  \"streams\": [\n";
    char line[512];
    bool first = true;
    const char *names[3] = {"one", "two", "dep"};
    int bps_list[6] = {1, 2, 4, 8, 16, 0}; /* 0: one element a thread over 2^26 */
    for (int li = 0; li < 6; li++) {
        int bps = bps_list[li];
        size_t n = bps ? (size_t)1 << 24 : big;
        int grid = bps ? bps * sms : (int)(big / 256);
        double t[3];
        t[0] = cold([&] { k_one<<<grid, 256>>>(a, y, n); });
        t[1] = cold([&] { k_two<<<grid, 256>>>(a, b, y, n); });
        t[2] = cold([&] { k_dep<<<grid, 256>>>(idx, b, y, n); });
        for (int k = 0; k < 3; k++) {
            std::snprintf(line, sizeof line,
                          "%s    {\"kernel\": \"%s\", \"elements\": %zu, \"grid\": %d, \"block\": 256, "
                          "\"blocks_per_sm_asked\": %d, \"seconds\": %.6e}",
                          first ? "" : ",\n", names[k], n, grid, bps, t[k]);
            json += line;
            first = false;
        }
        std::printf("bps %2d n %zu: one %.1f us, two %.1f us, dep %.1f us\n", bps, n, t[0] * 1e6, t[1] * 1e6,
                    t[2] * 1e6);
    }
    json += "\n  ],\n  \"scatter\": [\n";
    first = true;
    const size_t threads = (size_t)1 << 24;
    for (int mib = 16; mib <= 1024; mib *= 4) {
        unsigned range = (unsigned)(((size_t)mib << 20) / 4);
        fill<<<1024, 256>>>(idx, threads, 0, range);
        CK(cudaGetLastError());
        double s = cold([&] { k_scatter<<<(int)(threads / 256), 256>>>(idx, a, table); });
        std::snprintf(line, sizeof line, "%s    {\"table_bytes\": %zu, \"threads\": %zu, \"seconds\": %.6e}",
                      first ? "" : ",\n", (size_t)mib << 20, threads, s);
        json += line;
        first = false;
        std::printf("scatter %4d MiB: %.1f us\n", mib, s * 1e6);
    }
    json += "\n  ]\n}\n";
    FILE *f = std::fopen(argv[1], "w");
    if (!f) return 1;
    std::fputs(json.c_str(), f);
    std::fclose(f);
    return 0;
}
