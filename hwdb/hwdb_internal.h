/* hwdb_internal.h - what the loader's files share: the groups of a YAML
 * file, its text slots, the layer (what one file says before an arch and a
 * GPU file are merged), the diagnostic formatter and small string helpers,
 * and the steps yaml_reader.c and merge.c offer db.c. Not installed; only
 * hwdb/ includes it.
 *
 * Conventions: functions that can fail return 0 or a negative SIMT_E* code
 * and fill diag through hwdb_report (1-based file:line:column, the key path,
 * what was expected); on failure nothing is leaked and *out is NULL. */
#ifndef SIMT_HWDB_INTERNAL_H
#define SIMT_HWDB_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "hwdb.h"

#define MAX_FIELDS 160
#define MAX_ID_LEN 63

/* ---- groups: the top-level sections of a file */

enum group {
    G_IDENTITY,
    G_LIMITS,
    G_AMD,
    G_SM,
    G_CLOCKS,
    G_MEMORY,
    G_THROUGHPUT,
    G_LATENCY,
    G_INTERCONNECT,
    G_MEASURED,
    G_ACHIEVABLE,
    G_COUNT
};

/* "identity", "limits", ... indexed by enum group */
extern const char *const hwdb_group_names[G_COUNT];
/* the enum group of a section name; -1 when none */
int hwdb_group_find(const char *name);

/* ---- text slots: the string values a file may give */

enum text_slot {
    T_ID,
    T_NAME,
    T_VENDOR,
    T_ARCHITECTURE,
    T_COMPUTE_CAPABILITY,
    T_FORM_FACTOR,
    T_METHOD,
    T_DATE,
    T_DEVICE,
    T_DRIVER,
    T_COUNT
};

#define IN_ARCH 1
#define IN_GPU 2

struct hwdb_text_slot {
    int group;
    const char *key;
    size_t max;  /* characters, without the NUL */
    int allowed; /* IN_ARCH | IN_GPU */
};

/* indexed by enum text_slot */
extern const struct hwdb_text_slot hwdb_text_slots[T_COUNT];

#define SOURCE_MAX (sizeof(((struct simt_hwdb_source *)0)->text) - 1)
#define TEXT_BUF 2048

/* ---- layers */

struct pos {
    int line; /* 1-based; 0 = unknown */
    int column;
};

/* What one file says, before arch and GPU are merged. */
struct layer {
    char *path; /* as opened */
    char *rel;  /* "gpus/h200-sxm.yaml": what messages show */
    char *name; /* the id the file name gives: "h200-sxm", "sm_90" */
    int is_gpu;
    struct pos top;
    char arch[MAX_ID_LEN + 1];
    int has_arch;
    struct pos arch_at;
    struct simt_gpu_spec spec;
    unsigned present[MAX_FIELDS]; /* bit 0: scalar or list; DTYPES: bit per dtype */
    struct pos field_at[MAX_FIELDS];
    int has_group[G_COUNT];
    struct pos group_at[G_COUNT];
    char text[T_COUNT][TEXT_BUF];
    int has_text[T_COUNT];
    struct pos text_at[T_COUNT];
    char source[G_COUNT][SOURCE_MAX + 1];
    int has_source[G_COUNT];
    struct pos source_at[G_COUNT];
};

/* ---- diagnostics and strings (layer.c) */

/* Fills diag (when not NULL) with path, at, field and the message
 * "<rel>:<line>:<column>: <field>: <what>", and returns rc. */
int hwdb_report(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                const char *field, const char *fmt, ...)
    __attribute__((format(printf, 7, 8))) SIMT_WARN_UNUSED;
/* the same with a va_list */
int hwdb_report_v(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                  const char *field, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0))) SIMT_WARN_UNUSED;
/* bounded formatting: truncates silently (messages, key paths) */
void hwdb_bprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* copies src into dst, truncated to size - 1 characters; NUL-terminated when size > 0 */
void hwdb_copy_text(char *dst, size_t size, const char *src);
/* malloc'd copies, owned by the caller; NULL when out of memory */
char *hwdb_dup_string(const char *s);
char *hwdb_join_path(const char *a, const char *b);
/* ids and arch ids: lowercase letters, digits, '-', '_', '.', starting with a letter or digit */
int hwdb_valid_id(const char *s);

/* ---- the steps of loading */

/* yaml_reader.c: reads <dir>/<sub>/<file_name> ("gpus", "h200-sxm.yaml")
 * strictly into a new layer owned by the caller (free with hwdb_layer_free). */
int hwdb_layer_load(const char *dir, const char *sub, const char *file_name, int is_gpu, struct layer **out,
                    struct simt_diag *diag) SIMT_WARN_UNUSED;
void hwdb_layer_free(struct layer *l); /* NULL is a no-op */

/* merge.c: the GPU record that an architecture layer and a GPU layer make
 * together, cross-checked; SIMT_EINVAL with diag at the line at fault. */
int hwdb_merge(const struct layer *arch, const struct layer *gpu, struct simt_hwdb_gpu *out,
               struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
