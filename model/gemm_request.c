/* gemm_request.c - the GEMM model's names, sizes and request checks: what
 * simt_gemm_predict refuses before it prices anything, the bytes of each
 * dtype, and tile and wave quantization on its own. Pure. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm.h"
#include "gemm_internal.h"

const char *simt_gemm_bound_name(enum simt_gemm_bound bound)
{
    switch (bound) {
    case SIMT_GEMM_BOUND_COMPUTE:
        return "compute";
    case SIMT_GEMM_BOUND_L2:
        return "l2";
    case SIMT_GEMM_BOUND_DRAM:
        return "dram";
    case SIMT_GEMM_BOUND_LAUNCH:
        return "launch";
    }
    return NULL;
}

int simt_gemm_element_bytes(enum simt_dtype dtype)
{
    switch (dtype) {
    case SIMT_DTYPE_FP64:
        return 8;
    case SIMT_DTYPE_FP32:
    case SIMT_DTYPE_TF32:
        return 4;
    case SIMT_DTYPE_FP16:
    case SIMT_DTYPE_BF16:
        return 2;
    case SIMT_DTYPE_FP8:
    case SIMT_DTYPE_INT8:
        return 1;
    case SIMT_DTYPE_INT4:
    case SIMT_DTYPE_COUNT:
        break;
    }
    return 0;
}

void simt_gemm_quantize(int64_t m, int64_t n, int64_t batch, int tile_m, int tile_n, int sm_count,
                        struct simt_gemm_quantization *out)
{
    /* counts in floating point: m * n * batch of any int64 sizes does not
     * overflow a double (it saturates the int64 count instead) */
    double tm = ceil((double)m / (double)tile_m);
    double tn = ceil((double)n / (double)tile_n);
    double tiles = tm * tn * (double)batch;
    out->tiles = tiles < 0x1p62 ? (int64_t)tiles : INT64_MAX;
    out->waves = sm_count > 0 ? tiles / (double)sm_count : 0.0;
    out->tile_efficiency = ((double)m * (double)n) / ((tm * (double)tile_m) * (tn * (double)tile_n));
    double full = ceil(out->waves);
    out->wave_efficiency = full > 0.0 ? out->waves / full : 0.0;
}

/* The most elements one matrix of the request may hold over its batch:
 * 2^53, the largest count a double (and a JSON number) holds exactly and
 * 10^4 times the memory of any GPU in bytes. Within it every tile count the
 * model forms fits an int64_t and every time is finite. */
#define MAX_MATRIX_ELEMENTS 0x1p53

/* Refuses a GEMM one of whose matrices (A: m x k, B: k x n, C: m x n, each
 * batch times) has more than MAX_MATRIX_ELEMENTS elements, naming the
 * largest of the sizes in that product (the first on a tie). */
static int check_matrix_sizes(const struct simt_gemm_request *req, struct simt_diag *diag)
{
    static const char *const names[] = {"m", "n", "k"};
    const int64_t sizes[] = {req->m, req->n, req->k};
    static const int pairs[3][2] = {{0, 2}, {2, 1}, {0, 1}}; /* A, B, C */
    static const char matrix[] = "ABC";
    for (int i = 0; i < 3; i++) {
        int a = pairs[i][0], b = pairs[i][1];
        double elements = (double)sizes[a] * (double)sizes[b] * (double)req->batch;
        if (elements <= MAX_MATRIX_ELEMENTS)
            continue;
        int first = a < b ? a : b, second = a < b ? b : a;
        const char *field = sizes[second] > sizes[first] ? names[second] : names[first];
        int64_t largest = sizes[second] > sizes[first] ? sizes[second] : sizes[first];
        if (req->batch > largest)
            field = "batch";
        return simt_diag_fail(diag, SIMT_EUNSAT, field,
                              "matrix %c would hold %.4g elements (%s x %s x batch): more than 2^53, beyond "
                              "the memory of any GPU; %s is too large",
                              matrix[i], elements, names[a], names[b], field);
    }
    return SIMT_OK;
}

/* Sizes and dtype in range, a GPU with SMs. */
int simt_gemm_check_request(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            struct simt_diag *diag)
{
    static const struct {
        const char *field;
        size_t offset;
    } dims[] = {
        {"m", offsetof(struct simt_gemm_request, m)},
        {"n", offsetof(struct simt_gemm_request, n)},
        {"k", offsetof(struct simt_gemm_request, k)},
        {"batch", offsetof(struct simt_gemm_request, batch)},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int64_t value;
        memcpy(&value, (const char *)req + dims[i].offset, sizeof value);
        if (value < 1)
            return simt_diag_fail(diag, SIMT_EINVAL, dims[i].field, "%s must be a positive integer",
                                  dims[i].field);
        if (value > ((int64_t)1 << 40))
            return simt_diag_fail(diag, SIMT_EINVAL, dims[i].field, "%s must be at most 2^40", dims[i].field);
    }
    int rc = check_matrix_sizes(req, diag);
    if (rc != SIMT_OK)
        return rc;
    if (simt_gemm_element_bytes(req->dtype) == 0)
        return simt_diag_fail(diag, SIMT_EINVAL, "dtype",
                              "dtype must be fp64, fp32, tf32, fp16, bf16, fp8 or int8");
    if (gpu->sm_count < 1)
        return simt_diag_fail(diag, SIMT_EUNSAT, "gpu", "the GPU record has no SM count");
    return SIMT_OK;
}

const char *simt_gemm_launches_name(enum simt_gemm_launches launches)
{
    switch (launches) {
    case SIMT_GEMM_LAUNCH_SINGLE:
        return "single";
    case SIMT_GEMM_LAUNCH_BACK_TO_BACK:
        return "back_to_back";
    }
    return NULL;
}
