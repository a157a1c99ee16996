/* kernel_tensor.c - tensor-core work in a whole-kernel launch: its rate per
 * SM from the tensor figures, one warp's demand on the SM's tensor pipe
 * (limited to warps / schedulers when few warps are resident) and the issue
 * slots of its MMA instructions. Pure. */
#include "kernel_tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Flops per lane of one warp-wide MMA instruction, by data type: 2mnk / 32
 * for PTX mma.sync's largest shape of the type (PTX ISA, "Matrix shape":
 * m8n8k4 fp64, m16n8k8 tf32, m16n8k16 f16/bf16, m16n8k32 e4m3/e5m2 and
 * s8, m16n8k64 s4). fp32 has no NVIDIA MMA; CDNA's v_mfma_f32_16x16x4f32
 * (2 x 16 x 16 x 4 over 64 lanes) gives 32. Issue slots only. */
static const double flops_per_lane_per_mma[SIMT_DTYPE_COUNT] = {
    [SIMT_DTYPE_FP64] = 16.0,  [SIMT_DTYPE_FP32] = 32.0, [SIMT_DTYPE_TF32] = 64.0,  [SIMT_DTYPE_FP16] = 128.0,
    [SIMT_DTYPE_BF16] = 128.0, [SIMT_DTYPE_FP8] = 256.0, [SIMT_DTYPE_INT8] = 256.0, [SIMT_DTYPE_INT4] = 512.0,
};

double simt_kernel_tensor_flops(const struct simt_kernel_request *req)
{
    double total = 0.0;
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++)
        total += req->flops_tensor[d];
    return total;
}

int simt_kernel_tensor_read_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                                  const struct simt_kernel_request *req, double per_cycle, struct rates *r,
                                  simt_figure_mask *used, struct simt_diag *diag)
{
    r->sub_partitions = gpu->sub_partitions > 0 ? gpu->sub_partitions : 4;
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        double amount = req->flops_tensor[d];
        r->tensor_per_cycle[d] = 0.0;
        char field[64];
        snprintf(field, sizeof field, "per_thread.flops.tensor_%s", simt_dtype_name((enum simt_dtype)d));
        if (!(amount >= 0.0) || !isfinite(amount) || amount > 1e15)
            return simt_diag_fail(diag, SIMT_EINVAL, field, "must be a number 0..1e15");
        if (amount <= 0.0)
            continue;
        enum simt_figure_id id = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + d);
        double rate = simt_figure_get(figures, id);
        if (!(rate > 0.0))
            return simt_diag_fail(diag, SIMT_EUNSAT, field,
                                  "this GPU's tensor cores have no %s path (no tensor_dense_flops_per_s.%s "
                                  "in its record)",
                                  simt_dtype_name((enum simt_dtype)d), simt_dtype_name((enum simt_dtype)d));
        *used |= SIMT_FIG_BIT(id);
        r->tensor_per_cycle[d] = rate * per_cycle;
    }
    return SIMT_OK;
}

void simt_kernel_tensor_cost_warp(const struct simt_kernel_request *req, const struct rates *r,
                                  struct warp_cost *w, simt_kernel_assumed *assumed)
{
    w->tensor_cycles = 0.0;
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        double flops = req->flops_tensor[d];
        if (!(flops > 0.0) || !(r->tensor_per_cycle[d] > 0.0))
            continue;
        w->tensor_cycles += r->lanes * flops / r->tensor_per_cycle[d];
        w->instructions += flops / flops_per_lane_per_mma[d];
        *assumed |= SIMT_KERNEL_ASSUMED_TENSOR_PIPE;
    }
}

double simt_kernel_tensor_demand(const struct warp_cost *w, const struct rates *r, double serialization,
                                 double resident_warps)
{
    if (!(w->tensor_cycles > 0.0))
        return 0.0;
    double schedulers = r->sub_partitions > 0 ? (double)r->sub_partitions : 4.0;
    double reach = resident_warps >= schedulers ? 1.0 : fmax(resident_warps, 1.0) / schedulers;
    return serialization * w->tensor_cycles / reach;
}
