/* micro_main.cu - simt-micro: runs every microbenchmark group of issue 3 on
 * device 0 and writes kernels.json (meta + one entry per measured kernel,
 * each with a complete POST /v1/kernel request describing the launch).
 *
 *   simt-micro --out kernels.json [--groups coalescing,transpose,...] [--quick]
 *   simt-micro --check      (device present and a kernel runs; exit 0)
 *
 * tests/gpu/merge_meta.py adds what nvidia-smi says (driver, clocks before
 * and after) to the meta this program writes. */
#include "common.cuh"

#include <cstring>
#include <ctime>

__global__ void k_noop(int *p) {
    if (p) p[threadIdx.x] = (int)threadIdx.x;
}

static bool want(const std::string &groups, const char *g) {
    return groups.empty() || ("," + groups + ",").find(std::string(",") + g + ",") != std::string::npos;
}

int main(int argc, char **argv) {
    const char *out_path = "kernels.json";
    std::string groups;
    Ctx c;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
            out_path = argv[++i];
        else if (!std::strcmp(argv[i], "--groups") && i + 1 < argc)
            groups = argv[++i];
        else if (!std::strcmp(argv[i], "--quick"))
            c.quick = true;
        else if (!std::strcmp(argv[i], "--sleep"))
            c.sleep_first = true;
        else if (!std::strcmp(argv[i], "--check")) {
            int *p;
            CK(cudaMalloc(&p, 256 * sizeof(int)));
            k_noop<<<1, 256>>>(p);
            CK_LAUNCH();
            CK(cudaDeviceSynchronize());
            CK(cudaFree(p));
            std::printf("simt-micro: device OK\n");
            return 0;
        } else {
            std::fprintf(stderr, "usage: %s [--out FILE] [--groups a,b] [--quick] [--sleep] [--check]\n", argv[0]);
            return 1;
        }
    }
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&c.prop, 0));
    c.sm_count = c.prop.multiProcessorCount;
    int rt = 0, drv = 0;
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDriverGetVersion(&drv));
    std::printf("simt-micro on %s: %d SMs, L2 %d bytes, cc %d.%d, runtime %d, driver API %d\n",
                c.prop.name, c.sm_count, c.prop.l2CacheSize, c.prop.major, c.prop.minor, rt, drv);
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    c.pool_bytes = c.quick ? (size_t)1 << 30 : (size_t)4 << 30;
    c.pool2_bytes = c.quick ? (size_t)512 << 20 : (size_t)2 << 30;
    c.scratch_bytes = (size_t)64 << 20;
    CK(cudaMalloc(&c.pool, c.pool_bytes));
    CK(cudaMalloc(&c.pool2, c.pool2_bytes));
    CK(cudaMalloc(&c.scratch, c.scratch_bytes));
    fill_random(c.pool, c.pool_bytes / 4, 0x1234u);
    fill_random(c.pool2, c.pool2_bytes / 4, 0x5678u);
    CK(cudaMemset(c.scratch, 0, c.scratch_bytes));
    c.sm_clock_hz = measure_sm_clock_hz(c);
    std::printf("SM clock under load (clock64 / globaltimer): %.0f MHz\n", c.sm_clock_hz / 1e6);

    std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

    if (want(groups, "coalescing")) run_coalescing(c);
    if (want(groups, "transpose")) run_transpose(c);
    if (want(groups, "banks")) run_banks(c);
    if (want(groups, "divergence")) run_divergence(c);
    if (want(groups, "latency_hiding")) run_latency_hiding(c);
    if (want(groups, "constant")) run_constant(c);
    if (want(groups, "throughput")) run_throughput(c);
    double clock_after = measure_sm_clock_hz(c);
    std::printf("SM clock under load at the end: %.0f MHz\n", clock_after / 1e6);

    FILE *f = std::fopen(out_path, "w");
    if (!f) {
        std::perror(out_path);
        return 1;
    }
    std::string meta = "{" + kvs("date", date) + ", " + kvs("card", c.prop.name) + ", " +
                       kv("cuda_runtime_version", (long long)rt) + ", " +
                       kv("cuda_driver_api_version", (long long)drv) + ", " +
                       kv("sm_count", (long long)c.sm_count) + ", " +
                       kv("l2_bytes", (long long)c.prop.l2CacheSize) + ", " +
                       kv("sm_clock_under_load_hz_start", c.sm_clock_hz) + ", " +
                       kv("sm_clock_under_load_hz_end", clock_after) + ", " +
                       kv("pool_bytes", (double)c.pool_bytes) + ", " + kv("warmup", (long long)c.warmup) +
                       ", " + kv("quick", (long long)c.quick) + ", " +
                       kvs("timing", c.sleep_first ? "sleep kernel, then an event pair around one launch"
                                                   : "an event pair around one launch") +
                       "}";
    std::fprintf(f, "{\"meta\": %s,\n \"kernels\": [\n", meta.c_str());
    for (size_t i = 0; i < c.entries.size(); i++)
        std::fprintf(f, "  %s%s\n", c.entries[i].c_str(), i + 1 < c.entries.size() ? "," : "");
    std::fprintf(f, " ]}\n");
    std::fclose(f);
    std::printf("wrote %zu kernels to %s\n", c.entries.size(), out_path);
    CK(cudaFree(c.pool));
    CK(cudaFree(c.pool2));
    CK(cudaFree(c.scratch));
    return 0;
}
