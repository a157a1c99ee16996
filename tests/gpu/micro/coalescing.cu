/* coalescing.cu - strided and misaligned global reads of 4- and 8-byte
 * elements. Each thread makes exactly 4 independent loads; within a warp the
 * lanes are `stride` elements apart and the first lane starts `offset`
 * elements past a 4 KiB-aligned window. The store at the end runs only when a
 * thread's XOR of random words equals a sentinel (it never does in practice),
 * so the kernel moves only the bytes its loads touch. */
#include "common.cuh"

template <typename T>
__global__ void k_strided_read(const T *__restrict__ in, T *out, long long stride,
                               long long offset, T sentinel) {
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long n = (long long)gridDim.x * blockDim.x;
    T acc = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) acc ^= in[(t + j * n) * stride + offset];
    if (acc == sentinel) out[t & 1023] = acc;
}

template <typename T>
static void one(Ctx &c, long long stride, long long offset) {
    const int eb = (int)sizeof(T);
    const size_t target = c.quick ? (size_t)256 << 20 : (size_t)1 << 30; /* footprint */
    const unsigned block = 256;
    long long threads = (long long)(target / (4ull * (size_t)stride * eb));
    threads -= threads % block;
    unsigned grid = (unsigned)(threads / block);
    size_t footprint = (size_t)threads * 4 * (size_t)stride * eb + (size_t)offset * eb + 4096;
    const void *fn = (const void *)k_strided_read<T>;
    KernelDesc d;
    set_grid(d, grid);
    set_block(d, block);
    kernel_resources(fn, d);
    d.block_barriers = 1;
    Access a;
    a.space = "global";
    a.op = "load";
    a.count = 4;
    a.element_bytes = eb;
    a.lane_stride_elements = stride;
    a.offset_elements = offset;
    a.independent = 4;
    d.accesses.push_back(a);
    T sentinel = (T)0x5a5a5a5aull;
    Stats s = time_launches(
        c,
        [&](int rep) {
            size_t off = rotate_offset(footprint, c.pool_bytes, rep);
            const T *in = (const T *)((const char *)c.pool + off);
            k_strided_read<T><<<grid, block>>>(in, (T *)c.scratch, stride, offset, sentinel);
        },
        c.warmup, c.repeats);
    double useful = (double)threads * 4 * eb;
    char name[96];
    std::snprintf(name, sizeof name, "read_%dB_stride%lld_offset%lld", eb, stride, offset);
    std::string extra = kv("element_bytes", (long long)eb) + ", " + kv("stride", stride) + ", " +
                        kv("offset", offset) + ", " + kv("useful_bytes", useful) + ", " +
                        kv("footprint_bytes", (double)footprint) + ", " +
                        kv("achieved_useful_bytes_per_s", useful / s.median_s);
    add_entry(c, name, "coalescing", d, s, extra);
}

void run_coalescing(Ctx &c) {
    std::printf("== coalescing\n");
    const long long strides[] = {1, 2, 4, 8, 16, 32};
    for (long long st : strides) one<unsigned>(c, st, 0);
    for (long long off : {1, 2, 8, 16, 31}) one<unsigned>(c, 1, off);
    for (long long st : strides) one<unsigned long long>(c, st, 0);
    for (long long off : {1, 2, 4, 8, 15}) one<unsigned long long>(c, 1, off);
}
