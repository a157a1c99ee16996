/* gpu.c - names and sizes of the data types that have a matrix-unit rate,
 * shared by every model and by the API's parsing. Pure. */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

#include "simt_error.h"

#define DTYPE_NAME(suffix, name) [SIMT_DTYPE_##suffix] = name,
static const char *const dtype_names[SIMT_DTYPE_COUNT] = {SIMT_DTYPE_LIST(DTYPE_NAME)};
#undef DTYPE_NAME

/* Element bits as stored, and elements per 8-bit block scale (OCP
 * Microscaling Formats (MX) Specification v1.0, 2023, as reviewed at
 * fprox.substack.com/p/ocp-mx-scaling-formats: MXFP8, MXFP6, MXFP4 blocks of
 * 32 elements sharing one E8M0 scale; NVIDIA, "Introducing NVFP4 for
 * Efficient and Accurate Low-Precision Inference", Table 1: blocks of 16
 * with an E4M3 scale, plus one fp32 scale per tensor). */
static const int element_bits[SIMT_DTYPE_COUNT] = {64, 32, 32, 16, 16, 8, 8, 4, 6, 4, 8, 6, 4, 4};
static const int scale_blocks[SIMT_DTYPE_COUNT] = {
    [SIMT_DTYPE_MXFP8] = 32, [SIMT_DTYPE_MXFP6] = 32, [SIMT_DTYPE_MXFP4] = 32, [SIMT_DTYPE_NVFP4] = 16};

char *simt_dtype_list(char *buf, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < SIMT_DTYPE_COUNT; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i > 0 ? ", " : "", dtype_names[i]);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

const char *simt_dtype_name(enum simt_dtype dtype)
{
    if ((int)dtype < 0 || dtype >= SIMT_DTYPE_COUNT)
        return NULL;
    return dtype_names[dtype];
}

int simt_dtype_parse(const char *name, enum simt_dtype *out)
{
    for (int i = 0; i < SIMT_DTYPE_COUNT; i++) {
        if (strcmp(name, dtype_names[i]) == 0) {
            *out = (enum simt_dtype)i;
            return SIMT_OK;
        }
    }
    return SIMT_EINVAL;
}

int simt_dtype_element_bits(enum simt_dtype dtype)
{
    return simt_dtype_name(dtype) != NULL ? element_bits[dtype] : 0;
}

int simt_dtype_scale_block(enum simt_dtype dtype)
{
    return simt_dtype_name(dtype) != NULL ? scale_blocks[dtype] : 0;
}

double simt_dtype_bytes(enum simt_dtype dtype)
{
    if (simt_dtype_name(dtype) == NULL)
        return 0.0;
    double bytes = (double)element_bits[dtype] / 8.0;
    return scale_blocks[dtype] > 0 ? bytes + 1.0 / (double)scale_blocks[dtype] : bytes;
}
