/* kernels.cu - definitions of the shared calibration kernels (kernels.cuh). */
#include "kernels.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cstdint>
#include <vector>

__global__ void k_fill(void *p, size_t n, int dt, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        unsigned h = hash32((unsigned)i ^ hash32(seed ^ (unsigned)(i >> 32)));
        float f = unit_float(h);
        switch (dt) {
            case DT_FP16: ((__half *)p)[i] = __float2half(f); break;
            case DT_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16(f); break;
            case DT_TF32: ((float *)p)[i] = f; break;
            case DT_FP8: ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(f); break;
            case DT_INT8: ((int8_t *)p)[i] = (int8_t)(h & 0xff); break;
            case DT_FP64: ((double *)p)[i] = (double)f; break;
            default: ((unsigned *)p)[i] = h; break;
        }
    }
}

void fill_typed(void *p, size_t n, int dt, unsigned seed) {
    k_fill<<<4096, 256>>>(p, n, dt, seed);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
}

__global__ void k_clock_probe(float *out, unsigned long long *ticks, int iters, float b) {
    float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    unsigned long long c0 = 0, g0 = 0;
    if (threadIdx.x == 0) {
        c0 = clock64();
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    }
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            a0 = fmaf(a0, b, 0.5f);
            a1 = fmaf(a1, b, 0.5f);
            a2 = fmaf(a2, b, 0.5f);
            a3 = fmaf(a3, b, 0.5f);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long c1 = clock64(), g1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
        ticks[2 * blockIdx.x] = c1 - c0;
        ticks[2 * blockIdx.x + 1] = g1 - g0;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}

double sm_clock_under_load_hz(int sms) {
    int blocks = sms * 4;
    unsigned long long *ticks;
    float *out;
    CK(cudaMalloc(&ticks, sizeof(unsigned long long) * 2 * blocks));
    CK(cudaMalloc(&out, sizeof(float) * 256 * blocks));
    std::vector<unsigned long long> h(2 * blocks);
    std::vector<double> f;
    for (int rep = 0; rep < 3; rep++) {
        k_clock_probe<<<blocks, 256>>>(out, ticks, 20000, 0.999f);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        if (rep == 0) continue;
        CK(cudaMemcpy(h.data(), ticks, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
        for (int b = 0; b < blocks; b++)
            if (h[2 * b + 1] > 0) f.push_back((double)h[2 * b] / (double)h[2 * b + 1] * 1e9);
    }
    CK(cudaFree(ticks));
    CK(cudaFree(out));
    if (f.empty()) return 0;
    std::sort(f.begin(), f.end());
    size_t n = f.size();
    return n % 2 ? f[n / 2] : 0.5 * (f[n / 2 - 1] + f[n / 2]);
}

__global__ void k_fp32(float *out, int iters, float b, float cc) {
    float a[CHAINS];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) a[i] = gid * 1e-7f + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < CHAINS; i++) a[i] = fmaf(a[i], b, cc);
    float s = 0;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) s += a[i];
    out[gid] = s;
}

__global__ void k_fp64(double *out, int iters, double b, double cc) {
    double a[CHAINS];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) a[i] = gid * 1e-7 + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < CHAINS; i++) a[i] = fma(a[i], b, cc);
    double s = 0;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) s += a[i];
    out[gid] = s;
}

__global__ void k_sfu(float *out, int iters) {
    float a[CHAINS];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) a[i] = 1.0f + gid * 1e-7f + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < CHAINS; i++) asm("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a[i]));
    float s = 0;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) s += a[i];
    out[gid] = s;
}

__global__ void k_empty() {}

__global__ void k_sleep(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

__global__ void k_flush(uint4 *p, size_t n, unsigned v) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    uint4 w = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
    for (size_t i = t; i < n; i += T) p[i] = w;
}

void TimedStart::begin(cudaStream_t s) const {
    k_sleep<<<1, 1, 0, s>>>(sleep_ns);
    CK_LAUNCH();
    if (flush != nullptr && flush_words > 0) {
        static unsigned v = 1;
        k_flush<<<132 * 8, 256, 0, s>>>(flush, flush_words, v++);
        CK_LAUNCH();
    }
}
