/* kblock_probe.cu - what a grid of many short, barrier-heavy blocks costs
 * on the SM (issue 11, the everyday class's softmax and layernorm rows):
 * cold launches (L2 flushed, then a sleep kernel so the host is out of the
 * timed region; cold_timing.cuh), GPU time between CUDA events, median of 7.
 *
 * tree: a row per block. Each thread loads W floats of its row (coalesced),
 *   then P block reductions of one float per thread through shared memory
 *   (store, barrier, log2(n) levels of {if (t < s) s[t] += s[t + s];
 *   barrier}, read s[0], barrier: log2(n) + 2 barriers each), then stores
 *   its W floats scaled. 2^24 floats in all: grid = 2^24 / (n W). A softmax
 *   of 65536 rows of 256 is n 256, W 1, P 2.
 * bar: B bare __syncthreads a thread, a dependent FMA between them, no
 *   memory at all but a store behind a condition that never holds; grid
 *   65536.
 * Each variant runs at the SM's full occupancy and with resident blocks per
 * SM capped (dynamic shared memory sized so that at most `cap` blocks fit);
 * the occupancy API's count is written beside the time.
 *
 *   nvcc -O3 -arch=sm_90 -o kblock_probe kblock_probe.cu; ./kblock_probe > out.json */
#include <cstdio>

#include "../rates/cold_timing.cuh"

__global__ void k_tree(const float *x, float *y, int width, int reductions)
{
    extern __shared__ float sm[];
    int t = threadIdx.x, n = blockDim.x;
    const float *row = x + (size_t)blockIdx.x * n * width;
    float v[4];
    float acc = 0.0f;
#pragma unroll
    for (int w = 0; w < 4; w++)
        if (w < width) {
            v[w] = row[w * n + t];
            acc += v[w];
        }
    for (int p = 0; p < reductions; p++) {
        sm[t] = acc;
        __syncthreads();
        for (int s = n / 2; s > 0; s >>= 1) {
            if (t < s)
                sm[t] += sm[t + s];
            __syncthreads();
        }
        acc = acc * 0.5f + sm[0];
        __syncthreads();
    }
    float *out = y + (size_t)blockIdx.x * n * width;
#pragma unroll
    for (int w = 0; w < 4; w++)
        if (w < width)
            out[w * n + t] = v[w] * acc;
}

__global__ void k_bar(float *sink, int barriers, int never)
{
    float v = (float)threadIdx.x;
    for (int i = 0; i < barriers; i++) {
        __syncthreads();
        v = v * 1.0001f + 1.0f;
    }
    if (never == 12345 && v == -1.0f)
        sink[blockIdx.x] = v;
}

/* dynamic shared bytes for at most `cap` resident blocks of `threads` (0:
 * as few as the kernel needs); *resident: the occupancy API's answer */
template <typename K> static int shared_for(K kernel, int threads, int cap, int need, int *resident)
{
    int dyn = need;
    if (cap > 0) {
        int per_sm = 233472; /* 228 KiB */
        dyn = per_sm / cap - 1024 - 256;
        dyn -= dyn % 256;
        if (dyn < need)
            dyn = need;
    }
    for (;;) {
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, kernel, threads, dyn));
        if (cap == 0 || *resident <= cap || dyn > 220000)
            break;
        dyn += 256;
    }
    return dyn;
}

int main()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaMalloc(&flush_buf, flush_words * sizeof(unsigned)));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const size_t elems = (size_t)1 << 24;
    float *x, *y;
    CK(cudaMalloc(&x, elems * sizeof(float)));
    CK(cudaMalloc(&y, elems * sizeof(float)));
    CK(cudaMemset(x, 0x3c, elems * sizeof(float))); /* 0.0115 each: not zeros */
    CK(cudaFuncSetAttribute(k_tree, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CK(cudaFuncSetAttribute(k_bar, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CK(cudaFuncSetAttribute(k_tree, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CK(cudaFuncSetAttribute(k_bar, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("{\"card\": \"%s\", \"sms\": %d, \"driver_api\": %d, \"clock_khz\": %d,\n", p.name,
           p.multiProcessorCount, drv, clock_khz);
    const int caps[] = {0, 8, 4, 2, 1};
    printf("\"tree\": [\n");
    bool first = true;
    for (int n : {128, 256, 512, 1024})
        for (int width : {1, 2, 4})
            for (int reductions : {0, 1, 2})
                for (int cap : caps) {
                    int resident = 0;
                    int dyn = shared_for(k_tree, n, cap, n * 4, &resident);
                    if (cap > 0 && resident != cap)
                        continue;
                    int grid = (int)(elems / ((size_t)n * width));
                    double s = time_cold([&] { k_tree<<<grid, n, dyn>>>(x, y, width, reductions); });
                    int lg = 0;
                    while ((1 << lg) < n)
                        lg++;
                    printf("%s{\"block\": %d, \"grid\": %d, \"width\": %d, \"reductions\": %d, "
                           "\"barriers\": %d, \"resident_blocks\": %d, \"dynamic_shared_bytes\": %d, "
                           "\"time_s\": %.4e}",
                           first ? "" : ",\n", n, grid, width, reductions, reductions * (lg + 2), resident, dyn,
                           s);
                    first = false;
                }
    printf("\n],\n\"bar\": [\n");
    first = true;
    for (int n : {64, 128, 256, 512, 1024})
        for (int barriers : {0, 4, 16, 40})
            for (int cap : caps) {
                int resident = 0;
                int dyn = shared_for(k_bar, n, cap, 0, &resident);
                if (cap > 0 && resident != cap)
                    continue;
                int grid = 65536;
                double s = time_cold([&] { k_bar<<<grid, n, dyn>>>(y, barriers, 0); });
                printf("%s{\"block\": %d, \"grid\": %d, \"barriers\": %d, \"resident_blocks\": %d, "
                       "\"dynamic_shared_bytes\": %d, \"time_s\": %.4e}",
                       first ? "" : ",\n", n, grid, barriers, resident, dyn, s);
                first = false;
            }
    printf("\n], \"error\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
