/* banks.h - shared-memory bank conflicts of one warp-wide access: how many
 * ways, how many wavefronts (shared-memory cycles), whether lanes shared a
 * word (broadcast/multicast), and the smallest padding that removes the
 * conflicts of a strided (column) access. Pure: no allocation, no globals.
 *
 * The model (NVIDIA compute capability 5.0 and later; AMD LDS alike):
 *   - shared memory is `shared_banks` banks (32) of `shared_bank_bytes` (4);
 *     4-byte word w lives in bank w mod banks;
 *   - one wavefront moves at most banks * bank_bytes = 128 bytes, so a warp
 *     whose lanes ask for more is split into phases of consecutive lanes:
 *     all lanes for elements of up to 4 bytes, half-warps for 8 bytes,
 *     quarter-warps for 16 bytes (the return path carries 128 bytes, one
 *     register per lane, per cycle; NVIDIA's forum answer on LDS.128);
 *   - within a phase, lanes that read the same 4-byte word are served at
 *     once (broadcast, multicast); distinct words in one bank are served one
 *     per cycle, so a phase costs the largest number of distinct words any
 *     bank holds, and the access costs the sum over its phases;
 *   - `ways` is the largest such count over the phases (1 = conflict-free).
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
    int ways;              /* worst distinct words in one bank within a phase; 0 when no lane is active */
    int wavefronts;        /* cycles the access takes: sum of every phase's ways */
    int min_wavefronts;    /* cycles with no conflict: phases with an active lane */
    int phases;            /* lane groups the warp is split into */
    int lanes_per_phase;
    double efficiency;     /* min_wavefronts / wavefronts; 1 when no lane is active */
    int broadcast;         /* 1 when some word served two or more lanes of a phase */
    /* Stride form only: the smallest p >= 0 such that lane stride
     * (stride + p) elements is conflict-free (wavefronts == min_wavefronts);
     * -1 for explicit addresses or when none up to SIMT_BANKS_MAX_PADDING. */
    int64_t suggested_padding_elements;
    unsigned assumed;      /* SIMT_BANKS_ASSUMED_* */
};

/* Returns SIMT_OK and fills *out; SIMT_EINVAL for an invalid access
 * (diag->field as simt_warp_access_check names it). *out is untouched on
 * failure. diag may be NULL. */
int simt_banks_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                       struct simt_banks_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
