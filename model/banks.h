/* banks.h - shared-memory bank conflicts of one warp-wide access: how many
 * ways, how many wavefronts (shared-memory cycles), whether lanes shared a
 * word (broadcast/multicast), and the smallest padding that removes the
 * conflicts of a strided (column) access. Pure: no allocation, no globals.
 *
 * The model (NVIDIA compute capability 5.0 and later; AMD LDS alike):
 *   - shared memory is `shared_banks` banks (32) of `shared_bank_bytes` (4);
 *     4-byte word w lives in bank w mod banks; each bank delivers one word
 *     per cycle, and lanes that read the same word are served at once
 *     (broadcast, multicast);
 *   - so the warp's access takes at least as many cycles (wavefronts) as the
 *     largest number of distinct words one bank holds, and at least the
 *     distinct bytes over the banks' width (banks * bank_bytes = 128 bytes a
 *     cycle); it takes the larger of the two. For 8- and 16-byte elements
 *     this is what the usual half-warp / quarter-warp rule gives, except
 *     that lanes sharing an element cost nothing extra (an 8-byte broadcast
 *     takes one wavefront, as measured on an H200);
 *   - min_wavefronts is the second bound alone (the conflict-free cost of
 *     the distinct data), and `ways` = wavefronts / min_wavefronts, rounded
 *     up: how many times slower than conflict-free the access runs (for
 *     elements of 4 bytes or less, the worst number of distinct words in one
 *     bank).
 * Writes follow the same rule (two lanes writing one word: one wins). */
#ifndef SIMT_BANKS_H
#define SIMT_BANKS_H

#include <stdint.h>

#include "access.h"
#include "gpu.h"
#include "simt_error.h"

#define SIMT_BANKS_ASSUMED_BANKS (1u << 0) /* shared_banks / shared_bank_bytes absent: 32 x 4 bytes */

#define SIMT_BANKS_MAX_PADDING 256 /* elements searched for a padding */

struct simt_banks_result {
    int active_lanes;
    int ways;             /* wavefronts / min_wavefronts, rounded up; 0 when no lane is active */
    int wavefronts;       /* cycles the access takes */
    int min_wavefronts;   /* cycles the distinct data needs with no conflict */
    int worst_bank_words; /* largest number of distinct words in one bank */
    int64_t distinct_bytes;
    double efficiency; /* min_wavefronts / wavefronts; 1 when no lane is active */
    int broadcast;     /* 1 when some word served two or more lanes of a phase */
    /* Stride form only: the smallest p >= 0 such that lane stride
     * (stride + p) elements is conflict-free (wavefronts == min_wavefronts);
     * -1 for explicit addresses or when none up to SIMT_BANKS_MAX_PADDING. */
    int64_t suggested_padding_elements;
    unsigned assumed; /* SIMT_BANKS_ASSUMED_* */
};

/* Returns SIMT_OK and fills *out; SIMT_EINVAL for an invalid access
 * (diag->field as simt_warp_access_check names it). *out is untouched on
 * failure. diag may be NULL. */
int simt_banks_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                       struct simt_banks_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
