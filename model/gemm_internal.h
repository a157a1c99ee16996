/* gemm_internal.h - what the GEMM model's two files share (gemm.c prices,
 * gemm_request.c checks). Not for other modules. */
#ifndef SIMT_GEMM_INTERNAL_H
#define SIMT_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

/* Sizes and dtype in range, a GPU with SMs: SIMT_OK, or the error
 * simt_gemm_predict returns, with diag filled. */
int simt_gemm_check_request(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            struct simt_diag *diag) SIMT_WARN_UNUSED;

/* A's bytes per element of the dense A when it is 2:4 structured sparse:
 * half the values plus their 2-bit metadata. */
double simt_gemm_sparse_a_bytes(enum simt_dtype dtype);
/* Bytes of one element of C: fp8 and the narrower float types write bf16,
 * int8 and int4 int32, the rest their own type. */
int simt_gemm_output_bytes(enum simt_dtype dtype);
/* 1 for the types narrower than a byte or block-scaled (int4, fp6, fp4, mx*,
 * nvfp4): they have no fallback kernels for unaligned shapes. */
int simt_gemm_narrow(enum simt_dtype dtype);
/* Bits a tile's K depth is counted in (6-bit types staged a byte each). */
int simt_gemm_tile_bits(enum simt_dtype dtype);
/* Elements k and n must be multiples of: whole 16-byte pieces (and whole
 * scale blocks for the block-scaled types). */
int simt_gemm_alignment_elements(enum simt_dtype dtype);
/* A narrow type's k or n that is not a multiple of the alignment: SIMT_EUNSAT
 * naming "k" or "n"; SIMT_OK otherwise (and for every wider type). */
int simt_gemm_check_alignment(const struct simt_gemm_request *req, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* SIMT_EUNSAT naming "dtype": the GPU's tensor cores lack the type (the
 * message lists those they have). Always returns SIMT_EUNSAT. */
int simt_gemm_lacks_dtype(const struct simt_gpu_spec *gpu, enum simt_dtype dtype, struct simt_diag *diag);
/* sparse set: SIMT_OK when the GPU has a sparse rate for the dtype, else
 * SIMT_EUNSAT naming "dtype" (no dense path either) or "sparse". */
int simt_gemm_check_sparse(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                           enum simt_dtype dtype, int sparse, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* Elements one load of the fallback kernels (unaligned leading dimensions)
 * carries: as many as the alignment of k and n allows, at most 4 bytes. */
int simt_gemm_slot_elements(int64_t k, int64_t n, double element_bytes);
/* The operands' assumption line (bits, scales, alignment, sparse A). */
void simt_gemm_describe_operands(const struct simt_gemm_request *req, int alignment_elements, char *buf,
                                 size_t size);

#endif
