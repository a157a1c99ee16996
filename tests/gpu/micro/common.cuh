/* common.cuh - shared plumbing of the simt-micro benchmarks (issue 3): checked
 * CUDA calls, event timing (warm-up, median of repeats), a random-filled
 * memory pool that kernels read through a rotating window so that no launch
 * finds its data in the 60 MB L2, and the writer of one kernels.json entry
 * whose "request" is a complete POST /v1/kernel body describing the launch.
 *
 * Every kernel here is written so that its per-thread work is a known count
 * of warp-wide accesses, each with one lane stride: that is what the API's
 * per_thread.accesses list can say, and the model engineers replay it. */
#ifndef SIMT_MICRO_COMMON_CUH
#define SIMT_MICRO_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels.cuh" /* clients/calibrate: CK, hash32, the shared calibration kernels */

struct Stats {
    double median_s = 0, min_s = 0, max_s = 0;
    int repeats = 0;
};

/* One access of the API's per_thread.accesses list. lane_addresses, when
 * non-empty, replaces lane_stride_elements (32 byte offsets). */
struct Access {
    std::string space, op;
    double count = 1; /* per thread; may be fractional (one atomic per block) */
    int element_bytes = 4;
    long long lane_stride_elements = 1;
    long long offset_elements = 0;
    long long independent = 1;
    std::vector<long long> lane_addresses;
    int repeats = -1;                 /* index of an earlier access read again; -1: none */
    long long distinct_addresses = 0; /* grid-wide distinct elements (atomics, tables read or written); 0: not said */
};

/* What one launch is, in the API's words. */
struct KernelDesc {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    int grid_dims = 1, block_dims = 1;
    long long dynamic_shared_bytes = 0;
    int registers_per_thread = 0;
    long long static_shared_bytes = 0;
    int block_barriers = 1;
    double flops_fp32 = 0, flops_fp64 = 0, sfu_ops = 0;
    double int_ops = -1; /* integer ALU instructions per thread; -1: not said */
    double int_mul_ops = 0; /* integer multiply-adds per thread (IMAD: the FMA pipe); 0: not said */
    double alu_chains = 1;  /* independent arithmetic chains per thread; 1: not said */
    double barriers = 0; /* __syncthreads a thread passes; 0: not said */
    double shuffles = 0; /* warp shuffles a thread executes; 0: not said */
    bool l2_warm = false;
    std::vector<Access> accesses;
    std::string branch = "{\"paths\": 1}";
};

struct Ctx {
    cudaDeviceProp prop{};
    int sm_count = 0;
    double sm_clock_hz = 0;             /* measured under load, clock64 vs globaltimer */
    unsigned *pool = nullptr;           /* random 32-bit words */
    size_t pool_bytes = 0;
    unsigned *pool2 = nullptr;          /* output pool (transposes) */
    size_t pool2_bytes = 0;
    unsigned *scratch = nullptr;        /* small outputs */
    size_t scratch_bytes = 0;
    cudaEvent_t e0{}, e1{};
    int warmup = 3, repeats = 15;
    std::vector<std::string> entries;   /* finished JSON objects of "kernels" */
    bool quick = false;
    bool sleep_first = false;           /* --sleep: a sleep kernel before each timed launch */
    TimedStart start;                   /* its sleep (no flush: pools rotate) */
};

/* Times launch(rep) with an event pair around each call; rep counts from 0
 * over warm-ups and repeats so a rotating window moves on every launch. */
Stats time_launches(Ctx &c, const std::function<void(int)> &launch, int warmup, int repeats);

/* offset (in bytes, 4 KiB aligned) of the window for launch `rep` when each
 * launch reads `footprint` bytes of a pool of `pool` bytes */
size_t rotate_offset(size_t footprint, size_t pool, int rep);

/* registers and static shared memory of a kernel (the figures ptxas -v prints) */
void kernel_resources(const void *func, KernelDesc &d);

/* the POST /v1/kernel body for d */
std::string request_json(const KernelDesc &d);

/* appends {"name","group","request","measured_s","min_s","max_s","repeats", extra...}
 * extra: already-formatted `"key": value` pairs joined by ", " (may be empty) */
void add_entry(Ctx &c, const std::string &name, const std::string &group, const KernelDesc &d,
               const Stats &s, const std::string &extra);

std::string jnum(double v);          /* %.9g, or null when not finite */
std::string jstr(const std::string &s);
std::string kv(const char *key, double v);
std::string kv(const char *key, long long v);
std::string kvs(const char *key, const std::string &v);

void set_grid(KernelDesc &d, unsigned x, unsigned y = 0, unsigned z = 0);
void set_block(KernelDesc &d, unsigned x, unsigned y = 0, unsigned z = 0);

/* fills n 32-bit words at p with a hash of (index, seed): random, reproducible */
void fill_random(unsigned *p, size_t n, unsigned seed);

void run_coalescing(Ctx &c);
void run_transpose(Ctx &c);
void run_banks(Ctx &c);
void run_divergence(Ctx &c);
void run_latency_hiding(Ctx &c);
void run_constant(Ctx &c);
void run_throughput(Ctx &c);
double measure_sm_clock_hz(Ctx &c);

#endif
