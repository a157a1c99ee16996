/* everyday.cu - the held-out set's everyday kernels: what application code
 * does (saxpy, copies, reductions, scans, row softmax, layer norm,
 * histograms with global and shared atomics, 2D stencils, gathers,
 * scatters, an integer hash loop, transposes, an elementwise activation,
 * GEMV), each described as its author would describe it to /v1/kernel. */
#include "heldout.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#define FULL 0xffffffffu

__global__ void e_saxpy(const float *__restrict__ x, float *__restrict__ y, float a) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}

__global__ void e_copy(const uint4 *__restrict__ s, uint4 *__restrict__ d) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    d[i] = s[i];
}

/* 256 threads, 8 elements each, shared-memory tree, one atomic per block */
__global__ void e_reduce(const float *__restrict__ x, float *out) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    size_t base = blockIdx.x * (size_t)2048 + t;
    float v = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) v += x[base + j * 256];
    s[t] = v;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
        if (t < (unsigned)st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

/* inclusive scan of 1024 elements per block, Hillis-Steele, double buffered */
__global__ void e_scan(const float *__restrict__ x, float *__restrict__ y) {
    __shared__ float buf[2][1024];
    int t = threadIdx.x, p = 0;
    size_t i = blockIdx.x * (size_t)1024 + t;
    buf[0][t] = x[i];
    __syncthreads();
    for (int off = 1; off < 1024; off <<= 1) {
        float v = buf[p][t];
        if (t >= off) v += buf[p][t - off];
        buf[p ^ 1][t] = v;
        p ^= 1;
        __syncthreads();
    }
    y[i] = buf[p][t];
}

/* block-wide reduction through shared memory: 256 threads; every thread gets the result */
template <bool MAX>
__device__ float block_reduce(float v, float *red) {
    unsigned t = threadIdx.x;
    __syncthreads();
    red[t] = v;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
        if (t < (unsigned)st) red[t] = MAX ? fmaxf(red[t], red[t + st]) : red[t] + red[t + st];
        __syncthreads();
    }
    return red[0];
}

/* one row of C = 256 E floats per block of 256: max, sum of exp, write */
template <int E>
__global__ void e_softmax(const float *__restrict__ x, float *__restrict__ y) {
    __shared__ float red[256];
    const size_t C = 256 * E;
    const float *row = x + blockIdx.x * C;
    float *out = y + blockIdx.x * C;
    unsigned t = threadIdx.x;
    float m = -INFINITY;
#pragma unroll 8
    for (int j = 0; j < E; j++) m = fmaxf(m, row[j * 256 + t]);
    m = block_reduce<true>(m, red);
    float s = 0;
#pragma unroll 8
    for (int j = 0; j < E; j++) s += __expf(row[j * 256 + t] - m);
    s = block_reduce<false>(s, red);
    float inv = 1.0f / s;
#pragma unroll 8
    for (int j = 0; j < E; j++) out[j * 256 + t] = __expf(row[j * 256 + t] - m) * inv;
}

template <int E>
__global__ void e_layernorm(const float *__restrict__ x, const float *__restrict__ g, const float *__restrict__ b,
                            float *__restrict__ y) {
    __shared__ float red[256];
    const size_t C = 256 * E;
    const float *row = x + blockIdx.x * C;
    float *out = y + blockIdx.x * C;
    unsigned t = threadIdx.x;
    float s = 0, ss = 0;
#pragma unroll 8
    for (int j = 0; j < E; j++) {
        float v = row[j * 256 + t];
        s += v;
        ss = fmaf(v, v, ss);
    }
    s = block_reduce<false>(s, red);
    ss = block_reduce<false>(ss, red);
    float mean = s / C, rstd = rsqrtf(ss / C - mean * mean + 1e-5f);
#pragma unroll 8
    for (int j = 0; j < E; j++) {
        int c = j * 256 + t;
        out[c] = fmaf((row[c] - mean) * rstd, g[c], b[c]);
    }
}

/* 4 values per thread, one global atomic each into bins = mask + 1 */
__global__ void e_hist(const unsigned *__restrict__ x, unsigned *h, unsigned mask) {
    size_t base = blockIdx.x * (size_t)1024 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 4; j++) atomicAdd(&h[x[base + j * 256] & mask], 1u);
}

/* 16 values per thread into a shared histogram, then merged with global atomics */
__global__ void e_shist(const unsigned *__restrict__ x, unsigned *h, unsigned mask) {
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    size_t base = blockIdx.x * (size_t)4096 + t;
#pragma unroll
    for (int j = 0; j < 16; j++) atomicAdd(&s[x[base + j * 256] & mask], 1u);
    __syncthreads();
    if (t <= mask) atomicAdd(&h[t], s[t]);
}

template <int PTS>
__global__ void e_stencil(const float *__restrict__ in, float *__restrict__ out, int W, int H) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    int xm = max(x - 1, 0), xp = min(x + 1, W - 1), ym = max(y - 1, 0), yp = min(y + 1, H - 1);
    size_t r = (size_t)y * W, rm = (size_t)ym * W, rp = (size_t)yp * W;
    float c = in[r + x];
    float n = in[r + xm] + in[r + xp] + in[rm + x] + in[rp + x];
    if (PTS == 9) n += in[rm + xm] + in[rm + xp] + in[rp + xm] + in[rp + xp];
    out[r + x] = fmaf(0.5f, c, 0.125f * n);
}

__global__ void e_make_idx(unsigned *idx, size_t n, unsigned range, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) idx[i] = hash32((unsigned)i * 2654435761u ^ seed) % range;
}

__global__ void e_gather(const unsigned *__restrict__ idx, const float *__restrict__ tab, float *__restrict__ out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    out[i] = tab[idx[i]];
}

__global__ void e_scatter(const unsigned *__restrict__ idx, const float *__restrict__ src, float *__restrict__ out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    out[idx[i]] = src[i];
}

__global__ void e_hash(const unsigned *__restrict__ in, unsigned *__restrict__ out, int iters) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned x = in[i];
#pragma unroll 4
    for (int j = 0; j < iters; j++) x = hash32(x ^ (unsigned)j);
    out[i] = x;
}

/* one 4-byte load, then 8 x iters dependent FMAs on it, then one store: the
 * FP32 pipe paces it after its one load round (check6) */
__global__ void e_poly(const float *__restrict__ in, float *__restrict__ out, int iters) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float x = in[i];
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < 8; u++) x = fmaf(x, 0.9999f, 0.5f);
    out[i] = x;
}

__global__ void e_transpose_naive(const float *__restrict__ in, float *__restrict__ out, int N) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    out[(size_t)x * N + y] = in[(size_t)y * N + x];
}

__global__ void e_transpose_tile(const float *__restrict__ in, float *__restrict__ out, int N) {
    __shared__ float tile[32][33];
    int bx = blockIdx.x * 32, by = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) tile[ty + j][tx] = in[(size_t)(by + ty + j) * N + bx + tx];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(size_t)(bx + ty + j) * N + by + tx] = tile[tx][ty + j];
}

__global__ void e_silu(const float *__restrict__ x, float *__restrict__ y) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float v = x[i];
    y[i] = __fdividef(v, 1.0f + __expf(-v));
}

/* one warp per row of C floats; lanes stride 1 across the row, shuffle sum */
__global__ void e_gemv(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int C) {
    unsigned lane = threadIdx.x & 31;
    size_t row = blockIdx.x * (size_t)(blockDim.x / 32) + threadIdx.x / 32;
    const float *r = A + row * C;
    float s = 0;
#pragma unroll 4
    for (int c = lane; c < C; c += 32) s = fmaf(r[c], x[c], s);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
    if (lane == 0) y[row] = s;
}

static KernelDesc desc(const void *fn, unsigned gx, unsigned bx, unsigned gy = 0, unsigned by = 0) {
    KernelDesc d;
    set_grid(d, gx, gy);
    set_block(d, bx, by);
    if (!held_list_only) kernel_resources(fn, d);
    d.block_barriers = 1;
    return d;
}

static std::string sz(long long v) { return std::to_string(v); }

/* element counts 2^lg for each lg */
static std::vector<size_t> pow2(std::initializer_list<int> lgs) {
    std::vector<size_t> v;
    for (int lg : lgs) v.push_back((size_t)1 << lg);
    return v;
}

/* floor(log2(n)), n > 0 */
static int ilog2(size_t n) {
    int lg = 0;
    while (n >>= 1) lg++;
    return lg;
}

/* a count as the names write it: "2^k" for a power of two, else "mx2^k" (m odd) */
static std::string count_name(size_t n) {
    int k = 0;
    while (n > 1 && !(n & 1)) {
        n >>= 1;
        k++;
    }
    return (n == 1 ? "" : sz((long long)n) + "x") + "2^" + sz(k);
}

static void run_streams(Held &h) {
    /* saxpy, reduce, silu: n <= 2^28 floats (h.A, h.B: 2^28 each); copy: 16 n
     * bytes <= 2 GiB (h.O); scan: n <= 2^28. n: a multiple of the block (256;
     * reduce: 2048 per block; scan: 1024) */
    for (size_t n : sizes<size_t>(h, pow2({20, 22, 24, 26, 28}), pow2({19, 21, 23, 25, 27}),
                                  {(size_t)1 << 17, (size_t)3 << 19, (size_t)5 << 21, (size_t)3 << 24, (size_t)7 << 25})) {
        KernelDesc d = desc((const void *)e_saxpy, (unsigned)(n / 256), 256);
        d.flops_fp32 = 2;
        d.int_ops = 6;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "load", 1, 4, 1), acc("global", "store", 1, 4, 1)};
        Stats s = time_cold(h, [&] { e_saxpy<<<n / 256, 256>>>(h.A, h.B, 1.0001f); });
        add_case(h, "saxpy_" + count_name(n), "saxpy", "everyday", d, s, "cold", "\"elements\": " + sz(n));
    }
    /* n: 16-byte words (confirm2: 12, 96, 384 and 1536 MiB) */
    for (size_t n : sizes<size_t>(h, pow2({22, 24, 26}), pow2({21, 23, 25, 27}),
                                  {(size_t)12 << 16, (size_t)96 << 16, (size_t)384 << 16, (size_t)1536 << 16})) {
        KernelDesc d = desc((const void *)e_copy, (unsigned)(n / 256), 256);
        d.int_ops = 5;
        d.accesses = {acc("global", "load", 1, 16, 1), acc("global", "store", 1, 16, 1)};
        Stats s = time_cold(h, [&] { e_copy<<<n / 256, 256>>>((const uint4 *)h.A, (uint4 *)h.O); });
        add_case(h, "copy16_" + sz(n * 16 >> 20) + "MiB", "copy", "everyday", d, s, "cold");
    }
    for (size_t n : sizes<size_t>(h, pow2({22, 24, 26, 28}), pow2({21, 23, 25, 27}),
                                  {(size_t)1 << 19, (size_t)3 << 21, (size_t)5 << 23, (size_t)7 << 25})) {
        KernelDesc d = desc((const void *)e_reduce, (unsigned)(n / 2048), 256);
        d.flops_fp32 = 9;
        d.int_ops = 30;
        d.accesses = {acc("global", "load", 8, 4, 1, 8), acc("shared", "store", 2, 4, 1), acc("shared", "load", 2, 4, 1),
                      acc("global", "atomic", 1.0 / 256, 4, 0, 1, -1, 1)};
        d.barriers = 9; /* e_reduce: one after s[t] = v, one per step st = 128 .. 1 */
        Stats s = time_cold(h, [&] { e_reduce<<<n / 2048, 256>>>(h.A, h.O); });
        add_case(h, "reduce_sum_" + count_name(n), "reduction", "everyday", d, s, "cold");
    }
    for (size_t n : sizes<size_t>(h, pow2({20, 24, 26}), pow2({21, 23, 25, 27}),
                                  {(size_t)1 << 18, (size_t)1 << 22, (size_t)3 << 23, (size_t)1 << 28})) {
        KernelDesc d = desc((const void *)e_scan, (unsigned)(n / 1024), 1024);
        d.flops_fp32 = 9;
        d.int_ops = 45;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("shared", "store", 11, 4, 1), acc("shared", "load", 20, 4, 1),
                      acc("global", "store", 1, 4, 1)};
        d.barriers = 11; /* e_scan: one after the first store, one per step off = 1 .. 512 */
        Stats s = time_cold(h, [&] { e_scan<<<n / 1024, 1024>>>(h.A, h.O); });
        add_case(h, "scan_block1024_" + count_name(n), "scan", "everyday", d, s, "cold");
    }
    for (size_t n : sizes<size_t>(h, pow2({24, 26, 28}), pow2({21, 23, 25, 27}),
                                  {(size_t)1 << 20, (size_t)1 << 22, (size_t)3 << 24, (size_t)5 << 25})) {
        KernelDesc d = desc((const void *)e_silu, (unsigned)(n / 256), 256);
        d.flops_fp32 = 3;
        d.sfu_ops = 2;
        d.int_ops = 5;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "store", 1, 4, 1)};
        Stats s = time_cold(h, [&] { e_silu<<<n / 256, 256>>>(h.A, h.O); });
        add_case(h, "silu_" + count_name(n), "elementwise_silu", "everyday", d, s, "cold");
    }
}

template <int E>
static void softmax_case(Held &h, int rows) {
    KernelDesc d = desc((const void *)e_softmax<E>, rows, 256);
    long long in_flight = E < 8 ? E : 8;
    d.flops_fp32 = 7.0 * E + 2;
    d.sfu_ops = 2.0 * E + 1;
    d.int_ops = 4.0 * E + 40;
    d.accesses = {acc("global", "load", E, 4, 1, in_flight), acc("global", "load", E, 4, 1, in_flight, 0),
                  acc("global", "load", E, 4, 1, in_flight, 0), acc("global", "store", E, 4, 1),
                  acc("shared", "store", 4, 4, 1), acc("shared", "load", 6, 4, 1)};
    d.barriers = 20; /* two block_reduce calls of 10 (two before the tree, one per step st = 128 .. 1) */
    Stats s = time_cold(h, [&] { e_softmax<E><<<rows, 256>>>(h.A, h.O); });
    add_case(h, "softmax_" + sz(rows) + "x" + sz(256 * E), "softmax", "everyday", d, s, "cold");
}

template <int E>
static void layernorm_case(Held &h, int rows) {
    KernelDesc d = desc((const void *)e_layernorm<E>, rows, 256);
    long long in_flight = E < 8 ? E : 8;
    d.flops_fp32 = 6.0 * E + 8;
    d.sfu_ops = 1;
    d.int_ops = 4.0 * E + 40;
    /* g and b: tables of 256 * E elements every block reads */
    d.accesses = {acc("global", "load", E, 4, 1, in_flight), acc("global", "load", E, 4, 1, in_flight, 0),
                  acc("global", "load", E, 4, 1, in_flight, -1, 256LL * E),
                  acc("global", "load", E, 4, 1, in_flight, -1, 256LL * E),
                  acc("global", "store", E, 4, 1), acc("shared", "store", 4, 4, 1), acc("shared", "load", 6, 4, 1)};
    d.barriers = 20; /* two block_reduce calls of 10 */
    Stats s = time_cold(h, [&] { e_layernorm<E><<<rows, 256>>>(h.A, h.B, h.Cb, h.O); });
    add_case(h, "layernorm_" + sz(rows) + "x" + sz(256 * E), "layernorm", "everyday", d, s, "cold");
}

/* rows x 256 E floats: in h.A (<= 2^28), out h.O (<= 2^29) */
static void run_rows(Held &h) {
    if (h.set == SizeSet::check3) { /* rows of 20 to 56 KiB: wave sets of 20 to 58 MiB */
        softmax_case<20>(h, 8192);
        softmax_case<24>(h, 6144);
        softmax_case<28>(h, 4096);
        softmax_case<36>(h, 4096);
        softmax_case<40>(h, 2048);
        softmax_case<56>(h, 2048);
        layernorm_case<20>(h, 4096);
        layernorm_case<28>(h, 8192);
        layernorm_case<44>(h, 2048);
        return;
    }
    if (h.set == SizeSet::confirm2) {
        softmax_case<1>(h, 524288);
        softmax_case<3>(h, 131072);
        softmax_case<12>(h, 8192);
        softmax_case<32>(h, 2048);
        softmax_case<256>(h, 256);
        layernorm_case<3>(h, 65536);
        layernorm_case<4>(h, 32768);
        layernorm_case<48>(h, 2048);
        layernorm_case<128>(h, 1024);
        return;
    }
    if (h.set == SizeSet::confirm) {
        softmax_case<1>(h, 262144);
        softmax_case<2>(h, 131072);
        softmax_case<8>(h, 32768);
        softmax_case<32>(h, 4096);
        softmax_case<128>(h, 1024);
        layernorm_case<1>(h, 262144);
        layernorm_case<8>(h, 32768);
        layernorm_case<32>(h, 2048);
        layernorm_case<64>(h, 4096);
        return;
    }
    softmax_case<1>(h, 65536);
    softmax_case<4>(h, 16384);
    softmax_case<8>(h, 8192);
    softmax_case<16>(h, 4096);
    softmax_case<64>(h, 1024);
    layernorm_case<2>(h, 65536);
    layernorm_case<4>(h, 16384);
    layernorm_case<16>(h, 4096);
    layernorm_case<32>(h, 8192);
}

/* The histograms' bins are the low bits of their input words, and the input
 * is random floats in [-1, 1) (heldout_main.cu fills the pool with
 * fill_typed(..., DT_TF32, 0x1234u): unit_float of hash32, kernels.cuh),
 * whose low mantissa bits are far from uniform: with 16 bins only the even
 * ones are hit and one bin takes 31% of the values. A warp's lanes are
 * described by a real warp of that input: of the first 1024 warps (block,
 * then j, then warp in the block, as the kernel reads them), the one with
 * the median largest count of lanes on one bin; its lanes' byte offsets
 * (bin x 4) are the access's lane_addresses. */
static unsigned input_word(size_t i) {
    unsigned hsh = hash32((unsigned)i ^ hash32(0x1234u ^ (unsigned)(i >> 32)));
    float f = unit_float(hsh);
    unsigned w;
    memcpy(&w, &f, sizeof w);
    return w;
}

static Access real_warp(const char *space, double count, unsigned bins, size_t per_block, int per_thread) {
    Access a = acc(space, "atomic", count, 4, 0);
    if (bins == 1) return a;
    std::vector<std::pair<int, int>> most; /* (largest lanes on one bin, warp) */
    std::vector<std::vector<long long>> lanes;
    for (int w = 0; w < 1024; w++) {
        size_t block = (size_t)w / (8 * per_thread), j = (size_t)(w / 8) % per_thread, wib = (size_t)w % 8;
        std::vector<long long> bin(32);
        int top = 0;
        for (int l = 0; l < 32; l++) bin[l] = input_word(block * per_block + j * 256 + wib * 32 + l) & (bins - 1);
        for (int l = 0; l < 32; l++) top = std::max(top, (int)std::count(bin.begin(), bin.end(), bin[l]));
        most.push_back({top, w});
        lanes.push_back(bin);
    }
    std::sort(most.begin(), most.end());
    for (long long b : lanes[most[most.size() / 2].second]) a.lane_addresses.push_back(b * 4);
    return a;
}

/* a histogram case: bins, and the input's values (n; 2^24 unless the name says) */
struct Hist {
    unsigned bins;
    size_t n;
};

static std::vector<Hist> hists(std::initializer_list<unsigned> bins) {
    std::vector<Hist> v;
    for (unsigned b : bins) v.push_back({b, (size_t)1 << 24});
    return v;
}

static std::string hist_name(const char *prefix, const Hist &c) {
    return prefix + sz(c.bins) + "bins" + (c.n == ((size_t)1 << 24) ? "" : "_" + count_name(c.n));
}

static void run_atomics(Held &h) {
    /* bins: powers of two (mask = bins - 1); global: bins x 4 bytes <= 64 MiB of scratch. n: values
     * (h.A, <= 2^28), a multiple of 1024 (global) or 4096 (shared); 2^24 but for confirm2's
     * fewest-bins cases (fewer values: a few-bins global histogram of 2^24 runs 6 to 12 ms) */
    for (const Hist &c : sizes<Hist>(h, hists({1u, 16u, 256u, 4096u, 65536u, 1048576u}),
                                     hists({2u, 64u, 1024u, 16384u, 262144u, 4194304u}),
                                     {{4u, (size_t)1 << 22}, {32u, (size_t)1 << 23}, {512u, (size_t)1 << 24},
                                      {8192u, (size_t)1 << 24}, {131072u, (size_t)1 << 24},
                                      {16777216u, (size_t)1 << 24}})) {
        const unsigned bins = c.bins;
        const size_t n = c.n;
        KernelDesc d = desc((const void *)e_hist, (unsigned)(n / 1024), 256);
        d.int_ops = 16;
        Access at = real_warp("global", 4, bins, 1024, 4);
        at.distinct_addresses = bins;
        d.accesses = {acc("global", "load", 4, 4, 1, 4), at};
        if (!h.list_only) CK(cudaMemset(h.c.scratch, 0, (size_t)bins * 4));
        Stats s = time_cold(h, [&] { e_hist<<<n / 1024, 256>>>((const unsigned *)h.A, h.c.scratch, bins - 1); });
        add_case(h, hist_name("histogram_global_", c), "histogram_global", "everyday", d, s, "cold",
                 "\"bins\": " + sz(bins));
    }
    /* bins <= 256: s[256]; of the powers of two only 4 and 16 are left, so confirm2 varies n too */
    for (const Hist &c : sizes<Hist>(h, hists({1u, 32u, 256u}), hists({2u, 8u, 64u, 128u}),
                                     {{4u, (size_t)1 << 24}, {16u, (size_t)1 << 24}, {64u, (size_t)1 << 22},
                                      {256u, (size_t)1 << 26}})) {
        const unsigned bins = c.bins;
        const size_t n = c.n;
        KernelDesc d = desc((const void *)e_shist, (unsigned)(n / 4096), 256);
        d.int_ops = 50;
        Access sh = real_warp("shared", 16, bins, 4096, 16);
        Access gl = acc("global", "atomic", bins / 256.0, 4, 1, 1, -1, bins);
        d.accesses = {acc("shared", "store", 1, 4, 1), acc("global", "load", 16, 4, 1, 16), sh,
                      acc("shared", "load", bins / 256.0, 4, 1), gl};
        Stats s = time_cold(h, [&] { e_shist<<<n / 4096, 256>>>((const unsigned *)h.A, h.c.scratch, bins - 1); });
        add_case(h, hist_name("histogram_shared_", c), "histogram_shared", "everyday", d, s, "cold",
                 "\"bins\": " + sz(bins));
    }
}

static void run_grids(Held &h) {
    /* n: a multiple of 32 (grids of n / 32 x n / 8 or n / 32 blocks), n^2 <= 2^28 floats */
    struct St {
        int pts, n;
    };
    for (const St &t : sizes<St>(h, {{5, 1024}, {5, 4096}, {5, 8192}, {5, 16384}, {9, 4096}, {9, 8192}},
                                 {{5, 1536}, {5, 3072}, {5, 6144}, {5, 12288}, {9, 2048}, {9, 6144}, {9, 12288}},
                                 {{5, 768}, {5, 2048}, {5, 5120}, {5, 10240}, {9, 1024}, {9, 3072}, {9, 16384}})) {
        const void *fn = t.pts == 5 ? (const void *)e_stencil<5> : (const void *)e_stencil<9>;
        KernelDesc d = desc(fn, t.n / 32, 32, t.n / 8, 8);
        d.flops_fp32 = t.pts == 5 ? 6 : 10;
        d.int_ops = 24;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "load", t.pts - 1, 4, 1, t.pts - 1, 0),
                      acc("global", "store", 1, 4, 1)};
        dim3 g(t.n / 32, t.n / 8), b(32, 8);
        Stats s = time_cold(h, [&] {
            if (t.pts == 5)
                e_stencil<5><<<g, b>>>(h.A, h.O, t.n, t.n);
            else
                e_stencil<9><<<g, b>>>(h.A, h.O, t.n, t.n);
        });
        add_case(h, "stencil" + sz(t.pts) + "pt_" + sz(t.n) + "^2", "stencil2d", "everyday", d, s, "cold");
    }
    /* naive: 12288 runs 2.3 ms, so confirm2's largest is 14336 (about 3.2 ms), not 16384 */
    for (int n : sizes<int>(h, {1024, 2048, 4096, 8192}, {1536, 3072, 6144, 12288}, {512, 2560, 5120, 14336})) {
        KernelDesc d = desc((const void *)e_transpose_naive, n / 32, 32, n / 8, 8);
        d.int_ops = 10;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "store", 1, 4, n)};
        dim3 g(n / 32, n / 8), b(32, 8);
        Stats s = time_cold(h, [&] { e_transpose_naive<<<g, b>>>(h.A, h.O, n); });
        add_case(h, "transpose_naive_" + sz(n), "transpose", "everyday", d, s, "cold");
    }
    for (int n : sizes<int>(h, {1024, 2048, 4096}, {1536, 3072, 6144, 12288}, {512, 2560, 8192, 16384})) {
        KernelDesc d = desc((const void *)e_transpose_tile, n / 32, 32, n / 32, 8);
        d.int_ops = 24;
        d.accesses = {acc("global", "load", 4, 4, 1, 4), acc("shared", "store", 4, 4, 1), acc("shared", "load", 4, 4, 33),
                      acc("global", "store", 4, 4, 1)};
        d.barriers = 1; /* e_transpose_tile: between the tile's stores and loads */
        dim3 g(n / 32, n / 32), b(32, 8);
        Stats s = time_cold(h, [&] { e_transpose_tile<<<g, b>>>(h.A, h.O, n); });
        add_case(h, "transpose_tile_padded_" + sz(n), "transpose", "everyday", d, s, "cold");
    }
}

/* The hash loop's request over n elements. */
static KernelDesc hash_desc(size_t n, int iters) {
    KernelDesc d = desc((const void *)e_hash, (unsigned)(n / 256), 256);
    /* e_hash's loop (x = hash32(x ^ j), kernels.cuh:33-39, unrolled 4)
     * by pipe: an iteration is 3 SHF.R and 3 LOP3 on the ALU (each
     * x ^= x >> k is a shift and an XOR; the last XOR of one iteration
     * and the next one's ^ j fuse into one 3-input LOP3, as ptxas fuses
     * xorshift's two XORs, atomics_int_rates.json sass_loop_body) and 2
     * IMAD on the FMA pipe (x *= 0x7feb352d, x *= 0x846ca68b); j, j + 1..3
     * and the trip count are warp-uniform (uniform datapath), the loop's
     * ISETP one ALU instruction per 4 iterations. PTX (nvcc -ptx, CUDA
     * 13.0): 16 xor, 12 shr, 8 mul.lo, 3 add of j per 4 iterations. */
    d.int_ops = 6.0 * iters + iters / 4.0 + 8;
    d.int_mul_ops = 2.0 * iters;
    d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "store", 1, 4, 1)};
    return d;
}

static void run_indirect(Held &h) {
    const size_t n = (size_t)1 << 24;
    /* n = 2^24 indices (64 MiB of h.idx); tables of `entries` floats (any count: e_make_idx
     * takes the index % entries): gathers read h.A (<= 2^28 entries, 1 GiB), scatters write h.O
     * (<= 2^29, 2 GiB). Probes: tables of 2 and 16 MiB (L2-resident). */
    const bool probe = h.set == SizeSet::probe, check3 = h.set == SizeSet::check3,
               check4 = h.set == SizeSet::check4, check5 = h.set == SizeSet::check5;
    std::vector<size_t> gathers = probe    ? pow2({19, 22})
                                  : check3 ? std::vector<size_t>{(size_t)12 << 18, (size_t)20 << 18, (size_t)28 << 18,
                                                                 (size_t)36 << 18, (size_t)40 << 18}
                                        : sizes<size_t>(h, pow2({20, 24, 26, 28}), pow2({18, 21, 23, 25, 27}),
                                                        {(size_t)6 << 18, (size_t)24 << 18, (size_t)48 << 18,
                                                         (size_t)96 << 18, (size_t)768 << 18});
    if (check4 || check5) gathers.clear(); /* scatters alone */
    for (size_t entries : gathers) {
        if (!h.list_only) {
            e_make_idx<<<n / 256, 256>>>(h.idx, n, (unsigned)entries, 77u + ilog2(entries));
            CK_LAUNCH();
        }
        KernelDesc d = desc((const void *)e_gather, n / 256, 256);
        d.int_ops = 8;
        /* the table holds `entries` elements (e_make_idx: % range) */
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "load", 1, 4, 256, 1, -1, (long long)entries),
                      acc("global", "store", 1, 4, 1)};
        Stats s = time_cold(h, [&] { e_gather<<<n / 256, 256>>>(h.idx, h.A, h.O); });
        add_case(h, "gather_random_table_" + sz((4ll * entries) >> 20) + "MiB", "gather", "everyday", d, s, "cold",
                 "\"table_bytes\": " + sz(4ll * entries));
    }
    if (check3) return; /* gathers alone */
    std::vector<size_t> scatters = probe    ? pow2({19, 22})
                                   : check4 ? std::vector<size_t>{(size_t)40 << 18, (size_t)80 << 18, (size_t)192 << 18,
                                                                  (size_t)384 << 18, (size_t)640 << 18, (size_t)2048 << 18}
                                   : check5 ? std::vector<size_t>{(size_t)28 << 18, (size_t)36 << 18, (size_t)48 << 18,
                                                                  (size_t)56 << 18, (size_t)72 << 18, (size_t)112 << 18}
                                            : sizes<size_t>(h, pow2({24, 26, 28}), pow2({21, 23, 25, 27}),
                                                         {(size_t)4 << 18, (size_t)24 << 18, (size_t)96 << 18,
                                                          (size_t)1536 << 18});
    for (size_t entries : scatters) {
        if (!h.list_only) {
            e_make_idx<<<n / 256, 256>>>(h.idx, n, (unsigned)entries, 99u + ilog2(entries));
            CK_LAUNCH();
        }
        KernelDesc d = desc((const void *)e_scatter, n / 256, 256);
        d.int_ops = 8;
        /* the store goes to a random element of a table of `entries` (e_make_idx: % range), as the
         * gather's load comes from one: the table's size is the store's distinct_addresses */
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "load", 1, 4, 1),
                      acc("global", "store", 1, 4, 256, 1, -1, (long long)entries)};
        Stats s = time_cold(h, [&] { e_scatter<<<n / 256, 256>>>(h.idx, h.A, h.O); });
        add_case(h, "scatter_random_" + sz((4ll * entries) >> 20) + "MiB", "scatter", "everyday", d, s, "cold",
                 "\"table_bytes\": " + sz(4ll * entries));
    }
    if (probe || check4 || check5)
        return;
    /* iters: multiples of the unroll, 4; 1024 runs 6.9 ms, so confirm2's largest is 640 (about 4.3 ms) */
    for (int iters : sizes<int>(h, {8, 32, 128, 512}, {4, 16, 64, 256, 1024}, {12, 40, 96, 192, 640})) {
        KernelDesc d = hash_desc(n, iters);
        Stats s = time_cold(h, [&] { e_hash<<<n / 256, 256>>>((const unsigned *)h.A, (unsigned *)h.O, iters); });
        add_case(h, "hash_loop_" + sz(iters) + "_rounds", "hash_loop", "everyday", d, s, "cold");
    }
    /* rows: a multiple of 8 (warps per block); cols: of 32; rows x cols <= 2^28 floats (h.A) */
    struct Gv {
        int rows, cols;
    };
    for (const Gv &g : sizes<Gv>(h, {{4096, 4096}, {8192, 8192}, {16384, 4096}, {2048, 32768}},
                                 {{2048, 2048}, {12288, 12288}, {32768, 2048}, {1024, 65536}, {65536, 1024}},
                                 {{1024, 1024}, {4096, 11008}, {11008, 4096}, {8192, 28672}, {131072, 512}})) {
        KernelDesc d = desc((const void *)e_gemv, g.rows / 8, 256);
        double per = g.cols / 32.0;
        d.flops_fp32 = 2 * per + 5;
        d.int_ops = 3 * per + 15;
        /* x[c] is indexed by the column alone: every warp reads the same C elements */
        d.accesses = {acc("global", "load", per, 4, 1, 4), acc("global", "load", per, 4, 1, 4, -1, g.cols),
                      acc("global", "store", 1, 4, 0)};
        d.shuffles = 5; /* e_gemv: __shfl_xor_sync for o = 16 .. 1 */
        Stats s = time_cold(h, [&] { e_gemv<<<g.rows / 8, 256>>>(h.A, h.B, h.O, g.cols); });
        add_case(h, "gemv_fp32_" + sz(g.rows) + "x" + sz(g.cols), "gemv", "everyday", d, s, "cold");
    }
}

/* check6: kernels the pipes pace after one load round (the waves-in-step
 * rule of 2026-12-07): hash loops at round counts and grid sizes (waves)
 * no other list uses, and e_poly (one load, 8 x iters dependent FMAs, one
 * store). n <= 2^26 (h.A, h.O). */
static void run_paced(Held &h) {
    struct Pc {
        int lg, iters;
    };
    for (const Pc &c : std::vector<Pc>{{24, 20}, {24, 28}, {24, 48}, {22, 8}, {22, 24}, {26, 4}, {26, 8}, {26, 24},
                                       {20, 8}, {20, 24}}) {
        const size_t n = (size_t)1 << c.lg;
        KernelDesc d = hash_desc(n, c.iters);
        Stats s = time_cold(h, [&] { e_hash<<<n / 256, 256>>>((const unsigned *)h.A, (unsigned *)h.O, c.iters); });
        add_case(h, "hash_loop_" + sz(c.iters) + "_rounds" + (c.lg == 24 ? "" : "_" + count_name(n)), "hash_loop",
                 "everyday", d, s, "cold");
    }
    for (const Pc &c : std::vector<Pc>{{24, 2}, {24, 4}, {24, 8}, {24, 32}, {26, 4}, {22, 8}}) {
        const size_t n = (size_t)1 << c.lg;
        KernelDesc d = desc((const void *)e_poly, (unsigned)(n / 256), 256);
        /* as m_fma's one chain (microbench.cu): 16 flops an iteration, the
         * loop's counter and compare on the ALU */
        d.flops_fp32 = 16.0 * c.iters;
        d.int_ops = 2.0 * c.iters + 6;
        d.accesses = {acc("global", "load", 1, 4, 1), acc("global", "store", 1, 4, 1)};
        Stats s = time_cold(h, [&] { e_poly<<<n / 256, 256>>>(h.A, h.O, c.iters); });
        add_case(h, "poly_fma_" + sz(8 * c.iters) + "_" + count_name(n), "poly_loop", "everyday", d, s, "cold");
    }
}

void run_everyday(Held &h) {
    if (!h.list_only) std::printf("== everyday\n");
    if (h.set == SizeSet::probe) { /* fit probes: gathers from and scatters into L2-resident tables alone */
        run_indirect(h);
        return;
    }
    if (h.set == SizeSet::check3) { /* rows read again, gathers near L2's share */
        run_rows(h);
        run_indirect(h);
        return;
    }
    if (h.set == SizeSet::check6) { /* kernels the pipes pace after one load round */
        run_paced(h);
        return;
    }
    if (h.set == SizeSet::wide) /* microbenchmarks alone */
        return;
    if (h.set == SizeSet::check4 || h.set == SizeSet::check5) { /* scatters past L2, near its size */
        run_indirect(h);
        return;
    }
    run_streams(h);
    run_rows(h);
    run_atomics(h);
    run_grids(h);
    run_indirect(h);
}
