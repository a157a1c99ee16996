/* yaml_reader.c - the strict reader of one database file: parses it whole
 * with libyaml into a layer (what the file says, before an architecture and
 * a GPU file are merged). Every plain scalar is converted here (numbers with
 * strtod, an end-pointer check and isfinite, in the C locale's notation);
 * an unknown or duplicate key, an alias, a wrong type, an out-of-range or
 * non-integer number, a second document is refused with 1-based
 * file:line:column, the key path and what was expected (with a near
 * spelling when there is one). A failure leaks nothing. */
#define _POSIX_C_SOURCE 200809L

#include "hwdb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define MAX_FILE_BYTES (1024 * 1024)
/* Mappings and lists nested deeper than this are refused before the file is
 * composed: a GPU record needs 4, and libyaml's scanner is quadratic in the
 * depth of flow collections (a 100k-deep file took 25 s). */
#define MAX_NESTING 32

/* groups of figures: a file that has one must say where its figures came from */
static int group_needs_source(int g)
{
    return g != G_IDENTITY && g != G_MEASURED;
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
    __attribute__((format(printf, 4, 5))) SIMT_WARN_UNUSED;

static int fail_at(struct parse *p, struct pos at, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = hwdb_report_v(p->diag, SIMT_EPARSE, p->layer->path, p->layer->rel, at, field, fmt, ap);
    va_end(ap);
    return rc;
}

/* Fetches a node, refusing a second visit (a YAML alias repeats a node);
 * `use` is where the document refers to it (the key of a value), reported
 * for an alias, or {0,0} to report the node's own position. */
static SIMT_WARN_UNUSED int node_get(struct parse *p, int id, yaml_node_t **out, const char *field,
                                     struct pos use)
{
    yaml_node_t *node = yaml_document_get_node(p->doc, id);
    if (!node)
        return hwdb_report(p->diag, SIMT_EPARSE, p->layer->path, p->layer->rel, p->layer->top, field,
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
        hwdb_copy_text(buf, size, node_kind(node));
        return;
    }
    if (node->data.scalar.length == 0 && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        hwdb_bprintf(buf, size, "nothing");
        return;
    }
    char q[80];
    quote_scalar(node, q, sizeof q);
    if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        hwdb_copy_text(buf, size, q);
    else
        hwdb_bprintf(buf, size, "%s (a quoted string)", q);
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
    return type == SIMT_FIELD_INT || type == SIMT_FIELD_INT64 || type == SIMT_FIELD_CARVEOUTS ||
           type == SIMT_FIELD_INT_LIST;
}

/* Parses a number node for a field; path is the key path for messages. */
static SIMT_WARN_UNUSED int read_number(struct parse *p, const struct simt_hwdb_field *field,
                                        const yaml_node_t *node, const char *path, double *out)
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

/* read_number on the node `id`, which the document refers to at `use`
 * (node_get); *node receives the node. */
static SIMT_WARN_UNUSED int read_number_node(struct parse *p, const struct simt_hwdb_field *field, int id,
                                             const char *path, struct pos use, const yaml_node_t **node,
                                             double *out)
{
    yaml_node_t *got = NULL;
    int rc = node_get(p, id, &got, path, use);
    if (rc != SIMT_OK)
        return rc;
    *node = got;
    return read_number(p, field, got, path, out);
}

/* A string value: a non-empty scalar (plain or quoted) without control characters. */
static SIMT_WARN_UNUSED int read_text(struct parse *p, const yaml_node_t *node, const char *path, size_t max,
                                      char *out)
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

/* The key node of a mapping's pair: a scalar (`what` says which, for the
 * message: "a plain string"), visited once. */
static SIMT_WARN_UNUSED int pair_key(struct parse *p, const yaml_node_pair_t *pair, const char *path,
                                     const char *what, yaml_node_t **key)
{
    int rc = node_get(p, pair->key, key, path, (struct pos){0, 0});
    if (rc != SIMT_OK)
        return rc;
    if ((*key)->type != YAML_SCALAR_NODE)
        return fail_at(p, mark_pos((*key)->start_mark), path, "a key must be %s, got %s", what,
                       node_kind(*key));
    return SIMT_OK;
}

/* Refuses a key that a pair before `pair` in the mapping already gave;
 * `path` is the key's full path, for the message. */
static SIMT_WARN_UNUSED int refuse_repeat(struct parse *p, const yaml_node_t *map,
                                          const yaml_node_pair_t *pair, const yaml_node_t *key,
                                          const char *path)
{
    const char *text = (const char *)key->data.scalar.value;
    for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
        yaml_node_t *prev_key = yaml_document_get_node(p->doc, prev->key);
        if (prev_key && prev_key->type == YAML_SCALAR_NODE &&
            strcmp((const char *)prev_key->data.scalar.value, text) == 0)
            return fail_at(p, mark_pos(key->start_mark), path, "duplicate key (first given at line %d)",
                           mark_pos(prev_key->start_mark).line);
    }
    return SIMT_OK;
}

/* Every key of a mapping is a plain or quoted scalar and appears once.
 * Calls back with each (key, value) pair. */
typedef int (*pair_fn)(struct parse *p, void *ctx, const yaml_node_t *key, const char *key_text,
                       int value_id);

static SIMT_WARN_UNUSED int each_pair(struct parse *p, const yaml_node_t *map, const char *path, void *ctx,
                                      pair_fn fn)
{
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = NULL;
        int rc = pair_key(p, pair, path, "a plain string", &key);
        if (rc != SIMT_OK)
            return rc;
        const char *text = (const char *)key->data.scalar.value;
        if (strlen(text) != key->data.scalar.length || key->data.scalar.length == 0 ||
            key->data.scalar.length > 80)
            return fail_at(p, mark_pos(key->start_mark), path, "malformed key");
        char full[160];
        hwdb_bprintf(full, sizeof full, "%s%s%s", path, path[0] ? "." : "", text);
        rc = refuse_repeat(p, map, pair, key, full);
        if (rc != SIMT_OK)
            return rc;
        rc = fn(p, ctx, key, text, pair->value);
        if (rc != SIMT_OK)
            return rc;
    }
    return SIMT_OK;
}

static SIMT_WARN_UNUSED int expect_mapping(struct parse *p, const yaml_node_t *node, const char *path,
                                           const char *what)
{
    if (node->type == YAML_MAPPING_NODE)
        return SIMT_OK;
    char got[128];
    describe_got(node, got, sizeof got);
    return fail_at(p, mark_pos(node->start_mark), path, "expected %s, got %s", what, got);
}

/* "unknown key", with a hint: a near spelling in this group, or the group the key belongs to */
static SIMT_WARN_UNUSED int unknown_key(struct parse *p, int group, const yaml_node_t *key, const char *text)
{
    char path[160];
    hwdb_bprintf(path, sizeof path, "%s.%s", hwdb_group_names[group], text);
    const char *best = NULL;
    size_t best_distance = 3;
    for (size_t i = 0; i < p->field_count; i++) {
        const struct simt_hwdb_field *f = &p->fields[i];
        if (strcmp(f->key, text) == 0 && strcmp(f->group, hwdb_group_names[group]) != 0)
            return fail_at(p, mark_pos(key->start_mark), path, "unknown key (%s belongs in %s)", text,
                           f->group);
        if (strcmp(f->group, hwdb_group_names[group]) == 0) {
            size_t d = edit_distance(text, f->key);
            if (d < best_distance) {
                best_distance = d;
                best = f->key;
            }
        }
    }
    for (int t = 0; t < T_COUNT; t++) {
        if (hwdb_text_slots[t].group != group)
            continue;
        size_t d = edit_distance(text, hwdb_text_slots[t].key);
        if (d < best_distance) {
            best_distance = d;
            best = hwdb_text_slots[t].key;
        }
    }
    if (best)
        return fail_at(p, mark_pos(key->start_mark), path, "unknown key (did you mean %s?)", best);
    return fail_at(p, mark_pos(key->start_mark), path, "unknown key");
}

struct group_ctx {
    int group;
};

static SIMT_WARN_UNUSED int read_dtypes(struct parse *p, size_t fi, const yaml_node_t *value,
                                        const char *path)
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
        yaml_node_t *key = NULL;
        const yaml_node_t *num;
        rc = pair_key(p, pair, path, "a data type name", &key);
        if (rc != SIMT_OK)
            return rc;
        const char *name = (const char *)key->data.scalar.value;
        char sub[200];
        hwdb_bprintf(sub, sizeof sub, "%s.%.40s", path, name);
        enum simt_dtype dtype;
        if (strlen(name) != key->data.scalar.length || simt_dtype_parse(name, &dtype) != SIMT_OK) {
            char names[200];
            return fail_at(p, mark_pos(key->start_mark), sub, "unknown data type (expected one of %s)",
                           simt_dtype_list(names, sizeof names));
        }
        unsigned bit = 1u << (unsigned)dtype;
        rc = refuse_repeat(p, value, pair, key, sub);
        if (rc != SIMT_OK)
            return rc;
        double v;
        rc = read_number_node(p, field, pair->value, sub, mark_pos(key->start_mark), &num, &v);
        if (rc != SIMT_OK)
            return rc;
        double *slot = (double *)(void *)((char *)&l->spec + field->offset);
        slot[dtype] = v;
        l->present[fi] |= bit;
    }
    l->field_at[fi] = mark_pos(value->start_mark);
    return SIMT_OK;
}

static SIMT_WARN_UNUSED int read_carveouts(struct parse *p, size_t fi, const yaml_node_t *value,
                                           const char *path)
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
        hwdb_bprintf(sub, sizeof sub, "%s[%d]", path, count);
        if (count == SIMT_MAX_CARVEOUTS)
            return fail_at(p, mark_pos(value->start_mark), path, "expected at most %d sizes",
                           SIMT_MAX_CARVEOUTS);
        const yaml_node_t *num;
        double v;
        int rc = read_number_node(p, field, *item, sub, mark_pos(value->start_mark), &num, &v);
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

/* A list of integers (sm.gpc_sms: [18, 18, 16]): each entry in the field's
 * range, placed at its own line and column when it is not. */
static SIMT_WARN_UNUSED int read_int_list(struct parse *p, size_t fi, const yaml_node_t *value,
                                          const char *path)
{
    const struct simt_hwdb_field *field = &p->fields[fi];
    struct layer *l = p->layer;
    char what[96];
    simt_hwdb_field_describe(field, what, sizeof what);
    if (value->type != YAML_SEQUENCE_NODE) {
        char got[128];
        describe_got(value, got, sizeof got);
        return fail_at(p, mark_pos(value->start_mark), path, "expected a list of integers (each %s), got %s",
                       strstr(what, " in ") + 1, got);
    }
    int entries[SIMT_HWDB_MAX_LIST];
    int count = 0;
    for (yaml_node_item_t *item = value->data.sequence.items.start; item < value->data.sequence.items.top;
         item++) {
        char sub[200];
        hwdb_bprintf(sub, sizeof sub, "%s[%d]", path, count);
        if (count == SIMT_HWDB_MAX_LIST)
            return fail_at(p, mark_pos(value->start_mark), path, "expected at most %d entries",
                           SIMT_HWDB_MAX_LIST);
        const yaml_node_t *num;
        double v;
        int rc = read_number_node(p, field, *item, sub, mark_pos(value->start_mark), &num, &v);
        if (rc != SIMT_OK)
            return rc;
        entries[count++] = (int)v;
    }
    if (count == 0)
        return fail_at(p, mark_pos(value->start_mark), path, "expected at least one entry");
    struct simt_diag ignored;
    int rc = simt_hwdb_field_set_list(&l->spec, field, entries, count, &ignored);
    if (rc != SIMT_OK)
        return fail_at(p, mark_pos(value->start_mark), path, "%s", ignored.message);
    l->present[fi] = 1;
    l->field_at[fi] = mark_pos(value->start_mark);
    return SIMT_OK;
}

static SIMT_WARN_UNUSED int group_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text,
                                       int value_id)
{
    int group = ((struct group_ctx *)ctx)->group;
    struct layer *l = p->layer;
    char path[160];
    hwdb_bprintf(path, sizeof path, "%s.%s", hwdb_group_names[group], text);

    for (int t = 0; t < T_COUNT; t++) {
        if (hwdb_text_slots[t].group != group || strcmp(hwdb_text_slots[t].key, text) != 0)
            continue;
        if (!(hwdb_text_slots[t].allowed & (l->is_gpu ? IN_GPU : IN_ARCH)))
            return fail_at(p, mark_pos(key->start_mark), path,
                           "belongs in a GPU file (gpus/<id>.yaml), not in "
                           "an architecture file");
        yaml_node_t *value = NULL;
        int rc = node_get(p, value_id, &value, path, mark_pos(key->start_mark));
        if (rc != SIMT_OK)
            return rc;
        rc = read_text(p, value, path, hwdb_text_slots[t].max, l->text[t]);
        if (rc != SIMT_OK)
            return rc;
        l->has_text[t] = 1;
        l->text_at[t] = mark_pos(value->start_mark);
        return SIMT_OK;
    }
    for (size_t fi = 0; fi < p->field_count; fi++) {
        const struct simt_hwdb_field *field = &p->fields[fi];
        if (strcmp(field->group, hwdb_group_names[group]) != 0 || strcmp(field->key, text) != 0)
            continue;
        yaml_node_t *value = NULL;
        int rc = node_get(p, value_id, &value, path, mark_pos(key->start_mark));
        if (rc != SIMT_OK)
            return rc;
        if (field->type == SIMT_FIELD_DTYPES)
            return read_dtypes(p, fi, value, path);
        if (field->type == SIMT_FIELD_CARVEOUTS)
            return read_carveouts(p, fi, value, path);
        if (field->type == SIMT_FIELD_INT_LIST)
            return read_int_list(p, fi, value, path);
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

static SIMT_WARN_UNUSED int source_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text,
                                        int value_id)
{
    (void)ctx;
    struct layer *l = p->layer;
    char path[160];
    hwdb_bprintf(path, sizeof path, "sources.%s", text);
    int g = hwdb_group_find(text);
    if (g < 0)
        return fail_at(
            p, mark_pos(key->start_mark), path,
            "unknown group (expected identity, limits, amd, sm, clocks, memory, throughput, latency, "
            "interconnect, measured or achievable)");
    yaml_node_t *value = NULL;
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

static SIMT_WARN_UNUSED int top_pair(struct parse *p, void *ctx, const yaml_node_t *key, const char *text,
                                     int value_id)
{
    (void)ctx;
    struct layer *l = p->layer;
    yaml_node_t *value = NULL;
    int rc = node_get(p, value_id, &value, text, mark_pos(key->start_mark));
    if (rc != SIMT_OK)
        return rc;
    if (strcmp(text, "arch") == 0) {
        rc = read_text(p, value, "arch", MAX_ID_LEN, l->arch);
        if (rc != SIMT_OK)
            return rc;
        if (!hwdb_valid_id(l->arch))
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
    int g = hwdb_group_find(text);
    if (g < 0) {
        const char *best = NULL;
        size_t best_distance = 3;
        const char *candidates[G_COUNT + 2];
        for (int i = 0; i < G_COUNT; i++)
            candidates[i] = hwdb_group_names[i];
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
static SIMT_WARN_UNUSED int check_layer(struct parse *p)
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
            hwdb_bprintf(path, sizeof path, "sources.%s", hwdb_group_names[g]);
            return fail_at(p, l->group_at[g], path,
                           "required: this file gives %s figures, say where they came from",
                           hwdb_group_names[g]);
        }
    }
    if (l->has_group[G_MEASURED]) {
        static const int needed[] = {T_METHOD, T_DATE, T_DEVICE, T_DRIVER};
        for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
            int t = needed[i];
            if (!l->has_text[t]) {
                char path[64];
                hwdb_bprintf(path, sizeof path, "measured.%s", hwdb_text_slots[t].key);
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

/* 1-based line and column (in bytes) of a byte offset into the text */
static struct pos offset_pos(const unsigned char *text, size_t len, size_t offset)
{
    struct pos at = {1, 1};
    for (size_t i = 0; i < offset && i < len; i++) {
        if (text[i] == '\n') {
            at.line++;
            at.column = 1;
        } else {
            at.column++;
        }
    }
    return at;
}

/* Reads the whole file into *text (malloc'd, the caller frees it). Only a
 * regular file is read: it is opened without blocking (a FIFO or a device
 * in the directory cannot stall the loader) and checked with fstat before
 * any read. 0, or SIMT_EIO / SIMT_ETOOBIG / SIMT_ENOMEM reported in diag. */
static SIMT_WARN_UNUSED int read_text_file(struct layer *l, unsigned char **text, size_t *len,
                                           struct simt_diag *diag)
{
    *text = NULL;
    *len = 0;
    int fd = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return hwdb_report(diag, SIMT_EIO, l->path, l->rel, (struct pos){0, 0}, "", "cannot open: %s",
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return hwdb_report(diag, SIMT_EIO, l->path, l->rel, (struct pos){0, 0}, "", "not a regular file");
    }
    if (st.st_size > MAX_FILE_BYTES) {
        close(fd);
        return hwdb_report(diag, SIMT_ETOOBIG, l->path, l->rel, (struct pos){0, 0}, "",
                           "larger than %d bytes", MAX_FILE_BYTES);
    }
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return hwdb_report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the file shrank: parse what there is */
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return SIMT_OK;
}

/* Refuses nesting deeper than MAX_NESTING with one pass over the events,
 * which stops at the first level too deep (so the scanner never sees the
 * rest). A syntax error is left to the real parse, which reports it. */
static SIMT_WARN_UNUSED int check_nesting(struct layer *l, const unsigned char *text, size_t len,
                                          struct simt_diag *diag)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return hwdb_report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
    yaml_parser_set_input_string(&parser, text, len);
    int depth = 0, rc = SIMT_OK;
    for (;;) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event))
            break;
        yaml_event_type_t type = event.type;
        if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) {
            if (++depth > MAX_NESTING)
                rc = hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, mark_pos(event.start_mark), "",
                                 "nested deeper than %d levels", MAX_NESTING);
        } else if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&event);
        if (rc != SIMT_OK || type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}

static SIMT_WARN_UNUSED int yaml_problem(struct simt_diag *diag, struct layer *l, const yaml_parser_t *parser,
                                         const unsigned char *text, size_t len)
{
    struct pos at = mark_pos(parser->problem_mark);
    const char *problem = parser->problem ? parser->problem : "malformed YAML";
    if (parser->error == YAML_MEMORY_ERROR)
        return hwdb_report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory while parsing");
    if (parser->error == YAML_READER_ERROR) {
        /* the reader gives a byte offset only: count lines up to it */
        at = offset_pos(text, len, parser->problem_offset);
        return hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s (at byte %zu)",
                           problem, parser->problem_offset);
    }
    if (parser->context)
        return hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s %s (line %d)",
                           problem, parser->context, (int)parser->context_mark.line + 1);
    return hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, at, "", "YAML syntax error: %s", problem);
}

static SIMT_WARN_UNUSED int parse_file(struct layer *l, struct simt_diag *diag)
{
    size_t field_count;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&field_count);
    l->top.line = 1;
    l->top.column = 1;
    if (field_count > MAX_FIELDS)
        return hwdb_report(diag, SIMT_EINVAL, l->path, l->rel, l->top, "", "internal: field table too large");

    unsigned char *text = NULL;
    size_t len = 0;
    int rc = read_text_file(l, &text, &len, diag);
    if (rc == SIMT_OK)
        rc = check_nesting(l, text, len, diag);
    if (rc != SIMT_OK) {
        free(text);
        return rc;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        free(text);
        return hwdb_report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
    }
    yaml_parser_set_input_string(&parser, text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = yaml_problem(diag, l, &parser, text, len);
        yaml_parser_delete(&parser);
        free(text);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, l->top, "",
                         "empty file: expected a mapping of groups");
    } else {
        /* a second document is an error, and so is junk after the first */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            rc = yaml_problem(diag, l, &parser, text, len);
        } else {
            yaml_node_t *extra_root = yaml_document_get_root_node(&extra);
            if (extra_root)
                rc = hwdb_report(diag, SIMT_EPARSE, l->path, l->rel, mark_pos(extra_root->start_mark), "",
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
            rc = hwdb_report(diag, SIMT_ENOMEM, l->path, l->rel, l->top, "", "out of memory");
        } else {
            yaml_node_t *top = NULL;
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
    free(text);
    return rc;
}

void hwdb_layer_free(struct layer *l)
{
    if (!l)
        return;
    free(l->path);
    free(l->rel);
    free(l->name);
    free(l);
}

/* name: "h200-sxm.yaml"; sub: "gpus" */
int hwdb_layer_load(const char *dir, const char *sub, const char *file_name, int is_gpu, struct layer **out,
                    struct simt_diag *diag)
{
    *out = NULL;
    struct layer *l = calloc(1, sizeof *l);
    if (!l)
        return hwdb_report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    char *subdir = hwdb_join_path(dir, sub);
    l->path = subdir ? hwdb_join_path(subdir, file_name) : NULL;
    free(subdir);
    l->rel = hwdb_join_path(sub, file_name);
    l->name = hwdb_dup_string(file_name);
    l->is_gpu = is_gpu;
    if (!l->path || !l->rel || !l->name) {
        hwdb_layer_free(l);
        return hwdb_report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    l->name[strlen(l->name) - strlen(".yaml")] = '\0';
    int rc = parse_file(l, diag);
    if (rc != SIMT_OK) {
        hwdb_layer_free(l);
        return rc;
    }
    *out = l;
    return SIMT_OK;
}
