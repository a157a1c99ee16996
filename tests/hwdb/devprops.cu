/* devprops.cu - prints what cudaGetDeviceProperties reports for every GPU in
 * the machine, named as the hardware database's keys, so that a GPU file's
 * limits can be checked against a real card (the occupancy oracle needs them
 * to equal the runtime's). Not part of the build: compile where nvcc exists,
 *   nvcc -o devprops tests/hwdb/devprops.cu && ./devprops
 * and compare with the GPU file by eye. */
#include <cstdio>
#include <cuda_runtime.h>

int main()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int d = 0; d < count; d++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
            return 1;
        int clock_khz = 0, mem_clock_khz = 0, max_blocks = 0;
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
        cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, d);
        cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, d);
        std::printf("# device %d: %s, driver %d, runtime %d\n", d, p.name, driver, runtime);
        std::printf("compute_capability: \"%d.%d\"\n", p.major, p.minor);
        std::printf("sm_count: %d\n", p.multiProcessorCount);
        std::printf("warp_size: %d\n", p.warpSize);
        std::printf("max_threads_per_sm: %d\n", p.maxThreadsPerMultiProcessor);
        std::printf("max_blocks_per_sm: %d\n", max_blocks);
        std::printf("max_threads_per_block: %d\n", p.maxThreadsPerBlock);
        std::printf("registers_per_sm: %d\n", p.regsPerMultiprocessor);
        std::printf("max_registers_per_block: %d\n", p.regsPerBlock);
        std::printf("shared_bytes_per_sm: %zu\n", p.sharedMemPerMultiprocessor);
        std::printf("shared_bytes_per_block: %zu\n", p.sharedMemPerBlock);
        std::printf("shared_bytes_per_block_optin: %zu\n", p.sharedMemPerBlockOptin);
        std::printf("reserved_shared_bytes_per_block: %zu\n", p.reservedSharedMemPerBlock);
        std::printf("l2_bytes: %d\n", p.l2CacheSize);
        std::printf("dram_bytes: %zu\n", p.totalGlobalMem);
        std::printf("dram_bus_width_bits: %d\n", p.memoryBusWidth);
        std::printf("boost_clock_hz: %.0f\n", clock_khz * 1e3);
        std::printf("memory_clock_hz: %.0f\n", mem_clock_khz * 1e3);
        std::printf("constant_bytes: %zu\n", p.totalConstMem);
    }
    return 0;
}
