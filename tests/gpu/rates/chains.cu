/* chains.cu - what a loop of dependent FMA chains costs beyond its FMAs
 * (issue 11: FP32 and FP64 kernels of one or two chains at full occupancy run
 * 16% to 23% slower than their pipes and issue slots predict, 4 to 9 cycles
 * an iteration; more chains, less). Each thread runs ITERS iterations of
 * U dependent steps on each of CH chains (a = fma(a, c, 0.5)), the loop
 * counter kept with #pragma unroll 1, so a row's FMAs are fixed and U sets
 * how many of them one pass of the loop (its counter, compare and branch)
 * carries: U = 8 as the held-out set's kernels, U = 64 eight times fewer
 * passes. Grids of 1 to 8 blocks of 256 threads an SM (2 to 16 warps a
 * scheduler). GPU time of one launch without CPU gaps as atomics_int.cu (L2
 * flush, 50 us sleep kernel, event pair; 2 untimed, 7 timed, median);
 * cycles at the clock clock64 over %globaltimer gives under an FMA load.
 * Prints one JSON object. Standalone: nvcc -O3 -arch=sm_90. */
#include "cold_timing.cuh"

template <typename T, int CH, int U>
__global__ void k_chain(T *out, int iters) {
    T a[CH];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < CH; i++) a[i] = (T)gid * (T)1e-7 + (T)i;
#pragma unroll 1
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int i = 0; i < CH; i++) a[i] = fma(a[i], (T)0.9999, (T)0.5);
    T s = 0;
#pragma unroll
    for (int i = 0; i < CH; i++) s += a[i];
    out[gid] = s;
}

/* the SM clock under an FMA load: clock64 over %globaltimer, one thread
 * timing a long dependent chain while the grid runs the same */
__global__ void k_clock(unsigned long long *out, int iters) {
    unsigned long long t0, t1, c0, c1;
    float a = threadIdx.x * 1e-7f;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
    for (int i = 0; i < iters; i++) a = fmaf(a, 0.9999f, 0.5f);
    c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = c1 - c0;
        out[1] = t1 - t0;
    }
    if (a == -1.0f) out[2] = 1; /* keeps the chain */
}

struct Row {
    const char *name;
    int fp64, chains, unroll, blocks_per_sm;
    std::function<void(void *, unsigned, int)> launch;
    long long fmas; /* per thread */
};

#define ROW(T, FP64, CH, U, B, FMAS)                                                                          \
    Row {                                                                                                   \
        #T "_ch" #CH "_u" #U "_b" #B, FP64, CH, U, B,                                                       \
            [](void *o, unsigned g, int it) { k_chain<T, CH, U><<<g, 256>>>((T *)o, it); }, FMAS            \
    }

int main() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    cold_timing_init();
    void *o;
    CK(cudaMalloc(&o, (size_t)64 << 20));
    unsigned long long *clk;
    CK(cudaMalloc(&clk, 64));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    const long long f32 = 8192, f64 = 2048; /* FMAs a thread: about 50 us at full occupancy */
    std::vector<Row> rows = {
        ROW(float, 0, 1, 8, 8, f32),  ROW(float, 0, 1, 64, 8, f32), ROW(float, 0, 2, 8, 8, f32),
        ROW(float, 0, 2, 64, 8, f32), ROW(float, 0, 4, 8, 8, f32),  ROW(float, 0, 4, 64, 8, f32),
        ROW(float, 0, 8, 8, 8, f32),  ROW(float, 0, 8, 64, 8, f32), ROW(float, 0, 1, 8, 4, f32),
        ROW(float, 0, 1, 64, 4, f32), ROW(float, 0, 1, 8, 2, f32),  ROW(float, 0, 1, 64, 2, f32),
        ROW(float, 0, 1, 8, 1, f32),  ROW(float, 0, 1, 64, 1, f32), ROW(double, 1, 1, 8, 8, f64),
        ROW(double, 1, 1, 64, 8, f64), ROW(double, 1, 2, 8, 8, f64), ROW(double, 1, 2, 64, 8, f64),
        ROW(double, 1, 4, 8, 8, f64), ROW(double, 1, 4, 64, 8, f64), ROW(double, 1, 8, 8, 8, f64),
        ROW(double, 1, 8, 64, 8, f64), ROW(double, 1, 1, 8, 2, f64), ROW(double, 1, 1, 64, 2, f64),
    };
    /* the clock under load: the whole GPU busy with the same chain */
    k_clock<<<p.multiProcessorCount * 8, 256>>>(clk, 1 << 20);
    CK(cudaDeviceSynchronize());
    unsigned long long c[2];
    CK(cudaMemcpy(c, clk, sizeof c, cudaMemcpyDeviceToHost));
    double hz = (double)c[0] / ((double)c[1] * 1e-9);
    printf("{\"card\": \"%s\", \"sm_count\": %d, \"driver_api\": %d, \"clock_under_load_hz\": %.6e, \"rows\": [", p.name,
           p.multiProcessorCount, drv, hz);
    for (size_t i = 0; i < rows.size(); i++) {
        const Row &r = rows[i];
        unsigned grid = p.multiProcessorCount * r.blocks_per_sm;
        int iters = (int)(r.fmas / ((long long)r.chains * r.unroll));
        double s = time_cold([&] { r.launch(o, grid, iters); });
        /* a scheduler's cycles per FMA warp instruction: the grid's warps
         * share 4 schedulers an SM, all resident at once (one wave) */
        double warps_per_sched = r.blocks_per_sm * 256.0 / 32 / 4;
        double cyc = s * hz / (warps_per_sched * (double)iters * r.chains * r.unroll);
        printf("%s\n  {\"name\": \"%s\", \"fp64\": %d, \"chains\": %d, \"unroll\": %d, \"blocks_per_sm\": %d, "
               "\"iters\": %d, \"fmas_per_thread\": %lld, \"median_s\": %.6e, \"sched_cycles_per_fma\": %.4f, "
               "\"sched_cycles_per_iteration\": %.3f}",
               i ? "," : "", r.name, r.fp64, r.chains, r.unroll, r.blocks_per_sm, iters,
               (long long)iters * r.chains * r.unroll, s, cyc, cyc * r.chains * r.unroll);
        fflush(stdout);
    }
    printf("\n]}\n");
    return 0;
}
