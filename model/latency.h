/* latency.h - latency hiding: how much work must be in flight per SM to keep
 * a level of the machine busy (Little's law: in flight = throughput x
 * latency), what a given number of warps and independent requests per warp
 * (ILP) achieves, and how many warps a target fraction of the peak needs.
 *
 * Why not the constant-latency Little's law alone: Volkov (Understanding
 * Latency Hiding on GPUs, PhD thesis, UC Berkeley 2016, chapters on memory
 * latency vs throughput) shows that the mean memory latency is not a
 * constant: it stays near the unloaded (pointer-chase) value at low
 * throughput and grows without bound as throughput approaches the peak,
 * because requests queue for DRAM and the interconnect. A model that holds
 * latency fixed and caps throughput at the peak (min(n/L, peak)) is too
 * optimistic near the knee and predicts too few warps.
 *
 * The model here: each SM is a closed queueing network. Its customers are
 * the warps' outstanding request streams (warps x ILP); each stream cycles
 * through a pure delay (the unloaded latency, which no amount of concurrency
 * shortens) and the level's server, the SM's share of the level's bandwidth
 * (chip bandwidth / SMs sharing it). Mean-value analysis (Reiser and
 * Lavenberg, 1980) gives throughput and the loaded latency = delay plus
 * queueing, for any number of streams, with no fitted constant: the only
 * inputs are the unloaded latency, the bandwidth and the request size.
 * Memory servers are taken to have random (exponential) service, since
 * requests meet DRAM bank and channel conflicts; fixed-latency pipelines
 * (shared memory, FMA) have deterministic service, for which the closed loop
 * is exact: throughput = min(streams / latency, peak).
 *
 * DRAM, fitted to physics measured on an H200 (tests/gpu/results/h200):
 * one DRAM row cycle tRC (figures.h, 48 ns) sets both the spread of DRAM
 * latency and the service time of a bank. A warp's round of independent
 * requests ends with the slowest of its n granule accesses, each the fastest
 * latency plus an exponential spread of mean tRC, so a round costs
 * (L0 - tRC) + tRC H(n) (L0 the pointer-chase mean, H the harmonic number):
 * more ILP per warp lengthens the round even at no load, as measured. Under
 * load every access queues at its bank, an M/M/1 server of service tRC:
 * W = tRC u / (1 - u), with u the DRAM utilisation the warps themselves
 * cause (a fixed point, solved by bisection). This is the loaded-latency
 * curve Volkov measured, rising slowly and then steeply near the peak.
 *
 * An unloaded dependent chase carries no row cycle of its own: one thread
 * (lanes 1) on one SM (active_sms 1) asks one granule a round, H(1) = 1, so
 * the round is L0 itself, and the bank queueing row u / (1 - u) is nil at
 * the u one load in flight causes; only its transfer through the SM's DRAM
 * share and L2 port is added. A whole warp's 128 bytes on every SM is a
 * different question: four granules (row x (H(4) - 1) more) and every SM's
 * requests queueing, e.g. 838 cycles on an L40S against the chase's 632.
 *
 * Pure: no allocation, no globals. */
#ifndef SIMT_LATENCY_H
#define SIMT_LATENCY_H

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

/* --- the closed-network solver, shared with the whole-kernel model --- */

#define SIMT_MVA_MAX_CENTERS 16
#define SIMT_MVA_MAX_CUSTOMERS 1000000.0

struct simt_mva_center {
    double demand; /* service time one customer needs per cycle through the network; >= 0 */
    double scv;    /* squared coefficient of variation of service: 0 fixed pipeline, 1 random */
};

struct simt_mva_result {
    double throughput;                      /* customer cycles per time unit */
    double cycle_time;                      /* delay + every center's residence: the loaded round-trip time */
    double residence[SIMT_MVA_MAX_CENTERS]; /* time per cycle at each center, queueing included */
    double utilisation[SIMT_MVA_MAX_CENTERS]; /* busy fraction of each center */
};

/* Approximate MVA (exact for scv 1; Reiser's residual-life correction for
 * other scv) with `customers` (> 0; fractional values interpolate between
 * the neighbouring integers) and a pure delay. Throughput never exceeds
 * 1 / (largest demand). SIMT_EINVAL for count outside 0..SIMT_MVA_MAX_CENTERS,
 * negative demands, delay < 0, customers outside (0, SIMT_MVA_MAX_CUSTOMERS],
 * or nothing to do (delay and every demand 0). */
int simt_mva_solve(const struct simt_mva_center *centers, int count, double delay, double customers,
                   struct simt_mva_result *out) SIMT_WARN_UNUSED;

/* H(n) = 1 + 1/2 + ... + 1/n, continued to real n >= 1 (1 below): the
 * expected maximum of n exponential samples of mean 1. */
double simt_harmonic(double n);

/* --- POST /v1/latency-hiding --- */

enum simt_latency_level { SIMT_LATENCY_DRAM = 0, SIMT_LATENCY_L2, SIMT_LATENCY_SHARED, SIMT_LATENCY_FMA };

/* "dram", "l2", "shared", "fma". */
const char *simt_latency_level_name(enum simt_latency_level level);

struct simt_latency_request {
    enum simt_latency_level level;
    double warps_per_sm;    /* resident warps per SM, > 0 */
    double ilp;             /* independent requests (or FMAs) in flight per warp, >= 1 */
    double bytes_per_lane;  /* bytes each lane asks for per request; ignored for fma */
    int active_sms;         /* SMs that run warps, sharing the chip's bandwidth; 0 = all */
    int lanes;              /* lanes of a warp whose accesses make one request; 0 = the warp's size;
                               ignored for fma. 1 with warps_per_sm 1, ilp 1 and active_sms 1 is a
                               pointer chase: one dependent load at a time on the whole chip */
    double target_fraction; /* of the peak, for warps_needed; 0 = 0.9 */
};

/* Sets ilp 1, bytes_per_lane 4, level dram, active_sms 0, lanes 0, target 0. */
void simt_latency_request_init(struct simt_latency_request *req);

struct simt_latency_result {
    double unloaded_latency_cycles;
    double latency_cycles;            /* mean loaded latency at this concurrency */
    double in_flight_per_sm;          /* bytes (fma: operations) outstanding per SM */
    double required_in_flight_per_sm; /* Little's law at peak with unloaded latency */
    double achieved_per_s;            /* chip, bytes/s (fma: FMA operations/s) */
    double peak_per_s;                /* chip */
    double fraction_of_peak;
    double warps_needed; /* smallest whole warps per SM reaching target at this ilp; INFINITY if none up to
                            4096 */
    double target_fraction;
    double request_bytes; /* bytes of one warp request (fma: lanes) */
    simt_figure_mask figures_used;
};

/* Returns SIMT_OK and fills *out. SIMT_EINVAL (diag->field "warps_per_sm",
 * "ilp", "bytes_per_lane", "target_fraction", "active_sms", "lanes") for
 * out-of-range input (lanes: more than the GPU's warp size);
 * SIMT_EUNSAT when the GPU lacks a figure the level needs (diag->field the
 * database field). diag may be NULL; *out untouched on failure. */
int simt_latency_compute(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                         const struct simt_latency_request *req, struct simt_latency_result *out,
                         struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
