/* atomics_int.cu - microbenchmarks that settle the kernel model's atomic and
 * integer rates on one GPU (issue 11): global atomics over 1..2^20
 * addresses laid out by line and by lane, one lane per warp against all 32,
 * shared-memory atomics by address and bank, and integer instruction
 * throughput per SM per clock (ALU and multiply-add) at full occupancy.
 * Every timing is GPU time of one launch without CPU gaps: a 256 MiB write
 * (L2 flush), a sleep kernel (50 us on %globaltimer, so the host has queued
 * the events first), an event pair around the launch; 2 untimed, 7 timed,
 * median. Prints one JSON object. Standalone: nvcc -O3 -arch=sm_90. */
#include "cold_timing.cuh"

/* Global atomics: each thread does PER atomicAdd; the address of thread t's
 * j-th atomic is word index  line(w) * line_words + lane_word(lane), with
 * w = the warp's global index * PER + j:
 *   line(w) = (w % lines) * line_stride_words
 *   lane_word = lane % lane_mod   (lane_mod 1: every lane one address)
 * active_lanes: lanes < active_lanes do the atomic (1: one per warp). */
#define PER 4
__global__ void k_gatomic(unsigned *h, unsigned lines, unsigned line_stride_words, unsigned lane_mod,
                          unsigned active_lanes) {
    unsigned lane = threadIdx.x & 31;
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    if (lane >= active_lanes) return;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        size_t w = warp * PER + j;
        size_t idx = (size_t)(w % lines) * line_stride_words + lane % lane_mod;
        atomicAdd(&h[idx], 1u);
    }
}

/* Shared atomics: 64 per thread on s[(lane * lane_stride) % 4096 + warp_in_block * wofs]. */
__global__ void k_satomic(unsigned *out, unsigned lane_stride, unsigned lane_mod, unsigned wofs) {
    __shared__ unsigned s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    unsigned idx = ((lane % lane_mod) * lane_stride) % 4096 + wib * wofs;
#pragma unroll 16
    for (int j = 0; j < 64; j++) atomicAdd(&s[idx], 1u);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[idx];
}

/* Integer chains: 8 independent chains, ITERS x 8 steps each, one op kind. */
template <int OP>
__global__ void k_int(unsigned *out, int iters, unsigned m, unsigned k) {
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
                if (OP == 0) a[i] = a[i] * m + k;                   /* IMAD */
                if (OP == 1) a[i] = (a[i] ^ m) ^ (a[i] >> 3);       /* LOP3 + SHF */
                if (OP == 2) a[i] = a[i] + m + (a[i] >> k);         /* IADD3 + SHF */
                if (OP == 3) a[i] ^= (a[i] << 7) ^ (a[i] >> 9);     /* xorshift: SHF.L, SHF.R, LOP3 */
                if (OP == 4) a[i] = (a[i] ^ m) & (a[i] | k);        /* LOP3 only */
                if (OP == 5) a[i] = a[i] + (a[i] ^ m);              /* LOP3 + IADD3 */
            }
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s ^= a[i];
    out[gid] = s;
}

static int first = 1;
static void row(const char *group, const char *name, double t, double ops, const char *extra) {
    printf("%s\n  {\"group\": \"%s\", \"name\": \"%s\", \"median_s\": %.6e, \"ops\": %.0f, \"ops_per_s\": %.4e%s%s}",
           first ? "" : ",", group, name, t, ops, ops / t, extra[0] ? ", " : "", extra);
    first = 0;
    fflush(stdout);
}

int main() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    cold_timing_init();
    unsigned *h;
    const size_t hwords = (size_t)16 << 20;
    CK(cudaMalloc(&h, hwords * 4));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    printf("{\"card\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %d, \"driver_api\": %d, \"rows\": [", p.name,
           p.multiProcessorCount, p.l2CacheSize, drv);
    /* global atomics: 2^14 blocks of 256 threads x PER = 2^24 lane atomics (all lanes active) */
    const unsigned blocks = 16384, threads = 256;
    struct G {
        const char *name;
        unsigned lines, stride, lane_mod, active;
    } gs[] = {
        {"same_address_32lanes", 1, 32, 1, 32},
        {"same_address_1lane", 1, 32, 1, 1},
        {"same_address_8lanes", 1, 32, 1, 8},
        {"one_line_2words_32lanes", 1, 32, 2, 32},
        {"one_line_16words_32lanes", 1, 32, 16, 32},
        {"one_line_32words_32lanes", 1, 32, 32, 32},
        {"lines2_32words", 2, 32, 32, 32},
        {"lines4_32words", 4, 32, 32, 32},
        {"lines8_32words", 8, 32, 32, 32},
        {"lines16_32words", 16, 32, 32, 32},
        {"lines32_32words", 32, 32, 32, 32},
        {"lines128_32words", 128, 32, 32, 32},
        {"lines1024_32words", 1024, 32, 32, 32},
        {"lines32768_32words", 32768, 32, 32, 32},
        {"lines8_stride4KiB_32words", 8, 1024, 32, 32},
        {"lines32_stride4KiB_32words", 32, 1024, 32, 32},
        {"lines8_stride64KiB_32words", 8, 16384, 32, 32},
        {"lines32_stride64KiB_32words", 32, 16384, 32, 32},
        {"lines8_1word_32lanes", 8, 32, 1, 32},
        {"lines32_1word_32lanes", 32, 32, 1, 32},
        {"lines1024_1word_32lanes", 1024, 32, 1, 32},
        {"lines1024_1word_1lane", 1024, 32, 1, 1},
    };
    for (const G &g : gs) {
        CK(cudaMemset(h, 0, hwords * 4));
        double t = time_cold([&] { k_gatomic<<<blocks, threads>>>(h, g.lines, g.stride, g.lane_mod, g.active); });
        double warp_instr = (double)blocks * threads / 32 * PER;
        char extra[200];
        snprintf(extra, sizeof extra,
                 "\"lines\": %u, \"line_stride_bytes\": %u, \"words_per_line\": %u, \"active_lanes\": %u, "
                 "\"warp_instructions\": %.0f",
                 g.lines, g.stride * 4, g.lane_mod, g.active, warp_instr);
        row("global_atomic", g.name, t, warp_instr * g.active, extra);
    }
    /* shared atomics: 2048 blocks of 256, 64 per thread */
    struct S {
        const char *name;
        unsigned stride, mod, wofs;
    } ss[] = {{"same_address", 0, 1, 0},         {"same_address_per_warp", 0, 1, 1},
              {"distinct_conflict_free", 1, 32, 32}, {"distinct_same_bank", 32, 32, 1},
              {"two_lanes_per_address", 1, 16, 32}, {"eight_lanes_per_address", 1, 4, 32}};
    for (const S &s : ss) {
        const unsigned sb = 2048;
        double t = time_cold([&] { k_satomic<<<sb, threads>>>(h, s.stride, s.mod, s.wofs); });
        double warp_instr = (double)sb * threads / 32 * 64;
        char extra[120];
        snprintf(extra, sizeof extra, "\"warp_instructions\": %.0f, \"per_sm_per_clock_divide_by\": %d", warp_instr,
                 p.multiProcessorCount);
        row("shared_atomic", s.name, t, warp_instr * 32, extra);
    }
    /* integer chains: full occupancy 8 x 132 blocks of 256, 128 iterations x 64 steps */
    const char *inames[] = {"imad", "lop3_shf", "iadd3_shf", "xorshift", "lop3_only", "lop3_iadd3"};
    for (int op = 0; op < 6; op++) {
        unsigned g = 8 * p.multiProcessorCount;
        int iters = 128;
        auto launch = [&] {
            switch (op) {
            case 0: k_int<0><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            case 1: k_int<1><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            case 2: k_int<2><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            case 3: k_int<3><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            case 4: k_int<4><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            case 5: k_int<5><<<g, 256>>>(h, iters, 0x9e3779b1u, 7u); break;
            }
        };
        double t = time_cold(launch);
        double steps = (double)g * 256 * iters * 64;
        row("int_chain", inames[op], t, steps, "\"ops_are\": \"thread steps (see SASS for instructions per step)\"");
    }
    /* the launch floor for subtraction: an empty-ish kernel of the same grid */
    double t0 = time_cold([&] { k_int<0><<<8 * p.multiProcessorCount, 256>>>(h, 0, 1u, 1u); });
    row("floor", "int_chain_0_iters", t0, 1, "");
    printf("\n]}\n");
    return 0;
}
