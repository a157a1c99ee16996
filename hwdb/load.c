/* load.c - the strict loader of the hardware database: <dir>/arch/<arch>.yaml
 * files hold what an architecture fixes, <dir>/gpus/<id>.yaml files one GPU
 * each (`arch:` names its architecture; any arch value may be overridden).
 * Every file is parsed whole with libyaml; an unknown, duplicate or missing
 * key, a wrong type, an out-of-range or non-integer number is refused with
 * file:line:column (1-based), the key path and what was expected. The result
 * is an immutable, reference-counted database with GPUs sorted by id; a
 * failure leaks nothing and returns no database. */
#define _POSIX_C_SOURCE 200809L

#include "hwdb.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_FIELDS 160
#define MAX_FILE_BYTES (1024 * 1024)
#define MAX_ID_LEN 63

/* ---------------------------------------------------------------- groups */

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

static const char *const group_names[G_COUNT] = {
    "identity",   "limits",  "amd",          "sm",       "clocks",     "memory",
    "throughput", "latency", "interconnect", "measured", "achievable",
};

/* groups of figures: a file that has one must say where its figures came from */
static int group_needs_source(int g)
{
    return g != G_IDENTITY && g != G_MEASURED;
}

static int group_find(const char *name)
{
    for (int g = 0; g < G_COUNT; g++) {
        if (strcmp(group_names[g], name) == 0)
            return g;
    }
    return -1;
}

/* ---------------------------------------------------------------- strings */

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

static const struct {
    int group;
    const char *key;
    size_t max;  /* characters, without the NUL */
    int allowed; /* IN_ARCH | IN_GPU */
} text_slots[T_COUNT] = {
    {G_IDENTITY, "id", sizeof(((struct simt_hwdb_gpu *)0)->id) - 1, IN_GPU},
    {G_IDENTITY, "name", sizeof(((struct simt_hwdb_gpu *)0)->name) - 1, IN_GPU},
    {G_IDENTITY, "vendor", sizeof(((struct simt_hwdb_gpu *)0)->vendor) - 1, IN_ARCH | IN_GPU},
    {G_IDENTITY, "architecture", sizeof(((struct simt_hwdb_gpu *)0)->architecture) - 1, IN_ARCH | IN_GPU},
    {G_IDENTITY, "compute_capability", sizeof(((struct simt_hwdb_gpu *)0)->compute_capability) - 1,
     IN_ARCH | IN_GPU},
    {G_IDENTITY, "form_factor", sizeof(((struct simt_hwdb_gpu *)0)->form_factor) - 1, IN_GPU},
    {G_MEASURED, "method", sizeof(((struct simt_hwdb_gpu *)0)->measured_method) - 1, IN_GPU},
    {G_MEASURED, "date", sizeof(((struct simt_hwdb_gpu *)0)->measured_date) - 1, IN_GPU},
    {G_MEASURED, "device", sizeof(((struct simt_hwdb_gpu *)0)->measured_device) - 1, IN_GPU},
    {G_MEASURED, "driver", sizeof(((struct simt_hwdb_gpu *)0)->measured_driver) - 1, IN_GPU},
};

#define SOURCE_MAX (sizeof(((struct simt_hwdb_source *)0)->text) - 1)
#define TEXT_BUF 2048
/* every text slot's limit must fit the layer's buffer */
_Static_assert(sizeof(((struct simt_hwdb_gpu *)0)->measured_method) <= TEXT_BUF, "TEXT_BUF too small");
_Static_assert(sizeof(((struct simt_hwdb_gpu *)0)->name) <= TEXT_BUF, "TEXT_BUF too small");

/* ---------------------------------------------------------------- layers */

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

struct simt_hwdb {
    atomic_int refs;
    char *dir;
    size_t count;
    struct simt_hwdb_gpu *gpus;
};

/* ---------------------------------------------------------------- diag */

static void bprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void copy_text(char *dst, size_t size, const char *src);

static int report(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                  const char *field, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int report(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                  const char *field, const char *fmt, ...)
{
    if (!diag)
        return rc;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    memset(diag, 0, sizeof *diag);
    copy_text(diag->file, sizeof diag->file, path ? path : "");
    diag->line = at.line;
    diag->column = at.column;
    copy_text(diag->field, sizeof diag->field, field ? field : "");
    char where[300];
    if (at.line > 0)
        bprintf(where, sizeof where, "%s:%d:%d: ", rel ? rel : "", at.line, at.column);
    else
        bprintf(where, sizeof where, "%s: ", rel ? rel : "");
    if (field && field[0])
        bprintf(diag->message, sizeof diag->message, "%s%s: %s", where, field, what);
    else
        bprintf(diag->message, sizeof diag->message, "%s%s", where, what);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

/* bounded formatting: truncates silently (messages, key paths) */
static void bprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    (void)n;
}

static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static char *join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p)
        return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

/* ids and arch ids: lowercase letters, digits, '-', '_', '.', starting with a letter or digit */
static int valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_ID_LEN || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(islower(c) || isdigit(c) || c == '-' || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = up;
        }
    }
    return row[lb];
}

static struct pos mark_pos(yaml_mark_t mark)
{
    struct pos p = {(int)mark.line + 1, (int)mark.column + 1};
    return p;
}

/* ---------------------------------------------------------------- parsing */

struct parse {
    struct layer *layer;
    yaml_document_t *doc;
    unsigned char *seen; /* per node: visited (an alias would visit twice) */
    size_t node_count;
    struct simt_diag *diag;
    const struct simt_hwdb_field *fields;
    size_t field_count;
};

static int fail_at(struct parse *p, struct pos at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(struct parse *p, struct pos at, const char *field, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return report(p->diag, SIMT_EPARSE, p->layer->path, p->layer->rel, at, field, "%s", what);
}

/* Fetches a node, refusing a second visit (a YAML alias repeats a node);
 * `use` is where the document refers to it (the key of a value), reported
 * for an alias, or {0,0} to report the node's own position. */
static int node_get(struct parse *p, int id, yaml_node_t **out, const char *field, struct pos use)
{
    yaml_node_t *node = yaml_document_get_node(p->doc, id);
    if (!node)
        return report(p->diag, SIMT_EPARSE, p->layer->path, p->layer->rel, p->layer->top, field,
                      "internal: missing YAML node");
    size_t index = (size_t)(id - 1);
    if (index < p->node_count) {
        if (p->seen[index]) {
            struct pos anchor = mark_pos(node->start_mark);
            return fail_at(p, use.line > 0 ? use : anchor, field,
                           "YAML aliases are not allowed (this repeats the value at line %d)", anchor.line);
        }
        p->seen[index] = 1;
    }
    *out = node;
    return SIMT_OK;
}

static const char *node_kind(const yaml_node_t *node)
{
    switch (node->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_NO_NODE:
        break;
    }
    return "nothing";
}

/* Quotes a scalar for a message, shortened. */
static void quote_scalar(const yaml_node_t *node, char *buf, size_t size)
{
    size_t n = node->data.scalar.length;
    const char *s = (const char *)node->data.scalar.value;
    size_t o = 0;
    if (size < 8) {
        buf[0] = '\0';
        return;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < n && o + 5 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = (c >= 0x20 && c != 0x7f && c != '"') ? (char)c : '?';
    }
    if (o + 5 >= size && n > 0) {
        buf[o++] = '.';
        buf[o++] = '.';
        buf[o++] = '.';
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

/* Describes what a value node is, for "got ..." */
static void describe_got(const yaml_node_t *node, char *buf, size_t size)
{
    if (node->type != YAML_SCALAR_NODE) {
        copy_text(buf, size, node_kind(node));
        return;
    }
    if (node->data.scalar.length == 0 && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        bprintf(buf, size, "nothing");
        return;
    }
    char q[80];
    quote_scalar(node, q, sizeof q);
    if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        copy_text(buf, size, q);
    else
        bprintf(buf, size, "%s (a quoted string)", q);
}

/* The number grammar accepted: [+-]digits[.digits][(e|E)[+-]digits], or
 * [+-].digits[...]; no hex, no inf/nan, no underscores. */
static int number_syntax(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t exp_digits = 0;
        while (i < n && isdigit((unsigned char)s[i])) {
            i++;
            exp_digits++;
        }
        if (exp_digits == 0)
            return 0;
    }
    return i == n;
}

/* strtod in the C locale's notation whatever the process locale is. */
static int parse_double(const char *s, size_t n, double *out)
{
    char buf[96];
    if (n == 0 || n >= sizeof buf || !number_syntax(s, n))
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const struct lconv *lc = localeconv();
    if (lc && lc->decimal_point && lc->decimal_point[0] && strcmp(lc->decimal_point, ".") != 0 &&
        strlen(lc->decimal_point) == 1) {
        char *dot = strchr(buf, '.');
        if (dot)
            *dot = lc->decimal_point[0];
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int is_integer_type(enum simt_field_type type)
{
    return type == SIMT_FIELD_INT || type == SIMT_FIELD_INT64 || type == SIMT_FIELD_CARVEOUTS;
}

/* Parses a number node for a field; path is the key path for messages. */
static int read_number(struct parse *p, const struct simt_hwdb_field *field, const yaml_node_t *node,
                       const char *path, double *out)
{
    char what[96], got[128];
    simt_hwdb_field_describe(field, what, sizeof what);
    double v = 0.0;
    int ok = node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
             parse_double((const char *)node->data.scalar.value, node->data.scalar.length, &v);
    if (ok) {
        ok = v >= field->min && v <= field->max;
        if (ok && is_integer_type(field->type))
            ok = floor(v) >= v && floor(v) <= v;
    }
    if (!ok) {
        describe_got(node, got, sizeof got);
        return fail_at(p, mark_pos(node->start_mark), path, "expected %s, got %s", what, got);
    }
    *out = v;
    return SIMT_OK;
}

/* A string value: a non-empty scalar (plain or quoted) without control characters. */
static int read_text(struct parse *p, const yaml_node_t *node, const char *path, size_t max, char *out)
{
    char got[128];
    if (node->type != YAML_SCALAR_NODE) {
        describe_got(node, got, sizeof got);
        return fail_at(p, mark_pos(node->start_mark), path, "expected a string, got %s", got);
    }
    size_t n = node->data.scalar.length;
    const char *s = (const char *)node->data.scalar.value;
    if (n == 0)
        return fail_at(p, mark_pos(node->start_mark), path, "expected a non-empty string");
    if (n > max)
        return fail_at(p, mark_pos(node->start_mark), path, "expected at most %zu characters, got %zu", max,
                       n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 && c != '\n' && c != '\t')
            return fail_at(p, mark_pos(node->start_mark), path, "control character in string");
    }
    memcpy(out, s, n);
    out[n] = '\0';
    return SIMT_OK;
}

/* Every key of a mapping is a plain or quoted scalar and appears once.
 * Calls back with each (key, value) pair. */
typedef int (*pair_fn)(struct parse *p, void *ctx, const yaml_node_t *key, const char *key_text,
                       int value_id);

static int each_pair(struct parse *p, const yaml_node_t *map, const char *path, void *ctx, pair_fn fn)
{
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *key;
        int rc = node_get(p, pair->key, &key, path, (struct pos){0, 0});
        if (rc != SIMT_OK)
            return rc;
        if (key->type != YAML_SCALAR_NODE)
            return fail_at(p, mark_pos(key->start_mark), path, "a key must be a plain string, got %s",
                           node_kind(key));
        const char *text = (const char *)key->data.scalar.value;
        if (strlen(text) != key->data.scalar.length || key->data.scalar.length == 0 ||
            key->data.scalar.length > 80)
            return fail_at(p, mark_pos(key->start_mark), path, "malformed key");
        for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
            yaml_node_t *prev_key = yaml_document_get_node(p->doc, prev->key);
            if (prev_key && prev_key->type == YAML_SCALAR_NODE &&
                strcmp((const char *)prev_key->data.scalar.value, text) == 0) {
                char full[160];
                bprintf(full, sizeof full, "%s%s%s", path, path[0] ? "." : "", text);
                struct pos first = mark_pos(prev_key->start_mark);
                return fail_at(p, mark_pos(key->start_mark), full, "duplicate key (first given at line %d)",
                               first.line);
            }
        }
        rc = fn(p, ctx, key, text, pair->value);
        if (rc != SIMT_OK)
            return rc;
    }
    return SIMT_OK;
}

static int expect_mapping(struct parse *p, const yaml_node_t *node, const char *path, const char *what)
{
    if (node->type == YAML_MAPPING_NODE)
        return SIMT_OK;
    char got[128];
    describe_got(node, got, sizeof got);
    return fail_at(p, mark_pos(node->start_mark), path, "expected %s, got %s", what, got);
}

/* "unknown key", with a hint: a near spelling in this group, or the group the key belongs to */
static int unknown_key(struct parse *p, int group, const yaml_node_t *key, const char *text)
{
    char path[160];
    bprintf(path, sizeof path, "%s.%s", group_names[group], text);
    const char *best = NULL;
    size_t best_distance = 3;
    for (size_t i = 0; i < p->field_count; i++) {
        const struct simt_hwdb_field *f = &p->fields[i];
        if (strcmp(f->key, text) == 0 && strcmp(f->group, group_names[group]) != 0)
            return fail_at(p, mark_pos(key->start_mark), path, "unknown key (%s belongs in %s)", text,
                           f->group);
        if (strcmp(f->group, group_names[group]) == 0) {
            size_t d = edit_distance(text, f->key);
            if (d < best_distance) {
                best_distance = d;
                best = f->key;
            }
        }
    }
    for (int t = 0; t < T_COUNT; t++) {
        if (text_slots[t].group != group)
            continue;
        size_t d = edit_distance(text, text_slots[t].key);
        if (d < best_distance) {
            best_distance = d;
            best = text_slots[t].key;
        }
    }
    if (best)
        return fail_at(p, mark_pos(key->start_mark), path, "unknown key (did you mean %s?)", best);
    return fail_at(p, mark_pos(key->start_mark), path, "unknown key");
}

struct group_ctx {
    int group;
};

static int read_dtypes(struct parse *p, size_t fi, const yaml_node_t *value, const char *path)
{
    const struct simt_hwdb_field *field = &p->fields[fi];
    struct layer *l = p->layer;
    int rc = expect_mapping(p, value, path, "a mapping of data type to number (fp16: 9.89e14)");
    if (rc != SIMT_OK)
        return rc;
    if (value->data.mapping.pairs.start == value->data.mapping.pairs.top)
        return fail_at(p, mark_pos(value->start_mark), path, "expected at least one data type");
    for (yaml_node_pair_t *pair = value->data.mapping.pairs.start; pair < value->data.mapping.pairs.top;
         pair++) {
        yaml_node_t *key, *num;
        rc = node_get(p, pair->key, &key, path, (struct pos){0, 0});
        if (rc != SIMT_OK)
            return rc;
        if (key->type != YAML_SCALAR_NODE)
            return fail_at(p, mark_pos(key->start_mark), path, "a key must be a data type name, got %s",
                           node_kind(key));
        const char *name = (const char *)key->data.scalar.value;
        char sub[200];
        bprintf(sub, sizeof sub, "%s.%.40s", path, name);
        enum simt_dtype dtype;
        if (strlen(name) != key->data.scalar.length || simt_dtype_parse(name, &dtype) != SIMT_OK)
            return fail_at(p, mark_pos(key->start_mark), sub,
                           "unknown data type (expected fp64, fp32, tf32, fp16, bf16, fp8, int8 or int4)");
        unsigned bit = 1u << (unsigned)dtype;
        for (yaml_node_pair_t *prev = value->data.mapping.pairs.start; prev < pair; prev++) {
            yaml_node_t *prev_key = yaml_document_get_node(p->doc, prev->key);
            if (prev_key && prev_key->type == YAML_SCALAR_NODE &&
                strcmp((const char *)prev_key->data.scalar.value, name) == 0)
                return fail_at(p, mark_pos(key->start_mark), sub, "duplicate key (first given at line %d)",
                               mark_pos(prev_key->start_mark).line);
        }
        rc = node_get(p, pair->value, &num, sub, mark_pos(key->start_mark));
        if (rc != SIMT_OK)
            return rc;
        double v;
        rc = read_number(p, field, num, sub, &v);
        if (rc != SIMT_OK)
            return rc;
        double *slot = (double *)(void *)((char *)&l->spec + field->offset);
        slot[dtype] = v;
        l->present[fi] |= bit;
    }
    l->field_at[fi] = mark_pos(value->start_mark);
    return SIMT_OK;
}

static int read_carveouts(struct parse *p, size_t fi, const yaml_node_t *value, const char *path)
{
    const struct simt_hwdb_field *field = &p->fields[fi];
    struct layer *l = p->layer;
    if (value->type != YAML_SEQUENCE_NODE) {
        char got[128];
        describe_got(value, got, sizeof got);
        return fail_at(p, mark_pos(value->start_mark), path,
                       "expected a list of byte sizes in ascending order, got %s", got);
    }
    int64_t sizes[SIMT_MAX_CARVEOUTS];
    int count = 0;
    for (yaml_node_item_t *item = value->data.sequence.items.start; item < value->data.sequence.items.top;
         item++) {
        char sub[200];
        bprintf(sub, sizeof sub, "%s[%d]", path, count);
        if (count == SIMT_MAX_CARVEOUTS)
            return fail_at(p, mark_pos(value->start_mark), path, "expected at most %d sizes",
                           SIMT_MAX_CARVEOUTS);
        yaml_node_t *num;
        int rc = node_get(p, *item, &num, sub, mark_pos(value->start_mark));
        if (rc != SIMT_OK)
            return rc;
        double v;
        rc = read_number(p, field, num, sub, &v);
        if (rc != SIMT_OK)
            return rc;
        sizes[count] = (int64_t)v;
        if (count > 0 && sizes[count] <= sizes[count - 1])
            return fail_at(p, mark_pos(num->start_mark), sub, "expected ascending sizes, got %lld after %lld",
                           (long long)sizes[count], (long long)sizes[count - 1]);
        count++;
    }
    if (count == 0)
        return fail_at(p, mark_pos(value->start_mark), path, "expected at least one size");
    struct simt_diag ignored;
    int rc = simt_hwdb_field_set_carveouts(&l->spec, field, sizes, count, &ignored);
    if (rc != SIMT_OK)
        return fail_at(p, mark_pos(value->start_mark), path, "%s", ignored.message);
    l->present[fi] = 1;
    l->field_at[fi] = mark_pos(value->start_mark);
    return SIMT_OK;
}

static int group_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text, int value_id)
{
    int group = ((struct group_ctx *)ctx)->group;
    struct layer *l = p->layer;
    char path[160];
    bprintf(path, sizeof path, "%s.%s", group_names[group], text);

    for (int t = 0; t < T_COUNT; t++) {
        if (text_slots[t].group != group || strcmp(text_slots[t].key, text) != 0)
            continue;
        if (!(text_slots[t].allowed & (l->is_gpu ? IN_GPU : IN_ARCH)))
            return fail_at(p, mark_pos(key->start_mark), path,
                           "belongs in a GPU file (gpus/<id>.yaml), not in "
                           "an architecture file");
        yaml_node_t *value;
        int rc = node_get(p, value_id, &value, path, mark_pos(key->start_mark));
        if (rc != SIMT_OK)
            return rc;
        rc = read_text(p, value, path, text_slots[t].max, l->text[t]);
        if (rc != SIMT_OK)
            return rc;
        l->has_text[t] = 1;
        l->text_at[t] = mark_pos(value->start_mark);
        return SIMT_OK;
    }
    for (size_t fi = 0; fi < p->field_count; fi++) {
        const struct simt_hwdb_field *field = &p->fields[fi];
        if (strcmp(field->group, group_names[group]) != 0 || strcmp(field->key, text) != 0)
            continue;
        yaml_node_t *value;
        int rc = node_get(p, value_id, &value, path, mark_pos(key->start_mark));
        if (rc != SIMT_OK)
            return rc;
        if (field->type == SIMT_FIELD_DTYPES)
            return read_dtypes(p, fi, value, path);
        if (field->type == SIMT_FIELD_CARVEOUTS)
            return read_carveouts(p, fi, value, path);
        double v;
        rc = read_number(p, field, value, path, &v);
        if (rc != SIMT_OK)
            return rc;
        struct simt_diag ignored;
        rc = simt_hwdb_field_set(&l->spec, field, v, &ignored);
        if (rc != SIMT_OK)
            return fail_at(p, mark_pos(value->start_mark), path, "%s", ignored.message);
        l->present[fi] = 1;
        l->field_at[fi] = mark_pos(value->start_mark);
        return SIMT_OK;
    }
    return unknown_key(p, group, key, text);
}

static int source_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text, int value_id)
{
    (void)ctx;
    struct layer *l = p->layer;
    char path[160];
    bprintf(path, sizeof path, "sources.%s", text);
    int g = group_find(text);
    if (g < 0)
        return fail_at(
            p, mark_pos(key->start_mark), path,
            "unknown group (expected identity, limits, amd, sm, clocks, memory, throughput, latency, "
            "interconnect, measured or achievable)");
    yaml_node_t *value;
    int rc = node_get(p, value_id, &value, path, mark_pos(key->start_mark));
    if (rc != SIMT_OK)
        return rc;
    rc = read_text(p, value, path, SOURCE_MAX, l->source[g]);
    if (rc != SIMT_OK)
        return rc;
    l->has_source[g] = 1;
    l->source_at[g] = mark_pos(value->start_mark);
    return SIMT_OK;
}

static int top_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text, int value_id)
{
    (void)ctx;
    struct layer *l = p->layer;
    yaml_node_t *value;
    int rc = node_get(p, value_id, &value, text, mark_pos(key->start_mark));
    if (rc != SIMT_OK)
        return rc;
    if (strcmp(text, "arch") == 0) {
        rc = read_text(p, value, "arch", MAX_ID_LEN, l->arch);
        if (rc != SIMT_OK)
            return rc;
        if (!valid_id(l->arch))
            return fail_at(
                p, mark_pos(value->start_mark), "arch",
                "expected an architecture id (lowercase letters, digits, '_', '-', '.'), got \"%s\"",
                l->arch);
        l->has_arch = 1;
        l->arch_at = mark_pos(value->start_mark);
        return SIMT_OK;
    }
    if (strcmp(text, "sources") == 0) {
        rc = expect_mapping(p, value, "sources", "a mapping of group to text");
        if (rc != SIMT_OK)
            return rc;
        return each_pair(p, value, "sources", NULL, source_pair);
    }
    int g = group_find(text);
    if (g < 0) {
        const char *best = NULL;
        size_t best_distance = 3;
        const char *candidates[G_COUNT + 2];
        for (int i = 0; i < G_COUNT; i++)
            candidates[i] = group_names[i];
        candidates[G_COUNT] = "arch";
        candidates[G_COUNT + 1] = "sources";
        for (int i = 0; i < G_COUNT + 2; i++) {
            size_t d = edit_distance(text, candidates[i]);
            if (d < best_distance) {
                best_distance = d;
                best = candidates[i];
            }
        }
        for (size_t i = 0; !best && i < p->field_count; i++) {
            if (strcmp(p->fields[i].key, text) == 0)
                return fail_at(p, mark_pos(key->start_mark), text, "unknown key (%s belongs in %s)", text,
                               p->fields[i].group);
        }
        if (best)
            return fail_at(p, mark_pos(key->start_mark), text, "unknown key (did you mean %s?)", best);
        return fail_at(
            p, mark_pos(key->start_mark), text,
            "unknown key (expected arch, sources or a group: identity, limits, amd, sm, clocks, memory, "
            "throughput, latency, interconnect, measured, achievable)");
    }
    if (g == G_MEASURED && !l->is_gpu)
        return fail_at(
            p, mark_pos(key->start_mark), text,
            "measured figures belong to one card: put them in its GPU file, not in an architecture file");
    rc = expect_mapping(p, value, text, "a mapping of keys to values");
    if (rc != SIMT_OK)
        return rc;
    l->has_group[g] = 1;
    l->group_at[g] = mark_pos(key->start_mark);
    struct group_ctx gc = {g};
    return each_pair(p, value, text, &gc, group_pair);
}

/* ISO 8601 date, optionally followed by a time: YYYY-MM-DD... */
static int valid_date(const char *s)
{
    if (strlen(s) < 10)
        return 0;
    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7) {
            if (s[i] != '-')
                return 0;
        } else if (!isdigit((unsigned char)s[i])) {
            return 0;
        }
    }
    int month = (s[5] - '0') * 10 + (s[6] - '0');
    int day = (s[8] - '0') * 10 + (s[9] - '0');
    if (month < 1 || month > 12 || day < 1 || day > 31)
        return 0;
    return s[10] == '\0' || s[10] == 'T' || s[10] == ' ';
}

/* Checks a file on its own: its id, its sources, its measured section. */
static int check_layer(struct parse *p)
{
    struct layer *l = p->layer;
    if (l->is_gpu) {
        if (!l->has_arch)
            return fail_at(p, l->top, "arch",
                           "required: the architecture file this GPU builds on (arch: sm_90)");
        if (!l->has_text[T_ID])
            return fail_at(p, l->has_group[G_IDENTITY] ? l->group_at[G_IDENTITY] : l->top, "identity.id",
                           "required, and equal to the file name (%s)", l->name);
        if (strcmp(l->text[T_ID], l->name) != 0)
            return fail_at(p, l->text_at[T_ID], "identity.id", "\"%s\" does not match the file name %s.yaml",
                           l->text[T_ID], l->name);
    } else {
        if (!l->has_arch)
            return fail_at(p, l->top, "arch", "required: this architecture's id, equal to the file name (%s)",
                           l->name);
        if (strcmp(l->arch, l->name) != 0)
            return fail_at(p, l->arch_at, "arch", "\"%s\" does not match the file name %s.yaml", l->arch,
                           l->name);
    }
    for (int g = 0; g < G_COUNT; g++) {
        if (l->has_group[g] && group_needs_source(g) && !l->has_source[g]) {
            char path[64];
            bprintf(path, sizeof path, "sources.%s", group_names[g]);
            return fail_at(p, l->group_at[g], path,
                           "required: this file gives %s figures, say where they came from", group_names[g]);
        }
    }
    if (l->has_group[G_MEASURED]) {
        static const int needed[] = {T_METHOD, T_DATE, T_DEVICE, T_DRIVER};
        for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
            int t = needed[i];
            if (!l->has_text[t]) {
                char path[64];
                bprintf(path, sizeof path, "measured.%s", text_slots[t].key);
                return fail_at(p, l->group_at[G_MEASURED], path, "required in a measured section");
            }
        }
        if (!valid_date(l->text[T_DATE]))
            return fail_at(p, l->text_at[T_DATE], "measured.date",
                           "expected an ISO 8601 date (2025-01-31), got \"%s\"", l->text[T_DATE]);
        int figures = 0;
        for (size_t fi = 0; fi < p->field_count; fi++) {
            if (strcmp(p->fields[fi].group, "measured") == 0 && l->present[fi])
                figures++;
        }
        if (figures == 0)
            return fail_at(p, l->group_at[G_MEASURED], "measured", "expected at least one measured figure");
    }
    return SIMT_OK;
}

/* 1-based line and column (in bytes) of a byte offset into a file */
static struct pos offset_pos(const char *path, size_t offset)
{
    struct pos at = {1, 1};
    FILE *f = fopen(path, "rb");
    if (!f)
        return at;
    for (size_t i = 0; i < offset; i++) {
        int c = fgetc(f);
        if (c == EOF)
            break;
        if (c == '\n') {
            at.line++;
            at.column = 1;
        } else {
            at.column++;
        }
    }
    fclose(f);
    return at;
}

static int yaml_problem(struct simt_diag *diag, struct layer *l, const yaml_parser_t *parser)
{
    struct pos at = mark_pos(parser->problem_mark);
    const char *problem = parser->problem ? parser->problem : "malformed YAML";
    if (parser->error == YAML_MEMORY_ERROR)
        return report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory while parsing");
    if (parser->error == YAML_READER_ERROR) {
        /* the reader gives a byte offset only: count lines up to it */
        at = offset_pos(l->path, parser->problem_offset);
        return report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s (at byte %zu)",
                      problem, parser->problem_offset);
    }
    if (parser->context)
        return report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s %s (line %d)",
                      problem, parser->context, (int)parser->context_mark.line + 1);
    return report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s", problem);
}

static int parse_file(struct layer *l, struct simt_diag *diag)
{
    size_t field_count;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&field_count);
    l->top.line = 1;
    l->top.column = 1;
    if (field_count > MAX_FIELDS)
        return report(diag, SIMT_EINVAL, l->path, l->rel, l->top, "", "internal: field table too large");

    FILE *f = fopen(l->path, "rb");
    if (!f)
        return report(diag, SIMT_EIO, l->path, l->rel, (struct pos){0, 0}, "", "cannot open: %s",
                      strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return report(diag, SIMT_EIO, l->path, l->rel, (struct pos){0, 0}, "", "not a regular file");
    }
    if (st.st_size > MAX_FILE_BYTES) {
        fclose(f);
        return report(diag, SIMT_ETOOBIG, l->path, l->rel, (struct pos){0, 0}, "", "larger than %d bytes",
                      MAX_FILE_BYTES);
    }

    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
    }
    yaml_parser_set_input_file(&parser, f);
    int rc = SIMT_OK;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = yaml_problem(diag, l, &parser);
        yaml_parser_delete(&parser);
        fclose(f);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = report(diag, SIMT_EPARSE, l->path, l->rel, l->top, "",
                    "empty file: expected a mapping of groups");
    } else {
        /* a second document is an error, and so is junk after the first */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            rc = yaml_problem(diag, l, &parser);
        } else {
            yaml_node_t *extra_root = yaml_document_get_root_node(&extra);
            if (extra_root)
                rc = report(diag, SIMT_EPARSE, l->path, l->rel, mark_pos(extra_root->start_mark), "",
                            "more than one YAML document in the file");
            yaml_document_delete(&extra);
        }
    }
    if (rc == SIMT_OK) {
        struct parse p = {0};
        p.layer = l;
        p.doc = &doc;
        p.diag = diag;
        p.fields = fields;
        p.field_count = field_count;
        p.node_count = (size_t)(doc.nodes.top - doc.nodes.start);
        p.seen = calloc(p.node_count ? p.node_count : 1, 1);
        if (!p.seen) {
            rc = report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
        } else {
            yaml_node_t *top;
            rc = node_get(&p, 1, &top, "", (struct pos){0, 0});
            if (rc == SIMT_OK) {
                l->top = mark_pos(top->start_mark);
                rc = expect_mapping(&p, top, "", "a mapping of groups at the top of the file");
            }
            if (rc == SIMT_OK)
                rc = each_pair(&p, top, "", NULL, top_pair);
            if (rc == SIMT_OK)
                rc = check_layer(&p);
            free(p.seen);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

static void layer_free(struct layer *l)
{
    if (!l)
        return;
    free(l->path);
    free(l->rel);
    free(l->name);
    free(l);
}

/* name: "h200-sxm.yaml"; sub: "gpus" */
static int layer_load(const char *dir, const char *sub, const char *file_name, int is_gpu, struct layer **out,
                      struct simt_diag *diag)
{
    *out = NULL;
    struct layer *l = calloc(1, sizeof *l);
    if (!l)
        return report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    char *subdir = join_path(dir, sub);
    l->path = subdir ? join_path(subdir, file_name) : NULL;
    free(subdir);
    l->rel = join_path(sub, file_name);
    l->name = dup_string(file_name);
    l->is_gpu = is_gpu;
    if (!l->path || !l->rel || !l->name) {
        layer_free(l);
        return report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    l->name[strlen(l->name) - strlen(".yaml")] = '\0';
    int rc = parse_file(l, diag);
    if (rc != SIMT_OK) {
        layer_free(l);
        return rc;
    }
    *out = l;
    return SIMT_OK;
}

/* ---------------------------------------------------------------- merging */

static int parse_compute_capability(const char *cc, enum simt_vendor vendor, int *major, int *minor)
{
    if (vendor == SIMT_VENDOR_NVIDIA) {
        /* "9.0", "12.0" */
        char *end;
        if (!isdigit((unsigned char)cc[0]))
            return 0;
        long ma = strtol(cc, &end, 10);
        if (*end != '.' || !isdigit((unsigned char)end[1]))
            return 0;
        long mi = strtol(end + 1, &end, 10);
        if (*end != '\0' || ma < 7 || ma > 12 || mi < 0 || mi > 9)
            return 0;
        *major = (int)ma;
        *minor = (int)mi;
        return 1;
    }
    /* AMD: gfx<major><minor><stepping>, minor and stepping one hex digit each: gfx942 -> 9, 4 */
    if (strncmp(cc, "gfx", 3) != 0)
        return 0;
    const char *digits = cc + 3;
    size_t n = strlen(digits);
    if (n < 3 || n > 5)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)digits[i]) || isupper((unsigned char)digits[i]))
            return 0;
    }
    int ma = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        if (!isdigit((unsigned char)digits[i]))
            return 0;
        ma = ma * 10 + (digits[i] - '0');
    }
    char m = digits[n - 2];
    *major = ma;
    *minor = isdigit((unsigned char)m) ? m - '0' : m - 'a' + 10;
    return ma > 0;
}

struct merged_pos {
    const struct layer *layer;
    struct pos at;
};

/* where the value of field fi came from: the GPU file if it sets it, else the arch file */
static struct merged_pos field_origin(const struct layer *arch, const struct layer *gpu, size_t fi)
{
    struct merged_pos m;
    if (gpu->present[fi]) {
        m.layer = gpu;
        m.at = gpu->field_at[fi];
    } else if (arch->present[fi]) {
        m.layer = arch;
        m.at = arch->field_at[fi];
    } else {
        m.layer = gpu;
        m.at = gpu->top;
    }
    return m;
}

static const char *merged_text(const struct layer *arch, const struct layer *gpu, int t)
{
    if (gpu->has_text[t])
        return gpu->text[t];
    if (arch->has_text[t])
        return arch->text[t];
    return NULL;
}

static int fail_merged(struct simt_diag *diag, struct merged_pos m, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_merged(struct simt_diag *diag, struct merged_pos m, const char *field, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return report(diag, SIMT_EINVAL, m.layer->path, m.layer->rel, m.at, field, "%s", what);
}

static size_t field_index(const struct simt_hwdb_field *fields, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(fields[i].name, name) == 0)
            return i;
    }
    return count;
}

/* Relations between fields that a typo would break: simt_hwdb_spec_check
 * names the field at fault, placed here at the line that set it. */
static int cross_check(const struct layer *arch, const struct layer *gpu, const struct simt_gpu_spec *s,
                       const struct simt_hwdb_field *fields, size_t count, struct simt_diag *diag)
{
    struct simt_diag why;
    memset(&why, 0, sizeof why);
    if (simt_hwdb_spec_check(s, &why, NULL) == SIMT_OK)
        return SIMT_OK;
    const struct simt_hwdb_field *f = simt_hwdb_field_find(why.field);
    char path[128];
    bprintf(path, sizeof path, "%s.%s", f != NULL ? f->group : "?", why.field);
    return fail_merged(diag, field_origin(arch, gpu, field_index(fields, count, why.field)), path, "%s",
                       why.message);
}

static int merge(const struct layer *arch, const struct layer *gpu, struct simt_hwdb_gpu *out,
                 struct simt_diag *diag)
{
    size_t count;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    memset(out, 0, sizeof *out);

    /* identity */
    struct merged_pos gpu_top = {gpu, gpu->has_group[G_IDENTITY] ? gpu->group_at[G_IDENTITY] : gpu->top};
    static const int required_text[] = {T_NAME, T_VENDOR, T_ARCHITECTURE, T_COMPUTE_CAPABILITY,
                                        T_FORM_FACTOR};
    for (size_t i = 0; i < sizeof required_text / sizeof required_text[0]; i++) {
        int t = required_text[i];
        if (!merged_text(arch, gpu, t)) {
            char path[64];
            bprintf(path, sizeof path, "identity.%s", text_slots[t].key);
            return fail_merged(diag, gpu_top, path, "required, given neither here nor in %s", arch->rel);
        }
    }
    const char *vendor = merged_text(arch, gpu, T_VENDOR);
    enum simt_vendor v;
    struct merged_pos vendor_at = {gpu->has_text[T_VENDOR] ? gpu : arch, gpu->has_text[T_VENDOR]
                                                                             ? gpu->text_at[T_VENDOR]
                                                                             : arch->text_at[T_VENDOR]};
    if (strcmp(vendor, "nvidia") == 0)
        v = SIMT_VENDOR_NVIDIA;
    else if (strcmp(vendor, "amd") == 0)
        v = SIMT_VENDOR_AMD;
    else
        return fail_merged(diag, vendor_at, "identity.vendor", "expected nvidia or amd, got \"%s\"", vendor);
    if (gpu->has_text[T_VENDOR] && arch->has_text[T_VENDOR] &&
        strcmp(gpu->text[T_VENDOR], arch->text[T_VENDOR]) != 0)
        return fail_merged(diag, vendor_at, "identity.vendor", "\"%s\" differs from %s's \"%s\"",
                           gpu->text[T_VENDOR], arch->rel, arch->text[T_VENDOR]);
    const char *cc = merged_text(arch, gpu, T_COMPUTE_CAPABILITY);
    struct merged_pos cc_at = {gpu->has_text[T_COMPUTE_CAPABILITY] ? gpu : arch,
                               gpu->has_text[T_COMPUTE_CAPABILITY] ? gpu->text_at[T_COMPUTE_CAPABILITY]
                                                                   : arch->text_at[T_COMPUTE_CAPABILITY]};
    int major = 0, minor = 0;
    if (!parse_compute_capability(cc, v, &major, &minor))
        return fail_merged(diag, cc_at, "identity.compute_capability",
                           v == SIMT_VENDOR_NVIDIA
                               ? "expected a compute capability 7.0..12.9 (\"9.0\"), got \"%s\""
                               : "expected an AMD target gfx<major><minor><stepping> (\"gfx942\"), "
                                 "got \"%s\"",
                           cc);
    for (int g = 0; g < G_COUNT; g++) {
        if (g == G_AMD && v != SIMT_VENDOR_AMD && (gpu->has_group[g] || arch->has_group[g])) {
            const struct layer *l = gpu->has_group[g] ? gpu : arch;
            return fail_merged(diag, (struct merged_pos){l, l->group_at[g]}, "amd",
                               "the amd group is for vendor amd only (this GPU's vendor is %s)", vendor);
        }
    }

    /* numbers: the arch's, then the GPU's on top (per data type for DTYPES) */
    struct simt_gpu_spec *s = &out->spec;
    for (size_t fi = 0; fi < count; fi++) {
        const struct simt_hwdb_field *f = &fields[fi];
        const struct layer *layers[2] = {arch, gpu};
        for (int li = 0; li < 2; li++) {
            const struct layer *l = layers[li];
            if (!l->present[fi])
                continue;
            if (f->type == SIMT_FIELD_DTYPES) {
                const double *src = (const double *)(const void *)((const char *)&l->spec + f->offset);
                double *dst = (double *)(void *)((char *)s + f->offset);
                for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
                    if (l->present[fi] & (1u << d))
                        dst[d] = src[d];
                }
            } else if (f->type == SIMT_FIELD_CARVEOUTS) {
                memcpy((char *)s + f->offset, (const char *)&l->spec + f->offset,
                       sizeof(int64_t) * SIMT_MAX_CARVEOUTS);
                s->shared_carveout_count = l->spec.shared_carveout_count;
            } else {
                size_t size = f->type == SIMT_FIELD_INT     ? sizeof(int)
                              : f->type == SIMT_FIELD_INT64 ? sizeof(int64_t)
                                                            : sizeof(double);
                memcpy((char *)s + f->offset, (const char *)&l->spec + f->offset, size);
            }
        }
        unsigned need = v == SIMT_VENDOR_NVIDIA ? 1u : 2u;
        if ((f->required & need) && !arch->present[fi] && !gpu->present[fi]) {
            char path[160];
            bprintf(path, sizeof path, "%s.%s", f->group, f->key);
            int g = group_find(f->group);
            struct merged_pos at = {gpu, (g >= 0 && gpu->has_group[g]) ? gpu->group_at[g] : gpu->top};
            return fail_merged(diag, at, path, "required for %s GPUs, given neither here nor in %s", vendor,
                               arch->rel);
        }
    }
    s->vendor = v;
    s->compute_major = major;
    s->compute_minor = minor;
    int rc = cross_check(arch, gpu, s, fields, count, diag);
    if (rc != SIMT_OK)
        return rc;

    /* strings */
    copy_text(out->id, sizeof out->id, gpu->text[T_ID]);
    copy_text(out->name, sizeof out->name, merged_text(arch, gpu, T_NAME));
    copy_text(out->vendor, sizeof out->vendor, vendor);
    copy_text(out->architecture, sizeof out->architecture, merged_text(arch, gpu, T_ARCHITECTURE));
    copy_text(out->arch_id, sizeof out->arch_id, arch->name);
    copy_text(out->compute_capability, sizeof out->compute_capability, cc);
    copy_text(out->form_factor, sizeof out->form_factor, merged_text(arch, gpu, T_FORM_FACTOR));

    /* sources: the arch's text, then the GPU's, joined */
    for (int g = 0; g < G_COUNT; g++) {
        if (!arch->has_source[g] && !gpu->has_source[g])
            continue;
        if (out->source_count == SIMT_HWDB_MAX_SOURCES)
            break;
        struct simt_hwdb_source *src = &out->sources[out->source_count++];
        copy_text(src->group, sizeof src->group, group_names[g]);
        if (arch->has_source[g] && gpu->has_source[g]) {
            size_t la = strlen(arch->source[g]), lg = strlen(gpu->source[g]);
            if (la + 2 + lg > sizeof src->text - 1) {
                char path[64];
                bprintf(path, sizeof path, "sources.%s", group_names[g]);
                return fail_merged(diag, (struct merged_pos){gpu, gpu->source_at[g]}, path,
                                   "together with %s's text (%zu characters) longer than %zu characters",
                                   arch->rel, la, sizeof src->text - 1);
            }
            memcpy(src->text, arch->source[g], la);
            memcpy(src->text + la, "; ", 2);
            memcpy(src->text + la + 2, gpu->source[g], lg + 1);
        } else {
            copy_text(src->text, sizeof src->text, arch->has_source[g] ? arch->source[g] : gpu->source[g]);
        }
    }

    /* measured provenance */
    if (gpu->has_group[G_MEASURED]) {
        out->has_measured = 1;
        copy_text(out->measured_method, sizeof out->measured_method, gpu->text[T_METHOD]);
        copy_text(out->measured_date, sizeof out->measured_date, gpu->text[T_DATE]);
        copy_text(out->measured_device, sizeof out->measured_device, gpu->text[T_DEVICE]);
        copy_text(out->measured_driver, sizeof out->measured_driver, gpu->text[T_DRIVER]);
    }
    return SIMT_OK;
}

/* ---------------------------------------------------------------- directory */

struct name_list {
    char **names;
    size_t count;
};

static void names_free(struct name_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The *.yaml files of dir/sub, sorted. Hidden files are skipped; *.yml and
 * badly named *.yaml files are refused so that they are not silently ignored. */
static int list_yaml(const char *dir, const char *sub, struct name_list *out, struct simt_diag *diag)
{
    out->names = NULL;
    out->count = 0;
    char *path = join_path(dir, sub);
    if (!path)
        return report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    DIR *d = opendir(path);
    if (!d) {
        int err = errno;
        int rc = report(diag, err == ENOENT ? SIMT_ENOENT : SIMT_EIO, path, path, (struct pos){0, 0}, "",
                        "cannot open the directory: %s (a database holds arch/ and gpus/)", strerror(err));
        free(path);
        return rc;
    }
    size_t capacity = 0;
    int rc = SIMT_OK;
    struct dirent *entry;
    while (rc == SIMT_OK && (entry = readdir(d)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.')
            continue;
        char rel[300], full[4096];
        bprintf(rel, sizeof rel, "%s/%s", sub, name);
        bprintf(full, sizeof full, "%s/%s", path, name);
        if (ends_with(name, ".yml")) {
            rc = report(diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "",
                        "database files end in .yaml (rename it to be loaded)");
            break;
        }
        if (!ends_with(name, ".yaml"))
            continue;
        size_t stem = strlen(name) - strlen(".yaml");
        char id[MAX_ID_LEN + 2];
        if (stem == 0 || stem > MAX_ID_LEN) {
            rc = report(diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "", "file name too long or empty");
            break;
        }
        memcpy(id, name, stem);
        id[stem] = '\0';
        if (!valid_id(id)) {
            rc = report(
                diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "",
                "a file name must be <id>.yaml with an id of lowercase letters, digits, '-', '_', '.'");
            break;
        }
        if (out->count == capacity) {
            size_t grown = capacity ? capacity * 2 : 16;
            char **bigger = realloc(out->names, grown * sizeof *bigger);
            if (!bigger) {
                rc = report(diag, SIMT_ENOMEM, path, path, (struct pos){0, 0}, "", "out of memory");
                break;
            }
            out->names = bigger;
            capacity = grown;
        }
        out->names[out->count] = dup_string(name);
        if (!out->names[out->count]) {
            rc = report(diag, SIMT_ENOMEM, path, path, (struct pos){0, 0}, "", "out of memory");
            break;
        }
        out->count++;
    }
    closedir(d);
    free(path);
    if (rc != SIMT_OK) {
        names_free(out);
        return rc;
    }
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, compare_names);
    return SIMT_OK;
}

static int compare_gpus(const void *a, const void *b)
{
    return strcmp(((const struct simt_hwdb_gpu *)a)->id, ((const struct simt_hwdb_gpu *)b)->id);
}

static void db_free(struct simt_hwdb *db)
{
    if (!db)
        return;
    free(db->gpus);
    free(db->dir);
    free(db);
}

int simt_hwdb_load_dir(const char *dir, struct simt_hwdb **out, struct simt_diag *diag)
{
    if (out)
        *out = NULL;
    if (diag)
        memset(diag, 0, sizeof *diag);
    if (!dir || !out)
        return report(diag, SIMT_EINVAL, "", "", (struct pos){0, 0}, "", "no directory or no result pointer");

    struct name_list arch_names = {0}, gpu_names = {0};
    struct layer **archs = NULL;
    struct simt_hwdb *db = NULL;
    int rc = list_yaml(dir, "arch", &arch_names, diag);
    if (rc == SIMT_OK)
        rc = list_yaml(dir, "gpus", &gpu_names, diag);
    if (rc == SIMT_OK && gpu_names.count == 0) {
        char *gpus = join_path(dir, "gpus");
        rc = report(diag, SIMT_ENOENT, gpus ? gpus : dir, gpus ? gpus : dir, (struct pos){0, 0}, "",
                    "no GPU files (<id>.yaml) in the directory");
        free(gpus);
    }
    if (rc == SIMT_OK && arch_names.count > 0) {
        archs = calloc(arch_names.count, sizeof *archs);
        if (!archs)
            rc = report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    for (size_t i = 0; rc == SIMT_OK && i < arch_names.count; i++)
        rc = layer_load(dir, "arch", arch_names.names[i], 0, &archs[i], diag);

    if (rc == SIMT_OK) {
        db = calloc(1, sizeof *db);
        if (db) {
            db->dir = dup_string(dir);
            db->gpus = calloc(gpu_names.count, sizeof *db->gpus);
        }
        if (!db || !db->dir || !db->gpus)
            rc = report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    for (size_t i = 0; rc == SIMT_OK && i < gpu_names.count; i++) {
        struct layer *gpu;
        rc = layer_load(dir, "gpus", gpu_names.names[i], 1, &gpu, diag);
        if (rc != SIMT_OK)
            break;
        const struct layer *arch = NULL;
        for (size_t a = 0; a < arch_names.count; a++) {
            if (strcmp(archs[a]->name, gpu->arch) == 0)
                arch = archs[a];
        }
        if (!arch)
            rc = report(diag, SIMT_ENOENT, gpu->path, gpu->rel, gpu->arch_at, "arch",
                        "unknown architecture \"%s\" (no arch/%s.yaml)", gpu->arch, gpu->arch);
        else
            rc = merge(arch, gpu, &db->gpus[i], diag);
        layer_free(gpu);
        if (rc == SIMT_OK)
            db->count++;
    }
    for (size_t i = 0; archs && i < arch_names.count; i++)
        layer_free(archs[i]);
    free(archs);
    names_free(&arch_names);
    names_free(&gpu_names);
    if (rc != SIMT_OK) {
        db_free(db);
        return rc;
    }
    qsort(db->gpus, db->count, sizeof *db->gpus, compare_gpus);
    atomic_init(&db->refs, 1);
    *out = db;
    return SIMT_OK;
}

/* ---------------------------------------------------------------- access */

void simt_hwdb_ref(struct simt_hwdb *db)
{
    if (db)
        atomic_fetch_add_explicit(&db->refs, 1, memory_order_relaxed);
}

void simt_hwdb_unref(struct simt_hwdb *db)
{
    if (!db)
        return;
    if (atomic_fetch_sub_explicit(&db->refs, 1, memory_order_acq_rel) == 1)
        db_free(db);
}

size_t simt_hwdb_count(const struct simt_hwdb *db)
{
    return db ? db->count : 0;
}

const struct simt_hwdb_gpu *simt_hwdb_at(const struct simt_hwdb *db, size_t i)
{
    if (!db || i >= db->count)
        return NULL;
    return &db->gpus[i];
}

const struct simt_hwdb_gpu *simt_hwdb_find(const struct simt_hwdb *db, const char *id)
{
    if (!db || !id)
        return NULL;
    size_t lo = 0, hi = db->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(db->gpus[mid].id, id);
        if (c == 0)
            return &db->gpus[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *simt_hwdb_dir(const struct simt_hwdb *db)
{
    return db ? db->dir : NULL;
}
