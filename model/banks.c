/* banks.c - the distinct 4-byte words each bank must deliver and the
 * distinct bytes the warp needs: the larger bound sets the cycles. Pure. */
#include "banks.h"

#include <string.h>

#define MAX_WORDS (SIMT_MAX_LANES * 4) /* 16-byte elements: 4 words a lane */

struct bank_geometry {
    int banks;
    int bank_bytes;
};

static struct bank_geometry geometry(const struct simt_gpu_spec *gpu, unsigned *assumed)
{
    struct bank_geometry g;
    g.banks = gpu->shared_banks > 0 ? gpu->shared_banks : 32;
    g.bank_bytes = gpu->shared_bank_bytes > 0 ? gpu->shared_bank_bytes : 4;
    if (gpu->shared_banks <= 0 || gpu->shared_bank_bytes <= 0)
        *assumed |= SIMT_BANKS_ASSUMED_BANKS;
    if (g.banks > MAX_WORDS)
        g.banks = MAX_WORDS;
    return g;
}

struct evaluation {
    int wavefronts, min_wavefronts, worst_bank_words, shared;
    int64_t distinct_bytes;
};

/* Wavefronts of an access (no validation). */
static struct evaluation evaluate(const struct bank_geometry *g, const struct simt_warp_access *access)
{
    struct evaluation e = {0, 0, 0, 0, 0};
    int64_t words[MAX_WORDS];
    int64_t starts[SIMT_MAX_LANES];
    int n = 0, lanes_words = 0, active = 0;
    for (int lane = 0; lane < access->lanes; lane++) {
        if (!simt_warp_access_lane_active(access, lane))
            continue;
        int64_t a = simt_warp_access_address(access, lane);
        starts[active++] = a;
        int64_t w0 = simt_floor_div(a, g->bank_bytes);
        int64_t w1 = simt_floor_div(a + access->element_bytes - 1, g->bank_bytes);
        for (int64_t w = w0; w <= w1 && n < MAX_WORDS; w++) {
            words[n++] = w;
            lanes_words++;
        }
    }
    if (n == 0)
        return e;
    n = simt_sort_unique(words, n);
    e.shared = n < lanes_words;
    int per_bank[MAX_WORDS];
    memset(per_bank, 0, sizeof per_bank);
    for (int i = 0; i < n; i++) {
        int64_t b = words[i] % g->banks;
        if (b < 0)
            b += g->banks;
        int c = ++per_bank[b];
        if (c > e.worst_bank_words)
            e.worst_bank_words = c;
    }
    /* distinct bytes: the union of the lanes' elements */
    active = simt_sort_unique(starts, active);
    int64_t covered_to = INT64_MIN;
    for (int i = 0; i < active; i++) {
        int64_t lo = starts[i] > covered_to ? starts[i] : covered_to;
        int64_t hi = starts[i] + access->element_bytes;
        if (hi > lo)
            e.distinct_bytes += hi - lo;
        if (hi > covered_to)
            covered_to = hi;
    }
    int64_t width = (int64_t)g->banks * g->bank_bytes;
    e.min_wavefronts = (int)((e.distinct_bytes + width - 1) / width);
    e.wavefronts = e.worst_bank_words > e.min_wavefronts ? e.worst_bank_words : e.min_wavefronts;
    return e;
}

int simt_banks_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                       struct simt_banks_result *out, struct simt_diag *diag)
{
    int rc = simt_warp_access_check(access, diag);
    if (rc != SIMT_OK)
        return rc;
    struct simt_banks_result r;
    memset(&r, 0, sizeof r);
    struct bank_geometry g = geometry(gpu, &r.assumed);
    r.active_lanes = simt_warp_access_active_lanes(access);
    struct evaluation e = evaluate(&g, access);
    r.wavefronts = e.wavefronts;
    r.min_wavefronts = e.min_wavefronts;
    r.worst_bank_words = e.worst_bank_words;
    r.distinct_bytes = e.distinct_bytes;
    r.broadcast = e.shared;
    r.ways = e.min_wavefronts > 0 ? (e.wavefronts + e.min_wavefronts - 1) / e.min_wavefronts : 0;
    r.efficiency = r.wavefronts > 0 ? (double)r.min_wavefronts / (double)r.wavefronts : 1.0;

    r.suggested_padding_elements = -1;
    if (!access->explicit_addresses) {
        struct simt_warp_access padded = *access;
        int64_t direction = access->lane_stride_elements < 0 ? -1 : 1;
        for (int64_t p = 0; p <= SIMT_BANKS_MAX_PADDING; p++) {
            padded.lane_stride_elements = access->lane_stride_elements + direction * p;
            struct evaluation pe = evaluate(&g, &padded);
            if (pe.wavefronts == pe.min_wavefronts) {
                r.suggested_padding_elements = p;
                break;
            }
        }
    }
    *out = r;
    return SIMT_OK;
}
