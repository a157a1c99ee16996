/* kernel_issue.c - which of a thread's global loads are in flight together.
 * A kernel computes the addresses of the loads it reads at its thread index
 * (a[i], b[i]) before it uses any of the values, so the compiled code issues
 * them back to back and waits once for all of them; a load whose address
 * comes from loaded data (a gather's table read, a pointer chase) or that
 * reads again what an earlier pass read waits for what came before. Pure. */
#include <math.h>

#include "kernel_internal.h"

/* A load whose lanes' addresses follow from the thread index alone: the
 * stride form, not a repeat of an earlier access (a second pass, which
 * follows the first), not a shared table (read at an index the thread
 * loaded: distinct_addresses), and not declared to wait (`depends_on`). */
static int indexed_by_thread(const struct simt_kernel_access *a)
{
    return a->space == SIMT_SPACE_GLOBAL && a->op == SIMT_OP_LOAD && a->count > 0.0 &&
           !a->pattern.explicit_addresses && a->repeats_of == 0 && !(a->distinct_addresses > 0.0) &&
           a->depends_on == 0;
}

void simt_kernel_issue_groups(const struct simt_kernel_request *req, int *leader, double *in_flight)
{
    int previous = -1; /* the last access with count > 0 */
    for (int i = 0; i < req->access_count; i++) {
        const struct simt_kernel_access *a = &req->accesses[i];
        leader[i] = i;
        in_flight[i] = a->count > 0.0 ? fmin(a->independent, a->count) : 0.0;
        if (!(a->count > 0.0))
            continue;
        if (previous >= 0 && indexed_by_thread(a) && indexed_by_thread(&req->accesses[previous]))
            leader[i] = leader[previous];
        previous = i;
    }
    /* each member sees the whole group's loads in flight */
    for (int i = 0; i < req->access_count; i++)
        if (leader[i] != i)
            in_flight[leader[i]] += in_flight[i];
    for (int i = 0; i < req->access_count; i++)
        in_flight[i] = in_flight[leader[i]];
}
