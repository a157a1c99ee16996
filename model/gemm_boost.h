/* gemm_boost.h - a single tensor-core GEMM call's rate before the board's
 * power limit pulls the clock down. Pure. */
#ifndef SIMT_GEMM_BOOST_H
#define SIMT_GEMM_BOOST_H

#include "figures.h"
#include "gpu.h"

struct simt_gemm_boost {
    double ratio;    /* the boosted rate over the sustained one (1: none known) */
    double window_s; /* seconds of tensor work the boosted rate lasts (0: none known) */
    double factor;   /* what the call's mean rate is over the sustained one, >= 1 */
};

/* The factor by which one call that starts on an idle GPU runs its tensor
 * work faster than the sustained rate sustained_flops_per_s (the tensor
 * figure's kind: a GEMM run back to back): the figures
 * tensor_single_call_ratio (r) and tensor_boost_window_s (w). The
 * call's work at the sustained rate would take t = flops / sustained; the
 * first w seconds run r times faster, the rest at the sustained rate:
 * t / r when t <= r w, else w + (t - r w). The factor is t over that, so
 * the call's time never falls when the sustained rate, r or w rises.
 * Without both figures, or with r = 1, the factor is 1. Adds the figures
 * read (both, when both are present) to *used. */
void simt_gemm_single_call_boost(const struct simt_figure_set *figures, double flops,
                                 double sustained_flops_per_s, simt_figure_mask *used,
                                 struct simt_gemm_boost *out);

#endif
