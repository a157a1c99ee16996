/* cluster_json.c - thread-block clusters in the occupancy endpoints: reads
 * cluster_size, asks the model, and turns its refusals into the contract's
 * 422s (the GPU whose layout the database lacks is named, with the GPUs
 * that have one: no guessing). */
#include <stdio.h>
#include <string.h>

#include "cluster_json.h"
#include "resolve.h"

int simt_api_cluster_read(struct simt_call *call, json_t *body, struct simt_occupancy_request *req)
{
    memset(req->cluster_dims, 0, sizeof req->cluster_dims);
    json_t *v = json_object_get(body, "cluster_size");
    if (v == NULL)
        return 0;
    int dims[3] = {1, 1, 1};
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 1 || json_integer_value(v) > SIMT_CLUSTER_MAX_DIM)
            return simt_call_fail(call, 400, "invalid_argument", "cluster_size",
                                  "cluster_size must be an integer 1..%d or a list [x, y, z] of them",
                                  SIMT_CLUSTER_MAX_DIM);
        dims[0] = (int)json_integer_value(v);
    } else if (json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= 3) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *x = json_array_get(v, i);
            if (!json_is_integer(x) || json_integer_value(x) < 1 ||
                json_integer_value(x) > SIMT_CLUSTER_MAX_DIM) {
                char item[32];
                snprintf(item, sizeof item, "cluster_size[%d]", (int)i);
                return simt_call_fail(call, 400, "invalid_argument", item, "%s must be an integer 1..%d",
                                      item, SIMT_CLUSTER_MAX_DIM);
            }
            dims[i] = (int)json_integer_value(x);
        }
    } else {
        return simt_call_fail(call, 400, "invalid_argument", "cluster_size",
                              "cluster_size must be an integer 1..%d or a list [x, y, z] of them",
                              SIMT_CLUSTER_MAX_DIM);
    }
    memcpy(req->cluster_dims, dims, sizeof dims);
    return 0;
}

/* "h200-sxm" or "a, b": the database's GPUs that have a cluster layout. */
static void known_layouts(const struct simt_hwdb *db, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *g = simt_hwdb_at(db, i);
        if (g->spec.gpc_sms[0] <= 0)
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "", g->id);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    if (used == 0)
        snprintf(buf, size, "none");
}

int simt_api_cluster_compute(struct simt_call *call, const struct simt_resolved_gpu *gpu,
                             const struct simt_occupancy_request *req,
                             const struct simt_occupancy_result *occ, struct simt_cluster_result *out)
{
    memset(out, 0, sizeof *out);
    if (req->cluster_dims[0] <= 0)
        return 0;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_clusters(&gpu->spec, req, occ, out, &diag);
    if (rc == SIMT_OK)
        return 0;
    if (rc == SIMT_ENOENT && gpu->spec.gpc_sms[0] <= 0) {
        char known[256];
        known_layouts(call->db, known, sizeof known);
        return simt_call_fail(call, 422, "unsatisfiable", "cluster_size",
                              "no GPC layout for %s in the database; known for: %s", gpu->record->id, known);
    }
    if (rc == SIMT_ENOENT)
        return simt_call_fail(call, 422, "unsatisfiable", diag.field, "%s", diag.message);
    return simt_call_fail_diag(call, rc, "", &diag);
}

void simt_api_cluster_fill(json_t *answer, const struct simt_occupancy_request *req,
                           const struct simt_cluster_result *clusters)
{
    if (req->cluster_dims[0] > 0)
        simt_call_set_int(answer, "active_clusters_per_gpu", clusters->active_clusters_per_gpu);
}

void simt_api_cluster_assume(struct simt_call *call, const struct simt_resolved_gpu *gpu,
                             const struct simt_occupancy_request *req)
{
    if (req->cluster_dims[0] <= 0)
        return;
    int groups = 0;
    while (groups < SIMT_MAX_GPCS && gpu->spec.gpc_sms[groups] > 0)
        groups++;
    simt_call_assume(
        call,
        "cluster_size: clusters of %dx%dx%d blocks placed as %s's CUDA runtime places them (hwdb "
        "sm.gpc_sms: %d groups of SMs, at most %d cluster blocks per SM), measured on one card",
        req->cluster_dims[0], req->cluster_dims[1], req->cluster_dims[2], gpu->record->id, groups,
        gpu->spec.cluster_max_blocks_per_sm);
}
