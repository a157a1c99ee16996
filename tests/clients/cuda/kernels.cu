// kernels.cu - four CUDA kernels whose resource use differs on purpose, so
// that `simt ptxas` sees every limiter: `small` (few registers: the warp
// limit), `tiled` (a padded shared tile and one barrier), `big_smem` (48 KiB
// of static shared memory: the shared-memory limit) and `heavy` (a long
// unrolled accumulation: many registers, plus a stack frame). Compiled by the
// tests with `nvcc -c -Xptxas -v`; never run.
__global__ void small(float *x) { x[threadIdx.x] *= 2.0f; }

__global__ void tiled(float *out, const float *in, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}

__global__ void big_smem(float *out, const float *in)
{
    __shared__ float buffer[12288];
    for (int i = threadIdx.x; i < 12288; i += blockDim.x)
        buffer[i] = in[blockIdx.x * 12288 + i];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[(threadIdx.x * 37) % 12288];
}

__device__ __noinline__ float helper(float a)
{
    float b[64];
    for (int i = 0; i < 64; i++)
        b[i] = a * (float)i;
    return b[(int)a & 63];
}

__global__ void heavy(float *x, int n)
{
    float acc[96];
#pragma unroll
    for (int i = 0; i < 96; i++)
        acc[i] = x[i * n + threadIdx.x];
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int i = 0; i < 96; i++)
            s += acc[i] * acc[(i + r) % 96];
    x[threadIdx.x] = s + helper(s);
}
