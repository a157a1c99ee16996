/* throughput.cu - arithmetic throughput at full occupancy: FP32 FMA, FP64
 * FMA and the special-function unit (rsqrt.approx, MUFU.RSQ), each thread
 * running 8 independent dependency chains so that latency is hidden and the
 * unit's issue rate is the limit. */
#include "common.cuh"

/* k_fp32, k_fp64, k_sfu and CHAINS: the shared calibration kernels (clients/calibrate/kernels.cuh) */

void run_throughput(Ctx &c) {
    std::printf("== throughput\n");
    const int block = 256;
    struct T {
        const char *name;
        const void *fn;
        int iters;
        int kind; /* 0 fp32, 1 fp64, 2 sfu */
    } ts[] = {{"fp32_fma", (const void *)k_fp32, c.quick ? 64 : 512, 0},
              {"fp64_fma", (const void *)k_fp64, c.quick ? 32 : 256, 1},
              {"sfu_rsqrt", (const void *)k_sfu, c.quick ? 16 : 96, 2}};
    for (const T &t : ts) {
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, t.fn, block, 0));
        unsigned grid = (unsigned)(c.sm_count * per_sm);
        KernelDesc d;
        set_grid(d, grid);
        set_block(d, block);
        kernel_resources(t.fn, d);
        d.block_barriers = 1;
        double ops = (double)t.iters * 8 * CHAINS;
        if (t.kind == 0) d.flops_fp32 = 2 * ops + (CHAINS - 1);
        if (t.kind == 1) d.flops_fp64 = 2 * ops + (CHAINS - 1);
        if (t.kind == 2) {
            d.sfu_ops = ops;
            d.flops_fp32 = CHAINS - 1;
        }
        Access gst;
        gst.space = "global";
        gst.op = "store";
        gst.count = 1;
        gst.element_bytes = t.kind == 1 ? 8 : 4;
        gst.lane_stride_elements = 1;
        d.accesses.push_back(gst);
        Stats s = time_launches(
            c,
            [&](int rep) {
                if (t.kind == 0) k_fp32<<<grid, block>>>((float *)c.scratch, t.iters, 0.9999f, 0.5f);
                if (t.kind == 1) k_fp64<<<grid, block>>>((double *)c.scratch, t.iters, 0.9999, 0.5);
                if (t.kind == 2) k_sfu<<<grid, block>>>((float *)c.scratch, t.iters);
            },
            c.warmup, c.repeats);
        double threads = (double)grid * block;
        std::string extra = kv("ops_per_thread", ops) + ", " +
                            kv(t.kind == 2 ? "sfu_ops_per_s" : "flops_per_s",
                               (t.kind == 2 ? ops : 2 * ops) * threads / s.median_s);
        add_entry(c, t.name, "throughput", d, s, extra);
    }
}
