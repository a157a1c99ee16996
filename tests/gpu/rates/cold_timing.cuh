/* cold_timing.cuh - the cold-launch timing both rate programs use
 * (atomics_int.cu, atomics_few.cu): GPU time of one launch without CPU gaps.
 * Before each launch a 256 MiB write flushes the L2 (k_flush over
 * flush_words) and a 50 us sleep kernel (%globaltimer) lets the host queue
 * the event pair first; 2 untimed, 7 timed, the median. The including
 * program calls cold_timing_init once before time_cold. */
#ifndef SIMT_COLD_TIMING_CUH
#define SIMT_COLD_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                               \
    do {                                                                                                    \
        cudaError_t e_ = (x);                                                                               \
        if (e_ != cudaSuccess) {                                                                            \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

__global__ void k_sleep(long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < (unsigned long long)ns);
}
__global__ void k_flush(unsigned *p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned)i;
}

static unsigned *flush_buf;
static const size_t flush_words = (size_t)64 << 20;
static cudaEvent_t e0, e1;

/* The flush buffer and the event pair time_cold uses. */
static void cold_timing_init() {
    CK(cudaMalloc(&flush_buf, flush_words * 4));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
}

static double time_cold(const std::function<void()> &launch) {
    std::vector<double> v;
    for (int r = 0; r < 9; r++) {
        k_flush<<<1056, 256>>>(flush_buf, flush_words);
        k_sleep<<<1, 1>>>(50000);
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 2) v.push_back(ms * 1e-3);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

#endif
