/* gemm_boost.c - a single tensor-core GEMM call's rate before the board's
 * power limit pulls the clock down (gemm_boost.h). Pure.
 *
 * On an H200 (700 W board limit) a bf16 GEMM run back to back for half a
 * second holds the board at about 690 W with the SM clock at 1410-1545 MHz
 * (nvidia-smi every 20 ms), 662 TFLOP/s at 4096^3; the same GEMM launched
 * after the GPU idled runs at 802-806 TFLOP/s for its first 38 ms of calls
 * back to back (fp16 29 ms, fp8 31 ms), then falls in steps to the
 * sustained rate by about 150 ms: the limiter reacts to power averaged over
 * a longer time than one call (tests/gpu/results/h200/power_ramp.json).
 * That a power cap acts through the SM clock, and so the compute-bound
 * rate, on both Hopper cards: "Architectural and Power-Capping Trade-offs in NVIDIA H100
 * and H200 GPUs" (arXiv 2604.11391, DGEMM under caps of 200 to 700 W). */
#include "gemm_boost.h"

#include <math.h>

void simt_gemm_single_call_boost(const struct simt_figure_set *figures, double flops,
                                 double sustained_flops_per_s, simt_figure_mask *used,
                                 struct simt_gemm_boost *out)
{
    out->ratio = 1.0;
    out->window_s = 0.0;
    out->factor = 1.0;
    if (!(flops > 0.0) || !(sustained_flops_per_s > 0.0))
        return;
    double r = simt_figure_get(figures, SIMT_FIG_TENSOR_SINGLE_CALL);
    double w = simt_figure_get(figures, SIMT_FIG_TENSOR_BOOST_WINDOW);
    if (!(r > 0.0) || !(w > 0.0))
        return;
    *used |= SIMT_FIG_BIT(SIMT_FIG_TENSOR_SINGLE_CALL) | SIMT_FIG_BIT(SIMT_FIG_TENSOR_BOOST_WINDOW);
    if (!(r > 1.0))
        return;
    double t = flops / sustained_flops_per_s;
    double boosted = t <= r * w ? t / r : w + (t - r * w);
    out->ratio = r;
    out->window_s = w;
    out->factor = t / boosted;
}
