/* block_probe.cu - what a block's launch, retire and barriers cost on the
 * SM as a function of grid size, block size and barrier count (issue 11,
 * row kernels). Each variant: one warm-up launch, then 7 launches each
 * timed with CUDA events after a 20 us sleep kernel (no CPU gap in the
 * timed region); the median is written. No global memory is touched but
 * one store per block behind a condition that never holds, so the time is
 * the blocks' own: launch, B phases of {shared store, barrier, shared
 * load}, retire. Prints one JSON object. */
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void k_sleep(unsigned ns)
{
    __nanosleep(ns);
}

template <int B> __global__ void k_phases(float *sink, int never)
{
    __shared__ float s[1024];
    unsigned t = threadIdx.x;
    float v = (float)t;
#pragma unroll
    for (int i = 0; i < B; i++) {
        s[t] = v;
        __syncthreads();
        v += s[(t + 32) % blockDim.x];
    }
    if (never == 12345 && v == -1.0f)
        sink[blockIdx.x] = v;
}

template <int B> static float time_one(int grid, int block, float *sink)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    k_phases<B><<<grid, block>>>(sink, 0);
    std::vector<float> ms;
    for (int r = 0; r < 7; r++) {
        k_sleep<<<1, 1>>>(20000);
        cudaEventRecord(a);
        k_phases<B><<<grid, block>>>(sink, 0);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float x = 0;
        cudaEventElapsedTime(&x, a, b);
        ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms[3];
}

int main()
{
    float *sink;
    cudaMalloc(&sink, (1 << 20) * sizeof(float));
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int drv = 0;
    cudaDriverGetVersion(&drv);
    printf("{\"card\": \"%s\", \"sms\": %d, \"driver_api\": %d, \"rows\": [\n", p.name, p.multiProcessorCount,
           drv);
    const int blocks[] = {64, 256, 1024};
    bool first = true;
    for (int lg = 10; lg <= 18; lg += 2)
        for (int bs : blocks) {
            int g = 1 << lg;
            float t0 = time_one<0>(g, bs, sink), t1 = time_one<1>(g, bs, sink), t5 = time_one<5>(g, bs, sink),
                  t20 = time_one<20>(g, bs, sink);
            printf("%s{\"grid\": %d, \"block\": %d, \"us_b0\": %.3f, \"us_b1\": %.3f, \"us_b5\": %.3f, "
                   "\"us_b20\": %.3f}",
                   first ? "" : ",\n", g, bs, t0 * 1e3, t1 * 1e3, t5 * 1e3, t20 * 1e3);
            first = false;
        }
    printf("\n], \"error\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
