/* latency_hiding.cu - DRAM read bandwidth against warps per SM (1..64) and
 * ILP (1, 2, 4, 8). Each thread runs `rounds` rounds; a round issues ILP
 * independent coalesced 4-byte loads, and the next round's addresses depend
 * on this round's values (through a kernel argument that is zero at run
 * time), so exactly ILP loads per thread are in flight. Warps per SM are set
 * by the block size and by dynamic shared memory that lets exactly 1 (or 2)
 * blocks fit on an SM, with grid = SMs x blocks per SM: one wave. Each launch
 * reads a fresh window of the pool, never in L2. */
#include "common.cuh"

template <int ILP>
__global__ void __launch_bounds__(1024, 2)
    k_latency(const unsigned *__restrict__ in, unsigned *out, int rounds, unsigned zero, unsigned sentinel) {
    extern __shared__ unsigned reserve[]; /* only limits blocks per SM */
    long long n = (long long)gridDim.x * blockDim.x;
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    unsigned acc = 0;
#pragma unroll 1
    for (int r = 0; r < rounds; r++) {
        unsigned v[ILP];
#pragma unroll
        for (int j = 0; j < ILP; j++) v[j] = in[idx + j * n];
        unsigned s = 0;
#pragma unroll
        for (int j = 0; j < ILP; j++) s ^= v[j];
        acc += s;
        idx += ILP * n + (long long)(s & zero);
    }
    if (acc == sentinel) {
        reserve[0] = acc;
        out[threadIdx.x] = reserve[0];
    }
}

typedef void (*lfn)(const unsigned *, unsigned *, int, unsigned, unsigned);

void run_latency_hiding(Ctx &c) {
    std::printf("== latency_hiding\n");
    const int rounds = c.quick ? 32 : 128;
    lfn fns[4] = {k_latency<1>, k_latency<2>, k_latency<4>, k_latency<8>};
    int ilps[4] = {1, 2, 4, 8};
    for (int f = 0; f < 4; f++)
        CK(cudaFuncSetAttribute((const void *)fns[f], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                160 * 1024));
    for (int w : {1, 2, 4, 8, 12, 16, 24, 32, 48, 64}) {
        int blocks_per_sm = w > 32 ? 2 : 1;
        int warps_per_block = w / blocks_per_sm;
        int block = warps_per_block * 32;
        size_t dyn = blocks_per_sm == 1 ? 160 * 1024 : 100 * 1024;
        for (int f = 0; f < 4; f++) {
            int ilp = ilps[f];
            int occ = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)fns[f], block, dyn));
            if (occ != blocks_per_sm)
                std::printf("  note: %d warps/SM ILP %d: occupancy API says %d blocks/SM, wanted %d\n", w,
                            ilp, occ, blocks_per_sm);
            unsigned grid = (unsigned)(c.sm_count * blocks_per_sm);
            size_t threads = (size_t)grid * block;
            size_t footprint = threads * rounds * ilp * 4 + 4096;
            KernelDesc d;
            set_grid(d, grid);
            set_block(d, (unsigned)block);
            d.dynamic_shared_bytes = (long long)dyn;
            kernel_resources((const void *)fns[f], d);
            d.block_barriers = 1;
            Access a;
            a.space = "global";
            a.op = "load";
            a.count = (long long)rounds * ilp;
            a.element_bytes = 4;
            a.lane_stride_elements = 1;
            a.independent = ilp;
            d.accesses.push_back(a);
            Stats s = time_launches(
                c,
                [&](int rep) {
                    const unsigned *in =
                        (const unsigned *)((const char *)c.pool + rotate_offset(footprint, c.pool_bytes, rep));
                    fns[f]<<<grid, block, dyn>>>(in, c.scratch, rounds, 0u, 0xdeadbeefu);
                },
                c.warmup, c.repeats);
            double bytes = (double)threads * rounds * ilp * 4;
            char name[64];
            std::snprintf(name, sizeof name, "read_warps%d_ilp%d", w, ilp);
            std::string extra = kv("warps_per_sm", (long long)(std::min(occ, blocks_per_sm) * warps_per_block)) +
                                ", " + kv("ilp", (long long)ilp) + ", " +
                                kv("blocks_per_sm", (long long)occ) + ", " +
                                kv("bytes_per_lane", 4LL) + ", " + kv("bytes_moved", bytes) + ", " +
                                kv("achieved_bytes_per_s", bytes / s.median_s);
            add_entry(c, name, "latency_hiding", d, s, extra);
        }
    }
}
