/* whatif.c - applies a what-if's overrides to a GPU record's numbers through
 * hwdb's field table and checks the relations afterwards. Pure: no I/O, no
 * allocation, no JSON. */
#include "whatif.h"

#include <string.h>

#include "hwdb.h"

/* The table's field, or NULL after filling diag (SIMT_ENOENT). */
static const struct simt_hwdb_field *find(const char *name, struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = simt_hwdb_field_find(name);
    if (field == NULL)
        simt_diag_fail(diag, SIMT_ENOENT, name, "'%.80s' is not a numeric field of a GPU record", name);
    return field;
}

int simt_whatif_set(struct simt_gpu_spec *spec, const char *name, double value, struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set(spec, field, value, diag);
}

int simt_whatif_set_dtype(struct simt_gpu_spec *spec, const char *name, enum simt_dtype dtype, double value,
                          struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set_dtype(spec, field, dtype, value, diag);
}

int simt_whatif_set_carveouts(struct simt_gpu_spec *spec, const char *name, const int64_t *bytes, int count,
                              struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set_carveouts(spec, field, bytes, count, diag);
}

static int was_overridden(const char *name, const char *const *overridden, size_t count)
{
    for (size_t i = 0; name != NULL && i < count; i++)
        if (strcmp(overridden[i], name) == 0)
            return 1;
    return 0;
}

int simt_whatif_check(const struct simt_gpu_spec *spec, const char *const *overridden, size_t count,
                      struct simt_diag *diag, const char **other, const char **culprit)
{
    const char *other_field = NULL;
    int rc = simt_hwdb_spec_check(spec, diag, &other_field);
    if (other != NULL)
        *other = other_field;
    if (rc != SIMT_OK) {
        /* name the side of the relation the request changed */
        *culprit =
            !was_overridden(diag->field, overridden, count) && was_overridden(other_field, overridden, count)
                ? other_field
                : diag->field;
    }
    return rc;
}
