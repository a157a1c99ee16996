/* latency.c - mean-value analysis of an SM's closed loop of outstanding
 * requests, and the latency-hiding questions built on it. Pure. */
#include "latency.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_WARPS_SEARCHED 4096

/* --- solver --- */

/* The recursion's state after n customers: the throughput x (after the
 * cap), the cycle time and each center's residence. A center's queue is
 * x r and its utilisation x d: formed where needed rather than stored. */
struct walk {
    double x, total;
    double r[SIMT_MVA_MAX_CENTERS];
};

/* One MVA step, from the state with n - 1 customers to n. An arrival waits
 * for the queue ahead of it; the customer in service has a mean residual
 * of (1 + scv) / 2 of a service time instead of a whole one (Reiser's
 * correction): r = d (1 + queue - util (1 - scv) / 2), half being
 * (1 - scv) / 2 per center (halving is exact, so u half is the same double
 * as u (1 - scv) / 2). A saturated bottleneck caps the throughput, the
 * extra time being queueing there. The recursion is a chain of dependent
 * operations step after step, so it keeps its state in locals rather than
 * storing and reloading a queue and a utilisation per center. */
static inline __attribute__((always_inline)) void
walk_step(const double *d, const double *half, int count, double delay, double cap, double n, struct walk *w)
{
    double x = w->x, total = delay;
    for (int k = 0; k < count; k++) {
        double r = d[k] * (1.0 + x * w->r[k] - x * d[k] * half[k]);
        if (r < d[k])
            r = d[k];
        w->r[k] = r;
        total += r;
    }
    x = n / total;
    if (cap > 0.0 && x > cap) {
        x = cap;
        total = n / x;
    }
    w->x = x;
    w->total = total;
}

/* Steps 1..whole from no customers, stopping at saturation; returns 1
 * when it saturated. */
static int walk_to(const double *d, const double *half, int count, double delay, double cap, double whole,
                   struct walk *w)
{
    double near_cap = cap * (1.0 - 1e-12);
    struct walk at = *w; /* a local the compiler may keep in registers */
    int saturated = 0;
    for (double n = 1.0; n <= whole; n += 1.0) {
        walk_step(d, half, count, delay, cap, n, &at);
        if (cap > 0.0 && at.x >= near_cap) {
            saturated = 1;
            break;
        }
    }
    *w = at;
    return saturated;
}

/* The busy centers of a network: their demands and halves, and where each
 * sits in the caller's list. */
struct busy {
    int count;
    double d[SIMT_MVA_MAX_CENTERS], half[SIMT_MVA_MAX_CENTERS];
    int where[SIMT_MVA_MAX_CENTERS];
};

/* Checks a network and keeps its busy centers (demand > 0) in b; *cap is
 * 1 / the largest demand (0 when none). Returns 0 for an invalid network. */
static int pack(const struct simt_mva_center *centers, int count, double delay, struct busy *b, double *cap)
{
    if (count < 0 || count > SIMT_MVA_MAX_CENTERS || !(delay >= 0.0) || !isfinite(delay))
        return 0;
    double largest = 0.0;
    b->count = 0;
    for (int k = 0; k < count; k++) {
        double demand = centers[k].demand, scv = centers[k].scv;
        if (!(demand >= 0.0) || !isfinite(demand) || !(scv >= 0.0))
            return 0;
        if (demand > largest)
            largest = demand;
        if (demand > 0.0) {
            b->d[b->count] = demand;
            b->half[b->count] = (1.0 - scv) / 2.0;
            b->where[b->count++] = k;
        }
    }
    if (largest <= 0.0 && delay <= 0.0)
        return 0;
    *cap = largest > 0.0 ? 1.0 / largest : 0.0;
    return 1;
}

/* The recursion over the busy centers; out (zeroed) gets each one's
 * residence and utilisation at its place. */
static void solve_busy(const struct busy *b, double delay, double cap, double customers,
                       struct simt_mva_result *out)
{
    const double *d = b->d;
    const int *where = b->where;
    int count = b->count;
    struct walk w;
    w.x = 0.0;
    w.total = 0.0;
    for (int k = 0; k < count; k++)
        w.r[k] = 0.0;
    double whole = floor(customers);
    double fraction = customers - whole;
    if (whole < 1.0) {
        /* fewer than one customer: the single customer's loop, scaled */
        walk_step(d, b->half, count, delay, cap, 1.0, &w);
        out->throughput = w.x * customers;
        out->cycle_time = w.total;
        for (int k = 0; k < count; k++) {
            out->residence[where[k]] = w.r[k];
            out->utilisation[where[k]] = w.x * d[k] * customers;
        }
        return;
    }
    int saturated = walk_to(d, b->half, count, delay, cap, whole, &w);
    /* saturated: more customers only queue at the bottleneck */
    out->throughput = saturated ? cap : w.x;
    out->cycle_time = saturated ? customers / cap : w.total;
    for (int k = 0; k < count; k++) {
        out->residence[where[k]] = w.r[k];
        out->utilisation[where[k]] = w.x * d[k];
    }
    if (fraction > 0.0 && !saturated) {
        struct walk next = w;
        walk_step(d, b->half, count, delay, cap, whole + 1.0, &next);
        /* interpolate between n and n + 1 customers */
        out->throughput += fraction * (next.x - w.x);
        out->cycle_time += fraction * (next.total - w.total);
        for (int k = 0; k < count; k++) {
            out->residence[where[k]] += fraction * (next.r[k] - w.r[k]);
            out->utilisation[where[k]] += fraction * (next.x * d[k] - w.x * d[k]);
        }
    }
}

/* A center with no demand never holds a customer: its residence, queue and
 * utilisation stay exactly 0 at every step, and adding 0 to the cycle time
 * changes no bit. So the recursion runs over the busy centers alone (the
 * kernel model's network has 14 centers, most of them idle for a given
 * kernel) and the others read 0, exactly what the full recursion gives. */
int simt_mva_solve(const struct simt_mva_center *centers, int count, double delay, double customers,
                   struct simt_mva_result *out)
{
    struct busy b;
    double cap = 0.0;
    if (!pack(centers, count, delay, &b, &cap) || !(customers > 0.0) || customers > SIMT_MVA_MAX_CUSTOMERS)
        return SIMT_EINVAL;
    memset(out, 0, sizeof *out);
    solve_busy(&b, delay, cap, customers, out);
    return SIMT_OK;
}

/* Smallest (fractional) number of customers at which the first center's
 * utilisation reaches target; INFINITY when not reached by max_customers. */
static double customers_for(const struct simt_mva_center *center, double delay, double target,
                            double max_customers)
{
    double cap = center->demand > 0.0 ? 1.0 / center->demand : 0.0;
    double d = center->demand, half = (1.0 - center->scv) / 2.0;
    struct walk w;
    memset(&w, 0, sizeof w);
    double previous_util = 0.0;
    for (double n = 1.0; n <= max_customers; n += 1.0) {
        walk_step(&d, &half, 1, delay, cap, n, &w);
        double util = w.x * d;
        if (util >= target) {
            double gain = util - previous_util;
            return gain > 0.0 ? (n - 1.0) + (target - previous_util) / gain : n;
        }
        previous_util = util;
    }
    return (double)INFINITY;
}

double simt_harmonic(double n)
{
    if (n <= 1.0)
        return 1.0;
    if (n > 64.0)
        return log(n) + 0.5772156649015329 + 1.0 / (2.0 * n) - 1.0 / (12.0 * n * n);
    double whole = floor(n), h = 0.0;
    for (double k = 1.0; k <= whole; k += 1.0)
        h += 1.0 / k;
    return h + (n - whole) / (whole + 1.0);
}

/* --- DRAM rounds --- */

/* One SM's warps each issuing rounds of requests to DRAM: a round waits for
 * the slowest of its granule accesses (base, order statistics included) plus
 * the bank queueing row u / (1 - u) at DRAM utilisation u, and moves through
 * the SM's DRAM share (deterministic) and L2 port (random). */
struct dram_loop {
    double base;         /* cycles: a round at no load */
    double row;          /* cycles: DRAM row cycle */
    double service_dram; /* cycles of the SM's DRAM share per round */
    double service_l2;   /* cycles of the SM's L2 port per round */
    double u_per_rate;   /* DRAM utilisation per (rounds per cycle per SM) */
};

/* Rounds per cycle per SM with `warps` warps: a bisection on the DRAM
 * utilisation u, whose answer is the rate solved at its final lo (0 when
 * there is no solution). Every u kept as lo had rate x u_per_rate > u, so
 * the rate at any lo already passed bounds the answer's from below by lo:
 * a caller that only asks whether the rate clears a bar passes stop_lo, and
 * the bisection stops (answering the rate at that lo) once lo reaches it
 * (stop_lo >= 1: never; see dram_loop_reaches). */
static double dram_loop_rate(const struct dram_loop *loop, double warps, double stop_lo)
{
    struct simt_mva_center centers[2] = {{loop->service_dram, 0.0}, {loop->service_l2, 1.0}};
    struct simt_mva_result m;
    double lo = 0.0, hi = 1.0;
    double rate_at_lo = -1.0; /* the solve at lo, kept as lo moves; < 0 until lo moves */
    for (int it = 0; it < 48 && lo < stop_lo; it++) {
        double u = 0.5 * (lo + hi);
        double delay = loop->base + loop->row * u / (1.0 - u);
        if (simt_mva_solve(centers, 2, delay, warps, &m) != SIMT_OK)
            return 0.0;
        if (m.throughput * loop->u_per_rate > u) {
            lo = u;
            rate_at_lo = m.throughput;
        } else {
            hi = u;
        }
    }
    if (rate_at_lo < 0.0) {
        if (simt_mva_solve(centers, 2, loop->base + loop->row * lo / (1.0 - lo), warps, &m) != SIMT_OK)
            return 0.0;
        rate_at_lo = m.throughput;
    }
    return rate_at_lo;
}

/* Whether `warps` warps reach `target` of the peak, i.e. dram_loop_rate x
 * per_round_fraction >= target, the same yes or no as the full bisection
 * gives, but it stops as soon as its lo proves the yes: the final rate R
 * has R x u_per_rate > lo_final >= lo, so R x per_round_fraction > lo x
 * per_round_fraction / u_per_rate, and once that clears target by a margin
 * (1e-9) far above the few roundings between (2^-53 each), the full
 * answer's comparison is yes; so is the comparison of the rate at that lo,
 * by the same bound. A no still runs the whole bisection. */
static int dram_loop_reaches(const struct dram_loop *loop, double warps, double per_round_fraction,
                             double target)
{
    double stop_lo = target * loop->u_per_rate / per_round_fraction * (1.0 + 1e-9);
    return dram_loop_rate(loop, warps, stop_lo) * per_round_fraction >= target;
}

/* --- latency hiding --- */

static const char *const level_names[] = {"dram", "l2", "shared", "fma"};

const char *simt_latency_level_name(enum simt_latency_level level)
{
    if ((int)level < 0 || (int)level > (int)SIMT_LATENCY_FMA)
        return NULL;
    return level_names[level];
}

void simt_latency_request_init(struct simt_latency_request *req)
{
    memset(req, 0, sizeof *req);
    req->level = SIMT_LATENCY_DRAM;
    req->warps_per_sm = 1.0;
    req->ilp = 1.0;
    req->bytes_per_lane = 4.0;
}

static int fail(struct simt_diag *diag, int rc, const char *field, const char *message)
{
    return simt_diag_fail(diag, rc, field, "%s", message);
}

/* Requires a figure and records its use. */
static int need(const struct simt_figure_set *figures, enum simt_figure_id id, simt_figure_mask *used,
                double *value, struct simt_diag *diag)
{
    int rc = simt_figure_require(figures, id, diag);
    if (rc != SIMT_OK)
        return rc;
    *used |= SIMT_FIG_BIT(id);
    *value = simt_figure_get(figures, id);
    return SIMT_OK;
}

/* FMA pipes: warps are spread round-robin over the sub-partitions, each a
 * fixed-latency pipeline issuing one warp instruction per `service` cycles;
 * returns warp instructions per cycle for the SM. */
static double fma_throughput(double warps, double ilp, double latency, double service, int partitions)
{
    double per_lo = floor(warps / partitions);
    double extra = warps - per_lo * partitions; /* partitions holding one more warp (may be fractional) */
    double rate_lo = fmin(per_lo * ilp / latency, 1.0 / service);
    double rate_hi = fmin((per_lo + 1.0) * ilp / latency, 1.0 / service);
    return (partitions - extra) * rate_lo + extra * rate_hi;
}

static int check_latency_request(const struct simt_gpu_spec *gpu, const struct simt_latency_request *req,
                                 struct simt_diag *diag)
{
    if (!(req->warps_per_sm > 0.0) || req->warps_per_sm > 4096.0)
        return fail(diag, SIMT_EINVAL, "warps_per_sm", "warps_per_sm must be > 0 and at most 4096");
    if (!(req->ilp >= 1.0) || req->ilp > 1024.0)
        return fail(diag, SIMT_EINVAL, "ilp", "ilp must be 1..1024");
    if (req->level != SIMT_LATENCY_FMA && (!(req->bytes_per_lane > 0.0) || req->bytes_per_lane > 1024.0))
        return fail(diag, SIMT_EINVAL, "bytes_per_lane", "bytes_per_lane must be > 0 and at most 1024");
    if (req->target_fraction < 0.0 || req->target_fraction >= 1.0 || isnan(req->target_fraction))
        return fail(diag, SIMT_EINVAL, "target_fraction", "target_fraction must be in (0, 1)");
    if (req->active_sms < 0)
        return fail(diag, SIMT_EINVAL, "active_sms", "active_sms must be >= 1 (0: all SMs)");
    int warp = gpu->warp_size > 0 ? gpu->warp_size : 32;
    if (req->level != SIMT_LATENCY_FMA && (req->lanes < 0 || req->lanes > warp))
        return simt_diag_fail(diag, SIMT_EINVAL, "lanes", "lanes must be 1..%d, this GPU's warp size", warp);
    if (gpu->sm_count < 1)
        return fail(diag, SIMT_EUNSAT, "sm_count", "the GPU record has no SMs");
    if ((int)req->level < 0 || (int)req->level > (int)SIMT_LATENCY_FMA)
        return fail(diag, SIMT_EINVAL, "level", "level must be dram, l2, shared or fma");
    return SIMT_OK;
}

/* The FMA level: operations instead of bytes (one FMA = 2 flops) through
 * the sub-partitions' pipelines. */
static void fma_level(const struct simt_gpu_spec *gpu, const struct simt_latency_request *req, double clock,
                      double bandwidth, double latency, struct simt_latency_result *r)
{
    int sms = gpu->sm_count;
    int lanes = gpu->warp_size > 0 ? gpu->warp_size : 32;
    double customers = req->warps_per_sm * req->ilp;
    double fma_per_cycle_sm = bandwidth / 2.0 / sms / clock;
    int partitions = gpu->sub_partitions > 0 ? gpu->sub_partitions : 4;
    double service = lanes / (fma_per_cycle_sm / partitions); /* cycles per warp FMA in one partition */
    double warp_instr = fma_throughput(req->warps_per_sm, req->ilp, latency, service, partitions);
    r->request_bytes = lanes;
    r->in_flight_per_sm = customers * lanes;
    r->required_in_flight_per_sm = fma_per_cycle_sm * latency;
    r->achieved_per_s = warp_instr * lanes * clock * sms;
    r->peak_per_s = bandwidth / 2.0;
    r->latency_cycles = latency;
    r->fraction_of_peak = r->achieved_per_s / r->peak_per_s;
    double per_partition = r->target_fraction * latency / (service * req->ilp);
    r->warps_needed = ceil(per_partition - 1e-9) * partitions;
}

/* What the memory levels share: the figures and the request's shape. */
struct memory_level {
    double clock;
    double bandwidth; /* the level's, chip */
    double latency;   /* unloaded, cycles */
    double l2;        /* DRAM: the L2 figure that caps an SM's port (0: none) */
    double rate_sm;   /* bytes per cycle one SM can get */
    double service;   /* cycles one warp request holds the SM's share */
    int level_active; /* SMs sharing the level */
};

/* DRAM: a warp's round of `ilp` requests ends with the slowest of its
 * DRAM granule accesses: the pointer-chase mean is the fastest access plus
 * one row cycle of exponential spread, and the expected maximum of n such
 * accesses adds row x H(n); requests queue in the DRAM banks, W = row u /
 * (1 - u), u solved with the throughput. Returns requests per cycle per SM
 * (0 when there is no solution). */
static double dram_level(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                         const struct simt_latency_request *req, const struct memory_level *ml,
                         struct simt_latency_result *r)
{
    int sms = gpu->sm_count;
    double granularity = gpu->dram_access_granularity_bytes > 0 ? gpu->dram_access_granularity_bytes
                         : gpu->sector_bytes > 0                ? gpu->sector_bytes
                                                                : 32;
    double line = gpu->cache_line_bytes > 0 ? gpu->cache_line_bytes : 128;
    double granules = ceil(r->request_bytes / granularity - 1e-9);
    double row = simt_figure_get(figures, SIMT_FIG_DRAM_ROW_CYCLE) * ml->clock;
    r->figures_used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_ROW_CYCLE);
    double spread = fmin(row, ml->latency);
    struct dram_loop loop;
    loop.base = ml->latency - spread + spread * simt_harmonic(req->ilp * granules);
    loop.row = row;
    loop.service_dram = req->ilp * ml->service;
    loop.service_l2 = 0.0;
    if (ml->l2 > 0.0) {
        loop.service_l2 = req->ilp * ceil(r->request_bytes / line - 1e-9) * line / (ml->l2 / sms / ml->clock);
        r->figures_used |= SIMT_FIG_BIT(SIMT_FIG_L2_BANDWIDTH);
    }
    loop.u_per_rate = req->ilp * r->request_bytes * ml->level_active * ml->clock / ml->bandwidth;
    double rounds = dram_loop_rate(&loop, req->warps_per_sm, 2.0);
    if (!(rounds > 0.0))
        return 0.0;
    r->latency_cycles = req->warps_per_sm / rounds;
    /* fraction of peak rises with warps: the smallest whole number that reaches the target */
    double per_round_fraction = req->ilp * r->request_bytes / ml->rate_sm;
    int lo_w = 0, hi_w = MAX_WARPS_SEARCHED;
    if (!dram_loop_reaches(&loop, hi_w, per_round_fraction, r->target_fraction)) {
        r->warps_needed = (double)INFINITY;
    } else {
        while (hi_w - lo_w > 1) {
            int mid = (lo_w + hi_w) / 2;
            if (dram_loop_reaches(&loop, mid, per_round_fraction, r->target_fraction))
                hi_w = mid;
            else
                lo_w = mid;
        }
        r->warps_needed = hi_w;
    }
    return rounds * req->ilp;
}

/* The SM's share of a memory level (an SM cannot take more than its port
 * into L2), and what one warp request costs in it. */
static void memory_share(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                         const struct simt_latency_request *req, struct memory_level *ml,
                         struct simt_latency_result *r)
{
    int sms = gpu->sm_count;
    int active = req->active_sms > 0 && req->active_sms < sms ? req->active_sms : sms;
    int warp = gpu->warp_size > 0 ? gpu->warp_size : 32;
    int lanes = req->lanes > 0 ? req->lanes : warp;
    ml->l2 = 0.0;
    if (req->level == SIMT_LATENCY_SHARED) {
        ml->rate_sm = ml->bandwidth / sms / ml->clock;
    } else {
        ml->rate_sm = ml->bandwidth / active / ml->clock;
        /* one SM cannot take more than its port into L2 */
        ml->l2 = simt_figure_get(figures, SIMT_FIG_L2_BANDWIDTH);
        if (req->level == SIMT_LATENCY_L2)
            ml->l2 = 0.0; /* the level itself */
        if (ml->l2 > 0.0 && ml->rate_sm > ml->l2 / sms / ml->clock) {
            ml->rate_sm = ml->l2 / sms / ml->clock;
            r->figures_used |= SIMT_FIG_BIT(SIMT_FIG_L2_BANDWIDTH);
        }
    }
    ml->level_active = req->level == SIMT_LATENCY_SHARED ? sms : active;
    r->request_bytes = lanes * req->bytes_per_lane;
    ml->service = r->request_bytes / ml->rate_sm;
    r->in_flight_per_sm = req->warps_per_sm * req->ilp * r->request_bytes;
    r->required_in_flight_per_sm = ml->rate_sm * ml->latency;
    r->peak_per_s = ml->rate_sm * ml->clock * ml->level_active;
}

int simt_latency_compute(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                         const struct simt_latency_request *req, struct simt_latency_result *out,
                         struct simt_diag *diag)
{
    int rc = check_latency_request(gpu, req, diag);
    if (rc != SIMT_OK)
        return rc;
    struct simt_latency_result r;
    memset(&r, 0, sizeof r);
    r.target_fraction = req->target_fraction > 0.0 ? req->target_fraction : 0.9;
    struct memory_level ml;
    memset(&ml, 0, sizeof ml);
    if ((rc = need(figures, SIMT_FIG_CLOCK, &r.figures_used, &ml.clock, diag)) != SIMT_OK)
        return rc;
    double customers = req->warps_per_sm * req->ilp;

    static const enum simt_figure_id bw_ids[] = {SIMT_FIG_DRAM_BANDWIDTH, SIMT_FIG_L2_BANDWIDTH,
                                                 SIMT_FIG_SHARED_BANDWIDTH, SIMT_FIG_FP32};
    static const enum simt_figure_id lat_ids[] = {SIMT_FIG_DRAM_LATENCY, SIMT_FIG_L2_LATENCY,
                                                  SIMT_FIG_SHARED_LATENCY, SIMT_FIG_FMA_LATENCY};
    if ((rc = need(figures, bw_ids[req->level], &r.figures_used, &ml.bandwidth, diag)) != SIMT_OK)
        return rc;
    if ((rc = need(figures, lat_ids[req->level], &r.figures_used, &ml.latency, diag)) != SIMT_OK)
        return rc;
    r.unloaded_latency_cycles = ml.latency;

    if (req->level == SIMT_LATENCY_FMA) {
        fma_level(gpu, req, ml.clock, ml.bandwidth, ml.latency, &r);
        *out = r;
        return SIMT_OK;
    }
    memory_share(gpu, figures, req, &ml, &r);

    double requests_per_cycle;
    if (req->level == SIMT_LATENCY_DRAM) {
        requests_per_cycle = dram_level(gpu, figures, req, &ml, &r);
        if (!(requests_per_cycle > 0.0))
            return fail(diag, SIMT_EINVAL, "warps_per_sm", "no solution for this concurrency");
    } else if (req->level == SIMT_LATENCY_SHARED) {
        /* fixed-latency pipeline: exact closed loop */
        requests_per_cycle = fmin(customers / ml.latency, 1.0 / ml.service);
        r.warps_needed = ceil(r.target_fraction * ml.latency / ml.service / req->ilp - 1e-9);
    } else {
        /* The unloaded latency is a pointer chase of one small request; a
         * warp's request adds its own transfer time (service) on top. */
        struct simt_mva_center center = {ml.service, 1.0};
        double delay = ml.latency;
        struct simt_mva_result m;
        rc = simt_mva_solve(&center, 1, delay, customers, &m);
        if (rc != SIMT_OK)
            return fail(diag, SIMT_EINVAL, "warps_per_sm", "no solution for this concurrency");
        requests_per_cycle = m.throughput;
        double c = customers_for(&center, delay, r.target_fraction, MAX_WARPS_SEARCHED * req->ilp);
        r.warps_needed = isfinite(c) ? ceil(c / req->ilp - 1e-9) : (double)INFINITY;
    }
    if (req->level != SIMT_LATENCY_DRAM)
        r.latency_cycles = customers / requests_per_cycle;
    r.achieved_per_s = requests_per_cycle * r.request_bytes * ml.clock * ml.level_active;
    r.fraction_of_peak = r.achieved_per_s / r.peak_per_s;
    assert(isfinite(r.achieved_per_s) && r.achieved_per_s >= 0.0);
    assert(r.fraction_of_peak >= 0.0 && r.fraction_of_peak <= 1.0 + 1e-9);
    *out = r;
    return SIMT_OK;
}
