/* probe.cuh - what the kernel probes in this folder share (kmemory_probe.cu, ksparse_probe.cu,
 * kissue_probe.cu): a CUDA error check, a sleep kernel on %globaltimer that
 * covers the host's queueing before a timed launch, kernels that flush the
 * L2 by writing (dirty lines) or reading (clean) a large buffer, one
 * launch's GPU time between events, and the median (the upper middle) of a
 * set of times. */
#ifndef SIMT_PROBE_CUH
#define SIMT_PROBE_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void spin(long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}

__global__ void flush_write(uint4 *p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4((unsigned)i, 1u, 2u, 3u);
}

__global__ void flush_read(const uint4 *p, size_t n, unsigned *out) {
    unsigned a = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        a ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (a == 0x5eed5eedu) out[0] = a;
}

/* GPU time of one launch between CUDA events, a 50 us spin first covering
 * the host's queueing (probe_events() creates the events once) */
static cudaEvent_t probe_e0, probe_e1;

static void probe_events() {
    CK(cudaEventCreate(&probe_e0));
    CK(cudaEventCreate(&probe_e1));
}

template <class F> static double timed(F launch) {
    spin<<<1, 1>>>(50000);
    CK(cudaEventRecord(probe_e0));
    launch();
    CK(cudaGetLastError());
    CK(cudaEventRecord(probe_e1));
    CK(cudaEventSynchronize(probe_e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, probe_e0, probe_e1));
    return ms * 1e-3;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

#endif
