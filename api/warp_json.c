/* warp_json.c - strict JSON readers for the special shapes: a warp access
 * (stride or explicit lane addresses, an active-lane mask) and a branch. */
#include "warp_json.h"

#include <stdio.h>
#include <string.h>

#include "read.h"

/* A JSON array of exactly `lanes` elements, or a 400. */
static json_t *lane_array(struct simt_call *call, json_t *obj, const char *path, const char *key, int lanes)
{
    char field[160];
    simt_read_path(field, sizeof field, path, key);
    json_t *array = json_object_get(obj, key);
    if (array == NULL)
        return NULL;
    if (!json_is_array(array) || (int)json_array_size(array) != lanes) {
        simt_call_fail(call, 400, "invalid_argument", field, "%s must be an array of %d values, one per lane",
                       field, lanes);
        return NULL;
    }
    return array;
}

/* active_lanes: `lanes` booleans -> mask; absent -> all lanes. */
static int read_active(struct simt_call *call, json_t *obj, const char *path, int lanes, uint64_t *mask)
{
    *mask = lanes >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (unsigned)lanes) - 1u);
    if (json_object_get(obj, "active_lanes") == NULL)
        return 0;
    json_t *array = lane_array(call, obj, path, "active_lanes", lanes);
    if (array == NULL)
        return SIMT_EINVAL;
    *mask = 0;
    for (int lane = 0; lane < lanes; lane++) {
        json_t *v = json_array_get(array, (size_t)lane);
        if (!json_is_boolean(v)) {
            char field[192];
            snprintf(field, sizeof field, "%s%sactive_lanes[%d]", path, path[0] ? "." : "", lane);
            return simt_call_fail(call, 400, "invalid_argument", field,
                                  "active_lanes holds true or false per lane");
        }
        if (json_is_true(v))
            *mask |= (uint64_t)1 << (unsigned)lane;
    }
    return 0;
}

int simt_api_warp_json_read_access(struct simt_call *call, json_t *obj, const char *path, int lanes,
                                   int element_required, struct simt_warp_access *out)
{
    int element_bytes = 4;
    if (simt_read_int(call, obj, path, "element_bytes", element_required, 1, 16, 4, &element_bytes) != 0)
        return SIMT_EINVAL;
    if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8 &&
        element_bytes != 16) {
        char field[160];
        simt_read_path(field, sizeof field, path, "element_bytes");
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be 1, 2, 4, 8 or 16", field);
    }
    simt_warp_access_init(out, lanes, element_bytes);
    if (read_active(call, obj, path, lanes, &out->active_mask) != 0)
        return SIMT_EINVAL;
    if (json_object_get(obj, "lane_addresses") != NULL) {
        char field[160];
        const char *conflict = json_object_get(obj, "lane_stride_elements") != NULL ? "lane_stride_elements"
                               : json_object_get(obj, "offset_elements") != NULL    ? "offset_elements"
                                                                                    : NULL;
        if (conflict != NULL) {
            simt_read_path(field, sizeof field, path, conflict);
            return simt_call_fail(call, 400, "invalid_argument", field,
                                  "give lane_addresses or lane_stride_elements/offset_elements, not both");
        }
        json_t *array = lane_array(call, obj, path, "lane_addresses", lanes);
        if (array == NULL)
            return SIMT_EINVAL;
        out->explicit_addresses = 1;
        for (int lane = 0; lane < lanes; lane++) {
            json_t *v = json_array_get(array, (size_t)lane);
            char item[192];
            snprintf(item, sizeof item, "%s%slane_addresses[%d]", path, path[0] ? "." : "", lane);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) > SIMT_MAX_ADDRESS_BYTES)
                return simt_call_fail(call, 400, "invalid_argument", item,
                                      "lane addresses are byte offsets, integers 0..2^48");
            out->lane_address_bytes[lane] = (int64_t)json_integer_value(v);
            if (out->lane_address_bytes[lane] % element_bytes != 0)
                return simt_call_fail(call, 400, "invalid_argument", item,
                                      "lane address %lld is not aligned to element_bytes (%d)",
                                      (long long)out->lane_address_bytes[lane], element_bytes);
        }
        return 0;
    }
    if (simt_read_int64(call, obj, path, "lane_stride_elements", 0, -SIMT_MAX_STRIDE_ELEMENTS,
                        SIMT_MAX_STRIDE_ELEMENTS, 1, &out->lane_stride_elements) != 0 ||
        simt_read_int64(call, obj, path, "offset_elements", 0, 0, SIMT_MAX_STRIDE_ELEMENTS, 0,
                        &out->offset_elements) != 0)
        return SIMT_EINVAL;
    return 0;
}

int simt_api_warp_json_read_branch(struct simt_call *call, json_t *obj, const char *path, int lanes,
                                   struct simt_branch *out)
{
    simt_branch_init(out, lanes);
    if (read_active(call, obj, path, lanes, &out->active_mask) != 0)
        return SIMT_EINVAL;
    static const char *const forms[] = {"paths", "lane_paths", "random_paths"};
    int given = -1;
    for (int i = 0; i < 3; i++) {
        if (json_object_get(obj, forms[i]) == NULL)
            continue;
        if (given >= 0) {
            char field[160];
            simt_read_path(field, sizeof field, path, forms[i]);
            return simt_call_fail(call, 400, "invalid_argument", field,
                                  "give one of paths, lane_paths and random_paths");
        }
        given = i;
    }
    if (given < 0) {
        char field[160];
        simt_read_path(field, sizeof field, path, "paths");
        return simt_call_fail(call, 400, "missing_field", field,
                              "give one of paths, lane_paths and random_paths");
    }
    if (given == 0 || given == 2) {
        out->form = given == 0 ? SIMT_BRANCH_PATHS : SIMT_BRANCH_RANDOM;
        return simt_read_int(call, obj, path, forms[given], 1, 1, SIMT_MAX_PATHS, 1, &out->paths);
    }
    out->form = SIMT_BRANCH_LANE_PATHS;
    json_t *array = lane_array(call, obj, path, "lane_paths", lanes);
    if (array == NULL)
        return SIMT_EINVAL;
    for (int lane = 0; lane < lanes; lane++) {
        json_t *v = json_array_get(array, (size_t)lane);
        if (!json_is_integer(v)) {
            char field[192];
            snprintf(field, sizeof field, "%s%slane_paths[%d]", path, path[0] ? "." : "", lane);
            return simt_call_fail(call, 400, "invalid_argument", field, "a lane's path is an integer id");
        }
        out->lane_paths[lane] = (int64_t)json_integer_value(v);
    }
    return 0;
}

int simt_api_warp_json_lanes(const struct simt_gpu_spec *gpu)
{
    return gpu->warp_size > 0 && gpu->warp_size <= SIMT_MAX_LANES ? gpu->warp_size : 32;
}
