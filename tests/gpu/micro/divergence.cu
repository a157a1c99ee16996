/* divergence.cu - branch divergence. 32 distinct code paths of equal cost
 * (iters x 32 FMAs in 4 independent chains; each path's PTX carries its own
 * number so no compiler pass can merge two paths into one). A thread picks
 * its path from its lane (lane % k: k paths in every warp), from its warp
 * (warp % 32: one path per warp, no divergence) or from a hash of its global
 * index (hash % k: each lane picks one of k paths at random). */
#include "common.cuh"

template <int P>
__device__ __forceinline__ void path_work(float &a0, float &a1, float &a2, float &a3, float b,
                                          float cc, int iters) {
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 8; u++)
            asm volatile(
                "// divergence path %4\n\t"
                "fma.rn.f32 %0, %0, %5, %6;\n\t"
                "fma.rn.f32 %1, %1, %5, %6;\n\t"
                "fma.rn.f32 %2, %2, %5, %6;\n\t"
                "fma.rn.f32 %3, %3, %5, %6;"
                : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3)
                : "n"(P), "f"(b), "f"(cc));
    }
}

#define CASE(P) \
    case P: path_work<P>(a0, a1, a2, a3, b, cc, iters); break;

/* mode 0: lane % k; 1: warp % 32; 2: hash(global index) % k */
__global__ void k_divergence(float *out, int mode, int k, int iters, float b, float cc, unsigned seed) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int path;
    if (mode == 0)
        path = (int)(lane % (unsigned)k);
    else if (mode == 1)
        path = (int)((gid >> 5) & 31);
    else
        path = (int)(hash32(gid ^ seed) % (unsigned)k);
    float a0 = gid * 1e-7f, a1 = a0 + 0.25f, a2 = a0 + 0.5f, a3 = a0 + 0.75f;
    switch (path) {
        CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7)
        CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15)
        CASE(16) CASE(17) CASE(18) CASE(19) CASE(20) CASE(21) CASE(22) CASE(23)
        CASE(24) CASE(25) CASE(26) CASE(27) CASE(28) CASE(29) CASE(30) CASE(31)
        default: break;
    }
    out[gid] = a0 + a1 + a2 + a3;
}

void run_divergence(Ctx &c) {
    std::printf("== divergence\n");
    const int block = 256, iters = c.quick ? 64 : 512;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k_divergence, block, 0));
    unsigned grid = (unsigned)(c.sm_count * per_sm);
    struct Case {
        int mode, k;
    };
    std::vector<Case> cases;
    for (int k : {1, 2, 4, 8, 16, 32}) cases.push_back({0, k});
    cases.push_back({1, 32});
    for (int k : {2, 4, 8, 16, 32}) cases.push_back({2, k});
    const char *mode_name[] = {"lane", "warp", "hash"};
    for (const Case &cs : cases) {
        KernelDesc d;
        set_grid(d, grid);
        set_block(d, block);
        kernel_resources((const void *)k_divergence, d);
        d.block_barriers = 1;
        d.flops_fp32 = 2.0 * 32 * iters + 3; /* the FMAs of one path, plus the final sum */
        Access gst;
        gst.space = "global";
        gst.op = "store";
        gst.count = 1;
        gst.element_bytes = 4;
        gst.lane_stride_elements = 1;
        d.accesses.push_back(gst);
        char br[64];
        if (cs.mode == 0)
            std::snprintf(br, sizeof br, "{\"paths\": %d}", cs.k);
        else if (cs.mode == 1)
            std::snprintf(br, sizeof br, "{\"paths\": 1}");
        else
            std::snprintf(br, sizeof br, "{\"random_paths\": %d}", cs.k);
        d.branch = br;
        Stats s = time_launches(
            c,
            [&](int rep) {
                k_divergence<<<grid, block>>>((float *)c.scratch, cs.mode, cs.k, iters, 0.9999f,
                                              0.5f, 12345u);
            },
            c.warmup, c.repeats);
        /* distinct paths per warp actually met (for the hash mode) */
        double mean_paths = cs.mode == 0 ? cs.k : 1;
        if (cs.mode == 2) {
            double sum = 0;
            unsigned warps = grid * block / 32;
            for (unsigned w = 0; w < warps; w++) {
                unsigned seen = 0;
                for (unsigned l = 0; l < 32; l++) seen |= 1u << (hash32((w * 32 + l) ^ 12345u) % (unsigned)cs.k);
                sum += __builtin_popcount(seen);
            }
            mean_paths = sum / warps;
        }
        char name[64];
        std::snprintf(name, sizeof name, "divergence_%s_k%d", mode_name[cs.mode], cs.k);
        std::string extra = kvs("mode", mode_name[cs.mode]) + ", " + kv("k", (long long)cs.k) + ", " +
                            kv("mean_paths_per_warp", mean_paths) + ", " +
                            kv("fp32_flops_per_s", d.flops_fp32 * grid * block / s.median_s);
        add_entry(c, name, "divergence", d, s, extra);
    }
}
