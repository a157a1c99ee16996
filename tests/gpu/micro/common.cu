/* common.cu - timing, pool rotation, resource lookup and JSON writing shared
 * by the simt-micro benchmark groups. */
#include "common.cuh"

#include <cmath>
#include <cstring>

void fill_random(unsigned *p, size_t n, unsigned seed) { fill_typed(p, n, DT_RAW32, seed); }

Stats time_launches(Ctx &c, const std::function<void(int)> &launch, int warmup, int repeats) {
    std::vector<double> t;
    for (int rep = 0; rep < warmup + repeats; rep++) {
        if (c.sleep_first) c.start.begin();
        CK(cudaEventRecord(c.e0));
        launch(rep);
        CK_LAUNCH();
        CK(cudaEventRecord(c.e1));
        CK(cudaEventSynchronize(c.e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
        if (rep >= warmup) t.push_back(ms * 1e-3);
    }
    std::sort(t.begin(), t.end());
    Stats s;
    s.repeats = (int)t.size();
    s.min_s = t.front();
    s.max_s = t.back();
    size_t n = t.size();
    s.median_s = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return s;
}

size_t rotate_offset(size_t footprint, size_t pool, int rep) {
    size_t fp = (footprint + 4095) & ~(size_t)4095;
    if (fp >= pool) return 0;
    size_t windows = pool / fp;
    return (size_t)(rep % (int)windows) * fp;
}

void kernel_resources(const void *func, KernelDesc &d) {
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, func));
    d.registers_per_thread = a.numRegs;
    d.static_shared_bytes = (long long)a.sharedSizeBytes;
    if (a.localSizeBytes > 0)
        std::fprintf(stderr, "warning: kernel uses %zu bytes of local memory per thread\n",
                     a.localSizeBytes);
}

std::string jnum(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.9g", v);
    return b;
}

std::string jstr(const std::string &s) {
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') {
            o += '\\';
            o += ch;
        } else if ((unsigned char)ch < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", ch);
            o += b;
        } else {
            o += ch;
        }
    }
    return o + "\"";
}

std::string kv(const char *key, double v) { return jstr(key) + ": " + jnum(v); }
std::string kv(const char *key, long long v) { return jstr(key) + ": " + std::to_string(v); }
std::string kvs(const char *key, const std::string &v) { return jstr(key) + ": " + jstr(v); }

void set_grid(KernelDesc &d, unsigned x, unsigned y, unsigned z) {
    d.grid[0] = x;
    d.grid[1] = y ? y : 1;
    d.grid[2] = z ? z : 1;
    d.grid_dims = z ? 3 : (y ? 2 : 1);
}

void set_block(KernelDesc &d, unsigned x, unsigned y, unsigned z) {
    d.block[0] = x;
    d.block[1] = y ? y : 1;
    d.block[2] = z ? z : 1;
    d.block_dims = z ? 3 : (y ? 2 : 1);
}

static std::string dims(const unsigned *v, int n) {
    if (n == 1) return std::to_string(v[0]);
    std::string o = "[";
    for (int i = 0; i < n; i++) o += (i ? ", " : "") + std::to_string(v[i]);
    return o + "]";
}

/* the hwdb id of the card the rows ran on: the sets ran on H200s and H100 SXMs */
static const char *card_id() {
    static const char *id = nullptr;
    if (id == nullptr) {
        cudaDeviceProp p;
        int dev = 0;
        id = cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess &&
                     std::strstr(p.name, "H100") != nullptr
                 ? "h100-sxm"
                 : "h200-sxm";
    }
    return id;
}

std::string request_json(const KernelDesc &d) {
    std::string o = std::string("{\"gpu\": \"") + card_id() + "\", \"launch\": {\"grid\": " + dims(d.grid, d.grid_dims) +
                    ", \"block\": " + dims(d.block, d.block_dims) +
                    ", \"dynamic_shared_bytes\": " + std::to_string(d.dynamic_shared_bytes) + "}";
    o += ", \"resources\": {\"registers_per_thread\": " + std::to_string(d.registers_per_thread) +
         ", \"static_shared_bytes\": " + std::to_string(d.static_shared_bytes) +
         ", \"block_barriers\": " + std::to_string(d.block_barriers) + "}";
    o += ", \"per_thread\": {\"flops\": {\"fp32\": " + jnum(d.flops_fp32);
    if (d.flops_fp64 != 0) o += ", \"fp64\": " + jnum(d.flops_fp64);
    o += "}, \"sfu_ops\": " + jnum(d.sfu_ops);
    if (d.int_ops >= 0) o += ", \"int_ops\": " + jnum(d.int_ops);
    if (d.int_mul_ops > 0) o += ", \"int_mul_ops\": " + jnum(d.int_mul_ops);
    if (d.alu_chains > 1) o += ", \"alu_chains\": " + jnum(d.alu_chains);
    if (d.barriers > 0) o += ", \"barriers\": " + jnum(d.barriers);
    if (d.shuffles > 0) o += ", \"shuffles\": " + jnum(d.shuffles);
    o += ", \"accesses\": [";
    for (size_t i = 0; i < d.accesses.size(); i++) {
        const Access &a = d.accesses[i];
        o += i ? ", " : "";
        o += "{\"space\": " + jstr(a.space) + ", \"op\": " + jstr(a.op) +
             ", \"count\": " + jnum(a.count) +
             ", \"element_bytes\": " + std::to_string(a.element_bytes);
        if (a.lane_addresses.empty()) {
            o += ", \"lane_stride_elements\": " + std::to_string(a.lane_stride_elements);
        } else {
            o += ", \"lane_addresses\": [";
            for (size_t l = 0; l < a.lane_addresses.size(); l++)
                o += (l ? ", " : "") + std::to_string(a.lane_addresses[l]);
            o += "]";
        }
        if (a.offset_elements) o += ", \"offset_elements\": " + std::to_string(a.offset_elements);
        o += ", \"independent\": " + std::to_string(a.independent);
        if (a.repeats >= 0) o += ", \"repeats\": " + std::to_string(a.repeats);
        if (a.distinct_addresses > 0) o += ", \"distinct_addresses\": " + std::to_string(a.distinct_addresses);
        o += "}";
    }
    o += "], \"branch\": " + d.branch + "}";
    if (d.l2_warm) o += ", \"l2_warm\": true";
    o += "}";
    return o;
}

void add_entry(Ctx &c, const std::string &name, const std::string &group, const KernelDesc &d,
               const Stats &s, const std::string &extra) {
    std::string o = "{" + kvs("name", name) + ", " + kvs("group", group) +
                    ", \"request\": " + request_json(d) + ", " + kv("measured_s", s.median_s) +
                    ", " + kv("min_s", s.min_s) + ", " + kv("max_s", s.max_s) + ", " +
                    kv("repeats", (long long)s.repeats);
    if (!extra.empty()) o += ", " + extra;
    o += "}";
    c.entries.push_back(o);
    std::printf("  %-34s %12.3f us  (min %.3f max %.3f)\n", name.c_str(), s.median_s * 1e6,
                s.min_s * 1e6, s.max_s * 1e6);
    std::fflush(stdout);
}

double measure_sm_clock_hz(Ctx &c) { return sm_clock_under_load_hz(c.sm_count); }
