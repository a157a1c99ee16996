/* heldout_main.cu - simt-heldout: runs the held-out kernel set (everyday
 * kernels and microbenchmarks) on device 0 and writes kernels.json in the
 * format of tests/gpu/results/h200/kernels.json (meta + one row per kernel
 * with its POST /v1/kernel body), each row also carrying "kind", "class"
 * and "timing". The fit / held-out split is added afterwards by split.py.
 *
 *   simt-heldout --out kernels-raw.json [--only everyday|micro]
 *                [--sizes heldout|confirm|confirm2|probe|check3|check4|check5|check6|wide]
 *                [--list]
 * --sizes confirm: the confirmation set (the same kinds at other sizes);
 * --sizes confirm2: a second independent set (the same kinds at sizes and
 *   parameters in neither the held-out nor the confirm lists), measured blind
 *   after the model changes of 2026-12-07;
 * --sizes probe: fit probes alone: gathers from and scatters into tables of 2
 *   and 16 MiB, L2 warm-write working sets of 12 and 24 MiB;
 * --sizes check3: a third independent set of the classes the afternoon's
 *   rules of 2026-12-07 touched (heldout.cuh), measured blind;
 * --sizes check4: a fourth, of scatters and sparse stores (heldout.cuh);
 * --sizes check5: a fifth, of scatters into tables near L2's size;
 * --sizes check6: a sixth, of kernels the pipes pace after one load round;
 * --sizes wide: the 8- and 16-byte reads of heldout, confirm and confirm2
 *   again, each element loaded whole (heldout.cuh says why);
 * --list: prints the chosen set's case names, one a line, without CUDA. */
#include "heldout.cuh"

#include <cstring>
#include <ctime>

bool held_list_only = false;

Stats summarize(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    Stats s;
    s.repeats = (int)t.size();
    s.min_s = t.front();
    s.max_s = t.back();
    size_t n = t.size();
    s.median_s = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return s;
}

Stats time_cold(Held &h, const std::function<void()> &launch) {
    if (h.list_only) return Stats{};
    std::vector<double> t;
    for (int rep = 0; rep < 2 + 9; rep++) {
        h.cold.begin();
        CK(cudaEventRecord(h.c.e0));
        launch();
        CK_LAUNCH();
        CK(cudaEventRecord(h.c.e1));
        CK(cudaEventSynchronize(h.c.e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, h.c.e0, h.c.e1));
        if (rep >= 2) t.push_back(ms * 1e-3);
    }
    return summarize(t);
}

Stats time_warm(Held &h, const std::function<void()> &launch, int n) {
    if (h.list_only) return Stats{};
    std::vector<double> t;
    for (int i = 0; i < 3; i++) launch();
    CK_LAUNCH();
    for (int rep = 0; rep < 5; rep++) {
        h.warm.begin();
        CK(cudaEventRecord(h.c.e0));
        for (int i = 0; i < n; i++) launch();
        CK_LAUNCH();
        CK(cudaEventRecord(h.c.e1));
        CK(cudaEventSynchronize(h.c.e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, h.c.e0, h.c.e1));
        t.push_back(ms * 1e-3 / n);
    }
    return summarize(t);
}

Access acc(const char *space, const char *op, double count, int element_bytes, long long stride,
           long long independent, int repeats, long long distinct) {
    Access a;
    a.space = space;
    a.op = op;
    a.count = count;
    a.element_bytes = element_bytes;
    a.lane_stride_elements = stride;
    a.independent = independent;
    a.repeats = repeats;
    a.distinct_addresses = distinct;
    return a;
}

void add_case(Held &h, const std::string &name, const std::string &kind, const char *cls, const KernelDesc &d,
              const Stats &s, const std::string &timing, const std::string &extra) {
    if (h.list_only) {
        std::printf("%s\n", name.c_str());
        return;
    }
    std::string e = kvs("kind", kind) + ", " + kvs("class", cls) + ", " + kvs("timing", timing);
    if (!extra.empty()) e += ", " + extra;
    add_entry(h.c, name, kind, d, s, e);
}

int main(int argc, char **argv) {
    const char *out_path = "kernels-raw.json";
    std::string only, size_set = "heldout";
    bool list = false;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
            out_path = argv[++i];
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc &&
                 (!std::strcmp(argv[i + 1], "heldout") || !std::strcmp(argv[i + 1], "confirm") ||
                  !std::strcmp(argv[i + 1], "confirm2") || !std::strcmp(argv[i + 1], "probe") ||
                  !std::strcmp(argv[i + 1], "check3") || !std::strcmp(argv[i + 1], "check4") ||
                  !std::strcmp(argv[i + 1], "check5") || !std::strcmp(argv[i + 1], "check6") ||
                  !std::strcmp(argv[i + 1], "wide")))
            size_set = argv[++i];
        else if (!std::strcmp(argv[i], "--list"))
            list = true;
        else {
            std::fprintf(stderr,
                         "usage: %s [--out FILE] [--only everyday|micro] "
                         "[--sizes heldout|confirm|confirm2|probe|check3|check4|check5|check6|wide] [--list]\n",
                         argv[0]);
            return 1;
        }
    }
    Held h;
    Ctx &c = h.c;
    h.set = size_set == "confirm"    ? SizeSet::confirm
            : size_set == "confirm2" ? SizeSet::confirm2
            : size_set == "probe"    ? SizeSet::probe
            : size_set == "check3"   ? SizeSet::check3
            : size_set == "check4"   ? SizeSet::check4
            : size_set == "check5"   ? SizeSet::check5
            : size_set == "check6"   ? SizeSet::check6
            : size_set == "wide"     ? SizeSet::wide
                                     : SizeSet::heldout;
    if (list) {
        /* names only: no device is touched (sm_count sizes some grids, never a name) */
        h.list_only = held_list_only = true;
        c.sm_count = 132;
        if (only.empty() || only == "everyday") run_everyday(h);
        if (only.empty() || only == "micro") run_microbench(h);
        return 0;
    }
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&c.prop, 0));
    c.sm_count = c.prop.multiProcessorCount;
    int rt = 0, drv = 0;
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDriverGetVersion(&drv));
    std::printf("simt-heldout on %s: %d SMs, L2 %d bytes\n", c.prop.name, c.sm_count, c.prop.l2CacheSize);
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    c.pool_bytes = (size_t)4 << 30;
    c.pool2_bytes = (size_t)2 << 30;
    c.scratch_bytes = (size_t)64 << 20;
    CK(cudaMalloc(&c.pool, c.pool_bytes + ((size_t)1 << 20))); /* slack: offset reads past the end */
    CK(cudaMalloc(&c.pool2, c.pool2_bytes));
    CK(cudaMalloc(&c.scratch, c.scratch_bytes));
    CK(cudaMalloc(&h.idx, (size_t)1 << 28));
    size_t flush_bytes = (size_t)256 << 20;
    CK(cudaMalloc(&h.cold.flush, flush_bytes));
    h.cold.flush_words = flush_bytes / 16;
    /* random floats in [-1, 1) (no NaN or Inf meets the float kernels; their
     * bit patterns are random enough for the histograms' low bits) */
    fill_typed(c.pool, c.pool_bytes / 4, DT_TF32, 0x1234u);
    fill_typed(c.pool2, c.pool2_bytes / 4, DT_TF32, 0x5678u);
    CK(cudaMemset(c.scratch, 0, c.scratch_bytes));
    h.A = (float *)c.pool;
    h.B = h.A + ((size_t)1 << 28);
    h.Cb = h.B + ((size_t)1 << 28);
    h.D = h.Cb + ((size_t)1 << 28);
    h.O = (float *)c.pool2;
    c.sm_clock_hz = measure_sm_clock_hz(c);
    std::printf("SM clock under load: %.0f MHz\n", c.sm_clock_hz / 1e6);
    std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    if (only.empty() || only == "everyday") run_everyday(h);
    if (only.empty() || only == "micro") run_microbench(h);
    double clock_after = measure_sm_clock_hz(c);
    FILE *f = std::fopen(out_path, "w");
    if (!f) {
        std::perror(out_path);
        return 1;
    }
    std::string meta = "{" + kvs("date", date) + ", " + kvs("sizes", size_set) + ", " + kvs("card", c.prop.name) + ", " +
                       kv("cuda_runtime_version", (long long)rt) + ", " +
                       kv("cuda_driver_api_version", (long long)drv) + ", " + kv("sm_count", (long long)c.sm_count) +
                       ", " + kv("l2_bytes", (long long)c.prop.l2CacheSize) + ", " +
                       kv("sm_clock_under_load_hz_start", c.sm_clock_hz) + ", " +
                       kv("sm_clock_under_load_hz_end", clock_after) + ", " + kv("flush_bytes", (double)flush_bytes) +
                       ", " + kv("sleep_ns", (long long)h.cold.sleep_ns) + "}";
    std::fprintf(f, "{\"meta\": %s,\n \"kernels\": [\n", meta.c_str());
    for (size_t i = 0; i < c.entries.size(); i++)
        std::fprintf(f, "  %s%s\n", c.entries[i].c_str(), i + 1 < c.entries.size() ? "," : "");
    std::fprintf(f, " ]}\n");
    std::fclose(f);
    std::printf("wrote %zu kernels to %s\n", c.entries.size(), out_path);
    return 0;
}
