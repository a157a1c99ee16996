/* hwdb.h - the hardware database: one YAML file per GPU over one file per
 * architecture, loaded strictly into immutable plain structs.
 *
 * Ownership: simt_hwdb_load_dir returns a database with one reference, owned
 * by the caller. simt_hwdb_ref adds a reference; simt_hwdb_unref drops one and
 * frees the database with the last. Both are thread-safe (atomic count), so a
 * server can swap databases while requests still read the old one. Pointers
 * returned by simt_hwdb_at/find live as long as the database. On failure a
 * loader returns a negative SIMT_E* code, sets *out to NULL, and fills diag
 * with file:line:column, the key and what was expected; nothing is leaked. */
#ifndef SIMT_HWDB_H
#define SIMT_HWDB_H

#include <stddef.h>

#include "gpu.h"
#include "simt_error.h"
#include "transformer.h"

#define SIMT_HWDB_MAX_SOURCES 32

/* Where one group of figures came from ("limits" -> "CUDA C++ Programming
 * Guide 12.x, Table 21 ..."). */
struct simt_hwdb_source {
    char group[48];
    char text[1024];
};

struct simt_hwdb_gpu {
    char id[64];                 /* "h200-sxm" */
    char name[128];              /* "NVIDIA H200 SXM 141GB" */
    char vendor[16];             /* "nvidia" | "amd" */
    char architecture[32];       /* "hopper" */
    char arch_id[32];            /* architecture file id: "sm_90", "cdna3" */
    char compute_capability[16]; /* "9.0"; AMD: "gfx942" */
    char form_factor[32];        /* "sxm", "pcie", "oam" ... */
    struct simt_gpu_spec spec;
    int source_count;
    struct simt_hwdb_source sources[SIMT_HWDB_MAX_SOURCES];
    /* the measured: section's provenance; has_measured 0 when absent */
    int has_measured;
    char measured_method[2048];
    char measured_date[32];
    char measured_device[128];
    char measured_driver[64];
};

struct simt_hwdb;

/* A transformer preset (models/<id>.yaml): its decoder shape and where the
 * shape comes from (the model's published configuration). */
struct simt_hwdb_model {
    char id[64];      /* "llama3-8b" */
    char name[128];   /* "Meta Llama 3 8B" */
    char source[768]; /* URL and the fields read there */
    struct simt_tfm_shape shape;
};

/* The presets, sorted by id; pointers live as long as the database. */
size_t simt_hwdb_model_count(const struct simt_hwdb *db);
const struct simt_hwdb_model *simt_hwdb_model_at(const struct simt_hwdb *db, size_t i);
const struct simt_hwdb_model *simt_hwdb_model_find(const struct simt_hwdb *db, const char *id);

int simt_hwdb_load_dir(const char *dir, struct simt_hwdb **out, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* The database directory a program finds by itself, for simtd and simt
 * alike: $SIMT_HWDB when set; else <the running executable's folder>/from_bin
 * when that is a directory (an installed or relocated prefix); else
 * source_dir when the executable lies under build_dir (a binary in its build
 * tree answers from the tree it was built from); else NULL, and the caller
 * falls back to its configure-time install path. Empty arguments are
 * skipped. The relocated answer lives in a static buffer: call it at start-up,
 * from one thread. */
const char *simt_hwdb_default_dir(const char *from_bin, const char *build_dir, const char *source_dir);
void simt_hwdb_ref(struct simt_hwdb *db);
void simt_hwdb_unref(struct simt_hwdb *db); /* NULL is a no-op */

size_t simt_hwdb_count(const struct simt_hwdb *db);
/* i-th GPU in id order; NULL when i >= count */
const struct simt_hwdb_gpu *simt_hwdb_at(const struct simt_hwdb *db, size_t i);
/* NULL when no GPU has that id */
const struct simt_hwdb_gpu *simt_hwdb_find(const struct simt_hwdb *db, const char *id);
/* the directory it was loaded from */
const char *simt_hwdb_dir(const struct simt_hwdb *db);

/* ---- the field table: every numeric field of struct simt_gpu_spec, by the
 * name used in YAML, in GET /v1/gpus/{id} and in what-if overrides. One table
 * drives the loader, the JSON output and the overrides. ---- */

enum simt_field_type {
    SIMT_FIELD_INT,       /* int */
    SIMT_FIELD_INT64,     /* int64_t */
    SIMT_FIELD_DOUBLE,    /* double */
    SIMT_FIELD_DTYPES,    /* double[SIMT_DTYPE_COUNT], keyed by dtype name */
    SIMT_FIELD_CARVEOUTS, /* int64_t[SIMT_MAX_CARVEOUTS] + shared_carveout_count */
    SIMT_FIELD_INT_LIST   /* int[SIMT_HWDB_MAX_LIST], positive entries, 0 after the last (sm.gpc_sms) */
};

#define SIMT_HWDB_MAX_LIST SIMT_MAX_GPCS

struct simt_hwdb_field {
    const char *name;  /* unique: "dram_bandwidth_bytes_per_s", "measured_dram_bandwidth_bytes_per_s" */
    const char *group; /* YAML section / JSON object: "limits", "sm", "clocks", "memory", ..., "measured" */
    const char
        *key;      /* key inside its group: equals name, except in "measured" and "achievable" (no prefix) */
    size_t offset; /* into struct simt_gpu_spec */
    enum simt_field_type type;
    double min; /* inclusive range a value must lie in */
    double max;
    unsigned required; /* bit 0: required for NVIDIA, bit 1: for AMD */
};

/* The whole table; *count receives its length. Static storage. */
const struct simt_hwdb_field *simt_hwdb_fields(size_t *count);
/* NULL when no field has that name */
const struct simt_hwdb_field *simt_hwdb_field_find(const char *name);
/* Scalar fields only (INT, INT64, DOUBLE). */
double simt_hwdb_field_get(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field);
/* Sets a scalar field; SIMT_EINVAL (diag says why) when the value is out of
 * range or not an integer for an integer field. spec unchanged on failure. */
int simt_hwdb_field_set(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field, double value,
                        struct simt_diag *diag) SIMT_WARN_UNUSED;

/* ---- additions by the hwdb loader's author (additive) ---- */

/* Writes what a value of the field must be into buf: "an integer in 1..4096",
 * "a number in 1e9..1e14". Always NUL-terminates when size > 0. */
void simt_hwdb_field_describe(const struct simt_hwdb_field *field, char *buf, size_t size);
/* Checks a value against the field's range (and integrality for integer
 * fields) without storing it; SIMT_EINVAL with diag as simt_hwdb_field_set. */
int simt_hwdb_field_check(const struct simt_hwdb_field *field, double value,
                          struct simt_diag *diag) SIMT_WARN_UNUSED;
/* SIMT_FIELD_DTYPES fields: one data type's value (0 for another field type). */
double simt_hwdb_field_get_dtype(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                                 enum simt_dtype dtype);
/* Sets one data type's value; SIMT_EINVAL (diag says why, field
 * "tensor_dense_flops_per_s.fp16") when out of range. spec unchanged on failure. */
int simt_hwdb_field_set_dtype(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                              enum simt_dtype dtype, double value, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* SIMT_FIELD_CARVEOUTS: sets the list (1..SIMT_MAX_CARVEOUTS sizes, each in
 * range, strictly ascending) and shared_carveout_count. spec unchanged on failure. */
int simt_hwdb_field_set_carveouts(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                                  const int64_t *bytes, int count, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* ---- integer lists (thread-block cluster layout) ---- */

/* SIMT_FIELD_INT_LIST: sets the list (1..SIMT_HWDB_MAX_LIST integers, each
 * in the field's range) and clears the entries after it. SIMT_EINVAL, diag
 * naming "<field>[i]" at fault; spec unchanged on failure. */
int simt_hwdb_field_set_list(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                             const int *values, int count, struct simt_diag *diag) SIMT_WARN_UNUSED;
/* SIMT_FIELD_INT_LIST: the entries given (those before the first 0); 0 for
 * another field type or an absent list. *values (when not NULL) points into spec. */
int simt_hwdb_field_get_list(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                             const int **values);

/* The relations between fields that every GPU record keeps (threads per SM
 * = warps x warp size, a line holds whole sectors, the largest carveout is
 * the shared memory per SM, ...): the loader checks them after merging, and
 * the API after a what-if's overrides. 0, or SIMT_EINVAL with diag->field
 * the field at fault (a table name), diag->message what it should be, and
 * *other (when not NULL) the name of the other field of the relation. */
int simt_hwdb_spec_check(const struct simt_gpu_spec *spec, struct simt_diag *diag,
                         const char **other) SIMT_WARN_UNUSED;
/* Completeness beyond the required fields: a tensor fraction
 * (achievable.tensor.<dtype>) for every dtype with a dense or a 2:4 sparse
 * tensor rate.
 * SIMT_OK, or SIMT_EINVAL with diag naming achievable_tensor. */
int simt_hwdb_spec_complete(const struct simt_gpu_spec *spec, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
