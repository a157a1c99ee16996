/* transpose.cu - the seed article's matrix transpose (chapter 5) on fp32
 * matrices of 2048, 4096 and 8192: a plain copy through the same indexing
 * (the ceiling), the naive transpose (coalesced reads, writes `height`
 * elements apart), the shared 32x32 tile (32-way bank conflicts on the column
 * read) and the padded 32x33 tile. TILE_DIM 32, BLOCK_ROWS 8: block (32, 8),
 * each thread moves 4 elements. Inputs and outputs rotate through pools of
 * several L2 sizes so no launch starts with its matrix in L2. */
#include "common.cuh"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void k_copy(float *odata, const float *idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && (y + j) < height) odata[(y + j) * width + x] = idata[(y + j) * width + x];
}

__global__ void k_transpose_naive(float *odata, const float *idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && (y + j) < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

/* the seed's transposeSharedOptimized, with the padding as a parameter */
template <int PAD>
__global__ void k_transpose_tile(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int xIndex_out = blockIdx.y * TILE_DIM + threadIdx.x;
    int yIndex_out = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (xIndex < width && (yIndex + j) < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(yIndex + j) * width + xIndex];
    __syncthreads();
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (xIndex_out < height && (yIndex_out + j) < width)
            odata[(yIndex_out + j) * height + xIndex_out] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*tfn)(float *, const float *, int, int);

static Access acc(const char *space, const char *op, long long stride, long long indep) {
    Access a;
    a.space = space;
    a.op = op;
    a.count = TILE_DIM / BLOCK_ROWS;
    a.element_bytes = 4;
    a.lane_stride_elements = stride;
    a.independent = indep;
    return a;
}

void run_transpose(Ctx &c) {
    std::printf("== transpose\n");
    struct V {
        const char *name;
        tfn fn;
        int kind; /* 0 copy, 1 naive, 2 tile */
        int pad;
    } vs[] = {{"copy", k_copy, 0, 0},
              {"transpose_naive", k_transpose_naive, 1, 0},
              {"transpose_tile32", k_transpose_tile<0>, 2, 0},
              {"transpose_tile32_padded33", k_transpose_tile<1>, 2, 1}};
    for (int n : {2048, 4096, 8192}) {
        if (c.quick && n > 4096) continue;
        size_t bytes = (size_t)n * n * 4;
        for (const V &v : vs) {
            KernelDesc d;
            set_grid(d, n / TILE_DIM, n / TILE_DIM);
            set_block(d, TILE_DIM, BLOCK_ROWS);
            kernel_resources((const void *)v.fn, d);
            d.block_barriers = 1;
            /* copy and naive: each load feeds a store to a pointer that may alias
             * the input, so the compiler keeps load, store, load, store in order
             * and one load at a time is in flight (SASS: LDG STG LDG STG); the
             * tiled kernels issue their 4 loads together */
            d.accesses.push_back(acc("global", "load", 1, v.kind == 2 ? TILE_DIM / BLOCK_ROWS : 1));
            if (v.kind == 2) {
                d.accesses.push_back(acc("shared", "store", 1, TILE_DIM / BLOCK_ROWS));
                d.accesses.push_back(acc("shared", "load", TILE_DIM + v.pad, TILE_DIM / BLOCK_ROWS));
            }
            d.accesses.push_back(acc("global", "store", v.kind == 1 ? n : 1, TILE_DIM / BLOCK_ROWS));
            Stats s = time_launches(
                c,
                [&](int rep) {
                    const float *in = (const float *)((const char *)c.pool +
                                                      rotate_offset(bytes, c.pool_bytes, rep));
                    float *out =
                        (float *)((char *)c.pool2 + rotate_offset(bytes, c.pool2_bytes, rep));
                    v.fn<<<dim3(n / TILE_DIM, n / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS)>>>(out, in, n, n);
                },
                c.warmup, c.repeats);
            char name[96];
            std::snprintf(name, sizeof name, "%s_%d", v.name, n);
            std::string extra = kv("n", (long long)n) + ", " + kv("bytes_moved", 2.0 * bytes) +
                                ", " + kv("achieved_bytes_per_s", 2.0 * bytes / s.median_s);
            add_entry(c, name, "transpose", d, s, extra);
        }
    }
    /* a correctness check of the padded tile at 2048 against the naive one */
    int n = 2048;
    size_t bytes = (size_t)n * n * 4;
    float *a = (float *)c.pool2, *b = (float *)((char *)c.pool2 + bytes);
    k_transpose_naive<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(a, (const float *)c.pool, n, n);
    CK_LAUNCH();
    k_transpose_tile<1><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(b, (const float *)c.pool, n, n);
    CK_LAUNCH();
    k_transpose_tile<0><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(b + (size_t)n * n, (const float *)c.pool, n, n);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned> ha((size_t)n * n), hb((size_t)n * n), hc((size_t)n * n), hin((size_t)n * n);
    CK(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), b + (size_t)n * n, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hin.data(), c.pool, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            unsigned want = hin[(size_t)y * n + x];
            size_t o = (size_t)x * n + y;
            bad += (ha[o] != want) + (hb[o] != want) + (hc[o] != want);
        }
    std::printf("  transpose check (2048, three kernels): %zu wrong elements\n", bad);
    if (bad) std::exit(3);
}
