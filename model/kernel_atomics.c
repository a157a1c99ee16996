/* kernel_atomics.c - a warp's global atomics priced at the L2 slices: the
 * steps a request takes on its sectors, and the grid's atomics contended
 * over the slices that hold a set of distinct addresses. Pure. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel_internal.h"

/* One sector's share of a warp atomic request. The slice's atomic unit
 * updates one sector at a time, each word of it at most once a step: the
 * lanes on one address take one step each, so the sector takes as many
 * steps as its busiest word has lanes. A step that updates every word of
 * the sector takes words / l2_slice_atomic_lanes_per_clock (8 words: 1.17
 * clocks; no figure: not limited), any other step one same-address time
 * (1.45 clocks), however few lanes it carries. H200,
 * tests/gpu/results/h200/atomics_few_rates.json: 1, 2 or 4 lanes on one
 * sector take 1.47 clocks a request, 8 lanes 1.18; 2 and 4 lanes one per
 * sector 2.9 and 5.8; 4 lanes on each of 8 words spread over 4 sectors
 * 23.2 (16 steps) against 4.65 for 8 words of one sector (4 full steps);
 * lanes 10, 6, 4, 4, 2, 2, 2, 2 on 8 words of 2 sectors 22.5 (16 steps). */
static double sector_cycles(const int64_t *address, const int64_t *sector, int n, int s,
                            double words_per_sector, const struct rates *r)
{
    int on_word[SIMT_MAX_LANES], words = 0, steps = 0;
    for (int i = 0; i < n; i++) {
        int first = sector[i] == sector[s];
        for (int j = 0; j < i && first; j++)
            first = address[j] != address[i];
        if (!first)
            continue;
        int lanes = 0;
        for (int j = 0; j < n; j++)
            lanes += address[j] == address[i];
        on_word[words++] = lanes;
        if (lanes > steps)
            steps = lanes;
    }
    double same_cycles =
        r->atomic_same_address_per_s > 0.0 ? r->clock_hz / r->atomic_same_address_per_s : 0.0;
    double lane_cycles = r->atomic_slice_lanes_per_cycle > 0.0 ? 1.0 / r->atomic_slice_lanes_per_cycle : 0.0;
    double cycles = 0.0;
    for (int step = 1; step <= steps; step++) {
        int lanes = 0;
        for (int k = 0; k < words; k++)
            lanes += on_word[k] >= step;
        /* a full step at the slice's lane rate (0: not limited), a partial
         * one no faster than one same-address time */
        cycles += lanes >= words_per_sector ? lanes * lane_cycles : fmax(same_cycles, lanes * lane_cycles);
    }
    return cycles;
}

/* One warp atomic instruction at the L2. Its lanes leave the SM as one
 * request per line they touch, each to the L2 slice that holds the line
 * (REDG/ATOMG: the compiler does not merge lanes; on the H200 32 lanes on
 * one address take 32 times as long as one lane, atomics_int_rates.json),
 * and the slice works through the request's sectors one after another
 * (sector_cycles). A request of a few lanes on as many sectors thus costs
 * the slice a step per sector, not per lane. Returns the slice cycles (SM
 * clocks) of the instruction summed over its lines; *requests: its lines. */
static double atomic_request_cycles(const struct simt_warp_access *p, const struct rates *r, double *requests)
{
    int64_t line[SIMT_MAX_LANES], sector[SIMT_MAX_LANES], address[SIMT_MAX_LANES];
    int n = 0;
    int64_t line_bytes = r->line_bytes > 0.0 ? (int64_t)r->line_bytes : 128;
    int64_t sector_bytes = r->sector_bytes > 0.0 ? (int64_t)r->sector_bytes : 32;
    double words_per_sector = p->element_bytes > 0 ? fmax(1.0, (double)sector_bytes / p->element_bytes) : 1.0;
    for (int lane = 0; lane < p->lanes && lane < SIMT_MAX_LANES; lane++) {
        if (!simt_warp_access_lane_active(p, lane))
            continue;
        address[n] = simt_warp_access_address(p, lane);
        line[n] = simt_floor_div(address[n], line_bytes);
        sector[n] = simt_floor_div(address[n], sector_bytes);
        n++;
    }
    double cycles = 0.0;
    *requests = 0.0;
    for (int i = 0; i < n; i++) {
        int first_in_line = 1, first_in_sector = 1;
        for (int j = 0; j < i; j++) {
            first_in_line = first_in_line && line[j] != line[i];
            first_in_sector = first_in_sector && sector[j] != sector[i];
        }
        if (first_in_line)
            *requests += 1.0;
        if (first_in_sector)
            cycles += sector_cycles(address, sector, n, i, words_per_sector, r);
    }
    return cycles;
}

/* Atomics contended across the grid: the grid's atomics of an access over
 * D addresses go to the slices that hold them, and each slice serves its
 * share one request after another. The set spreads over k = set bytes /
 * l2_atomic_slice_bytes chunks (at least one), each hashed to one of the
 * chip's C slices, C = l2_atomics_per_clock / l2_same_address_atomics_per_clock
 * (a one-step request costs a slice one same-address time: H200 48.6 /
 * 0.688 = 71). A slice that holds one chunk holds on average 1 + (k - 1) / C
 * of them, so the set runs at k / (1 + (k - 1) / C) slices' rate, never
 * more than C. H200, atomics_int_rates.json (32 lanes on one line's words,
 * the lines consecutive): 1 KiB 1.96 slices (model 1.97), 2 KiB 3.86 (3.83),
 * 4 KiB 7.64 (7.25), 16 KiB 23.3 (22.3); 32 lanes on one word of each of
 * 1024 lines 49 (55). Within a pair of chunks the halves go to the pair's
 * two slices in turn, so a set of one chunk or less over more than half a
 * chunk already spans two: k is at least 2 x set bytes / chunk, up to 2
 * (512 B runs at 1.97 slices' rate, as 1 KiB does, and 256 B at one; the
 * H100 SXM's rows agree within 0.3%). Every request also takes a slot of
 * the L2's atomic line requests chip-wide (l2_atomics_per_clock). */
void simt_kernel_contend(const struct simt_kernel_access *a, const struct rates *r, struct warp_cost *w,
                         simt_kernel_assumed *assumed)
{
    if (a->op != SIMT_OP_ATOMIC || a->space != SIMT_SPACE_GLOBAL)
        return;
    double requests = 0.0;
    double cycles = atomic_request_cycles(&a->pattern, r, &requests);
    w->atomic_ops += a->count * requests;
    if (!(a->distinct_addresses > 0.0))
        return;
    if (!(r->atomic_same_address_per_s > 0.0)) {
        *assumed |= SIMT_KERNEL_ASSUMED_NO_ATOMIC_RATE;
        return;
    }
    *assumed |= SIMT_KERNEL_ASSUMED_ATOMIC_CONTENTION;
    double chunks = 1.0;
    if (r->atomic_slice_bytes > 0.0) {
        double bytes = a->distinct_addresses * a->pattern.element_bytes;
        chunks =
            fmax(1.0, fmax(fmin(2.0, 2.0 * bytes / r->atomic_slice_bytes), bytes / r->atomic_slice_bytes));
    }
    double slices = chunks;
    if (r->atomics_per_s > 0.0)
        slices = chunks / (1.0 + (chunks - 1.0) * r->atomic_same_address_per_s / r->atomics_per_s);
    if (r->atomic_slice_lanes_per_cycle > 0.0)
        *assumed |= SIMT_KERNEL_ASSUMED_ATOMIC_SLICES;
    w->contended_atomics += a->count * cycles / slices;
}
