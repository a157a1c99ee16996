/* gpu.c - names of the data types that have a matrix-unit rate, shared by
 * every model and by the API's parsing. Pure. */
#include "gpu.h"

#include <string.h>

#include "simt_error.h"

static const char *const dtype_names[SIMT_DTYPE_COUNT] = {
    "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4",
};

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
