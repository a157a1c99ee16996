/* ptxas.h - reads the resource lines that build tools print about CUDA
 * kernels: `nvcc -Xptxas -v` ("Compiling entry function 'k' for 'sm_90'",
 * "Used 32 registers, used 1 barriers, 1024 bytes smem, ...", "N bytes stack
 * frame, N bytes spill stores, N bytes spill loads") and `cuobjdump
 * --dump-resource-usage` ("arch = sm_90", "Function k:", "REG:32 STACK:0
 * SHARED:1024 LOCAL:0 CONSTANT[0]:360 ..."). Pure text in, structs out.
 *
 * Ownership: the report's kernel array is malloc'd; simt_ptxas_report_free
 * releases it. Parsing appends to a report, so several inputs can be read
 * into one; a kernel seen again for the same arch replaces the earlier one. */
#ifndef SIMT_CLI_PTXAS_H
#define SIMT_CLI_PTXAS_H

#include <stddef.h>
#include <stdint.h>

#include "simt_error.h"

struct simt_ptxas_kernel {
    char name[512];       /* mangled, as printed */
    char arch[16];        /* "sm_90"; "" when the input does not say */
    int registers;        /* per thread */
    int64_t shared_bytes; /* static shared memory per block */
    int64_t stack_bytes;  /* stack frame per thread */
    int64_t spill_store_bytes;
    int64_t spill_load_bytes;
    int64_t local_bytes;    /* cuobjdump LOCAL, old ptxas lmem */
    int64_t constant_bytes; /* cmem[0] / CONSTANT[0] */
    int barriers;           /* named barriers used; -1 when not reported */
    int source;             /* 0: ptxas -v, 1: cuobjdump */
};

struct simt_ptxas_report {
    struct simt_ptxas_kernel *kernels;
    size_t count;
    size_t capacity;
};

/* Parses text (len bytes, need not be NUL-terminated) into report. Lines
 * that are not resource lines are skipped. Returns 0, or SIMT_ENOMEM. An
 * entry function without a "Used" line is dropped. */
int simt_ptxas_parse(const char *text, size_t len, struct simt_ptxas_report *report) SIMT_WARN_UNUSED;

/* Frees the kernels and zeroes the report. */
void simt_ptxas_report_free(struct simt_ptxas_report *report);

#endif
