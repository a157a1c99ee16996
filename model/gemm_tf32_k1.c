/* gemm_tf32_k1.c - tf32 at K = 1 on NVIDIA GPUs of compute capability 8.0
 * on: cuBLAS runs no tensor-core kernel for it but CUTLASS's FMA kernel
 * simt_sgemm_128x32_8x5 (an outer product needs one FMA an output), as it
 * does for fp32: the answer is fp32's, said so. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11, torch.profiler's
 * kernel names; fit data): every tf32 shape of K = 1, from 16x16 to
 * 4096x8192 (gemm_probe_tiny.json) and m = 500..3000 against n = 50..400
 * (gemm_probe_classes_tf32k1.json, 16 shapes), ran cutlass_80_simt_sgemm_
 * 128x32_8x5 alone, grid ceil(m / 32) x ceil(n / 128); the tensor-core
 * kernels' price was 3.9% .. 80.6% over (median 19.5%), fp32's own price of
 * the same shapes 8.3% median, 11.9% worst. K of 2 and more runs tf32's
 * tensor-core kernels. */
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

int simt_gemm_tf32_k1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && req->dtype == SIMT_DTYPE_TF32 &&
           req->k == 1 && !req->sparse;
}

int simt_gemm_tf32_k1_predict(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              struct simt_gemm_result *out, struct simt_diag *diag)
{
    struct simt_gemm_request fp32 = *req;
    fp32.dtype = SIMT_DTYPE_FP32;
    int rc = simt_gemm_predict(gpu, &fp32, out, diag);
    if (rc != SIMT_OK || out->assumption_count >= SIMT_GEMM_MAX_ASSUMPTIONS)
        return rc;
    snprintf(out->assumptions[out->assumption_count], SIMT_GEMM_ASSUMPTION_BYTES, "%s",
             "tf32 at K = 1: cuBLAS runs CUTLASS's FP32 FMA kernel simt_sgemm_128x32 for it, no tensor-core "
             "kernel (seen on an H200 at every size of K = 1): priced as fp32");
    out->assumption_count++;
    return rc;
}
