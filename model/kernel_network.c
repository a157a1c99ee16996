/* kernel_network.c - the SM's closed queueing network of resident warps:
 * each warp's demand at every service center (DRAM, its row activations,
 * the L2 port and slices, the data path, the pipes, atomics, launch,
 * barriers), solved by mean-value analysis with the DRAM's bank queueing at
 * the utilisation the network itself reaches. Pure. */
#include <math.h>
#include <string.h>

#include "kernel_internal.h"
#include "kernel_tensor.h"
#include "latency.h"

/* An FP64 warp instruction holds its scheduler while its pipe takes it
 * (fp64_issue_hold_fraction, h): h of the pipe's cycles beyond the
 * instruction's own issue slot go to the issue center, and the FP64 pipe's
 * center keeps 1 - h of its time: for the held share the scheduler and the
 * pipe are one resource, not two side by side (so every demand falls as
 * the pipe gets faster, across the edge where it matches issue too). On an
 * H200 or H100 the FP64 pipe takes a warp instruction in 2.05 of a
 * scheduler's cycles; a loop's counter, compare and branch cost their
 * slots on top of the FP64 pipe's time, not under it
 * (tests/gpu/results/h100/chains.json: 8 to 512 FP64 FMAs a pass, within 3%
 * of pipe time plus every other instruction's slot at 16 warps a
 * scheduler; overlapped, -24% at 8; chains_mix.json, checked after: one
 * FP64 chain within 1.4%, two and four chains hide part of the others). */
static void hold_fp64_issue(const struct warp_cost *w, const struct rates *r, double serialization, double *d)
{
    if (!(r->fp64_issue_hold > 0.0))
        return;
    double slots = serialization * w->fp64_flops / 2.0 / r->issue_per_cycle;
    d[C_ISSUE] += r->fp64_issue_hold * slots * fmax(0.0, simt_kernel_fp64_issue_cycles(r) - 1.0);
    d[C_FP64] *= 1.0 - r->fp64_issue_hold;
}

double simt_kernel_fp64_pipe_cycles(const struct warp_cost *w, const struct rates *r, double serialization)
{
    return r->fp64_per_cycle > 0.0 ? serialization * r->lanes * w->fp64_flops / r->fp64_per_cycle : 0.0;
}

/* The per-warp demands at each center for a phase with `active_sms` SMs
 * sharing DRAM and `resident_warps` warps on each; divergence multiplies
 * what the warp issues. */
void simt_kernel_demands(const struct warp_cost *w, const struct rates *r, double serialization,
                         int active_sms, double resident_warps, double *d)
{
    double dram_share = r->dram_bytes_per_s / active_sms;
    double port = r->l2_bytes_per_s / r->sms;
    /* the SM's share of DRAM, priced by the read/write mix, and its port
     * into L2, which carries bytes whatever their direction: one SM cannot
     * take more than its port (the port caps bytes, not read-equivalents,
     * so a faster DRAM never makes a port-bound SM slower) */
    d[C_DRAM] = fmax(simt_kernel_dram_read_equivalent_bytes(w, r) / (dram_share / r->clock_hz),
                     w->dram_bytes / (port / r->clock_hz));
    d[C_ROWS] =
        r->dram_rows_per_s > 0.0 ? w->dram_rows / (r->dram_rows_per_s / active_sms / r->clock_hz) : 0.0;
    /* The SM's path to L2 moves one line request per line_bytes / port
     * seconds however few of the line's sectors it carries: the measured L2
     * bandwidth is lines of four sectors, and a request for one sector of a
     * line (a scattered load or store) costs the same slot. */
    double write_scale = r->l2_write_bytes_per_s > 0.0 ? r->l2_bytes_per_s / r->l2_write_bytes_per_s : 1.0;
    double port_lines = w->l2_lines + w->l2_write_lines * (write_scale - 1.0);
    d[C_L2] = port_lines * r->line_bytes / (port / r->clock_hz);
    /* The slices behind the ports take one request (a tag lookup) at a
     * time, whatever it carries: a warp's scattered sectors are a request
     * each. Streams, four sectors a request, never reach this limit; L2
     * hits on scattered sectors do (simt-calibrate's random 4-byte reads
     * of an L2-resident buffer). */
    if (r->l2_requests_per_s > 0.0)
        d[C_L2] = fmax(d[C_L2], w->l2_requests / (r->l2_requests_per_s / active_sms / r->clock_hz));
    d[C_DATA] = serialization * w->data_wavefronts;
    d[C_ISSUE] = serialization * w->instructions / r->issue_per_cycle;
    d[C_FP32] = r->fp32_per_cycle > 0.0 ? serialization * r->lanes * w->fp32_flops / r->fp32_per_cycle : 0.0;
    d[C_FP64] = simt_kernel_fp64_pipe_cycles(w, r, serialization);
    d[C_FP16] = r->fp16_per_cycle > 0.0 ? serialization * r->lanes * w->fp16_flops / r->fp16_per_cycle : 0.0;
    d[C_SFU] = r->sfu_per_cycle > 0.0 ? serialization * r->lanes * w->sfu_ops / r->sfu_per_cycle : 0.0;
    hold_fp64_issue(w, r, serialization, d);
    d[C_CONSTANT] =
        r->constant_per_cycle > 0.0 ? serialization * w->constant_requests / r->constant_per_cycle : 0.0;
    d[C_INT32] = r->int32_per_cycle > 0.0 ? serialization * r->lanes * w->int_ops / r->int32_per_cycle : 0.0;
    /* integer multiply-adds issue on the FMA pipe's heavy half (IMAD): their
     * own rate, and they take FP32 issue from the FMA pipe as a whole */
    d[C_IMAD] =
        r->int_mul_per_cycle > 0.0 ? serialization * r->lanes * w->int_mul_ops / r->int_mul_per_cycle : 0.0;
    if (r->fp32_per_cycle > 0.0)
        d[C_FP32] += serialization * r->lanes * 2.0 * w->int_mul_ops / r->fp32_per_cycle;
    /* a slice serves the requests of every SM issuing them one after
     * another: the SM's share of its time is the slice cycles times the SMs */
    d[C_ATOMIC] = w->contended_atomics * active_sms;
    d[C_ATOMIC_UNITS] =
        r->atomics_per_s > 0.0 ? w->atomic_ops / (r->atomics_per_s / active_sms / r->clock_hz) : 0.0;
    d[C_TENSOR] = simt_kernel_tensor_demand(w, r, serialization, resident_warps);
    d[C_LAUNCH] = w->launch_cycles;
    d[C_BARRIER] = serialization * w->barrier_cycles;
}

/* The SM's network as the solver takes it: the centers the warp uses
 * (demand > 0), at most SIMT_MVA_MAX_CENTERS of them; where a warp uses
 * more, the least used join the delay (a center far from busy costs its
 * service time and little queueing). memory_at: where C_DRAM, C_ROWS and
 * C_L2 went, -1 when unused. */
struct network {
    struct simt_mva_center centers[SIMT_MVA_MAX_CENTERS];
    int count;
    double folded_delay; /* the demand of the centers that joined the delay */
    int memory_at[3];
};

static void build_network(const struct simt_mva_center *all, struct network *net)
{
    int used[C_COUNT];
    int n = 0;
    for (int k = 0; k < C_COUNT; k++)
        if (all[k].demand > 0.0)
            used[n++] = k;
    net->folded_delay = 0.0;
    while (n > SIMT_MVA_MAX_CENTERS) {
        int least = 0;
        for (int i = 1; i < n; i++)
            if (all[used[i]].demand < all[used[least]].demand)
                least = i;
        net->folded_delay += all[used[least]].demand;
        used[least] = used[--n];
    }
    net->count = n;
    for (int j = 0; j < 3; j++)
        net->memory_at[j] = -1;
    for (int i = 0; i < n; i++) {
        net->centers[i] = all[used[i]];
        if (used[i] <= C_L2) /* C_DRAM, C_ROWS, C_L2 */
            net->memory_at[used[i]] = i;
    }
}

/* One MVA solve of the SM's network (the per-stream demands) at DRAM
 * utilisation u: the loads that miss wait W(u) more per round in DRAM bank
 * queues. Fills m and the delay used. */
static int solve_at(const struct warp_cost *w, const struct rates *r, double serialization,
                    const struct network *net, double customers, double u, struct simt_mva_result *m,
                    double *delay_out)
{
    /* each bank an M/M/1 server busy one row cycle per access: W = tRC u / (1 - u) */
    double wait = r->dram_row_cycle * u / (1.0 - u);
    double delay = serialization * (w->memory_delay_cycles + w->dram_queue_rounds * wait +
                                    w->alu_delay_cycles + w->sync_delay_cycles) +
                   w->slot_delay_cycles + net->folded_delay;
    *delay_out = delay;
    if (net->count == 0) {
        /* a pure delay: each warp on its own */
        memset(m, 0, sizeof *m);
        m->throughput = customers / delay;
        m->cycle_time = delay;
        return SIMT_OK;
    }
    return simt_mva_solve(net->centers, net->count, delay, customers, m);
}

/* Blocks in step. The SM's resident blocks are alike and start together,
 * so they pass their barriers together: while they wait at one (and read
 * what the others wrote) none of them has loads in flight, and the SM's
 * memory work does not go on behind its barrier phases the way the
 * network, which lets every warp wait on its own, would have it. The wave
 * then takes its memory phase (every resident warp in the network, the
 * barrier waits left out) plus its barrier phases one after the other.
 * At each barrier the resident blocks' warps reach the SM's one barrier
 * unit together, and the last block's wait includes the other blocks'
 * arrivals (barrier_cycles_per_warp each), in proportion as their loads
 * came back together: at DRAM utilisation u the burst's replies are spread
 * over a drain that keeps the DRAM busy a fraction u of the time, so the
 * arrivals coincide a fraction 1 - u of it. Shuffles keep no warps in
 * step: their waits stay in the memory phase. H200 (kblock_probe.json,
 * tree rows, fit data): median |error| 14.5% -> 8.4% (69 rows closer, 7
 * further; 256-thread blocks of 20 barriers with the SM full -34% -> -4%,
 * 128-thread blocks of 9 barriers sixteen resident -10% -> +28%); bare
 * barriers (no memory phase) unchanged. Fit half: softmax_65536x256 -28%
 * -> +3%, layernorm_16384x1024 -20% -> -2%, reduce_sum_2^26 -16% -> -7%,
 * softmax_8192x2048 +7% -> +20% (it runs at a copy's rate: there the
 * barriers do hide). Only where the warp has both barriers and memory
 * work; *cycles 0 where it does not apply. */
static int lockstep_cycles(const struct warp_cost *w, const struct rates *r, double serialization,
                           const struct simt_mva_center *centers, double customers, double warps, double u,
                           double *cycles)
{
    *cycles = 0.0;
    int memory = 0;
    for (int k = C_DRAM; k <= C_L2; k++)
        memory |= centers[k].demand > 0.0;
    if (!(w->barrier_delay_cycles > 0.0) || !memory)
        return SIMT_OK;
    struct simt_mva_center rest[C_COUNT];
    memcpy(rest, centers, sizeof rest);
    rest[C_BARRIER].demand = 0.0; /* its arrivals are priced in the barrier phase below */
    struct network net;
    build_network(rest, &net);
    double wait = r->dram_row_cycle * u / (1.0 - u);
    double delay =
        serialization * (w->memory_delay_cycles + w->dram_queue_rounds * wait + w->alu_delay_cycles) +
        w->slot_delay_cycles + net.folded_delay;
    struct simt_mva_result m;
    int rc = simt_mva_solve(net.centers, net.count, delay, customers, &m);
    if (rc != SIMT_OK)
        return rc;
    double others = fmax(warps - w->block_warps, 0.0) * (1.0 - u);
    *cycles =
        customers / m.throughput + serialization * (w->barrier_delay_cycles + w->barrier_cycles * others);
    return SIMT_OK;
}

/* Waves in step. Where the pipes, not memory, set the pace, the SM's
 * resident warps share them evenly and finish together, so the next
 * wave's blocks start together, issue their first loads together and have
 * nothing to run until those come back: each wave exposes its first load
 * round's latency before its pipe work. Later rounds overlap other warps'
 * work as the network has it. Seen in the H200 fit half's integer hash
 * loops (2^24 threads, 62 waves): 32 and 512 rounds give 6.69 us a round
 * and 21.4 us besides, where 62 waves x 681.5 cycles at 1.98 GHz is 21.4
 * us; nothing fitted. 0 where the warp loads nothing. */
static double compute_step_cycles(const struct warp_cost *w, double serialization, const double *d,
                                  double warps)
{
    if (!(w->load_rounds > 0.0))
        return 0.0;
    static const int pipes[] = {C_DATA, C_ISSUE, C_FP32, C_FP64, C_FP16, C_SFU, C_CONSTANT, C_INT32, C_IMAD};
    double busiest = 0.0;
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
        busiest = fmax(busiest, d[pipes[i]]);
    return serialization * w->memory_delay_cycles / w->load_rounds + warps * busiest;
}

/* Time for `warps` resident warps per SM to finish one lifetime each, with
 * `active_sms` SMs sharing DRAM. The DRAM utilisation and the loaded latency
 * it causes are solved together (bisection on u: the utilisation the
 * network reaches at latency W(u) must be u). */
int simt_kernel_run_phase(const struct warp_cost *w, const struct rates *r, double serialization,
                          int active_sms, double warps, struct phase *out)
{
    double d[C_COUNT];
    simt_kernel_demands(w, r, serialization, active_sms, warps, d);
    double streams = w->load_rounds > 0.0 ? w->load_count / w->load_rounds : 1.0;
    if (streams < 1.0)
        streams = 1.0;
    double total = serialization * (w->memory_delay_cycles + w->alu_delay_cycles + w->sync_delay_cycles);
    for (int k = 0; k < C_COUNT; k++)
        total += d[k] / streams;
    memset(out, 0, sizeof *out);
    /* the latency term: the warps' own work alone; the slot's idle time
     * around each block is the launcher's, reported under launch */
    out->alone = total;
    total += w->slot_delay_cycles;
    if (total <= 0.0)
        return SIMT_OK;
    double customers = warps * streams;
    if (customers > SIMT_MVA_MAX_CUSTOMERS)
        customers = SIMT_MVA_MAX_CUSTOMERS;
    /* bytes of DRAM per warp-cycle of the network, as a fraction of the chip's DRAM per SM-cycle */
    double dram_per_warp =
        simt_kernel_dram_read_equivalent_bytes(w, r) * active_sms * r->clock_hz / r->dram_bytes_per_s;
    /* the network is the same at every u; only the delay moves */
    struct simt_mva_center centers[C_COUNT];
    for (int k = 0; k < C_COUNT; k++) {
        centers[k].demand = d[k] / streams;
        /* the DRAM share only caps throughput here: its queueing is the banks' W(u) */
        centers[k].scv = k == C_L2 ? 1.0 : 0.0;
    }
    struct network net;
    build_network(centers, &net);
    struct simt_mva_result m;
    double delay = 0.0;
    double lo = 0.0, hi = 1.0;
    int rc = solve_at(w, r, serialization, &net, customers, 0.0, &m, &delay);
    if (rc != SIMT_OK)
        return rc;
    double u0 = m.throughput / streams * dram_per_warp;
    if (w->dram_queue_rounds > 0.0 && u0 > 0.0) {
        /* the solve at lo is kept as lo moves (the one at 0 to start):
         * the answer is that solve, not a repeat of it */
        struct simt_mva_result at_lo = m;
        double delay_lo = delay;
        for (int it = 0; it < 48; it++) {
            double u = 0.5 * (lo + hi);
            if ((rc = solve_at(w, r, serialization, &net, customers, u, &m, &delay)) != SIMT_OK)
                return rc;
            if (m.throughput / streams * dram_per_warp > u) {
                lo = u;
                at_lo = m;
                delay_lo = delay;
            } else {
                hi = u;
            }
        }
        m = at_lo;
        delay = delay_lo;
        out->dram_utilisation = lo;
    } else {
        out->dram_utilisation = u0;
    }
    out->cycles = customers / m.throughput;
    double lock = 0.0;
    if ((rc = lockstep_cycles(w, r, serialization, centers, customers, warps, out->dram_utilisation,
                              &lock)) != SIMT_OK)
        return rc;
    if (lock > out->cycles)
        out->cycles = lock;
    out->step_cycles = compute_step_cycles(w, serialization, d, warps);
    out->cycle_time = m.cycle_time;
    out->delay = delay;
    for (int j = 0; j < 3; j++)
        if (net.memory_at[j] >= 0)
            out->memory_residence += m.residence[net.memory_at[j]];
    return SIMT_OK;
}
