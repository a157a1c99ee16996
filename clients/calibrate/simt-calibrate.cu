/* simt-calibrate.cu - measures the NVIDIA GPU it runs on and writes the
 * figures as the `measured:` section of a simtd hardware-database file (YAML)
 * and as JSON: DRAM and L2 bandwidth (read, write, copy), DRAM row
 * activations (8-byte reads 1 KiB apart; 128 B to 2 KiB as details), L1, L2, DRAM and
 * shared-memory latency by pointer chasing, FMA latency, FP32, FP64 and SFU
 * throughput, tensor-core throughput per data type through cuBLASLt (the
 * library users call; a register-only mma.sync kernel of our own is reported
 * beside it), kernel launch overhead, and a residency probe that counts the
 * blocks really resident per SM for several launch shapes against
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor.
 *
 *   simt-calibrate [--yaml FILE] [--json FILE] [--device N] [--quick]
 *
 * Every CUDA and cuBLAS call is checked; a failure stops the program with a
 * message and exit status 2. It takes well under a minute on an H200. It
 * never changes clocks or other device settings. */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels.cuh"

#define CKB(call)                                                                               \
    do {                                                                                        \
        cublasStatus_t ckb_st_ = (call);                                                        \
        if (ckb_st_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            std::fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", __FILE__, __LINE__, \
                         #call, (int)ckb_st_);                                                  \
            std::exit(2);                                                                       \
        }                                                                                       \
    } while (0)

static bool g_quick = false;
static cudaEvent_t g_e0, g_e1;

/* ------------------------------------------------------------------ output */

struct Out {
    std::vector<std::pair<std::string, std::string>> measured; /* key, YAML/JSON scalar */
    std::vector<std::pair<std::string, double>> tensor;        /* dtype, flops/s */
    std::vector<std::pair<std::string, std::string>> details;
    std::vector<std::string> residency;                        /* JSON objects (flow YAML too) */
};

static std::string num(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

static std::string quoted(const std::string &s) {
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        if ((unsigned char)ch < 0x20) {
            o += ' ';
            continue;
        }
        o += ch;
    }
    return o + "\"";
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::printf("\n");
    std::fflush(stdout);
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    if (!n) return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Every timed region starts with a sleep kernel (kernels.cuh) long enough
 * for the host to queue the events and the work behind it, so the event pair
 * measures GPU time without CPU gaps. */
static TimedStart g_start;

/* median seconds of `reps` event-timed calls of f() after `warm` untimed
 * ones; each call alone between its events, a sleep kernel before */
static double time_median(const std::function<void()> &f, int warm, int reps) {
    std::vector<double> t;
    for (int i = 0; i < warm + reps; i++) {
        g_start.begin();
        CK(cudaEventRecord(g_e0));
        f();
        CK_LAUNCH();
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        if (i >= warm) t.push_back(ms * 1e-3);
    }
    return median(t);
}

/* seconds per call of `count` back-to-back calls of f() between one event
 * pair, a sleep kernel before; median of `reps` such windows */
static double time_back_to_back(const std::function<void()> &f, int count, int reps) {
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        g_start.begin();
        CK(cudaEventRecord(g_e0));
        for (int i = 0; i < count; i++) f();
        CK_LAUNCH();
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        t.push_back(ms * 1e-3 / count);
    }
    return median(t);
}

/* ------------------------------------------------------------------ NVML (dlopen, optional) */

struct Nvml {
    void *lib = nullptr;
    void *dev = nullptr;
    int (*get_clock)(void *, int, unsigned *) = nullptr;
    int (*get_max_clock)(void *, int, unsigned *) = nullptr;
    std::string driver = "unknown";
    bool ok = false;
    void open(int cuda_dev) {
        lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
        if (!lib) return;
        auto init = (int (*)())dlsym(lib, "nvmlInit_v2");
        auto drv = (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
        auto by_bus = (int (*)(const char *, void **))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
        get_clock = (int (*)(void *, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
        get_max_clock = (int (*)(void *, int, unsigned *))dlsym(lib, "nvmlDeviceGetMaxClockInfo");
        if (!init || !drv || !by_bus || !get_clock || !get_max_clock || init() != 0) return;
        char b[96] = {0};
        if (drv(b, sizeof b) == 0) driver = b;
        char bus[64] = {0};
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) != cudaSuccess) return;
        ok = by_bus(bus, &dev) == 0;
    }
    /* NVML clock types: 1 = SM, 2 = memory */
    unsigned clock_mhz(int type) {
        unsigned v = 0;
        if (ok && get_clock(dev, type, &v) == 0) return v;
        return 0;
    }
    unsigned max_clock_mhz(int type) {
        unsigned v = 0;
        if (ok && get_max_clock(dev, type, &v) == 0) return v;
        return 0;
    }
};

static std::string driver_from_proc() {
    FILE *f = std::fopen("/proc/driver/nvidia/version", "r");
    if (!f) return "unknown";
    char line[512] = {0};
    std::string r = "unknown";
    if (std::fgets(line, sizeof line, f)) {
        const char *p = std::strstr(line, "Kernel Module");
        if (p) {
            p += std::strlen("Kernel Module");
            while (*p == ' ') p++;
            const char *e = p;
            while (*e && *e != ' ' && *e != '\n') e++;
            r.assign(p, e);
        }
    }
    std::fclose(f);
    return r;
}

/* ------------------------------------------------------------------ helpers on the device */

static const char *dt_name[] = {"fp16", "bf16", "tf32", "fp8", "int8", "fp64"};
static size_t dt_bytes(Dt d) {
    switch (d) {
        case DT_FP16:
        case DT_BF16: return 2;
        case DT_TF32: return 4;
        case DT_FP8:
        case DT_INT8: return 1;
        case DT_FP64: return 8;
    }
    return 0;
}

static void fill(void *p, size_t n, int dt, unsigned seed) { fill_typed(p, n, dt, seed); }

/* GEMM operands drawn from a standard normal distribution (Box-Muller over
 * two hashes), as trained weights and activations roughly are and as
 * torch.randn draws them: tensor-core power, and so the clock a GEMM holds
 * under the power limit, depends on the operands' bits (uniform [-1, 1)
 * inputs ran bf16 8192^3 7-9% slower on the H200, tests/gpu/probe). INT8
 * stays uniform over its range. */
__global__ void k_fill_normal(void *p, size_t n, int dt, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += step) {
        unsigned h1 = hash32((unsigned)i ^ hash32(seed ^ (unsigned)(i >> 32)));
        unsigned h2 = hash32(h1 ^ 0x9e3779b9u);
        float u1 = ((h1 >> 8) + 1.0f) * (1.0f / 16777217.0f), u2 = (h2 >> 8) * (1.0f / 16777216.0f);
        float f = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        switch (dt) {
            case DT_FP16: ((__half *)p)[i] = __float2half(f); break;
            case DT_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16(f); break;
            case DT_TF32: ((float *)p)[i] = f; break;
            case DT_FP8: ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(f); break;
            case DT_INT8: ((int8_t *)p)[i] = (int8_t)(h1 & 0xff); break;
            case DT_FP64: ((double *)p)[i] = (double)f; break;
        }
    }
}

static void fill_normal(void *p, size_t n, int dt, unsigned seed) {
    k_fill_normal<<<4096, 256>>>(p, n, dt, seed);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
}

/* ------------------------------------------------------------------ clock */

static double sm_clock_hz(int sms) { return sm_clock_under_load_hz(sms); }

/* ------------------------------------------------------------------ bandwidth */

__global__ void k_read(const uint4 *__restrict__ p, size_t n, unsigned *out, unsigned sentinel) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    size_t i = t;
    for (; i + 3 * T < n; i += 4 * T) {
        uint4 a = p[i], b = p[i + T], c = p[i + 2 * T], d = p[i + 3 * T];
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n; i += T) {
        uint4 a = p[i];
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (acc == sentinel) out[0] = acc;
}

/* one 16-byte element a thread, a grid that covers the buffer (the way a
 * plain elementwise kernel runs): blocks retire and new ones start on the
 * next addresses, where the grid-stride loops above keep every block
 * resident and walk the buffer from many places at once */
__global__ void k_read_flat(const uint4 *__restrict__ p, size_t n, unsigned *out, unsigned sentinel) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 a = p[i];
    if ((a.x ^ a.y ^ a.z ^ a.w) == sentinel) out[0] = a.x;
}

__global__ void k_write_flat(uint4 *p, size_t n, unsigned v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = make_uint4(v, v ^ 1u, v ^ 2u, v ^ (unsigned)i);
}

__global__ void k_copy_flat(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

__global__ void k_write(uint4 *p, size_t n, unsigned v) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    uint4 w = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
    for (size_t i = t; i < n; i += T) p[i] = w;
}

__global__ void k_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    size_t i = t;
    for (; i + 3 * T < n; i += 4 * T) {
        uint4 a = src[i], b = src[i + T], c = src[i + 2 * T], d = src[i + 3 * T];
        dst[i] = a;
        dst[i + T] = b;
        dst[i + 2 * T] = c;
        dst[i + 3 * T] = d;
    }
    for (; i < n; i += T) dst[i] = src[i];
}

/* L2-resident variants: volatile PTX so the passes over the same small buffer
 * are neither hoisted nor merged; .cg skips L1 so every load reaches L2 */
__global__ void k_l2_read(const uint4 *p, size_t n, int passes, unsigned *out, unsigned sentinel) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = t; i < n; i += T) {
            unsigned x, y, z, w;
            asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                         : "l"(p + i));
            acc ^= x ^ y ^ z ^ w;
        }
    if (acc == sentinel) out[0] = acc;
}

__global__ void k_l2_write(uint4 *p, size_t n, int passes, unsigned v) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = t; i < n; i += T)
            asm volatile("st.global.cg.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p + i), "r"(v), "r"(v + pass),
                         "r"(v ^ 7u), "r"((unsigned)i));
}

/* L2 requests: 4-byte reads (or stores) of random words of an L2-resident
 * buffer, .cg so every one reaches L2. Each lane's word lies on a line no
 * other lane of its warp touches (almost always), so each lane is a request
 * of one sector: the slices' request rate, not their bytes, is the limit.
 * The addresses do not depend on the data, so the unrolled loads are in
 * flight together. */
__global__ void k_l2_random(unsigned *p, unsigned mask, int iters, unsigned seed, int store, unsigned *out) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = (t ^ seed) * 2654435761u + 12345u, acc = 0;
#pragma unroll 8
    for (int i = 0; i < iters; i++) {
        x = x * 1664525u + 1013904223u;
        unsigned *q = p + ((x >> 5) & mask);
        if (store) {
            asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(q), "r"(x));
        } else {
            unsigned v;
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q));
            acc ^= v;
        }
    }
    if (acc == seed) out[0] = acc;
}

/* DRAM row activations: 8-byte reads `step` words apart, 4 independent loads
 * per thread (lane i of a warp reads word (t + j T) step). A read that shares
 * no DRAM row with another read in flight opens a row of its own, and HBM
 * lets a pseudo-channel open only so many rows per second (tRRD, tFAW),
 * whatever the bytes. */
__global__ void k_sparse(const unsigned long long *__restrict__ p, long long step, unsigned *out,
                         unsigned long long sentinel) {
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x, T = (long long)gridDim.x * blockDim.x;
    unsigned long long acc = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) acc ^= p[(t + j * T) * step];
    if (acc == sentinel) out[0] = (unsigned)acc;
}

/* DRAM read-modify-writes: 4-byte stores `step` words apart (lane i of a
 * warp writes word (t + j T) step). Each store dirties one sector of its
 * own line and leaves the rest unwritten; when L2 evicts the line, the
 * sector goes back to DRAM as a read, a merge and a write (ECC covers the
 * whole sector), and at 1 KiB apart no two stores share a DRAM row. */
__global__ void k_sparse_store(unsigned *p, long long step, unsigned v) {
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x, T = (long long)gridDim.x * blockDim.x;
#pragma unroll
    for (int j = 0; j < 4; j++) p[(t + j * T) * step] = v ^ (unsigned)j;
}

/* ------------------------------------------------------------------ latency */

template <int CG>
__global__ void k_chase(unsigned long long start, int prime_hops, int hops, unsigned long long *res) {
    unsigned long long p = start;
    for (int i = 0; i < prime_hops; i++) {
        if (CG)
            asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
        else
            asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
    }
    unsigned long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < hops; i += 8) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
            if (CG)
                asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
            else
                asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
        }
    }
    unsigned long long c1 = clock64();
    res[0] = c1 - c0;
    res[1] = p;
}

/* writes the chain: at element idx[i] (units of 8 bytes) the address of idx[i+1] */
__global__ void k_link(unsigned long long *base, const unsigned long long *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) base[idx[i]] = (unsigned long long)(base + idx[(i + 1) % n]);
}

__global__ void k_touch(const unsigned long long *base, size_t stride_elems, size_t count, unsigned long long *out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < count) {
        unsigned long long v;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(base + i * stride_elems));
        if (v == 0x123456789abcdefull) out[0] = v;
    }
}

__global__ void k_shared_chase(int hops, unsigned long long *res) {
    __shared__ unsigned s[4096];
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (int i = 0; i < 4096; i++) s[i] = base + 4u * (unsigned)((i * 97 + 1) % 4096);
    __syncthreads();
    unsigned p = base;
    for (int i = 0; i < 512; i++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    unsigned long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < hops; i += 8) {
#pragma unroll
        for (int u = 0; u < 8; u++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    }
    unsigned long long c1 = clock64();
    res[0] = c1 - c0;
    res[1] = p;
}

/* one thread, a dependent chain of n FMAs (fma.rn.f32, or .f64 for double) */
template <typename T>
__global__ void k_fma_latency(int n, T b, T c, unsigned long long *res, T *out) {
    T a = b * (T)0.5;
    unsigned long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < n; i += 16) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            if constexpr (sizeof(T) == 8)
                asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(a) : "d"(b), "d"(c));
            else
                asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(a) : "f"(b), "f"(c));
        }
    }
    unsigned long long c1 = clock64();
    res[0] = c1 - c0;
    out[0] = a;
}

/* cycles per FMA of k_fma_latency<T>, the median of 5 launches */
template <typename T>
static double fma_chain_cycles(unsigned long long *res, unsigned long long *hres, void *scratch) {
    std::vector<double> sv;
    for (int r = 0; r < 5; r++) {
        k_fma_latency<T><<<1, 1>>>(65536, (T)0.999, (T)0.001, res, (T *)scratch);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hres, res, 16, cudaMemcpyDeviceToHost));
        sv.push_back((double)hres[0] / 65536);
    }
    return median(sv);
}

/* ------------------------------------------------------------------ throughput */

/* k_fp32, k_fp64, k_sfu: kernels.cuh */

/* ------------------------------------------------------------------ mma.sync (register-only) */

#define MMA_ACC 4
template <int DT>
__global__ void k_mma(float *out, int iters, unsigned seed) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h0 = hash32(gid ^ seed), h1 = hash32(h0), h2 = hash32(h1), h3 = hash32(h2), h4 = hash32(h3),
             h5 = hash32(h4);
    float sum = 0;
    if (DT == DT_FP64) {
        double a = unit_float(h0), b = unit_float(h1);
        double c[MMA_ACC][2];
#pragma unroll
        for (int j = 0; j < MMA_ACC; j++) c[j][0] = c[j][1] = 0;
#pragma unroll 1
        for (int it = 0; it < iters; it++)
#pragma unroll
            for (int j = 0; j < MMA_ACC; j++)
                asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                             : "+d"(c[j][0]), "+d"(c[j][1])
                             : "d"(a), "d"(b));
#pragma unroll
        for (int j = 0; j < MMA_ACC; j++) sum += (float)(c[j][0] + c[j][1]);
    } else {
        unsigned a[4], b[2];
        unsigned hs[6] = {h0, h1, h2, h3, h4, h5};
#pragma unroll
        for (int i = 0; i < 6; i++) {
            unsigned w;
            float x = unit_float(hs[i]), y = unit_float(hash32(hs[i]));
            if (DT == DT_FP16) {
                __half2 v = __floats2half2_rn(x, y);
                w = *(unsigned *)&v;
            } else if (DT == DT_BF16) {
                __nv_bfloat162 v = __floats2bfloat162_rn(x, y);
                w = *(unsigned *)&v;
            } else if (DT == DT_TF32) {
                w = __float_as_uint(x);
            } else if (DT == DT_FP8) {
                w = hs[i] & 0x77777777u; /* e4m3 bytes with no NaN */
            } else {
                w = hs[i];
            }
            if (i < 4)
                a[i] = w;
            else
                b[i - 4] = w;
        }
        if (DT == DT_INT8) {
            int c[MMA_ACC][4];
#pragma unroll
            for (int j = 0; j < MMA_ACC; j++) c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0;
#pragma unroll 1
            for (int it = 0; it < iters; it++)
#pragma unroll
                for (int j = 0; j < MMA_ACC; j++)
                    asm volatile(
                        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                        "{%8,%9}, {%0,%1,%2,%3};"
                        : "+r"(c[j][0]), "+r"(c[j][1]), "+r"(c[j][2]), "+r"(c[j][3])
                        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#pragma unroll
            for (int j = 0; j < MMA_ACC; j++) sum += (float)(c[j][0] + c[j][1] + c[j][2] + c[j][3]);
        } else {
            float c[MMA_ACC][4];
#pragma unroll
            for (int j = 0; j < MMA_ACC; j++) c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0;
#pragma unroll 1
            for (int it = 0; it < iters; it++)
#pragma unroll
                for (int j = 0; j < MMA_ACC; j++) {
                    if (DT == DT_FP16)
                        asm volatile(
                            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                            "{%8,%9}, {%0,%1,%2,%3};"
                            : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
                    else if (DT == DT_BF16)
                        asm volatile(
                            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                            : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
                    else if (DT == DT_TF32)
                        asm volatile(
                            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                            : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
                    else
                        asm volatile(
                            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, "
                            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                            : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
                }
#pragma unroll
            for (int j = 0; j < MMA_ACC; j++) sum += c[j][0] + c[j][1] + c[j][2] + c[j][3];
        }
    }
    out[gid] = sum;
}

/* flops of one warp-wide mma instruction of each kernel above */
static double mma_flops(Dt d) {
    switch (d) {
        case DT_FP16:
        case DT_BF16: return 2.0 * 16 * 8 * 16;
        case DT_TF32: return 2.0 * 16 * 8 * 8;
        case DT_FP8:
        case DT_INT8: return 2.0 * 16 * 8 * 32;
        case DT_FP64: return 2.0 * 8 * 8 * 4;
    }
    return 0;
}

/* ------------------------------------------------------------------ cuBLASLt GEMM */

struct LtResult {
    double flops_per_s = 0; /* best over the algorithms tried: one call on an idle GPU (the figure kept) */
    double sustained_flops_per_s = 0; /* best over the algorithms, back-to-back calls after 0.5 s of load */
    double seconds = 0;
    int algo = -1, count = 0, algos_tried = 0;
    std::string note;
};

/* nn: both operands untransposed, as torch.mm(a, b) of row-major a (m x k) and
 * b (k x n) reaches cuBLAS (C^T = B^T A^T); else "TN", which FP8 and INT8 need */
static LtResult lt_gemm(cublasLtHandle_t lt, void *ws, size_t ws_bytes, Dt d, int m, int n, int k, bool nn) {
    LtResult r;
    cudaDataType_t ab, cd;
    cublasComputeType_t comp;
    cudaDataType_t scale;
    switch (d) {
        case DT_FP16: ab = CUDA_R_16F; cd = CUDA_R_16F; comp = CUBLAS_COMPUTE_32F; scale = CUDA_R_32F; break;
        case DT_BF16: ab = CUDA_R_16BF; cd = CUDA_R_16BF; comp = CUBLAS_COMPUTE_32F; scale = CUDA_R_32F; break;
        case DT_TF32: ab = CUDA_R_32F; cd = CUDA_R_32F; comp = CUBLAS_COMPUTE_32F_FAST_TF32; scale = CUDA_R_32F; break;
        case DT_FP8: ab = CUDA_R_8F_E4M3; cd = CUDA_R_16BF; comp = CUBLAS_COMPUTE_32F; scale = CUDA_R_32F; break;
        case DT_INT8: ab = CUDA_R_8I; cd = CUDA_R_32I; comp = CUBLAS_COMPUTE_32I; scale = CUDA_R_32I; break;
        default: ab = CUDA_R_64F; cd = CUDA_R_64F; comp = CUBLAS_COMPUTE_64F; scale = CUDA_R_64F; break;
    }
    size_t cd_bytes = d == DT_FP8 ? 2 : (d == DT_INT8 ? 4 : dt_bytes(d));
    void *A, *B, *C;
    CK(cudaMalloc(&A, (size_t)k * m * dt_bytes(d)));
    CK(cudaMalloc(&B, (size_t)k * n * dt_bytes(d)));
    CK(cudaMalloc(&C, (size_t)m * n * cd_bytes));
    fill_normal(A, (size_t)k * m, d, 11u);
    fill_normal(B, (size_t)k * n, d, 22u);
    CK(cudaMemset(C, 0, (size_t)m * n * cd_bytes));

    cublasLtMatmulDesc_t op;
    CKB(cublasLtMatmulDescCreate(&op, comp, scale));
    cublasOperation_t ta = nn ? CUBLAS_OP_N : CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    cublasLtMatrixLayout_t la, lb, lc;
    if (nn)
        CKB(cublasLtMatrixLayoutCreate(&la, ab, m, k, m));
    else
        CKB(cublasLtMatrixLayoutCreate(&la, ab, k, m, k));
    CKB(cublasLtMatrixLayoutCreate(&lb, ab, k, n, k));
    CKB(cublasLtMatrixLayoutCreate(&lc, cd, m, n, m));
    cublasLtMatmulPreference_t pref;
    CKB(cublasLtMatmulPreferenceCreate(&pref));
    CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                             sizeof ws_bytes));
    const int want_algos = g_quick ? 2 : 8;
    cublasLtMatmulHeuristicResult_t heur[8];
    int found = 0;
    cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, want_algos, heur, &found);
    if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
        r.note = "no cuBLASLt algorithm (status " + std::to_string((int)hs) + ")";
    } else {
        float af = 1.0f, bf = 0.0f;
        double ad = 1.0, bd = 0.0;
        int32_t ai = 1, bi = 0;
        const void *alpha = scale == CUDA_R_32F ? (const void *)&af : scale == CUDA_R_64F ? (const void *)&ad : (const void *)&ai;
        const void *beta = scale == CUDA_R_32F ? (const void *)&bf : scale == CUDA_R_64F ? (const void *)&bd : (const void *)&bi;
        double flops = 2.0 * m * n * k;
        std::string per_algo;
        int tried = 0;
        for (int a = 0; a < found; a++) {
            bool failed = false;
            auto call = [&]() {
                cublasStatus_t st = cublasLtMatmul(lt, op, alpha, A, la, B, lb, beta, C, lc, C, lc, &heur[a].algo,
                                                   ws, ws_bytes, 0);
                if (st != CUBLAS_STATUS_SUCCESS) failed = true;
            };
            /* the first algorithm: 0.5 s of this very GEMM first, so clocks
             * and power settle at what a sustained run gets */
            double settle = a == 0 ? (g_quick ? 0.05 : 0.5) : 0.0;
            auto w0 = std::chrono::steady_clock::now();
            do {
                for (int i = 0; i < 3; i++) call();
                CK(cudaDeviceSynchronize());
            } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count() < settle);
            if (failed) {
                per_algo += (per_algo.empty() ? "" : ", ") + std::string("#") + std::to_string(a) + " failed";
                continue;
            }
            double est = time_back_to_back(call, 2, 1);
            double window = g_quick ? 0.01 : 0.05;
            int count = (int)std::max(3.0, std::min(400.0, std::ceil(window / std::max(est, 1e-7))));
            double t = time_back_to_back(call, count, 3);
            if (failed || !(t > 0)) continue;
            /* one call on an idle GPU, as a framework's single call and
             * simtd's default GEMM question: a sleep kernel before each call
             * (clocks back from the sustained run's power limit), median */
            double single = time_median(call, 2, g_quick ? 3 : 9);
            if (failed || !(single > 0)) continue;
            tried++;
            double rate = flops / single;
            double sustained = flops / t;
            per_algo += (per_algo.empty() ? "" : ", ") + std::string("#") + std::to_string(a) + " " + num(rate) +
                        " single / " + num(sustained) + " sustained";
            if (sustained > r.sustained_flops_per_s)
                r.sustained_flops_per_s = sustained;
            if (rate > r.flops_per_s) {
                r.flops_per_s = rate;
                r.seconds = single;
                r.algo = a;
                r.count = count;
            }
        }
        r.algos_tried = tried;
        r.note = "cuBLASLt " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 (nn ? " NN" : " TN") + ", workspace " + std::to_string(ws_bytes >> 20) + " MiB, " + std::to_string(found) +
                 " heuristic algorithms (flop/s: " + per_algo + "); best #" + std::to_string(r.algo) + ": " +
                 num(r.seconds) + " s, one call after a sleep kernel (median of 9); best sustained " +
                 num(r.sustained_flops_per_s) + " flop/s over back-to-back calls";
    }
    CKB(cublasLtMatmulPreferenceDestroy(pref));
    CKB(cublasLtMatrixLayoutDestroy(la));
    CKB(cublasLtMatrixLayoutDestroy(lb));
    CKB(cublasLtMatrixLayoutDestroy(lc));
    CKB(cublasLtMatmulDescDestroy(op));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    return r;
}

/* ------------------------------------------------------------------ launch overhead, residency */


__device__ inline unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}
__device__ inline unsigned long long gtimer() {
    unsigned long long r;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
    return r;
}

/* every block counts itself in on its SM, keeps the high-water mark, stays
 * `spin_ns`, and counts itself out */
__global__ void k_resident(unsigned *cur, unsigned *high, unsigned long long spin_ns) {
    if (threadIdx.x == 0) {
        unsigned sm = smid();
        unsigned c = atomicAdd(&cur[sm], 1u) + 1u;
        atomicMax(&high[sm], c);
        unsigned long long t0 = gtimer();
        while (gtimer() - t0 < spin_ns) {
        }
        atomicSub(&cur[sm], 1u);
    }
    __syncthreads();
}

/* the same, holding 120 floats live in registers across the wait */
#define NREG 120
__global__ void k_resident_regs(unsigned *cur, unsigned *high, unsigned long long spin_ns, float *out) {
    float r[NREG];
#pragma unroll
    for (int i = 0; i < NREG; i++) r[i] = threadIdx.x * 0.5f + i;
    if (threadIdx.x == 0) {
        unsigned sm = smid();
        unsigned c = atomicAdd(&cur[sm], 1u) + 1u;
        atomicMax(&high[sm], c);
        unsigned long long t0 = gtimer();
        while (gtimer() - t0 < spin_ns) {
#pragma unroll
            for (int i = 0; i < NREG; i++) asm volatile("" : "+f"(r[i]));
        }
        atomicSub(&cur[sm], 1u);
    }
    __syncthreads();
    float s = 0;
#pragma unroll
    for (int i = 0; i < NREG; i++) {
        asm volatile("" : "+f"(r[i]));
        s += r[i];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    const char *yaml_path = "calibrate.yaml", *json_path = "calibrate.json";
    int dev = 0;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--yaml") && i + 1 < argc)
            yaml_path = argv[++i];
        else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
            dev = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--quick"))
            g_quick = true;
        else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::printf("usage: %s [--yaml FILE] [--json FILE] [--device N] [--quick]\n"
                        "Measures the GPU it runs on and writes a `measured:` section for its simtd\n"
                        "hardware-database file to FILE (default calibrate.yaml) and the same figures\n"
                        "with their evidence as JSON (default calibrate.json); progress goes to stdout.\n"
                        "  --device N  the CUDA device to measure [0]\n"
                        "  --quick     fewer repeats, for a smoke test\n",
                        argv[0]);
            return 0;
        } else {
            std::fprintf(stderr, "usage: %s [--yaml FILE] [--json FILE] [--device N] [--quick]\n", argv[0]);
            return 1;
        }
    }
    auto wall0 = std::chrono::steady_clock::now();
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    const int sms = prop.multiProcessorCount;
    int rt = 0, drv_api = 0;
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDriverGetVersion(&drv_api));
    Nvml nvml;
    nvml.open(dev);
    std::string driver = nvml.driver != "unknown" ? nvml.driver : driver_from_proc();
    unsigned sm_mhz_before = nvml.clock_mhz(1), mem_mhz_before = nvml.clock_mhz(2);
    std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    progress("simt-calibrate: %s (cc %d.%d, %d SMs, L2 %d B), driver %s, CUDA runtime %d", prop.name,
             prop.major, prop.minor, sms, prop.l2CacheSize, driver.c_str(), rt);
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    Out out;
    auto detail = [&](const std::string &k, double v) { out.details.push_back({k, num(v)}); };
    auto detail_s = [&](const std::string &k, const std::string &v) { out.details.push_back({k, quoted(v)}); };

    /* --- a second of FMA load first, so the clocks leave their idle state */
    {
        float *warm;
        CK(cudaMalloc(&warm, sizeof(float) * 256 * 8 * sms));
        auto w0 = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count() < (g_quick ? 0.2 : 1.0)) {
            k_fp32<<<sms * 8, 256>>>(warm, 256, 0.9999f, 0.5f);
            CK_LAUNCH();
            CK(cudaDeviceSynchronize());
        }
        CK(cudaFree(warm));
    }
    /* --- clock */
    double clk = sm_clock_hz(sms);
    progress("[1/9] SM clock under load: %.0f MHz (clock64 over %%globaltimer)", clk / 1e6);

    /* --- bandwidth */
    const size_t big = g_quick ? (size_t)512 << 20 : (size_t)2 << 30;
    uint4 *a, *b;
    unsigned *scratch;
    CK(cudaMalloc(&a, big));
    CK(cudaMalloc(&b, big));
    CK(cudaMalloc(&scratch, 64 << 20));
    fill(a, big / 4, DT_RAW32, 1u);
    fill(b, big / 4, DT_RAW32, 2u);
    const size_t n16 = big / 16;
    const int bw_blocks = sms * 8, bw_threads = 256;
    const int reps = g_quick ? 3 : 10;
    double t_read = time_median([&] { k_read<<<bw_blocks, bw_threads>>>(a, n16, scratch, 0xdeadbeefu); }, 3, reps);
    double t_write = time_median([&] { k_write<<<bw_blocks, bw_threads>>>(b, n16, 0x01020304u); }, 3, reps);
    double t_copy = time_median([&] { k_copy<<<bw_blocks, bw_threads>>>(b, a, n16); }, 3, reps);
    /* the same three as one element a thread; each figure is the faster form */
    const unsigned flat_blocks = (unsigned)((n16 + 255) / 256);
    double t_read_flat =
        time_median([&] { k_read_flat<<<flat_blocks, 256>>>(a, n16, scratch, 0xdeadbeefu); }, 3, reps);
    double t_write_flat = time_median([&] { k_write_flat<<<flat_blocks, 256>>>(b, n16, 0x01020304u); }, 3, reps);
    double t_copy_flat = time_median([&] { k_copy_flat<<<flat_blocks, 256>>>(b, a, n16); }, 3, reps);
    detail("dram_read_grid_stride_bytes_per_s", big / t_read);
    detail("dram_write_grid_stride_bytes_per_s", big / t_write);
    detail("dram_copy_grid_stride_bytes_per_s", 2.0 * big / t_copy);
    detail("dram_read_flat_bytes_per_s", big / t_read_flat);
    detail("dram_write_flat_bytes_per_s", big / t_write_flat);
    detail("dram_copy_flat_bytes_per_s", 2.0 * big / t_copy_flat);
    t_read = std::min(t_read, t_read_flat);
    t_write = std::min(t_write, t_write_flat);
    t_copy = std::min(t_copy, t_copy_flat);
    double dram_read = big / t_read, dram_write = big / t_write, dram_copy = 2.0 * big / t_copy;
    progress("[2/9] DRAM bandwidth over %zu MiB: read %.3g, write %.3g, copy %.3g B/s (copy counts read + write; "
             "each the faster of a grid-stride loop and one element a thread)",
             big >> 20, dram_read, dram_write, dram_copy);
    detail("dram_read_bytes_per_s", dram_read);
    detail("dram_write_bytes_per_s", dram_write);
    detail("dram_copy_bytes_per_s", dram_copy);
    detail("dram_buffer_bytes", (double)big);

    const size_t l2buf = (size_t)16 << 20;
    const int passes = 64;
    const size_t l2n = l2buf / 16;
    double t_l2r = time_median([&] { k_l2_read<<<bw_blocks, bw_threads>>>(a, l2n, passes, scratch, 0xdeadbeefu); }, 3, reps);
    double t_l2w = time_median([&] { k_l2_write<<<bw_blocks, bw_threads>>>(b, l2n, passes, 0x0badf00du); }, 3, reps);
    double l2_read = (double)l2buf * passes / t_l2r, l2_write = (double)l2buf * passes / t_l2w;
    progress("[3/9] L2 bandwidth (%zu MiB buffer, %d passes, ld/st .cg): read %.3g, write %.3g B/s", l2buf >> 20,
             passes, l2_read, l2_write);
    detail("l2_read_bytes_per_s", l2_read);
    detail("l2_write_bytes_per_s", l2_write);
    detail("l2_buffer_bytes", (double)l2buf);

    /* L2 requests: random 4-byte reads and stores over 8 MiB (resident: the
     * untimed calls bring it in), 64 a thread at full occupancy */
    const unsigned rnd_words = (8u << 20) / 4;
    const int rnd_iters = 64;
    const double rnd_accesses = (double)bw_blocks * bw_threads * rnd_iters;
    unsigned *rbuf = (unsigned *)b;
    double t_rr = time_median([&] { k_l2_random<<<bw_blocks, bw_threads>>>(rbuf, rnd_words - 1, rnd_iters, 0x5eedu, 0, scratch); }, 3, reps);
    double t_rw = time_median([&] { k_l2_random<<<bw_blocks, bw_threads>>>(rbuf, rnd_words - 1, rnd_iters, 0x5eedu, 1, scratch); }, 3, reps);
    double l2_requests = rnd_accesses / t_rr, l2_random_stores = rnd_accesses / t_rw;
    progress("[3/9] L2 requests (random 4-byte accesses over 8 MiB, .cg): reads %.3g/s, stores %.3g/s (ratio %.2f)",
             l2_requests, l2_random_stores, l2_requests / l2_random_stores);
    detail("l2_random_reads_per_s", l2_requests);
    detail("l2_random_stores_per_s", l2_random_stores);

    /* --- DRAM row activations: 2^22 8-byte reads a launch, spaced 128 B to
     * 2 KiB apart over a fresh region (4 launches back to back between two
     * events, so the launch overhead hides behind the work). At 1 KiB, the
     * row of an HBM pseudo-channel, no two reads share a row: reads per
     * second are row activations per second, the figure. The other spacings
     * are evidence of where reads stop sharing rows: if 256 and 512 B reach
     * the 1 KiB rate, a row holds no more than 256 contiguous bytes of the
     * address space before the map moves to another channel (NVIDIA's
     * transpose paper gives 256-byte memory partitions). */
    double row_rate = 0.0, partial_store_rate = 0.0;
    {
        const long long reads = g_quick ? (1ll << 20) : (1ll << 22);
        const int block = 256;
        const int spacings[] = {128, 256, 512, 1024, 2048};
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b));
        size_t region = 0;
        for (int sp : spacings)
            if ((size_t)reads * sp <= free_b / 2) region = std::max(region, (size_t)reads * sp);
        unsigned long long *rows = nullptr;
        if (region > 0) CK(cudaMalloc(&rows, region));
        std::string line;
        for (int sp : spacings) {
            if ((size_t)reads * sp > region) continue;
            unsigned grid = (unsigned)(reads / 4 / block);
            long long step = sp / 8;
            double t = time_median(
                [&] {
                    for (int l = 0; l < 4; l++)
                        k_sparse<<<grid, block>>>(rows, step, scratch, 0x5a5a5a5a5a5a5a5aull);
                },
                2, reps);
            double rate = 4.0 * (double)reads / t;
            char key[64];
            std::snprintf(key, sizeof key, "dram_reads_%dB_apart_per_s", sp);
            detail(key, rate);
            char part[64];
            std::snprintf(part, sizeof part, "%s%d B %.3g", line.empty() ? "" : ", ", sp, rate);
            line += part;
            if (sp == 1024) row_rate = rate;
        }
        progress("[3/9] DRAM reads per second, 8-byte reads spaced: %s (1 KiB: row activations)", line.c_str());
        /* The same spacings as 4-byte stores, each a read-modify-write of
         * its sector once L2 evicts it. Stores the last launch leaves dirty
         * in L2 are not yet in DRAM when the events close, so the figure is
         * the steady state: (8 launches - 4 launches) / 4 launches' stores
         * (the 4 extra launches evict as many lines as they leave). */
        line.clear();
        for (int sp : {256, 1024}) {
            if ((size_t)reads * sp > region) continue;
            unsigned grid = (unsigned)(reads / 4 / block);
            long long step = sp / 4;
            auto launches = [&](int count) {
                return time_median(
                    [&] {
                        for (int l = 0; l < count; l++)
                            k_sparse_store<<<grid, block>>>((unsigned *)rows, step, 0x5a5a5a5au + (unsigned)l);
                    },
                    2, reps);
            };
            double t4 = launches(4), t8 = launches(8);
            double rate = t8 > t4 ? 4.0 * (double)reads / (t8 - t4) : 0.0;
            char key[64];
            std::snprintf(key, sizeof key, "dram_partial_stores_%dB_apart_per_s", sp);
            detail(key, rate);
            char part[96];
            std::snprintf(part, sizeof part, "%s%d B %.3g (4 launches %.3g s, 8 launches %.3g s)",
                          line.empty() ? "" : ", ", sp, rate, t4, t8);
            line += part;
            if (sp == 1024) partial_store_rate = rate;
        }
        if (rows) CK(cudaFree(rows));
        progress("[3/9] DRAM read-modify-writes per second, 4-byte stores spaced: %s (1 KiB: one row each)",
                 line.c_str());
    }

    /* --- latency */
    unsigned long long *res, hres[2];
    CK(cudaMalloc(&res, 16));
    std::mt19937_64 rng(20241127);
    auto chase = [&](unsigned long long *base, std::vector<unsigned long long> idx, int cg, int prime, int hops,
                     const std::function<void()> &before) -> double {
        unsigned long long *d_idx;
        CK(cudaMalloc(&d_idx, idx.size() * 8));
        CK(cudaMemcpy(d_idx, idx.data(), idx.size() * 8, cudaMemcpyHostToDevice));
        k_link<<<(unsigned)((idx.size() + 255) / 256), 256>>>(base, d_idx, (int)idx.size());
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        CK(cudaFree(d_idx));
        std::vector<double> v;
        for (int r = 0; r < 5; r++) {
            if (before) before();
            if (cg)
                k_chase<1><<<1, 1>>>((unsigned long long)(base + idx[0]), prime, hops, res);
            else
                k_chase<0><<<1, 1>>>((unsigned long long)(base + idx[0]), prime, hops, res);
            CK_LAUNCH();
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(hres, res, 16, cudaMemcpyDeviceToHost));
            v.push_back((double)hres[0] / hops);
        }
        return median(v);
    };
    auto random_lines = [&](size_t region_lines, size_t count, size_t line_elems,
                            const std::function<bool(size_t)> &allowed) {
        std::vector<unsigned long long> lines;
        if (count >= region_lines) {
            for (size_t i = 0; i < region_lines; i++)
                if (allowed(i)) lines.push_back(i * line_elems);
            std::shuffle(lines.begin(), lines.end(), rng);
        } else {
            std::vector<char> used(region_lines, 0);
            std::uniform_int_distribution<size_t> u(0, region_lines - 1);
            while (lines.size() < count) {
                size_t l = u(rng);
                if (used[l] || !allowed(l)) continue;
                used[l] = 1;
                lines.push_back(l * line_elems);
            }
        }
        return lines;
    };
    auto all = [](size_t) { return true; };
    /* L1: 16 KiB, 128 lines of 128 bytes in random order, primed by two rounds */
    double l1_lat = chase((unsigned long long *)b, random_lines(128, 128, 16, all), 0, 256, 4096, nullptr);
    /* L2: 8 MiB, 65536 lines, primed by one round of .cg loads (L1 skipped) */
    double l2_lat = chase((unsigned long long *)b, random_lines(65536, 65536, 16, all), 1, 65536, 16384, nullptr);
    /* DRAM: 16384 untouched lines scattered over 256 MiB; before each chase L2 is
     * flushed (a copy through the other 2 GiB buffer region) and the TLB warmed
     * by one load at the head of every 2 MiB page, which the chain avoids */
    const size_t region = g_quick ? (size_t)128 << 20 : (size_t)256 << 20;
    const size_t page_elems = ((size_t)2 << 20) / 8;
    auto not_page_head = [&](size_t line) { return (line * 16) % page_elems >= 512; };
    unsigned long long *dram_base = (unsigned long long *)a;
    auto flush_and_warm = [&]() {
        k_copy<<<bw_blocks, bw_threads>>>(b, b + n16 / 2, n16 / 2);
        CK_LAUNCH();
        size_t pages = region / ((size_t)2 << 20);
        k_touch<<<(unsigned)((pages + 255) / 256), 256>>>(dram_base, page_elems, pages, (unsigned long long *)scratch);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
    };
    double dram_lat = chase(dram_base, random_lines(region / 128, 16384, 16, not_page_head), 1, 0, 8192, flush_and_warm);
    /* refill: the chain overwrote part of buffer a */
    fill(a, big / 4, DT_RAW32, 1u);
    k_shared_chase<<<1, 1>>>(4096, res);
    CK_LAUNCH();
    std::vector<double> sv;
    for (int r = 0; r < 5; r++) {
        k_shared_chase<<<1, 1>>>(4096, res);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hres, res, 16, cudaMemcpyDeviceToHost));
        sv.push_back((double)hres[0] / 4096);
    }
    double shared_lat = median(sv);
    double fma_lat = fma_chain_cycles<float>(res, hres, scratch);
    double dfma_lat = fma_chain_cycles<double>(res, hres, scratch);
    detail("fp64_fma_latency_cycles", dfma_lat);
    progress("[4/9] latency (cycles per dependent load): shared %.1f, L1 %.1f, L2 %.1f, DRAM %.1f; FMA %.2f, "
             "FP64 FMA %.2f",
             shared_lat, l1_lat, l2_lat, dram_lat, fma_lat, dfma_lat);

    /* --- arithmetic throughput */
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)k_fp32, 256, 0));
    int tgrid = sms * occ;
    const int it32 = g_quick ? 128 : 512, it64 = g_quick ? 64 : 256, itsfu = g_quick ? 24 : 96;
    double t32 = time_median([&] { k_fp32<<<tgrid, 256>>>((float *)scratch, it32, 0.9999f, 0.5f); }, 3, reps);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)k_fp64, 256, 0));
    int tgrid64 = sms * occ;
    double t64 = time_median([&] { k_fp64<<<tgrid64, 256>>>((double *)scratch, it64, 0.9999, 0.5); }, 3, reps);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)k_sfu, 256, 0));
    int tgrids = sms * occ;
    double tsfu = time_median([&] { k_sfu<<<tgrids, 256>>>((float *)scratch, itsfu); }, 3, reps);
    double fp32_rate = 2.0 * it32 * 8 * CHAINS * (double)tgrid * 256 / t32;
    double fp64_rate = 2.0 * it64 * 8 * CHAINS * (double)tgrid64 * 256 / t64;
    double sfu_rate = (double)itsfu * 8 * CHAINS * (double)tgrids * 256 / tsfu;
    progress("[5/9] FP32 %.4g flop/s, FP64 %.4g flop/s, SFU (rsqrt) %.4g op/s", fp32_rate, fp64_rate, sfu_rate);

    /* --- tensor cores: cuBLASLt, then our own mma.sync loop */
    cublasLtHandle_t lt;
    CKB(cublasLtCreate(&lt));
    size_t ws_bytes = (size_t)64 << 20; /* 64 MiB: what frameworks give cuBLAS on Hopper and more */
    void *ws;
    CK(cudaMalloc(&ws, ws_bytes));
    struct Size {
        int m, n, k;
    };
    const std::vector<Size> sizes_quick = {{4096, 4096, 4096}};
    const std::vector<Size> sizes_all = {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 8192}};
    for (Dt d : {DT_FP16, DT_BF16, DT_TF32, DT_FP8, DT_INT8, DT_FP64}) {
        double best = 0, best_sustained = 0;
        std::string best_at;
        for (const Size &z : g_quick ? sizes_quick : sizes_all)
          for (int nn = 0; nn < (d == DT_FP8 || d == DT_INT8 ? 1 : 2); nn++) {
            if (d == DT_FP64 && z.m > 8192) continue; /* 16384x16384x8192 fp64: 70 ms a call */
            LtResult r = lt_gemm(lt, ws, ws_bytes, d, z.m, z.n, z.k, nn != 0);
            std::string tag = std::to_string(z.m) + "x" + std::to_string(z.n) + "x" + std::to_string(z.k) +
                              (nn ? "_nn" : "");
            detail_s(std::string("cublaslt_") + dt_name[d] + "_" + tag, r.note);
            detail(std::string("cublaslt_") + dt_name[d] + "_" + tag + "_flops_per_s", r.flops_per_s);
            detail(std::string("cublaslt_") + dt_name[d] + "_" + tag + "_sustained_flops_per_s",
                   r.sustained_flops_per_s);
            progress("[6/9] cuBLASLt %-5s %-17s %.4g flop/s  (%s)", dt_name[d], tag.c_str(), r.flops_per_s,
                     r.note.c_str());
            if (r.flops_per_s > best) {
                best = r.flops_per_s;
                best_at = tag;
            }
            best_sustained = std::max(best_sustained, r.sustained_flops_per_s);
          }
        out.tensor.push_back({dt_name[d], best});
        detail(std::string("cublaslt_") + dt_name[d] + "_best_sustained_flops_per_s", best_sustained);
        detail_s(std::string("cublaslt_") + dt_name[d] + "_best_at", best_at);
    }
    CKB(cublasLtDestroy(lt));
    CK(cudaFree(ws));
    {
        const int mma_blocks = sms * 8, mma_threads = 128, mma_iters = g_quick ? 512 : 4096;
        double warps = (double)mma_blocks * mma_threads / 32;
        for (Dt d : {DT_FP16, DT_BF16, DT_TF32, DT_FP8, DT_INT8, DT_FP64}) {
            auto launch = [&]() {
                switch (d) {
                    case DT_FP16: k_mma<DT_FP16><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                    case DT_BF16: k_mma<DT_BF16><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                    case DT_TF32: k_mma<DT_TF32><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                    case DT_FP8: k_mma<DT_FP8><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                    case DT_INT8: k_mma<DT_INT8><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                    case DT_FP64: k_mma<DT_FP64><<<mma_blocks, mma_threads>>>((float *)scratch, mma_iters, 5u); break;
                }
            };
            double t = time_median(launch, 2, reps);
            double rate = warps * mma_iters * MMA_ACC * mma_flops(d) / t;
            detail(std::string("mma_sync_") + dt_name[d] + "_flops_per_s", rate);
            progress("[7/9] own mma.sync loop %-5s %.4g flop/s", dt_name[d], rate);
        }
    }

    /* --- launch overhead. Three figures: (a) one empty kernel alone
     * between events right after a sleep kernel (GPU time of a launch the
     * host queued in time: what an event pair around one kernel shows when
     * the GPU never waits for the CPU) -- this is launch_overhead_s; (b)
     * the per-launch time of many back-to-back empty kernels (the GPU's
     * launch rate); (c) an event pair around one launch with no sleep
     * before (includes the host's submission, the old record's figure). */
    std::vector<double> lsamples, lsleep;
    for (int i = 0; i < 100 + (g_quick ? 100 : 1000); i++) {
        CK(cudaEventRecord(g_e0));
        k_empty<<<1, 32>>>();
        CK_LAUNCH();
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        if (i >= 100) lsamples.push_back(ms * 1e-3);
    }
    std::sort(lsamples.begin(), lsamples.end());
    double launch_no_sleep = median(lsamples);
    for (int i = 0; i < 20 + (g_quick ? 50 : 500); i++) {
        g_start.begin();
        CK(cudaEventRecord(g_e0));
        k_empty<<<1, 32>>>();
        CK_LAUNCH();
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        if (i >= 20) lsleep.push_back(ms * 1e-3);
    }
    std::sort(lsleep.begin(), lsleep.end());
    double launch_single = median(lsleep);
    detail("launch_after_sleep_p10_s", lsleep[lsleep.size() / 10]);
    detail("launch_after_sleep_p90_s", lsleep[lsleep.size() * 9 / 10]);
    detail("launch_event_timed_p10_s", lsamples[lsamples.size() / 10]);
    detail("launch_event_timed_p90_s", lsamples[lsamples.size() * 9 / 10]);
    CK(cudaDeviceSynchronize());
    const int burst = 2000;
    double burst_s = time_back_to_back([] { k_empty<<<1, 32>>>(); }, burst, 5);
    std::vector<double> rtt;
    for (int i = 0; i < 1000; i++) {
        auto t0 = std::chrono::steady_clock::now();
        k_empty<<<1, 32>>>();
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        rtt.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    double launch_rtt = median(rtt);
    /* (d) the GPU's own interval between back-to-back launches: 20 empty
     * kernels, few enough that the host queues them all within the sleep
     * kernel before them (the 2000 above outrun the host) */
    double launch_interval = time_back_to_back([] { k_empty<<<1, 32>>>(); }, 20, g_quick ? 5 : 21);
    detail("launch_back_to_back_queued_s", launch_interval);
    progress("[8/9] launch: %.3g s one empty kernel after a sleep kernel (kept), %.3g s per launch back to back, "
             "%.3g s event pair with no sleep before, %.3g s host round trip, %.3g s per launch of 20 queued",
             launch_single, burst_s, launch_no_sleep, launch_rtt, launch_interval);
    detail("launch_after_sleep_s", launch_single);
    detail("launch_event_timed_s", launch_no_sleep);
    detail("launch_back_to_back_s", burst_s);
    detail("launch_host_round_trip_s", launch_rtt);

    /* --- residency probe */
    unsigned *cur, *high;
    CK(cudaMalloc(&cur, 4096 * 4));
    CK(cudaMalloc(&high, 4096 * 4));
    CK(cudaFuncSetAttribute((const void *)k_resident, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)prop.sharedMemPerBlockOptin));
    cudaFuncAttributes fa_plain, fa_regs;
    CK(cudaFuncGetAttributes(&fa_plain, (const void *)k_resident));
    CK(cudaFuncGetAttributes(&fa_regs, (const void *)k_resident_regs));
    struct Shape {
        int regs_kernel;
        int block;
        int dyn;
    } shapes[] = {{0, 1024, 0}, {0, 256, 0},        {0, 96, 0},           {0, 32, 0},  {0, 256, 48 * 1024},
                  {0, 128, 100 * 1024}, {0, 64, 20 * 1024}, {0, 512, 60 * 1024}, {1, 256, 0}, {1, 128, 0},
                  {1, 384, 0}};
    bool all_match = true;
    for (const Shape &s : shapes) {
        const void *fn = s.regs_kernel ? (const void *)k_resident_regs : (const void *)k_resident;
        int expect = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&expect, fn, s.block, s.dyn));
        int regs = s.regs_kernel ? fa_regs.numRegs : fa_plain.numRegs;
        if (expect < 1) {
            progress("[9/9] residency: block %4d, %3d regs, dyn smem %6d: cannot launch (occupancy 0), skipped",
                     s.block, regs, s.dyn);
            continue;
        }
        CK(cudaMemset(cur, 0, 4096 * 4));
        CK(cudaMemset(high, 0, 4096 * 4));
        unsigned grid = (unsigned)(2 * expect * sms);
        unsigned long long spin = 200000; /* 200 us */
        if (s.regs_kernel)
            k_resident_regs<<<grid, s.block>>>(cur, high, spin, (float *)scratch);
        else
            k_resident<<<grid, s.block, s.dyn>>>(cur, high, spin);
        CK_LAUNCH();
        CK(cudaDeviceSynchronize());
        std::vector<unsigned> h(4096);
        CK(cudaMemcpy(h.data(), high, 4096 * 4, cudaMemcpyDeviceToHost));
        /* %smid need not be contiguous: look at every slot, count the SMs seen */
        unsigned mx = 0, mn = ~0u, seen = 0;
        for (int i = 0; i < 4096; i++) {
            if (!h[i]) continue;
            seen++;
            mx = std::max(mx, h[i]);
            mn = std::min(mn, h[i]);
        }
        if (!seen) mn = 0;
        bool match = (int)mx == expect && (int)mn == expect && (int)seen == sms;
        all_match = all_match && match;
        char b[512];
        std::snprintf(b, sizeof b,
                      "{\"kernel\": \"%s\", \"block_size\": %d, \"registers_per_thread\": %d, "
                      "\"static_shared_bytes\": %zu, \"dynamic_shared_bytes\": %d, \"grid\": %u, "
                      "\"expected_blocks_per_sm\": %d, \"observed_max_blocks_per_sm\": %u, "
                      "\"observed_min_blocks_per_sm\": %u, \"sms_seen\": %u, \"match\": %s}",
                      s.regs_kernel ? "k_resident_regs" : "k_resident", s.block, regs,
                      s.regs_kernel ? fa_regs.sharedSizeBytes : fa_plain.sharedSizeBytes, s.dyn, grid, expect, mx,
                      mn, seen, match ? "true" : "false");
        out.residency.push_back(b);
        progress("[9/9] residency: block %4d, %3d regs, dyn smem %6d: expected %2d, observed %u..%u per SM on %u SMs %s",
                 s.block, regs, s.dyn, expect, mn, mx, seen, match ? "ok" : "MISMATCH");
    }
    detail("residency_all_match", all_match ? 1 : 0);
    unsigned sm_mhz_after = nvml.clock_mhz(1), mem_mhz_after = nvml.clock_mhz(2);
    double clk_end = sm_clock_hz(sms);
    detail("sm_clock_under_load_hz_start", clk);
    detail("sm_clock_under_load_hz_end", clk_end);
    detail("nvml_sm_clock_mhz_before", sm_mhz_before);
    detail("nvml_mem_clock_mhz_before", mem_mhz_before);
    detail("nvml_sm_clock_mhz_after", sm_mhz_after);
    detail("nvml_mem_clock_mhz_after", mem_mhz_after);
    detail("nvml_max_sm_clock_mhz", nvml.max_clock_mhz(1));
    detail("nvml_max_mem_clock_mhz", nvml.max_clock_mhz(2));
    detail("sm_count", sms);
    detail("l2_bytes", prop.l2CacheSize);
    detail("cuda_runtime_version", rt);
    detail("cuda_driver_api_version", drv_api);
    detail("fp32_grid_blocks", tgrid);

    /* --- the measured: section */
    const std::string method =
        "simt-calibrate (simtd clients/calibrate; kernels shared with tests/gpu through kernels.cuh): GPU time "
        "without CPU gaps: every timed region starts with a sleep kernel (100 us on %globaltimer) so the host "
        "has queued the events and the work before the GPU reaches them; CUDA events; warm-up, then median of "
        "repeats; random data. "
        "DRAM: read/write/copy of 2 GiB buffers with 16-byte accesses, one launch between events, each the faster of "
        "a grid-stride loop (8 blocks an SM, 4 accesses in flight a thread) and one element a thread; "
        "dram_bandwidth is the highest of the three (copy counts bytes read plus written). DRAM rows: 8-byte "
        "reads 1 KiB apart, 2^22 a launch, 4 independent per thread, 4 launches back to back; reads per second. "
        "DRAM read-modify-writes: 4-byte stores 1 KiB apart, 2^22 a launch, (8 launches - 4 launches) over 4 "
        "launches' stores (the steady state: what L2 still holds dirty at the end cancels); stores per second. "
        "L2: 16 MiB buffer read 64 times with ld.global.cg. "
        "Latency: one thread chasing pointers, cycles by clock64 per dependent load: shared (ld.shared), "
        "L1 (16 KiB primed, ld.ca), L2 (8 MiB primed, ld.cg), DRAM (untouched lines over 256 MiB after an L2 "
        "flush, TLB warmed). FMA latency: dependent fma.rn.f32 and fma.rn.f64 chains. FP32/FP64/SFU: 8 independent FMA "
        "(rsqrt.approx for SFU) chains per thread at full occupancy; an FMA counts 2 flops. Tensor: cuBLASLt "
        "matmul TN (fp16/bf16 in and out with fp32 accumulate, tf32, fp8 e4m3 in and bf16 out, int8 in and "
        "int32 out, fp64) at 4096^3, 8192^3 and 16384x16384x8192 (fp64: the first two), 64 MiB workspace, "
        "the heuristic's top 8 algorithms each timed as one call right after a sleep kernel (median of 9, the "
        "way a framework's single call runs and simtd's GEMM answers by default) and as back-to-back calls "
        "over a 50 ms window after 0.5 s of that GEMM (kept in the details: sustained, power-limited); the "
        "figure is the best single-call rate over sizes and algorithms. Launch: median of 500 event pairs around one empty kernel right after a sleep "
        "kernel (the GPU's own cost of a launch the host queued in time); details also keep the per-launch "
        "time of 2000 back-to-back empty kernels and an event pair with no sleep before; launch_interval: "
        "the per-launch time of 20 empty kernels queued behind a sleep kernel (median of 21 windows). L2 "
        "write: the 16 MiB buffer written 64 times with st.global.cg. L2 requests: random 4-byte ld.global.cg "
        "over an 8 MiB buffer, 64 a thread at full occupancy, reads per second (details: the same with "
        "stores). "
        "Clock: clock64 over globaltimer under an FMA load. One second of FMA load before anything. Clocks and "
        "settings left as found.";
    double dram_bw = std::max(dram_read, std::max(dram_write, dram_copy));
    out.measured = {{"dram_bandwidth_bytes_per_s", num(dram_bw)},
                    {"l2_bandwidth_bytes_per_s", num(l2_read)},
                    {"dram_latency_cycles", num(dram_lat)},
                    {"l2_latency_cycles", num(l2_lat)},
                    {"l1_latency_cycles", num(l1_lat)},
                    {"shared_latency_cycles", num(shared_lat)},
                    {"fma_latency_cycles", num(fma_lat)},
                    {"fp64_fma_latency_cycles", num(dfma_lat)},
                    {"fp32_flops_per_s", num(fp32_rate)},
                    {"fp64_flops_per_s", num(fp64_rate)},
                    {"sfu_ops_per_s", num(sfu_rate)},
                    {"launch_overhead_s", num(launch_single)},
                    {"clock_hz", num(clk)},
                    {"dram_write_bandwidth_bytes_per_s", num(dram_write)},
                    {"dram_copy_bandwidth_bytes_per_s", num(dram_copy)},
                    {"l2_write_bandwidth_bytes_per_s", num(l2_write)},
                    {"l2_requests_per_s", num(l2_requests)},
                    {"launch_interval_s", num(launch_interval)},
                    {"method", quoted(method)},
                    {"date", quoted(date)},
                    {"device", quoted(prop.name)},
                    {"driver", quoted(driver)}};

    if (row_rate > 0.0) { /* not measured when the card lacks the memory for the 4 GiB region */
        auto at = std::find_if(out.measured.begin(), out.measured.end(),
                               [](const std::pair<std::string, std::string> &m) { return m.first == "method"; });
        out.measured.insert(at, {"dram_row_activations_per_s", num(row_rate)});
    }
    if (partial_store_rate > 0.0) {
        auto at = std::find_if(out.measured.begin(), out.measured.end(),
                               [](const std::pair<std::string, std::string> &m) { return m.first == "method"; });
        out.measured.insert(at, {"dram_partial_stores_per_s", num(partial_store_rate)});
    }

    FILE *y = std::fopen(yaml_path, "w");
    if (!y) {
        std::perror(yaml_path);
        return 1;
    }
    std::fprintf(y, "# simt-calibrate output for %s, %s. Paste `measured:` into the GPU's hwdb file;\n"
                    "# `details:` and `residency_probe:` are evidence, not database fields.\n",
                 prop.name, date);
    std::fprintf(y, "measured:\n");
    for (size_t i = 0; i < out.measured.size(); i++) {
        std::fprintf(y, "  %s: %s\n", out.measured[i].first.c_str(), out.measured[i].second.c_str());
        if (out.measured[i].first == "sfu_ops_per_s") {
            std::fprintf(y, "  tensor_flops_per_s:\n");
            for (auto &t : out.tensor) std::fprintf(y, "    %s: %s\n", t.first.c_str(), num(t.second).c_str());
        }
    }
    std::fprintf(y, "details:\n");
    for (auto &d : out.details) std::fprintf(y, "  %s: %s\n", d.first.c_str(), d.second.c_str());
    std::fprintf(y, "residency_probe:\n");
    for (auto &r : out.residency) std::fprintf(y, "  - %s\n", r.c_str());
    std::fclose(y);

    FILE *j = std::fopen(json_path, "w");
    if (!j) {
        std::perror(json_path);
        return 1;
    }
    std::fprintf(j, "{\"measured\": {");
    for (size_t i = 0; i < out.measured.size(); i++) {
        std::fprintf(j, "%s\"%s\": %s", i ? ", " : "", out.measured[i].first.c_str(), out.measured[i].second.c_str());
        if (out.measured[i].first == "sfu_ops_per_s") {
            std::fprintf(j, ", \"tensor_flops_per_s\": {");
            for (size_t t = 0; t < out.tensor.size(); t++)
                std::fprintf(j, "%s\"%s\": %s", t ? ", " : "", out.tensor[t].first.c_str(),
                             num(out.tensor[t].second).c_str());
            std::fprintf(j, "}");
        }
    }
    std::fprintf(j, "},\n \"details\": {");
    for (size_t i = 0; i < out.details.size(); i++)
        std::fprintf(j, "%s\"%s\": %s", i ? ", " : "", out.details[i].first.c_str(), out.details[i].second.c_str());
    std::fprintf(j, "},\n \"residency_probe\": [\n");
    for (size_t i = 0; i < out.residency.size(); i++)
        std::fprintf(j, "  %s%s\n", out.residency[i].c_str(), i + 1 < out.residency.size() ? "," : "");
    std::fprintf(j, " ]}\n");
    std::fclose(j);

    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(scratch));
    CK(cudaFree(res));
    CK(cudaFree(cur));
    CK(cudaFree(high));
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    progress("wrote %s and %s in %.1f s", yaml_path, json_path, wall);
    return 0;
}
