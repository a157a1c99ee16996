/* chains_mix.cu - an independent check of the FP64 issue hold (issue 11;
 * fp64_issue_hold_fraction in hwdb/arch/sm_90.yaml, fitted on chains.cu):
 * FP64 FMA loops with other work beside them in each pass, which the hold
 * says is paid for on top of the FP64 pipe's time and the pipe beside issue
 * says is hidden under it. A pass is D dependent FP64 FMAs on each of DC
 * chains, F dependent FP32 FMAs on each of FC chains and S steps of an
 * integer chain u += u >> 3 (a shift and an add), the loop's counter kept
 * with #pragma unroll 1. The model's answers for these rows, from the
 * requests predict_chains_mix.py writes, are committed before any run.
 * GPU time of one launch without CPU gaps as chains.cu. Prints one JSON
 * object. Standalone: nvcc -O3 -arch=sm_90. */
#include "cold_timing.cuh"

#include <string>

template <int DC, int D, int FC, int F, int S>
__global__ void k_mix(double *out, int iters) {
    double a[DC];
    float b[FC > 0 ? FC : 1];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned u = gid | 1u;
#pragma unroll
    for (int i = 0; i < DC; i++) a[i] = gid * 1e-7 + i;
#pragma unroll
    for (int i = 0; i < (FC > 0 ? FC : 1); i++) b[i] = gid * 1e-7f + i;
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < D; k++)
#pragma unroll
            for (int i = 0; i < DC; i++) a[i] = fma(a[i], 0.9999, 0.5);
#pragma unroll
        for (int k = 0; k < F; k++)
#pragma unroll
            for (int i = 0; i < FC; i++) b[i] = fmaf(b[i], 0.9999f, 0.5f);
#pragma unroll
        for (int k = 0; k < S; k++) u += u >> 3;
    }
    double s = u;
#pragma unroll
    for (int i = 0; i < DC; i++) s += a[i];
#pragma unroll
    for (int i = 0; i < FC; i++) s += b[i];
    out[gid] = s;
}

struct Row {
    const char *name;
    int dc, d, fc, f, s, blocks_per_sm, iters;
    void (*launch)(double *, unsigned, int);
};

#define ROW(NAME, DC, D, FC, F, S, B, IT)                                                                     \
    Row {                                                                                                   \
        NAME, DC, D, FC, F, S, B, IT, [](double *o, unsigned g, int it) { k_mix<DC, D, FC, F, S><<<g, 256>>>(o, it); } \
    }

/* every row's table, shared with predict_chains_mix.py through --list */
static const Row rows[] = {
    ROW("d8_s4", 1, 8, 0, 0, 4, 8, 256),       ROW("d8_s8", 1, 8, 0, 0, 8, 8, 256),
    ROW("d8_s16", 1, 8, 0, 0, 16, 8, 256),     ROW("d8_f8", 1, 8, 1, 8, 0, 8, 256),
    ROW("d8_f16", 1, 8, 2, 8, 0, 8, 256),      ROW("d16_f8", 2, 8, 1, 8, 0, 8, 128),
    ROW("d32_s8", 4, 8, 0, 0, 8, 8, 64),       ROW("d8_s8_b2", 1, 8, 0, 0, 8, 2, 256),
    ROW("d8_f8_b2", 1, 8, 1, 8, 0, 2, 256),    ROW("d8_s8_b4", 1, 8, 0, 0, 8, 4, 256),
};

int main(int argc, char **argv) {
    const size_t n = sizeof rows / sizeof rows[0];
    if (argc > 1 && std::string(argv[1]) == "--list") {
        for (size_t i = 0; i < n; i++)
            printf("%s %d %d %d %d %d %d %d\n", rows[i].name, rows[i].dc, rows[i].d, rows[i].fc, rows[i].f,
                   rows[i].s, rows[i].blocks_per_sm, rows[i].iters);
        return 0;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    cold_timing_init();
    double *o;
    CK(cudaMalloc(&o, (size_t)64 << 20));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    printf("{\"card\": \"%s\", \"sm_count\": %d, \"driver_api\": %d, \"rows\": [", p.name, p.multiProcessorCount,
           drv);
    for (size_t i = 0; i < n; i++) {
        const Row &r = rows[i];
        unsigned grid = p.multiProcessorCount * r.blocks_per_sm;
        double s = time_cold([&] { r.launch(o, grid, r.iters); });
        printf("%s\n  {\"name\": \"%s\", \"grid\": %u, \"block\": 256, \"iters\": %d, \"median_s\": %.6e}",
               i ? "," : "", r.name, grid, r.iters, s);
        fflush(stdout);
    }
    printf("\n]}\n");
    return 0;
}
