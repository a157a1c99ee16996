/* test_latency.c - Little's law, the loaded-latency closed loop and warps
 * needed, on the fixture GPU: DRAM 2e12 B/s over 100 SMs at 1 GHz = 20
 * B/cycle per SM, unloaded DRAM latency 500 cycles; shared 128 B/cycle per
 * SM, 30 cycles; FMA: 128 lanes per SM in 4 partitions of 32, 4 cycles. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "latency.h"
#include "model_fixture.h"

struct row {
    const char *name;
    enum simt_latency_level level;
    double warps, ilp, bytes_per_lane;
    double latency, in_flight, required, achieved, fraction, warps_needed;
};

static const struct row rows[] = {
    /* DRAM, one warp of 32 x 4 B = 128-B requests (2 granules of 64 B). A round at no load:
     * (500 - 48) + 48 x H(2) = 524 cycles (48 = the 48-ns DRAM row cycle at 1 GHz), plus the
     * request's 128/20 = 6.4 cycles in the SM's DRAM share and 1 line x 128/80 = 1.6 in its L2
     * port: 532, plus bank queueing 48 u / (1 - u) at the utilisation u = 0.012 the warp itself
     * causes: 532.584 cycles, 128 B per round -> 2.4034e10 B/s over 100 SMs. Warps for 90%: 139
     * (the bisection and mean-value recursion, worked in an independent script). */
    {"dram one warp", SIMT_LATENCY_DRAM, 1, 1, 4, 532.5838263827146, 128, 10000, 2.4033775278038433e10,
     0.012016887639019216, 139},
    {"dram two warps", SIMT_LATENCY_DRAM, 2, 1, 4, 533.2237886943705, 256, 10000, 4.800986104292739e10,
     0.024004930521463696, 139},
    /* 64 warps: u = 0.652, the banks' queue adds 48 x 0.652 / 0.348 = 90 cycles */
    {"dram 64 warps", SIMT_LATENCY_DRAM, 64, 1, 4, 627.7864221482644, 8192, 10000, 1.3049023857456565e12,
     0.6524511928728283, 139},
    /* 512-B requests, ILP 4: 32 granules a round; at 256 requests in flight per SM the DRAM
     * share saturates (u = 0.991) and the round takes 6612.6 cycles; 12 warps reach 90% */
    {"dram saturated", SIMT_LATENCY_DRAM, 64, 4, 16, 6612.586002596581, 131072, 10000, 1.9821594751059814e12,
     0.9910797375529907, 12},
    /* L2: one 128-B request, 200 cycles of latency plus 128/80 = 1.6 of the SM's port (MVA, one
     * customer): 201.6 cycles -> 128/201.6 B/cycle x 100 SMs x 1e9 = 6.349e10 B/s of 8e12;
     * required 80 x 200 = 16000 B; 90% at 119.02 customers (exact MVA recursion) -> 120 warps */
    {"l2 one warp", SIMT_LATENCY_L2, 1, 1, 4, 201.6, 128, 16000, 6.3492063492063484e10, 0.007936507936507936,
     120},
    /* shared: 128-B request, 1 cycle of service, latency 30: 8 streams -> 8/30 of peak;
     * peak = 128 x 100 x 1e9 = 1.28e13; warps for 90% = ceil(0.9 x 30 / 1) = 27 */
    {"shared 8 warps", SIMT_LATENCY_SHARED, 8, 1, 4, 30, 1024, 3840, 1.28e13 * 8.0 / 30.0, 8.0 / 30.0, 27},
    /* shared saturated: 64 streams > 30 -> peak; latency = 64 x 1 */
    {"shared 64 warps", SIMT_LATENCY_SHARED, 64, 1, 4, 64, 8192, 3840, 1.28e13, 1.0, 27},
    /* fma: 4 warps, one per partition, each issues 1 FMA per 4 cycles -> 1 warp instr/cycle/SM
     * = 32 FMA/cycle vs 128 peak: 0.25; chip 32 x 1e9 x 100 = 3.2e12; required 128 x 4 = 512 ops;
     * warps for 90%: 0.9 x 4 / 1 = 3.6 -> 4 per partition -> 16 */
    {"fma 4 warps", SIMT_LATENCY_FMA, 4, 1, 0, 4, 128, 512, 3.2e12, 0.25, 16},
    /* 6 warps: two partitions with 2 (rate 1/2), two with 1 (1/4): 1.5 instr/cycle -> 0.375 */
    {"fma 6 warps", SIMT_LATENCY_FMA, 6, 1, 0, 4, 192, 512, 4.8e12, 0.375, 16},
    /* ilp 4 with 4 warps: each partition saturated */
    {"fma ilp 4", SIMT_LATENCY_FMA, 4, 4, 0, 4, 512, 512, 1.28e13, 1.0, 4},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_latency_request req;
    simt_latency_request_init(&req);
    req.level = t->level;
    req.warps_per_sm = t->warps;
    req.ilp = t->ilp;
    req.bytes_per_lane = t->bytes_per_lane > 0 ? t->bytes_per_lane : 4;
    struct simt_latency_result r;
    struct simt_diag diag;
    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, &diag), SIMT_OK);
    ck_assert_msg(fabs(r.latency_cycles - t->latency) < 1e-6 * t->latency, "%s: latency %.14g", t->name,
                  r.latency_cycles);
    ck_assert_double_eq_tol(r.in_flight_per_sm, t->in_flight, 1e-9);
    ck_assert_double_eq_tol(r.required_in_flight_per_sm, t->required, 1e-6);
    ck_assert_msg(fabs(r.achieved_per_s - t->achieved) < 1e-9 * t->achieved, "%s: achieved %.14g", t->name,
                  r.achieved_per_s);
    ck_assert_msg(fabs(r.fraction_of_peak - t->fraction) < 1e-9, "%s: fraction %.14g", t->name,
                  r.fraction_of_peak);
    ck_assert_msg(fabs(r.warps_needed - t->warps_needed) < 1e-9, "%s: warps needed %g", t->name,
                  r.warps_needed);
}
END_TEST

/* Measured figures replace the datasheet's: a measured 1e12 B/s DRAM halves
 * the per-SM rate, so one warp's 128-B request is served in 12.8 cycles; a
 * measured 400-cycle latency makes one warp reach 128/400 B/cycle. */
START_TEST(test_measured)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.measured_dram_bandwidth_bytes_per_s = 1e12;
    gpu.measured_dram_latency_cycles = 400;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_latency_request req;
    simt_latency_request_init(&req);
    struct simt_latency_result r;
    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, NULL), SIMT_OK);
    ck_assert_double_eq_tol(r.achieved_per_s, 29101574465.513206, 1e3);
    ck_assert_double_eq_tol(r.required_in_flight_per_sm, 10.0 * 400.0, 1e-9);
    ck_assert(r.figures_used & SIMT_FIG_BIT(SIMT_FIG_DRAM_LATENCY));
    ck_assert_int_eq(figures.source[SIMT_FIG_DRAM_LATENCY], SIMT_FIGURE_MEASURED);
}
END_TEST

/* Solver properties: throughput never above 1/D and rising with customers;
 * a single customer sees exactly delay + demand. */
START_TEST(test_mva)
{
    struct simt_mva_center c[2] = {{10.0, 1.0}, {4.0, 0.0}};
    struct simt_mva_result r;
    ck_assert_int_eq(simt_mva_solve(c, 2, 100.0, 1.0, &r), SIMT_OK);
    ck_assert_double_eq_tol(r.cycle_time, 114.0, 1e-12);
    double last = 0.0;
    for (double n = 0.5; n < 200.0; n += 7.25) {
        ck_assert_int_eq(simt_mva_solve(c, 2, 100.0, n, &r), SIMT_OK);
        ck_assert(r.throughput >= last - 1e-15);
        ck_assert(r.throughput <= 0.1 + 1e-15);
        last = r.throughput;
    }
    ck_assert_int_eq(simt_mva_solve(c, 2, 100.0, 0.0, &r), SIMT_EINVAL);
    struct simt_mva_center none = {0.0, 1.0};
    ck_assert_int_eq(simt_mva_solve(&none, 1, 0.0, 1.0, &r), SIMT_EINVAL);
}
END_TEST

/* The solver as it was before idle centers were skipped (every center in
 * the recursion, zero demand or not), kept as the reference the faster one
 * must match bit for bit. */
struct reference_state {
    double queue[SIMT_MVA_MAX_CENTERS], util[SIMT_MVA_MAX_CENTERS], residence[SIMT_MVA_MAX_CENTERS];
    double throughput, cycle_time;
};

static void reference_step(const struct simt_mva_center *c, int count, double delay, double cap, double n,
                           struct reference_state *s)
{
    double total = delay;
    for (int k = 0; k < count; k++) {
        double r = c[k].demand * (1.0 + s->queue[k] - s->util[k] * (1.0 - c[k].scv) / 2.0);
        if (r < c[k].demand)
            r = c[k].demand;
        s->residence[k] = r;
        total += r;
    }
    double x = n / total;
    if (cap > 0.0 && x > cap) {
        x = cap;
        total = n / x;
    }
    s->throughput = x;
    s->cycle_time = total;
    for (int k = 0; k < count; k++) {
        s->queue[k] = x * s->residence[k];
        s->util[k] = x * c[k].demand;
    }
}

static void reference_solve(const struct simt_mva_center *c, int count, double delay, double customers,
                            struct simt_mva_result *out)
{
    double largest = 0.0;
    for (int k = 0; k < count; k++)
        largest = fmax(largest, c[k].demand);
    double cap = largest > 0.0 ? 1.0 / largest : 0.0;
    struct reference_state s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    double whole = floor(customers), fraction = customers - whole, scale = 1.0;
    int saturated = 0;
    if (whole < 1.0) {
        reference_step(c, count, delay, cap, 1.0, &s);
        scale = customers;
    }
    for (double n = 1.0; n <= whole; n += 1.0) {
        reference_step(c, count, delay, cap, n, &s);
        if (cap > 0.0 && s.throughput >= cap * (1.0 - 1e-12)) {
            saturated = 1;
            s.throughput = cap;
            s.cycle_time = customers / cap;
            break;
        }
    }
    if (whole >= 1.0 && fraction > 0.0 && !saturated) {
        struct reference_state next = s;
        reference_step(c, count, delay, cap, whole + 1.0, &next);
        s.throughput += fraction * (next.throughput - s.throughput);
        s.cycle_time += fraction * (next.cycle_time - s.cycle_time);
        for (int k = 0; k < count; k++) {
            s.residence[k] += fraction * (next.residence[k] - s.residence[k]);
            s.util[k] += fraction * (next.util[k] - s.util[k]);
        }
    }
    out->throughput = s.throughput * scale;
    out->cycle_time = s.cycle_time;
    for (int k = 0; k < count; k++) {
        out->residence[k] = s.residence[k];
        out->utilisation[k] = s.util[k] * scale;
    }
}

/* Idle centers (demand 0) interleaved with busy ones, as the kernel model's
 * 14-center network has them: every field of the answer bit-identical to
 * the full recursion's, for fractional, sub-unit, saturating and large
 * populations (a pseudo-random sweep, fixed seed). */
START_TEST(test_mva_idle_centers)
{
    unsigned seed = 12345u;
    for (int trial = 0; trial < 400; trial++) {
        struct simt_mva_center c[SIMT_MVA_MAX_CENTERS];
        int count = 1 + trial % SIMT_MVA_MAX_CENTERS, busy = 0;
        for (int k = 0; k < count; k++) {
            seed = seed * 1103515245u + 12345u;
            int idle = (seed >> 16) % 3 == 0;
            c[k].demand = idle ? 0.0 : (double)((seed >> 8) % 1000 + 1) / 37.0;
            c[k].scv = (seed >> 4) % 2 ? 1.0 : 0.0;
            busy += !idle;
        }
        if (busy == 0)
            c[0].demand = 3.0;
        static const double populations[] = {0.25, 1.0, 2.5, 7.0, 33.3, 64.0, 500.0, 4096.0};
        double delay = (double)(trial % 7) * 150.0;
        for (size_t p = 0; p < sizeof populations / sizeof populations[0]; p++) {
            struct simt_mva_result fast, reference;
            ck_assert_int_eq(simt_mva_solve(c, count, delay, populations[p], &fast), SIMT_OK);
            reference_solve(c, count, delay, populations[p], &reference);
            ck_assert_msg(memcmp(&fast, &reference, sizeof fast) == 0, "trial %d, %g customers", trial,
                          populations[p]);
        }
    }
}
END_TEST

/* warps_needed is the smallest whole number of warps whose own answer
 * reaches the target: the search's probes stop their bisection early, the
 * answer at warps_per_sm runs it in full, and the two must agree. */
START_TEST(test_warps_needed_consistent)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    static const double targets[] = {0.3, 0.5, 0.8, 0.9, 0.95};
    static const double ilps[] = {1.0, 2.0, 8.0};
    static const double bytes[] = {4.0, 16.0};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        for (size_t i = 0; i < sizeof ilps / sizeof ilps[0]; i++) {
            for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
                struct simt_latency_request req;
                simt_latency_request_init(&req);
                req.ilp = ilps[i];
                req.bytes_per_lane = bytes[b];
                req.target_fraction = targets[t];
                struct simt_latency_result r, at;
                ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, NULL), SIMT_OK);
                ck_assert(isfinite(r.warps_needed) && r.warps_needed >= 1.0);
                req.warps_per_sm = r.warps_needed;
                ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &at, NULL), SIMT_OK);
                ck_assert_msg(at.fraction_of_peak >= targets[t] * (1.0 - 1e-12), "target %g ilp %g: %g at %g",
                              targets[t], ilps[i], at.fraction_of_peak, r.warps_needed);
                if (r.warps_needed > 1.0) {
                    req.warps_per_sm = r.warps_needed - 1.0;
                    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &at, NULL), SIMT_OK);
                    ck_assert_msg(at.fraction_of_peak < targets[t] * (1.0 + 1e-12),
                                  "target %g ilp %g: %g at %g", targets[t], ilps[i], at.fraction_of_peak,
                                  r.warps_needed - 1.0);
                }
            }
        }
    }
}
END_TEST

START_TEST(test_bad)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    struct simt_latency_request req;
    simt_latency_request_init(&req);
    struct simt_latency_result r;
    struct simt_diag diag;
    req.ilp = 0.5;
    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "ilp");
    simt_latency_request_init(&req);
    req.warps_per_sm = 0;
    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "warps_per_sm");
    gpu.dram_latency_cycles = 0;
    simt_figure_set_init(&gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    simt_latency_request_init(&req);
    ck_assert_int_eq(simt_latency_compute(&gpu, &figures, &req, &r, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "dram_latency_cycles");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("latency");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_measured);
    tcase_add_test(tc, test_mva);
    tcase_add_test(tc, test_mva_idle_centers);
    tcase_add_test(tc, test_warps_needed_consistent);
    tcase_add_test(tc, test_bad);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
