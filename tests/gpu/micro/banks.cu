/* banks.cu - shared-memory bank conflicts: every lane reads the word at
 * lane * stride (in elements of 4 or 8 bytes; stride 0 is a broadcast), 16
 * loads in flight per iteration, each shifted by a constant so the conflict
 * pattern never changes. The loads are ld.volatile.shared (a plain ld.shared
 * in volatile asm is still hoisted out of the loop by ptxas), so every
 * iteration really issues its 16 loads. Cycles per warp-wide access: (time -
 * t0) x SM clock / warp-accesses per SM, where t0 is the same launch with no
 * load iterations (launch, shared fill, barrier, store); ways_measured =
 * cycles(stride) / cycles(stride 1) of the same element size,
 * wavefronts_measured divides by the 4-byte stride-1 figure instead. (Per-block
 * clock64 spans were tried first: the warp scheduler favours the older block
 * on an SM, so one block finishes at half time and its span misleads.) */
#include "common.cuh"

#define SMEM_WORDS 8192 /* 32 KiB */
#define UNROLL 16

/* 16 volatile shared loads at addr + 128 * u (immediate offsets) */
#define LD1(T, C, U, OFF) asm volatile("ld.volatile.shared." T " %0, [%1+" #OFF "];" : C(v[U]) : "r"(addr));
#define LOADS16(T, C)                                                                      \
    LD1(T, C, 0, 0) LD1(T, C, 1, 128) LD1(T, C, 2, 256) LD1(T, C, 3, 384)                  \
    LD1(T, C, 4, 512) LD1(T, C, 5, 640) LD1(T, C, 6, 768) LD1(T, C, 7, 896)                \
    LD1(T, C, 8, 1024) LD1(T, C, 9, 1152) LD1(T, C, 10, 1280) LD1(T, C, 11, 1408)          \
    LD1(T, C, 12, 1536) LD1(T, C, 13, 1664) LD1(T, C, 14, 1792) LD1(T, C, 15, 1920)

template <int EB>
__global__ void k_banks(float *out, unsigned long long *cycles, int stride, int iters, unsigned seed) {
    __shared__ __align__(16) unsigned smem[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        smem[i] = 0x3f800000u | (hash32(i ^ seed) >> 9); /* floats in [1, 2) */
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned addr = (unsigned)__cvta_generic_to_shared(smem) + lane * (unsigned)stride * EB;
    unsigned long long c0 = clock64();
    if (EB == 4) {
        float a0 = 0, a1 = 0;
#pragma unroll 1
        for (int it = 0; it < iters; it += UNROLL) {
            float v[UNROLL];
            LOADS16("f32", "=f")
#pragma unroll
            for (int u = 0; u < UNROLL; u += 2) {
                a0 += v[u];
                a1 += v[u + 1];
            }
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1;
    } else {
        double a0 = 0, a1 = 0;
#pragma unroll 1
        for (int it = 0; it < iters; it += UNROLL) {
            double v[UNROLL];
            LOADS16("f64", "=d")
#pragma unroll
            for (int u = 0; u < UNROLL; u += 2) {
                a0 += v[u];
                a1 += v[u + 1];
            }
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(a0 + a1);
    }
    __syncthreads();
    if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - c0;
}

void run_banks(Ctx &c) {
    std::printf("== banks\n");
    const int block = 1024, iters = c.quick ? 1024 : 8192;
    unsigned long long *cyc;
    CK(cudaMalloc(&cyc, sizeof(unsigned long long) * 4096));
    double base4 = 0;
    for (int eb : {4, 8}) {
        const void *fn = eb == 4 ? (const void *)k_banks<4> : (const void *)k_banks<8>;
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, 0));
        if (per_sm < 1) per_sm = 1;
        unsigned grid = (unsigned)(c.sm_count * per_sm);
        auto launch = [&](int st, int it, int rep) {
            if (eb == 4)
                k_banks<4><<<grid, block>>>((float *)c.scratch, cyc, st, it, 17u + rep);
            else
                k_banks<8><<<grid, block>>>((float *)c.scratch, cyc, st, it, 17u + rep);
        };
        /* the fixed part (launch, shared fill, barrier, store): the same kernel
         * with no load iterations; subtracted before taking ratios */
        Stats s0 = time_launches(c, [&](int rep) { launch(1, 0, rep); }, c.warmup, c.repeats);
        double t0 = s0.median_s;
        double base = 0;
        std::vector<int> strides;
        for (int s = 0; s <= 64; s++) strides.push_back(s); /* 0 = broadcast */
        /* stride 1 first: every other figure is a ratio to it */
        std::swap(strides[0], strides[1]);
        for (int st : strides) {
            KernelDesc d;
            set_grid(d, grid);
            set_block(d, block);
            kernel_resources(fn, d);
            d.block_barriers = 1;
            if (eb == 4)
                d.flops_fp32 = iters;
            else
                d.flops_fp64 = iters;
            Access st_fill;
            st_fill.space = "shared";
            st_fill.op = "store";
            st_fill.count = SMEM_WORDS / block;
            st_fill.element_bytes = 4;
            st_fill.lane_stride_elements = 1;
            st_fill.independent = SMEM_WORDS / block;
            d.accesses.push_back(st_fill);
            Access ld;
            ld.space = "shared";
            ld.op = "load";
            ld.count = iters;
            ld.element_bytes = eb;
            ld.lane_stride_elements = st;
            ld.independent = UNROLL;
            d.accesses.push_back(ld);
            Access gst;
            gst.space = "global";
            gst.op = "store";
            gst.count = 1;
            gst.element_bytes = 4;
            gst.lane_stride_elements = 1;
            d.accesses.push_back(gst);
            Stats s = time_launches(c, [&](int rep) { launch(st, iters, rep); }, c.warmup, c.quick ? 3 : 9);
            /* cycles of one warp-wide access on one SM: the SM's share of the
             * warp-accesses over the time the loads took */
            double warp_accesses_per_sm = (double)grid * (block / 32) * iters / c.sm_count;
            double cpa = (s.median_s - t0) * c.sm_clock_hz / warp_accesses_per_sm;
            if (st == 1) base = cpa;
            if (st == 1 && eb == 4) base4 = cpa;
            char name[64];
            std::snprintf(name, sizeof name, "shared_%dB_stride%d", eb, st);
            std::string extra = kv("element_bytes", (long long)eb) + ", " +
                                kv("stride", (long long)st) + ", " +
                                kv("broadcast", (long long)(st == 0)) + ", " +
                                kv("blocks_per_sm", (long long)per_sm) + ", " +
                                kv("fixed_overhead_s", t0) + ", " +
                                kv("cycles_per_access", cpa) + ", " +
                                kv("ways_measured", cpa / base) + ", " +
                                kv("wavefronts_measured", cpa / base4);
            add_entry(c, name, "banks", d, s, extra);
        }
    }
    CK(cudaFree(cyc));
}
