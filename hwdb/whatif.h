/* whatif.h - a what-if's numeric overrides applied to a copy of a GPU
 * record's numbers, one field at a time, by the names of hwdb's field table
 * (hwdb/fields.c), then the relations every record keeps checked over the
 * result. Pure C: no JSON, no I/O; the api walks the request and calls these.
 *
 * Every function changes only the spec it is given, returns 0 or a negative
 * SIMT_E* code, and on failure fills diag (field: the table name at fault,
 * message: what the value must be); the spec may then hold a part of the
 * overrides and should be dropped. */
#ifndef SIMT_WHATIF_H
#define SIMT_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

/* Sets a scalar field (INT, INT64, DOUBLE) to value. SIMT_ENOENT when no
 * field has that name; SIMT_EINVAL when it is out of range, not an integer
 * for an integer field, or the field is not a scalar. */
int simt_whatif_set(struct simt_gpu_spec *spec, const char *name, double value,
                    struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Sets one data type's entry of a per-dtype field (peak rates). */
int simt_whatif_set_dtype(struct simt_gpu_spec *spec, const char *name, enum simt_dtype dtype, double value,
                          struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Sets a carveout list: count (1..SIMT_MAX_CARVEOUTS) ascending byte sizes,
 * each in the field's range. */
int simt_whatif_set_carveouts(struct simt_gpu_spec *spec, const char *name, const int64_t *bytes, int count,
                              struct simt_diag *diag) SIMT_WARN_UNUSED;

/* After the overrides: the relations of simt_hwdb_spec_check. 0, or
 * SIMT_EINVAL with diag->field and diag->message the relation's field and
 * what it should be, *other (may be NULL) its other field, and *culprit the
 * side of the relation to name to the user: the other field when only it
 * was overridden (overridden[0..count) are the names the request set),
 * else diag->field. *other and *culprit point into static storage or diag. */
int simt_whatif_check(const struct simt_gpu_spec *spec, const char *const *overridden, size_t count,
                      struct simt_diag *diag, const char **other, const char **culprit) SIMT_WARN_UNUSED;

/* One measured figure a what-if moved in proportion to the override of its
 * datasheet counterpart: measured (a table name; dtype >= 0 for a per-dtype
 * field), the datasheet field that moved it, and the measured value before
 * and after. */
struct simt_whatif_scaled {
    const char *measured;
    const char *datasheet;
    int dtype; /* enum simt_dtype, or -1 */
    double from, to;
};
#define SIMT_WHATIF_MAX_SCALED 32

/* The figure rule's part of a what-if (the API's "Figures: where every
 * number comes from"), run after the overrides: for every measured figure
 * whose datasheet counterpart the what-if changed (overridden[0..count) are
 * the names it set; record is the database's spec, spec the overridden copy)
 * and that the what-if did not set itself, the measured value moves in
 * proportion, new datasheet / old. The chip-wide compute rates (FP32, FP64,
 * SFU, tensor) move with sm_count and boost_clock_hz too, the measured clock
 * with boost_clock_hz. Fills *marks (which figures the what-if touched, for
 * simt_figure_set_init_overridden) and scaled[0..*scaled_count) (at most
 * SIMT_WHATIF_MAX_SCALED). Never fails. */
void simt_whatif_scale_measured(const struct simt_gpu_spec *record, struct simt_gpu_spec *spec,
                                const char *const *overridden, size_t count,
                                struct simt_figure_overrides *marks, struct simt_whatif_scaled *scaled,
                                size_t *scaled_count);

#endif
