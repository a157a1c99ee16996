/* banks.c - per phase, the distinct 4-byte words each bank must deliver;
 * the worst bank sets the phase's cycles. Pure. */
#include "banks.h"

#include <string.h>

#define MAX_WORDS (SIMT_MAX_LANES * 4) /* 16-byte elements: 4 words a lane */

struct bank_geometry {
    int banks;
    int bank_bytes;
    int lanes_per_phase;
};

static struct bank_geometry geometry(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                                     unsigned *assumed)
{
    struct bank_geometry g;
    g.banks = gpu->shared_banks > 0 ? gpu->shared_banks : 32;
    g.bank_bytes = gpu->shared_bank_bytes > 0 ? gpu->shared_bank_bytes : 4;
    if (gpu->shared_banks <= 0 || gpu->shared_bank_bytes <= 0)
        *assumed |= SIMT_BANKS_ASSUMED_BANKS;
    int per_lane = access->element_bytes > g.bank_bytes ? access->element_bytes : g.bank_bytes;
    int per_phase = g.banks * g.bank_bytes / per_lane;
    if (per_phase < 1)
        per_phase = 1;
    g.lanes_per_phase = per_phase < access->lanes ? per_phase : access->lanes;
    return g;
}

/* Cycles of one phase (lanes [first, first + count)); sets *shared when a
 * word served two or more lanes. */
static int phase_ways(const struct bank_geometry *g, const struct simt_warp_access *access, int first, int count,
                      int *shared)
{
    int64_t words[MAX_WORDS];
    int n = 0, lanes_words = 0;
    for (int lane = first; lane < first + count; lane++) {
        if (!simt_warp_access_lane_active(access, lane))
            continue;
        int64_t a = simt_warp_access_address(access, lane);
        int64_t w0 = simt_floor_div(a, g->bank_bytes);
        int64_t w1 = simt_floor_div(a + access->element_bytes - 1, g->bank_bytes);
        for (int64_t w = w0; w <= w1 && n < MAX_WORDS; w++) {
            words[n++] = w;
            lanes_words++;
        }
    }
    if (n == 0)
        return 0;
    n = simt_sort_unique(words, n);
    if (n < lanes_words)
        *shared = 1;
    int per_bank[SIMT_MAX_LANES * 4];
    int banks = g->banks < (int)(sizeof per_bank / sizeof per_bank[0]) ? g->banks : (int)(sizeof per_bank / sizeof per_bank[0]);
    memset(per_bank, 0, sizeof per_bank);
    int worst = 0;
    for (int i = 0; i < n; i++) {
        int64_t b = words[i] % banks;
        if (b < 0)
            b += banks;
        int c = ++per_bank[b];
        if (c > worst)
            worst = c;
    }
    return worst;
}

/* Ways, wavefronts and minimal wavefronts of an access; no validation. */
static void evaluate(const struct bank_geometry *g, const struct simt_warp_access *access, int *ways,
                     int *wavefronts, int *min_wavefronts, int *shared)
{
    *ways = 0;
    *wavefronts = 0;
    *min_wavefronts = 0;
    for (int first = 0; first < access->lanes; first += g->lanes_per_phase) {
        int count = access->lanes - first < g->lanes_per_phase ? access->lanes - first : g->lanes_per_phase;
        int w = phase_ways(g, access, first, count, shared);
        if (w == 0)
            continue;
        *wavefronts += w;
        *min_wavefronts += 1;
        if (w > *ways)
            *ways = w;
    }
}

int simt_banks_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                       struct simt_banks_result *out, struct simt_diag *diag)
{
    int rc = simt_warp_access_check(access, diag);
    if (rc != SIMT_OK)
        return rc;
    struct simt_banks_result r;
    memset(&r, 0, sizeof r);
    struct bank_geometry g = geometry(gpu, access, &r.assumed);
    r.lanes_per_phase = g.lanes_per_phase;
    r.phases = (access->lanes + g.lanes_per_phase - 1) / g.lanes_per_phase;
    r.active_lanes = simt_warp_access_active_lanes(access);
    evaluate(&g, access, &r.ways, &r.wavefronts, &r.min_wavefronts, &r.broadcast);
    r.efficiency = r.wavefronts > 0 ? (double)r.min_wavefronts / (double)r.wavefronts : 1.0;

    r.suggested_padding_elements = -1;
    if (!access->explicit_addresses) {
        struct simt_warp_access padded = *access;
        int64_t direction = access->lane_stride_elements < 0 ? -1 : 1;
        for (int64_t p = 0; p <= SIMT_BANKS_MAX_PADDING; p++) {
            padded.lane_stride_elements = access->lane_stride_elements + direction * p;
            int ways, wavefronts, min_wavefronts, shared = 0;
            evaluate(&g, &padded, &ways, &wavefronts, &min_wavefronts, &shared);
            if (wavefronts == min_wavefronts) {
                r.suggested_padding_elements = p;
                break;
            }
        }
    }
    *out = r;
    return SIMT_OK;
}
