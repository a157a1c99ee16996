/* gemm_internal.h - what the GEMM model's two files share (gemm.c prices,
 * gemm_request.c checks). Not for other modules. */
#ifndef SIMT_GEMM_INTERNAL_H
#define SIMT_GEMM_INTERNAL_H

#include "gemm.h"

/* Sizes and dtype in range, a GPU with SMs: SIMT_OK, or the error
 * simt_gemm_predict returns, with diag filled. */
int simt_gemm_check_request(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
