/* models.h - the transformer presets of the hardware database:
 * <dir>/models/<id>.yaml, each a decoder shape with its source, read as
 * strictly as the GPU files (unknown or duplicate keys, non-integers, a
 * missing field, an id that differs from the file name: an error at its
 * line). Not installed; hwdb/ only (db.c loads them with the GPUs).
 *
 * Ownership: hwdb_models_load allocates the array; hwdb_models_free frees
 * it. */
#ifndef SIMT_HWDB_MODELS_H
#define SIMT_HWDB_MODELS_H

#include <stddef.h>

#include "hwdb.h"

/* Reads every <dir>/models/<id>.yaml, sorted by id, into a new array (*out,
 * *count). No models/ directory is no models (0, NULL). */
int hwdb_models_load(const char *dir, struct simt_hwdb_model **out, size_t *count,
                     struct simt_diag *diag) SIMT_WARN_UNUSED;
void hwdb_models_free(struct simt_hwdb_model *models);

#endif
