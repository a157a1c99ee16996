/* microbench.cu - the held-out set's microbenchmarks: coalescing strides and
 * offsets, strided stores, shared-memory bank strides, latency hiding
 * (warps per SM x loads in flight), divergence, FP32/FP64/SFU/integer
 * throughput at several chain counts and occupancies, L2-resident working
 * sets (warm, back to back) and the launch floor. Per-thread work is an
 * exact count of warp-wide accesses with one lane stride each. */
#include "heldout.cuh"

template <typename T>
__device__ inline unsigned fold(const T &v) {
    const unsigned *w = reinterpret_cast<const unsigned *>(&v);
    unsigned a = 0;
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++) a ^= w[i];
    return a;
}

/* 4 independent loads per thread; warp j-th access spans 32 * stride elements. __ldg loads an
 * 8- or 16-byte element whole (ld.global.nc.v2/v4); fold() of p[i] itself read it as 4-byte words
 * until 2026-12-08 (heldout.cuh, --sizes wide) */
template <typename T>
__global__ void m_coalesce(const T *__restrict__ p, int stride, int offset, unsigned *out, unsigned sentinel) {
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    unsigned lane = threadIdx.x & 31;
    unsigned a = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) a ^= fold(__ldg(p + ((warp * 4 + j) * 32 + lane) * stride + offset));
    if (a == sentinel) out[0] = a;
}

__global__ void m_store_stride(unsigned *p, int stride) {
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < 4; j++) p[((warp * 4 + j) * 32 + lane) * stride] = lane + j;
}

#define SMEM_WORDS 8192
template <int EB>
__global__ void m_banks(unsigned *out, int stride, int iters) {
    __shared__ unsigned long long sm[SMEM_WORDS / 2];
    unsigned *s = reinterpret_cast<unsigned *>(sm);
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = i * 2654435761u;
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned idx = (lane * stride) % (EB == 4 ? SMEM_WORDS : SMEM_WORDS / 2);
    unsigned addr = (unsigned)__cvta_generic_to_shared(s) + idx * EB;
    unsigned a = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i += 8) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
            if (EB == 4) {
                unsigned v;
                asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
                a += v;
            } else {
                unsigned long long v;
                asm volatile("ld.volatile.shared.u64 %0, [%1];" : "=l"(v) : "r"(addr));
                a += (unsigned)v ^ (unsigned)(v >> 32);
            }
        }
    }
    if (a == 0x9e3779b9u) out[0] = a;
}

/* ILP independent loads in flight per thread, iters rounds, grid-wide coalesced */
template <typename T, int ILP>
__global__ void m_lat(const T *__restrict__ p, int iters, unsigned *out, unsigned sentinel) {
    size_t T_ = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned a = 0;
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
        T v[ILP];
#pragma unroll
        for (int u = 0; u < ILP; u++) v[u] = p[((size_t)it * ILP + u) * T_ + t];
#pragma unroll
        for (int u = 0; u < ILP; u++) a ^= fold(v[u]);
    }
    if (a == sentinel) out[0] = a;
}

/* lane % k picks one of k paths; each path: iters x 4 chains of FMAs */
__global__ void m_div(float *out, int k, int iters) {
    unsigned lane = threadIdx.x & 31;
    int path = lane % k;
    float a0 = lane * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    for (int p = 0; p < k; p++) {
        if (p == path) {
            float b = 0.999f + p * 1e-6f;
#pragma unroll 1
            for (int i = 0; i < iters; i++) {
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    a0 = fmaf(a0, b, 0.5f);
                    a1 = fmaf(a1, b, 0.5f);
                    a2 = fmaf(a2, b, 0.5f);
                    a3 = fmaf(a3, b, 0.5f);
                }
            }
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}

template <int CH>
__global__ void m_fma(float *out, int iters) {
    float a[CH];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CH; i++) a[i] = gid * 1e-7f + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < CH; i++) a[i] = fmaf(a[i], 0.9999f, 0.5f);
    float s = 0;
#pragma unroll
    for (int i = 0; i < CH; i++) s += a[i];
    out[gid] = s;
}

template <int CH>
__global__ void m_dfma(double *out, int iters) {
    double a[CH];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CH; i++) a[i] = gid * 1e-7 + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < CH; i++) a[i] = fma(a[i], 0.9999, 0.5);
    double s = 0;
#pragma unroll
    for (int i = 0; i < CH; i++) s += a[i];
    out[gid] = s;
}

/* OP 0: sin.approx, 1: ex2.approx (8 chains) */
template <int OP>
__global__ void m_sfu(float *out, int iters) {
    float a[8];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < 8; i++) a[i] = 0.1f + gid * 1e-9f + i * 0.01f;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < 8; i++) {
                if (OP == 0)
                    asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a[i]));
                else
                    asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a[i]));
            }
    float s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s += a[i];
    out[gid] = s;
}

/* OP 0: integer multiply-add chains; 1: xor-shift chains (logic and shifts) */
template <int OP>
__global__ void m_int(unsigned *out, int iters) {
    unsigned a[8];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < 8; i++) a[i] = gid * 2654435761u + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
            for (int i = 0; i < 8; i++) {
                if (OP == 0)
                    a[i] = a[i] * 0x9e3779b1u + (unsigned)it;
                else
                    a[i] ^= (a[i] << 7) ^ (a[i] >> 9);
            }
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s ^= a[i];
    out[gid] = s;
}

__global__ void m_l2_read(const uint4 *__restrict__ p, int per_thread, unsigned *out, unsigned sentinel) {
    size_t T_ = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned a = 0;
#pragma unroll 4
    for (int j = 0; j < per_thread; j++) a ^= fold(__ldg(p + j * T_ + t));
    if (a == sentinel) out[0] = a;
}

__global__ void m_l2_write(uint4 *p, int per_thread, unsigned v) {
    size_t T_ = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#pragma unroll 4
    for (int j = 0; j < per_thread; j++) p[j * T_ + t] = make_uint4(v, j, (unsigned)t, v ^ j);
}

__global__ void m_tiny(unsigned *p) { p[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

static KernelDesc desc(const void *fn, unsigned g, unsigned b) {
    KernelDesc d;
    set_grid(d, g);
    set_block(d, b);
    if (!held_list_only) kernel_resources(fn, d);
    d.block_barriers = 1;
    return d;
}
static std::string sz(long long v) { return std::to_string(v); }

template <typename T>
static void coalesce_case(Held &h, int stride, int offset) {
    const int eb = (int)sizeof(T);
    size_t threads = std::min<size_t>((size_t)1 << 22, ((size_t)1 << 30) / ((size_t)4 * stride * eb + 1) / 256 * 256);
    KernelDesc d = desc((const void *)m_coalesce<T>, (unsigned)(threads / 256), 256);
    Access a = acc("global", "load", 4, eb, stride, 4);
    a.offset_elements = offset;
    d.accesses = {a};
    d.int_ops = 20;
    Stats s = time_cold(h, [&] {
        m_coalesce<T><<<threads / 256, 256>>>((const T *)h.A, stride, offset, h.c.scratch, 0x1234567u);
    });
    add_case(h, "coalesce_" + sz(eb) + "B_stride" + sz(stride) + (offset ? "_offset" + sz(offset) : ""), "coalescing",
             "micro", d, s, "cold");
}

/* coalesce_case: threads x 4 x stride elements <= 1 GiB of h.A (+ offset: the pool's 1 MiB slack);
 * store_4B: threads x 4 x 4 x stride bytes <= 2 GiB (h.O); banks: lane x stride < SMEM_WORDS (/ 2), no wrap */
/* the coalescing strides of the chosen list; wide_only: the 8- and 16-byte elements alone (--sizes wide) */
static void run_coalesce(Held &h, bool wide_only) {
    auto c4 = [&](int st, int off) {
        if (!wide_only) coalesce_case<unsigned>(h, st, off);
    };
    if (h.set == SizeSet::confirm2) {
        for (int st : {9, 10, 20, 33, 96, 256}) c4(st, 0);
        for (int st : {5, 6, 64}) coalesce_case<uint2>(h, st, 0);
        for (int st : {5, 16, 32}) coalesce_case<uint4>(h, st, 0);
        c4(1, 3);
        c4(1, 16);
        c4(4, 1);
        coalesce_case<uint2>(h, 2, 1);
        coalesce_case<uint4>(h, 1, 2);
    } else if (h.set == SizeSet::confirm) {
        for (int st : {5, 6, 7, 12, 24, 48, 128}) c4(st, 0);
        for (int st : {3, 8, 32}) coalesce_case<uint2>(h, st, 0);
        for (int st : {3, 4, 8}) coalesce_case<uint4>(h, st, 0);
        c4(1, 2);
        c4(2, 1);
        coalesce_case<uint2>(h, 1, 3);
        coalesce_case<uint4>(h, 1, 1);
    } else {
        for (int st : {1, 2, 3, 4, 8, 16, 32, 64}) c4(st, 0);
        for (int st : {1, 2, 4, 16}) coalesce_case<uint2>(h, st, 0);
        for (int st : {1, 2}) coalesce_case<uint4>(h, st, 0);
        c4(1, 1);
        coalesce_case<uint2>(h, 1, 1);
    }
}

static void run_memory(Held &h) {
    if (h.set != SizeSet::check4) /* check4: the sparse stores below alone */
        run_coalesce(h, false);
    const std::vector<int> stores = h.set == SizeSet::check4 ? std::vector<int>{48, 96, 192, 512}
                                                             : sizes<int>(h, {1, 4, 32}, {2, 8, 16, 64}, {3, 5, 24, 128});
    for (int st : stores) {
        size_t threads = std::min<size_t>((size_t)1 << 22, ((size_t)1 << 31) / ((size_t)16 * st) / 256 * 256);
        KernelDesc d = desc((const void *)m_store_stride, (unsigned)(threads / 256), 256);
        d.accesses = {acc("global", "store", 4, 4, st, 4)};
        d.int_ops = 16;
        Stats s = time_cold(h, [&] { m_store_stride<<<threads / 256, 256>>>((unsigned *)h.O, st); });
        add_case(h, "store_4B_stride" + sz(st), "coalescing", "micro", d, s, "cold");
    }
    if (h.set == SizeSet::check4) return; /* sparse stores alone */
    const int iters = 1024;
    for (int eb : {4, 8})
        for (int st : eb == 4 ? sizes<int>(h, {1, 2, 3, 4, 8, 16, 32, 33}, {5, 6, 7, 12, 17, 31, 64, 128},
                                           {9, 10, 15, 20, 24, 48, 65, 256})
                              : sizes<int>(h, {1, 2}, {3, 4, 16}, {5, 8, 32})) {
            const void *fn = eb == 4 ? (const void *)m_banks<4> : (const void *)m_banks<8>;
            unsigned grid = h.c.sm_count * 4;
            KernelDesc d = desc(fn, grid, 256);
            d.accesses = {acc("shared", "store", SMEM_WORDS / 256, 4, 1), acc("shared", "load", iters, eb, st, 8)};
            d.int_ops = iters / 8 * 3 + 40;
            d.flops_fp32 = 0;
            Stats s = time_cold(h, [&] {
                if (eb == 4)
                    m_banks<4><<<grid, 256>>>(h.c.scratch, st, iters);
                else
                    m_banks<8><<<grid, 256>>>(h.c.scratch, st, iters);
            });
            add_case(h, "banks_" + sz(eb) + "B_stride" + sz(st), "banks", "micro", d, s, "cold");
        }
}

template <typename T, int ILP>
static void lat_case(Held &h, int warps_per_sm) {
    unsigned block = warps_per_sm <= 32 ? warps_per_sm * 32 : 1024;
    unsigned grid = h.c.sm_count * (warps_per_sm <= 32 ? 1 : warps_per_sm / 32);
    size_t T_ = (size_t)grid * block;
    size_t words = ((size_t)128 << 20) / sizeof(T);
    int iters = (int)std::max<size_t>(1, words / (ILP * T_));
    KernelDesc d = desc((const void *)m_lat<T, ILP>, grid, block);
    d.accesses = {acc("global", "load", (double)iters * ILP, (int)sizeof(T), 1, ILP)};
    d.int_ops = 6.0 * iters + 10;
    Stats s = time_cold(h, [&] { m_lat<T, ILP><<<grid, block>>>((const T *)h.A, iters, h.c.scratch, 0x7654321u); });
    add_case(h, "latency_" + sz(sizeof(T)) + "B_" + sz(warps_per_sm) + "warps_ilp" + sz(ILP), "latency_hiding", "micro",
             d, s, "cold", "\"warps_per_sm\": " + sz(warps_per_sm) + ", \"ilp\": " + sz(ILP));
}

/* warps_per_sm: 1 .. 32 (one block of 32 w), or a multiple of 32 (blocks of 1024); 128 MiB read */
static void run_latency(Held &h) {
    if (h.set == SizeSet::confirm2) {
        for (int w : {5, 10, 20, 28}) {
            lat_case<unsigned, 1>(h, w);
            lat_case<unsigned, 2>(h, w);
            lat_case<unsigned, 4>(h, w);
            lat_case<unsigned, 8>(h, w);
            lat_case<unsigned, 16>(h, w);
        }
        lat_case<unsigned, 16>(h, 2);
        lat_case<unsigned, 16>(h, 32);
        for (int w : {1, 12, 64}) {
            lat_case<uint4, 2>(h, w);
            lat_case<uint4, 8>(h, w);
        }
        for (int w : {2, 8, 32}) {
            lat_case<uint2, 2>(h, w);
            lat_case<uint2, 8>(h, w);
        }
        return;
    }
    if (h.set == SizeSet::confirm) {
        for (int w : {3, 6, 12, 24}) {
            lat_case<unsigned, 1>(h, w);
            lat_case<unsigned, 2>(h, w);
            lat_case<unsigned, 4>(h, w);
            lat_case<unsigned, 8>(h, w);
            lat_case<unsigned, 16>(h, w);
        }
        lat_case<unsigned, 16>(h, 1);
        lat_case<unsigned, 16>(h, 64);
        for (int w : {2, 8, 32}) {
            lat_case<uint4, 2>(h, w);
            lat_case<uint4, 8>(h, w);
        }
        for (int w : {4, 16, 64}) {
            lat_case<uint2, 1>(h, w);
            lat_case<uint2, 4>(h, w);
        }
        return;
    }
    for (int w : {1, 2, 4, 8, 16, 32, 64}) {
        lat_case<unsigned, 1>(h, w);
        lat_case<unsigned, 2>(h, w);
        lat_case<unsigned, 4>(h, w);
        lat_case<unsigned, 8>(h, w);
    }
    for (int w : {4, 16, 64}) {
        lat_case<uint4, 1>(h, w);
        lat_case<uint4, 4>(h, w);
    }
}

static void run_compute(Held &h) {
    const unsigned full = h.c.sm_count * 8, block = 256;
    const std::vector<int> ks = h.set == SizeSet::check3 ? std::vector<int>{} /* FP64 chains alone */
                                                         : sizes<int>(h, {1, 2, 4, 8, 16, 32}, {3, 5, 6, 12, 20, 24},
                                                                      {7, 9, 14, 17, 28, 31});
    for (int k : ks) { /* k <= 32 */
        const int iters = 64;
        KernelDesc d = desc((const void *)m_div, full, block);
        d.flops_fp32 = 2.0 * iters * 16 + 3;
        d.int_ops = 4.0 * k + 3 * iters;
        d.accesses = {acc("global", "store", 1, 4, 1)};
        d.branch = "{\"paths\": " + sz(k) + "}";
        Stats s = time_cold(h, [&] { m_div<<<full, block>>>((float *)h.O, k, iters); });
        add_case(h, "divergence_" + sz(k) + "_paths", "divergence", "micro", d, s, "cold");
    }
    struct F {
        const char *name;
        const void *fn;
        int chains;
        unsigned grid, block;
        int kind; /* 0 fp32, 1 fp64, 2 sfu (rsqrt), 3 sin, 4 ex2, 5 imad, 6 xorshift */
        int iters;
    };
    const unsigned one = (unsigned)h.c.sm_count; /* one block of 128 per SM */
    const unsigned two = 2 * one, four = 4 * one; /* two or four blocks of 128 per SM */
    const std::vector<F> confirm_fs = {
        {"fp32_fma_3chains", (const void *)m_fma<3>, 3, full, block, 0, 256},
        {"fp32_fma_6chains", (const void *)m_fma<6>, 6, full, block, 0, 128},
        {"fp32_fma_16chains", (const void *)m_fma<16>, 16, full, block, 0, 128},
        {"fp32_fma_2chains_1block_per_sm", (const void *)m_fma<2>, 2, one, 128, 0, 512},
        {"fp32_fma_4chains_1block_per_sm", (const void *)m_fma<4>, 4, one, 128, 0, 512},
        {"fp32_fma_16chains_1block_per_sm", (const void *)m_fma<16>, 16, one, 128, 0, 256},
        {"fp64_fma_2chains", (const void *)m_dfma<2>, 2, full, block, 1, 128},
        {"fp64_fma_16chains", (const void *)m_dfma<16>, 16, full, block, 1, 32},
        {"fp64_fma_4chains_1block_per_sm", (const void *)m_dfma<4>, 4, one, 128, 1, 128},
        {"sfu_rsqrt_8chains_1block_per_sm", (const void *)k_sfu, 8, one, 128, 2, 64},
        {"sfu_sin_8chains_1block_per_sm", (const void *)m_sfu<0>, 8, one, 128, 3, 64},
        {"sfu_ex2_8chains_1block_per_sm", (const void *)m_sfu<1>, 8, one, 128, 4, 64},
        {"int_imad_8chains_1block_per_sm", (const void *)m_int<0>, 8, one, 128, 5, 128},
        {"int_xorshift_8chains_1block_per_sm", (const void *)m_int<1>, 8, one, 128, 6, 128}};
    const std::vector<F> confirm2_fs = {
        {"fp32_fma_5chains", (const void *)m_fma<5>, 5, full, block, 0, 256},
        {"fp32_fma_12chains", (const void *)m_fma<12>, 12, full, block, 0, 128},
        {"fp32_fma_32chains", (const void *)m_fma<32>, 32, full, block, 0, 64},
        {"fp32_fma_1chain_2blocks_per_sm", (const void *)m_fma<1>, 1, two, 128, 0, 512},
        {"fp32_fma_4chains_2blocks_per_sm", (const void *)m_fma<4>, 4, two, 128, 0, 512},
        {"fp32_fma_8chains_4blocks_per_sm", (const void *)m_fma<8>, 8, four, 128, 0, 256},
        {"fp64_fma_3chains", (const void *)m_dfma<3>, 3, full, block, 1, 64},
        {"fp64_fma_1chain_1block_per_sm", (const void *)m_dfma<1>, 1, one, 128, 1, 128},
        {"fp64_fma_8chains_2blocks_per_sm", (const void *)m_dfma<8>, 8, two, 128, 1, 64},
        {"sfu_rsqrt_8chains_2blocks_per_sm", (const void *)k_sfu, 8, two, 128, 2, 64},
        {"sfu_sin_8chains_4blocks_per_sm", (const void *)m_sfu<0>, 8, four, 128, 3, 64},
        {"sfu_ex2_8chains_2blocks_per_sm", (const void *)m_sfu<1>, 8, two, 128, 4, 64},
        {"int_imad_8chains_4blocks_per_sm", (const void *)m_int<0>, 8, four, 128, 5, 128},
        {"int_xorshift_8chains_2blocks_per_sm", (const void *)m_int<1>, 8, two, 128, 6, 128}};
    const std::vector<F> heldout_fs = {
        {"fp32_fma_1chain", (const void *)m_fma<1>, 1, full, block, 0, 512},
        {"fp32_fma_2chains", (const void *)m_fma<2>, 2, full, block, 0, 256},
        {"fp32_fma_4chains", (const void *)m_fma<4>, 4, full, block, 0, 256},
        {"fp32_fma_8chains", (const void *)m_fma<8>, 8, full, block, 0, 256},
        {"fp32_fma_8chains_1block_per_sm", (const void *)m_fma<8>, 8, (unsigned)h.c.sm_count, 128, 0, 512},
        {"fp32_fma_1chain_1block_per_sm", (const void *)m_fma<1>, 1, (unsigned)h.c.sm_count, 128, 0, 512},
        {"fp64_fma_1chain", (const void *)m_dfma<1>, 1, full, block, 1, 128},
        {"fp64_fma_4chains", (const void *)m_dfma<4>, 4, full, block, 1, 64},
        {"fp64_fma_8chains", (const void *)m_dfma<8>, 8, full, block, 1, 64},
        {"sfu_rsqrt_8chains", (const void *)k_sfu, 8, full, block, 2, 64},
        {"sfu_sin_8chains", (const void *)m_sfu<0>, 8, full, block, 3, 64},
        {"sfu_ex2_8chains", (const void *)m_sfu<1>, 8, full, block, 4, 64},
        {"int_imad_8chains", (const void *)m_int<0>, 8, full, block, 5, 128},
        {"int_xorshift_8chains", (const void *)m_int<1>, 8, full, block, 6, 128}};
    const std::vector<F> check3_fs = {
        {"fp64_fma_1chain_2blocks_per_sm", (const void *)m_dfma<1>, 1, two, 128, 1, 128},
        {"fp64_fma_1chain_4blocks_per_sm", (const void *)m_dfma<1>, 1, four, 128, 1, 128},
        {"fp64_fma_2chains_1block_per_sm", (const void *)m_dfma<2>, 2, one, 128, 1, 128},
        {"fp64_fma_2chains_4blocks_per_sm", (const void *)m_dfma<2>, 2, four, 128, 1, 64},
        {"fp64_fma_3chains_2blocks_per_sm", (const void *)m_dfma<3>, 3, two, 128, 1, 64},
        {"fp64_fma_16chains_1block_per_sm", (const void *)m_dfma<16>, 16, one, 128, 1, 32}};
    for (const F &f : h.set == SizeSet::check3 ? check3_fs : sizes<F>(h, heldout_fs, confirm_fs, confirm2_fs)) {
        KernelDesc d = desc(f.fn, f.grid, f.block);
        double ops = (double)f.iters * 8 * f.chains;
        if (f.kind == 0) d.flops_fp32 = 2 * ops + f.chains;
        if (f.kind == 1) d.flops_fp64 = 2 * ops + f.chains;
        if (f.kind >= 2 && f.kind <= 4) {
            d.sfu_ops = ops;
            d.flops_fp32 = f.chains;
        }
        /* the arithmetic's independent chains (the template's CHAINS) */
        d.alu_chains = f.chains;
        /* integer work by pipe, from the SASS (cuobjdump -sass, CUDA 13.0;
         * tests/gpu/results/h200/atomics_int_rates.json, sass_loop_body).
         * nvcc folds m_int<0>'s eight dependent IMAD steps (it fixed) into one
         * multiply by C^8 per chain: an iteration is 8 IMAD and 2 IMAD.MOV on
         * the FMA pipe, 8 IADD3, 6 MOV, 2 VIADD and the loop's ISETP on the
         * ALU. m_int<1>'s step a ^= (a << 7) ^ (a >> 9) is IMAD.SHL (the left
         * shift as a multiply, on the FMA pipe), SHF.R and one LOP3 (both XORs
         * fused): 3 instructions, not 4 */
        if (f.kind == 5) {
            d.int_ops = 17.0 * f.iters + 16;
            d.int_mul_ops = 10.0 * f.iters + 8;
        }
        if (f.kind == 6) {
            d.int_ops = 2 * ops + f.iters + 16;
            d.int_mul_ops = ops + 8;
        }
        if (d.int_ops < 0) d.int_ops = 2.0 * f.iters + 6;
        d.accesses = {acc("global", "store", 1, f.kind == 1 ? 8 : 4, 1)};
        Stats s = time_cold(h, [&] {
            switch (f.kind) {
                case 0:
                    if (f.chains == 1) m_fma<1><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 2) m_fma<2><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 3) m_fma<3><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 4) m_fma<4><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 5) m_fma<5><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 6) m_fma<6><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 8) m_fma<8><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 12) m_fma<12><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 16) m_fma<16><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    if (f.chains == 32) m_fma<32><<<f.grid, f.block>>>((float *)h.O, f.iters);
                    break;
                case 1:
                    if (f.chains == 1) m_dfma<1><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    if (f.chains == 2) m_dfma<2><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    if (f.chains == 3) m_dfma<3><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    if (f.chains == 4) m_dfma<4><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    if (f.chains == 8) m_dfma<8><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    if (f.chains == 16) m_dfma<16><<<f.grid, f.block>>>((double *)h.O, f.iters);
                    break;
                case 2: k_sfu<<<f.grid, f.block>>>((float *)h.O, f.iters); break;
                case 3: m_sfu<0><<<f.grid, f.block>>>((float *)h.O, f.iters); break;
                case 4: m_sfu<1><<<f.grid, f.block>>>((float *)h.O, f.iters); break;
                case 5: m_int<0><<<f.grid, f.block>>>((unsigned *)h.O, f.iters); break;
                default: m_int<1><<<f.grid, f.block>>>((unsigned *)h.O, f.iters); break;
            }
        });
        add_case(h, f.name, "throughput", "micro", d, s, "cold");
    }
}

/* per = mib x 2^16 / threads must be whole: mib < 4, or a multiple of 4; reads h.A, writes h.O.
 * --sizes probe: the warm read of 52 MiB and the warm writes of 12, 24, 52 and 56 MiB alone (fit
 * probes: L2 writes, and where back-to-back reuse stops fitting) */
static void run_l2(Held &h, bool reads_only = false) {
    const int n_back = 20;
    const bool probe = h.set == SizeSet::probe;
    const std::vector<int> also_cold = sizes<int>(h, {8, 32}, {12, 40}, {20, 44});
    for (int mib : probe ? std::vector<int>{52}
                         : sizes<int>(h, {2, 8, 16, 32, 48, 64, 128, 512}, {1, 4, 12, 24, 40, 56, 96, 256},
                                      {3, 20, 28, 36, 44, 60, 72, 192})) {
        const bool two = std::find(also_cold.begin(), also_cold.end(), mib) != also_cold.end();
        for (int cold = 0; cold < (two ? 2 : 1); cold++) {
            size_t words = ((size_t)mib << 20) / 16;
            size_t threads = std::min<size_t>((size_t)1 << 18, words);
            int per = (int)(words / threads);
            KernelDesc d = desc((const void *)m_l2_read, (unsigned)(threads / 256), 256);
            d.accesses = {acc("global", "load", per, 16, 1, per < 4 ? per : 4)};
            d.int_ops = 4.0 * per + 8;
            /* back to back over the same data (time_warm): the data was just read, which is what
             * l2_warm says; whether it fits in L2 is the model's question, not the request's */
            d.l2_warm = !cold;
            auto launch = [&] { m_l2_read<<<threads / 256, 256>>>((const uint4 *)h.A, per, h.c.scratch, 0x31337u); };
            Stats s = cold ? time_cold(h, launch) : time_warm(h, launch, n_back);
            add_case(h, "l2_read_" + sz(mib) + "MiB" + (cold ? "_cold" : "_warm"), "l2_working_set", "micro", d, s,
                     cold ? "cold" : "warm_back_to_back_" + sz(n_back), "\"working_set_bytes\": " + sz((long long)mib << 20));
        }
    }
    if (reads_only) return;
    for (int mib : probe ? std::vector<int>{12, 24, 52, 56} : sizes<int>(h, {8, 32}, {4, 16, 48}, {2, 40, 64})) {
        size_t words = ((size_t)mib << 20) / 16;
        size_t threads = std::min<size_t>((size_t)1 << 18, words);
        int per = (int)(words / threads);
        KernelDesc d = desc((const void *)m_l2_write, (unsigned)(threads / 256), 256);
        d.accesses = {acc("global", "store", per, 16, 1, per < 4 ? per : 4)};
        d.int_ops = 4.0 * per + 8;
        d.l2_warm = true;
        Stats s = time_warm(h, [&] { m_l2_write<<<threads / 256, 256>>>((uint4 *)h.O, per, 7u); }, n_back);
        add_case(h, "l2_write_" + sz(mib) + "MiB_warm", "l2_working_set", "micro", d, s,
                 "warm_back_to_back_" + sz(n_back), "\"working_set_bytes\": " + sz((long long)mib << 20));
    }
}

static void run_launch(Held &h) {
    struct L {
        const char *name;
        unsigned grid, block;
        bool empty;
    };
    /* m_tiny: grid x block words <= 64 MiB of scratch */
    for (const L &l : sizes<L>(h,
                               {{"launch_empty_1x32", 1, 32, true}, {"launch_store_1x32", 1, 32, false},
                                {"launch_store_132x256", (unsigned)h.c.sm_count, 256, false}},
                               {{"launch_empty_1x1024", 1, 1024, true}, {"launch_empty_264x256", 264, 256, true},
                                {"launch_store_1x256", 1, 256, false}, {"launch_store_528x128", 528, 128, false}},
                               {{"launch_empty_1x256", 1, 256, true}, {"launch_empty_1056x128", 1056, 128, true},
                                {"launch_store_1x64", 1, 64, false}, {"launch_store_2048x256", 2048, 256, false}})) {
        KernelDesc d = desc(l.empty ? (const void *)k_empty : (const void *)m_tiny, l.grid, l.block);
        if (!l.empty) d.accesses = {acc("global", "store", 1, 4, 1)};
        d.int_ops = l.empty ? 0 : 4;
        Stats s = time_cold(h, [&] {
            if (l.empty)
                k_empty<<<l.grid, l.block>>>();
            else
                m_tiny<<<l.grid, l.block>>>(h.c.scratch);
        });
        add_case(h, l.name, "launch", "micro", d, s, "cold");
    }
}

void run_microbench(Held &h) {
    if (!h.list_only) std::printf("== microbenchmarks\n");
    if (h.set == SizeSet::probe) { /* fit probes: L2 warm working sets, 16-byte loads in flight per warp */
        run_l2(h);
        lat_case<uint4, 4>(h, 2);
        lat_case<uint4, 16>(h, 2);
        lat_case<uint4, 8>(h, 3);
        lat_case<uint4, 8>(h, 4);
        lat_case<uint4, 8>(h, 6);
        return;
    }
    if (h.set == SizeSet::check3) { /* FP64 chains at low occupancy */
        run_compute(h);
        return;
    }
    if (h.set == SizeSet::check4) { /* 4-byte stores 192 B to 2 KiB apart */
        run_memory(h);
        return;
    }
    if (h.set == SizeSet::check5 || h.set == SizeSet::check6) /* everyday kernels alone */
        return;
    if (h.set == SizeSet::wide) { /* the three lists' 8- and 16-byte reads, loaded whole */
        for (SizeSet s : {SizeSet::heldout, SizeSet::confirm, SizeSet::confirm2}) {
            h.set = s;
            run_coalesce(h, true);
            run_l2(h, true);
        }
        h.set = SizeSet::wide;
        return;
    }
    run_launch(h);
    run_memory(h);
    run_latency(h);
    run_compute(h);
    run_l2(h);
}
