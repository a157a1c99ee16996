/* kernel_tensor.h - tensor-core (matrix-core) work inside a whole-kernel
 * launch (POST /v1/kernel's per_thread.flops.tensor_<dtype>): the rate it
 * is priced at, one warp's demand on the SM's tensor pipe, and the issue
 * slots its MMA instructions take. Part of the whole-kernel model (it uses
 * kernel_internal.h); pure: no allocation, no globals, no I/O.
 *
 * The model, per data type d with tensor flops f_d per thread:
 *   - the SM's tensor pipe runs at the GPU's dense tensor figure for d
 *     (tensor_flops_per_s.<d>: measured, else the datasheet's dense peak
 *     times its achievable fraction, figures.h) / sm_count / clock, flops
 *     per SM per cycle; a what-if of tensor_dense_flops_per_s.<d> moves it;
 *   - one warp's demand on that pipe is lanes x f_d / that rate, cycles;
 *   - the pipe is one unit per sub-partition (warp scheduler), and an MMA
 *     issues on its warp's own scheduler, so with W < sub_partitions warps
 *     resident on an SM only W / sub_partitions of the pipe is reachable:
 *     the demand is scaled by sub_partitions / W;
 *   - each MMA is one warp instruction (an issue slot) carrying the shape of
 *     mma.sync for d (m16n8k16 for 16-bit types, m16n8k8 tf32, m16n8k32
 *     8-bit, m16n8k64 int4, m8n8k4 fp64): 2mnk / 32 flops per lane;
 *   - operands: mma.sync reads registers the kernel loaded from shared
 *     memory, so those loads are the request's own shared accesses, priced
 *     as any; wgmma reading its operands from shared memory directly is
 *     priced at the same pipe rate (and its shared reads are not counted
 *     unless the request lists them);
 *   - the pipe is a service center of its own in the SM's queueing network,
 *     so tensor work overlaps memory and the other pipes as they overlap
 *     each other; MMA latency is taken as hidden by independent
 *     accumulators (not on the dependent chain). */
#ifndef SIMT_KERNEL_TENSOR_H
#define SIMT_KERNEL_TENSOR_H

#include "kernel_internal.h"

/* The tensor flops of one thread in total (0 when none). */
double simt_kernel_tensor_flops(const struct simt_kernel_request *req);

/* Checks every tensor_<dtype> amount (0..1e15, finite) and reads the
 * tensor rates the request uses into r->tensor_per_cycle (flops per SM per
 * cycle, per_cycle = 1 / (SMs x clock)) and r->sub_partitions, marking
 * the figures in *used. SIMT_EINVAL for an amount out of range,
 * SIMT_EUNSAT when the GPU's tensor cores lack a data type the request
 * uses; diag->field names "per_thread.flops.tensor_<dtype>". diag may be
 * NULL. */
int simt_kernel_tensor_read_rates(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                                  const struct simt_kernel_request *req, double per_cycle, struct rates *r,
                                  simt_figure_mask *used, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Adds the tensor work to one warp's priced lifetime: w->tensor_cycles
 * (the warp's demand on the whole SM's pipe) and the MMA instructions'
 * issue slots in w->instructions; sets the TENSOR_PIPE assumption. */
void simt_kernel_tensor_cost_warp(const struct simt_kernel_request *req, const struct rates *r,
                                  struct warp_cost *w, simt_kernel_assumed *assumed);

/* One warp's demand at the tensor pipe, cycles, with `resident_warps`
 * warps resident on its SM (fewer than the schedulers: each reaches only
 * its own scheduler's share). 0 without tensor work. */
double simt_kernel_tensor_demand(const struct warp_cost *w, const struct rates *r, double serialization,
                                 double resident_warps);

#endif
