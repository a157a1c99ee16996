/* constant.cu - constant memory read by 1, 2, 4, 8, 16 and 32 distinct
 * addresses per warp: lane l reads word (l % d) of a 32-word row, the row
 * moving on every load; the index is computed at run time so every variant
 * uses the same indexed constant load (LDC), serialized by the number of
 * distinct addresses in the warp. */
#include "common.cuh"

#define CWORDS 16384 /* 64 KiB: all of constant bank space a module gets */
#define CROWS 8      /* rows of 32 words read: 1 KiB, inside the SM's constant cache */
__constant__ unsigned c_tab[CWORDS];

__global__ void k_constant(unsigned *out, int iters, int distinct, unsigned sentinel) {
    unsigned lane = threadIdx.x & 31;
    unsigned off = lane % (unsigned)distinct;
    unsigned acc = 0, row = 0;
#pragma unroll 1
    for (int it = 0; it < iters; it += 8, row++) {
#pragma unroll
        for (int u = 0; u < 8; u++) acc += c_tab[off + ((row + (unsigned)u) & (CROWS - 1)) * 32u];
    }
    if (acc == sentinel) out[threadIdx.x] = acc;
}

void run_constant(Ctx &c) {
    std::printf("== constant\n");
    std::vector<unsigned> h(CWORDS);
    for (unsigned i = 0; i < CWORDS; i++) h[i] = hash32(i * 7919u + 1u);
    CK(cudaMemcpyToSymbol(c_tab, h.data(), sizeof(unsigned) * CWORDS));
    const int block = 256, iters = c.quick ? 512 : 4096;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k_constant, block, 0));
    unsigned grid = (unsigned)(c.sm_count * per_sm);
    /* fixed part: the same launch with no loads, subtracted before ratios */
    double t0 = time_launches(c, [&](int rep) { k_constant<<<grid, block>>>(c.scratch, 0, 1, 0xdeadbeefu); },
                              c.warmup, c.repeats).median_s;
    double per_load1 = 0;
    for (int dct : {1, 2, 4, 8, 16, 32}) {
        KernelDesc d;
        set_grid(d, grid);
        set_block(d, block);
        kernel_resources((const void *)k_constant, d);
        d.block_barriers = 1;
        Access a;
        a.space = "constant";
        a.op = "load";
        a.count = iters;
        a.element_bytes = 4;
        a.independent = 8;
        if (dct == 1)
            a.lane_stride_elements = 0;
        else if (dct == 32)
            a.lane_stride_elements = 1;
        else
            for (int l = 0; l < 32; l++) a.lane_addresses.push_back((long long)(l % dct) * 4);
        d.accesses.push_back(a);
        Stats s = time_launches(
            c, [&](int rep) { k_constant<<<grid, block>>>(c.scratch, iters, dct, 0xdeadbeefu); },
            c.warmup, c.repeats);
        double warp_loads = (double)grid * (block / 32) * iters;
        double per_load = (s.median_s - t0) * c.sm_clock_hz * c.sm_count / warp_loads;
        if (dct == 1) per_load1 = per_load;
        char name[64];
        std::snprintf(name, sizeof name, "constant_distinct%d", dct);
        std::string extra = kv("distinct_addresses", (long long)dct) + ", " +
                            kv("fixed_overhead_s", t0) + ", " +
                            kv("cycles_per_warp_load_per_sm", per_load) + ", " +
                            kv("serialization_measured", per_load / per_load1);
        add_entry(c, name, "constant", d, s, extra);
    }
}
