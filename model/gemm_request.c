/* gemm_request.c - the GEMM model's names, sizes and request checks: what
 * simt_gemm_predict refuses before it prices anything (sizes, a type or 2:4
 * sparsity the GPU's tensor cores lack, leading dimensions the narrow types'
 * kernels cannot take), the bytes of each dtype in memory, and tile and wave
 * quantization on its own. Pure. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

double simt_gemm_element_bytes(enum simt_dtype dtype)
{
    return simt_dtype_bytes(dtype);
}

/* 2:4 structured sparse A keeps half its values, each with a 2-bit index
 * into its group of four (PTX ISA, "Sparse matrix storage" of mma.sp: the
 * M x K matrix A packed into M x K/2 elements, the index of each non-zero
 * element of a 4-element chunk in the metadata operand): per element of the
 * dense A, half an element and one bit. */
#define SPARSE_METADATA_BITS_PER_KEPT 2.0

double simt_gemm_sparse_a_bytes(enum simt_dtype dtype)
{
    return 0.5 * simt_dtype_bytes(dtype) + 0.5 * SPARSE_METADATA_BITS_PER_KEPT / 8.0;
}

int simt_gemm_output_bytes(enum simt_dtype dtype)
{
    switch (dtype) {
    case SIMT_DTYPE_INT8:
    case SIMT_DTYPE_INT4:
        return 4; /* accumulated and written as int32 (torch._int_mm) */
    case SIMT_DTYPE_FP8:
    case SIMT_DTYPE_FP6:
    case SIMT_DTYPE_FP4:
    case SIMT_DTYPE_MXFP8:
    case SIMT_DTYPE_MXFP6:
    case SIMT_DTYPE_MXFP4:
    case SIMT_DTYPE_NVFP4:
        return 2; /* bf16, torch._scaled_mm's usual out_dtype */
    default:
        return (int)simt_dtype_bytes(dtype);
    }
}

int simt_gemm_narrow(enum simt_dtype dtype)
{
    return simt_dtype_element_bits(dtype) < 8 || simt_dtype_scale_block(dtype) > 0;
}

int simt_gemm_tile_bits(enum simt_dtype dtype)
{
    /* 6-bit operands are staged one a byte (the f8f6f4 MMA kinds take fp6
     * in byte containers), so their tiles are the 8-bit types' */
    int bits = simt_dtype_element_bits(dtype);
    return bits == 6 ? 8 : bits;
}

static int gcd(int a, int b)
{
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int simt_gemm_alignment_elements(enum simt_dtype dtype)
{
    /* the fewest elements that fill a whole number of 16-byte (128-bit)
     * pieces: 128 / gcd(128, bits), 32 for 4-bit types, 64 for 6-bit
     * ones; and whole scale blocks for the block-scaled types */
    int bits = simt_dtype_element_bits(dtype);
    if (bits < 1)
        return 1;
    int elements = 128 / gcd(128, bits);
    int block = simt_dtype_scale_block(dtype);
    if (block > 0)
        elements = elements / gcd(elements, block) * block;
    return elements;
}

int simt_gemm_check_alignment(const struct simt_gemm_request *req, struct simt_diag *diag)
{
    if (!simt_gemm_narrow(req->dtype))
        return SIMT_OK;
    int64_t align = simt_gemm_alignment_elements(req->dtype);
    const char *field = req->k % align != 0 ? "k" : req->n % align != 0 ? "n" : NULL;
    if (field == NULL)
        return SIMT_OK;
    return simt_diag_fail(
        diag, SIMT_EUNSAT, field,
        "%s GEMMs need leading dimensions of whole 16-byte pieces%s: k and n multiples of %lld "
        "elements (cuBLASLt's narrow-precision kernels take 16-byte-aligned operands only); "
        "%s = %lld is not",
        simt_dtype_name(req->dtype), simt_dtype_scale_block(req->dtype) > 0 ? " and whole scale blocks" : "",
        (long long)align, field, (long long)(field[0] == 'k' ? req->k : req->n));
}

int simt_gemm_lacks_dtype(const struct simt_gpu_spec *gpu, enum simt_dtype dtype, struct simt_diag *diag)
{
    char has[160] = "";
    size_t used = 0;
    for (int d = 0; d < SIMT_DTYPE_COUNT && used < sizeof has; d++)
        if (gpu->tensor_dense_flops_per_s[d] > 0.0)
            used += (size_t)snprintf(has + used, sizeof has - used, "%s%s", used > 0 ? ", " : "",
                                     simt_dtype_name((enum simt_dtype)d));
    return simt_diag_fail(
        diag, SIMT_EUNSAT, "dtype",
        "%s GEMMs need %s tensor cores, which this GPU does not have; its tensor cores take "
        "%s%s",
        simt_dtype_name(dtype), simt_dtype_name(dtype), used > 0 ? has : "no type",
        dtype == SIMT_DTYPE_FP64 || dtype == SIMT_DTYPE_FP32 ? "" : " (fp32: FMA units)");
}

int simt_gemm_check_sparse(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                           enum simt_dtype dtype, int sparse, struct simt_diag *diag)
{
    if (!sparse)
        return SIMT_OK;
    enum simt_figure_id dense = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + (int)dtype);
    enum simt_figure_id id = (enum simt_figure_id)(SIMT_FIG_TENSOR_SPARSE_FIRST + (int)dtype);
    if (dtype == SIMT_DTYPE_FP32 || dtype == SIMT_DTYPE_FP64 || !(simt_figure_get(figures, dense) > 0.0)) {
        if (dtype == SIMT_DTYPE_FP32 || dtype == SIMT_DTYPE_FP64)
            return simt_diag_fail(diag, SIMT_EUNSAT, "sparse",
                                  "2:4 sparsity runs on tensor cores; %s GEMMs have no sparse path",
                                  simt_dtype_name(dtype));
        return simt_gemm_lacks_dtype(gpu, dtype, diag);
    }
    if (simt_figure_get(figures, id) > 0.0)
        return SIMT_OK;
    char has[160] = "";
    size_t used = 0;
    for (int d = 0; d < SIMT_DTYPE_COUNT && used < sizeof has; d++)
        if (gpu->tensor_sparse_flops_per_s[d] > 0.0)
            used += (size_t)snprintf(has + used, sizeof has - used, "%s%s", used > 0 ? ", " : "",
                                     simt_dtype_name((enum simt_dtype)d));
    return simt_diag_fail(diag, SIMT_EUNSAT, "sparse",
                          "this GPU's record has no 2:4 sparse %s tensor rate (%s); sparse rates: %s",
                          simt_dtype_name(dtype), simt_figure_name(id), used > 0 ? has : "none");
}

void simt_gemm_describe_operands(const struct simt_gemm_request *req, int alignment_elements, char *buf,
                                 size_t size)
{
    const char *name = simt_dtype_name(req->dtype);
    int bits = simt_dtype_element_bits(req->dtype), block = simt_dtype_scale_block(req->dtype);
    int n = snprintf(buf, size, "operands: %s at %d bits an element", name, bits);
    if (block > 0 && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " plus one 8-bit %s scale per %d (%.4g bytes an element)",
                      block == 16 ? "E4M3" : "E8M0", block, simt_dtype_bytes(req->dtype));
    if (simt_gemm_narrow(req->dtype) && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "; k and n multiples of %d elements; C written as %s",
                      alignment_elements, simt_gemm_output_bytes(req->dtype) == 4 ? "int32" : "bf16");
    if (req->sparse && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n,
                 "; A 2:4 structured sparse: half its values plus a 2-bit index per kept value (PTX ISA, "
                 "mma.sp sparse matrix storage), %.4g bytes per element of the dense A",
                 simt_gemm_sparse_a_bytes(req->dtype));
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
    if (simt_dtype_name(req->dtype) == NULL)
        return simt_diag_fail(diag, SIMT_EINVAL, "dtype", "dtype is not a data type");
    if (req->sparse != 0 && req->sparse != 1)
        return simt_diag_fail(diag, SIMT_EINVAL, "sparse", "sparse must be 0 or 1");
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
    case SIMT_GEMM_LAUNCH_IN_CHAIN:
        return "in_chain";
    }
    return NULL;
}

/* Widest load, in elements, that the leading dimensions k and n allow: the
 * largest power of two dividing both, at most 16 bytes. */
static int load_elements(int64_t k, int64_t n, double element_bytes)
{
    int widest = (int)(16.0 / element_bytes);
    int width = 1;
    while (width < widest && k % (2 * width) == 0 && n % (2 * width) == 0)
        width *= 2;
    return width;
}

/* Elements one load slot of the fallback kernels carries: as many as the
 * alignment allows, but no more than 4 bytes of them. A load of 8 bytes
 * takes two slots: the fp16 and bf16 GEMMs whose leading dimension is a
 * multiple of 4 elements but not of 8 (K or N of 700, 1540, 4100) run at
 * about 1.8 times the rate of those with an odd one, not 4 times (the fit
 * half of tests/gpu/results/h200/heldout/gemm.json); tf32 and fp64 loads
 * of one element fill one slot, as the fitted rate says. */
int simt_gemm_slot_elements(int64_t k, int64_t n, double element_bytes)
{
    int width = load_elements(k, n, element_bytes);
    int per_slot = element_bytes < 4.0 ? (int)(4.0 / element_bytes) : 1;
    return width < per_slot ? width : per_slot;
}
