/* models.c - the transformer presets (models.h): <dir>/models/<id>.yaml
 * read strictly with libyaml's document API. The GPU reader's helpers in
 * yaml_reader.c are file-static and tied to its layer struct, so this file
 * keeps the same rules with its own small walk: every key known and given
 * once, integers written as integers, booleans as true/false, the id equal
 * to the file name; diagnostics through hwdb_report (file:line:column, the
 * key, what was expected). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hwdb_internal.h"
#include "models.h"

struct mparse {
    yaml_document_t doc;
    const char *path, *rel;
    struct simt_diag *diag;
};

static struct pos at(const yaml_node_t *n)
{
    return (struct pos){(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

static const char *scalar(const yaml_node_t *n)
{
    return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The shape's integer keys, in the order a file gives them. */
static const char *const int_keys[] = {"hidden", "heads", "kv_heads", "head_dim", "ffn", "layers", "vocab"};
#define INT_KEYS (sizeof int_keys / sizeof int_keys[0])

static int64_t *int_slot(struct simt_tfm_shape *s, size_t i)
{
    int64_t *slots[INT_KEYS] = {&s->hidden, &s->heads,  &s->kv_heads, &s->head_dim,
                                &s->ffn,    &s->layers, &s->vocab};
    return slots[i];
}

static int read_int(struct mparse *p, const yaml_node_t *v, const char *field, int64_t *out)
{
    const char *t = scalar(v);
    char *end = NULL;
    errno = 0;
    long long x = t != NULL && *t != '\0' && *t != '+' ? strtoll(t, &end, 10) : 0;
    if (t == NULL || end == NULL || *end != '\0' || errno != 0 || x < 1 || x > (1LL << 40) ||
        v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(v), field,
                           "expected a plain integer from 1 to 2^40, got \"%s\"",
                           t != NULL ? t : "(not a scalar)");
    *out = (int64_t)x;
    return SIMT_OK;
}

static int read_shape(struct mparse *p, const yaml_node_t *map, struct simt_tfm_shape *s)
{
    if (map->type != YAML_MAPPING_NODE)
        return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(map), "shape", "expected a mapping");
    unsigned seen = 0;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(&p->doc, pr->key),
                    *v = yaml_document_get_node(&p->doc, pr->value);
        const char *key = scalar(k);
        char field[64];
        hwdb_bprintf(field, sizeof field, "shape.%s", key != NULL ? key : "?");
        unsigned bit = 0;
        int rc = SIMT_OK;
        for (size_t i = 0; key != NULL && i < INT_KEYS && bit == 0; i++)
            if (strcmp(key, int_keys[i]) == 0) {
                bit = 1u << i;
                rc = read_int(p, v, field, int_slot(s, i));
            }
        if (key != NULL && bit == 0 && strcmp(key, "mlp") == 0) {
            bit = 1u << INT_KEYS;
            const char *t = scalar(v);
            if (t != NULL && (strcmp(t, "swiglu") == 0 || strcmp(t, "gelu") == 0))
                s->mlp = strcmp(t, "gelu") == 0 ? SIMT_TFM_GELU : SIMT_TFM_SWIGLU;
            else
                rc = hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(v), field,
                                 "expected swiglu or gelu");
        }
        if (key != NULL && bit == 0 && strcmp(key, "tied_embeddings") == 0) {
            bit = 1u << (INT_KEYS + 1);
            const char *t = scalar(v);
            if (t != NULL && (strcmp(t, "true") == 0 || strcmp(t, "false") == 0))
                s->tied_embeddings = strcmp(t, "true") == 0;
            else
                rc = hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(v), field,
                                 "expected true or false");
        }
        if (bit == 0)
            return hwdb_report(
                p->diag, SIMT_EPARSE, p->path, p->rel, at(k), field,
                "unknown key (known: hidden, heads, kv_heads, head_dim, ffn, layers, vocab, mlp, "
                "tied_embeddings)");
        if (seen & bit)
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(k), field, "given twice");
        seen |= bit;
        if (rc != SIMT_OK)
            return rc;
    }
    for (size_t i = 0; i < INT_KEYS + 2; i++)
        if (!(seen & (1u << i)))
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(map), "shape", "missing %s",
                               i < INT_KEYS    ? int_keys[i]
                               : i == INT_KEYS ? "mlp"
                                               : "tied_embeddings");
    if (s->heads % s->kv_heads != 0)
        return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(map), "shape.kv_heads",
                           "heads must be a multiple of kv_heads");
    return SIMT_OK;
}

static int read_text(struct mparse *p, const yaml_node_t *v, const char *field, char *dst, size_t size)
{
    const char *t = scalar(v);
    if (t == NULL || *t == '\0' || strlen(t) >= size)
        return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(v), field,
                           "expected a non-empty string of at most %zu characters", size - 1);
    hwdb_copy_text(dst, size, t);
    return SIMT_OK;
}

static int read_top(struct mparse *p, const char *stem, struct simt_hwdb_model *m)
{
    yaml_node_t *root = yaml_document_get_root_node(&p->doc);
    if (root == NULL || root->type != YAML_MAPPING_NODE)
        return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, (struct pos){1, 1}, "",
                           "expected a mapping (id, name, source, shape)");
    static const char *const keys[] = {"id", "name", "source", "shape"};
    unsigned seen = 0;
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(&p->doc, pr->key),
                    *v = yaml_document_get_node(&p->doc, pr->value);
        const char *key = scalar(k);
        int which = -1;
        for (int i = 0; key != NULL && i < 4; i++)
            if (strcmp(key, keys[i]) == 0)
                which = i;
        if (which < 0)
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(k), key != NULL ? key : "",
                               "unknown key (known: id, name, source, shape)");
        if (seen & (1u << which))
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(k), key, "given twice");
        seen |= 1u << which;
        int rc = which == 0   ? read_text(p, v, "id", m->id, sizeof m->id)
                 : which == 1 ? read_text(p, v, "name", m->name, sizeof m->name)
                 : which == 2 ? read_text(p, v, "source", m->source, sizeof m->source)
                              : read_shape(p, v, &m->shape);
        if (rc != SIMT_OK)
            return rc;
        if (which == 0 && strcmp(m->id, stem) != 0)
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(v), "id",
                               "the id \"%s\" differs from the file name's \"%s\"", m->id, stem);
    }
    for (int i = 0; i < 4; i++)
        if (!(seen & (1u << i)))
            return hwdb_report(p->diag, SIMT_EPARSE, p->path, p->rel, at(root), keys[i], "missing");
    return SIMT_OK;
}

static int load_one(const char *dir, const char *file, struct simt_hwdb_model *m, struct simt_diag *diag)
{
    char path[4096], rel[320], stem[MAX_ID_LEN + 1];
    hwdb_bprintf(path, sizeof path, "%s/models/%s", dir, file);
    hwdb_bprintf(rel, sizeof rel, "models/%s", file);
    size_t n = strlen(file) - strlen(".yaml");
    if (n == 0 || n > MAX_ID_LEN)
        return hwdb_report(diag, SIMT_EPARSE, path, rel, (struct pos){0, 0}, "",
                           "file name too long or empty");
    memcpy(stem, file, n);
    stem[n] = '\0';
    if (!hwdb_valid_id(stem))
        return hwdb_report(
            diag, SIMT_EPARSE, path, rel, (struct pos){0, 0}, "",
            "a file name must be <id>.yaml with an id of lowercase letters, digits, '-', '_', '.'");
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return hwdb_report(diag, SIMT_EIO, path, rel, (struct pos){0, 0}, "", "cannot open: %s",
                           strerror(errno));
    yaml_parser_t parser;
    struct mparse p = {.path = path, .rel = rel, .diag = diag};
    int rc = SIMT_OK;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return hwdb_report(diag, SIMT_ENOMEM, path, rel, (struct pos){0, 0}, "", "out of memory");
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &p.doc)) {
        rc = hwdb_report(diag, SIMT_EPARSE, path, rel,
                         (struct pos){(int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1},
                         "", "YAML: %s", parser.problem != NULL ? parser.problem : "malformed");
    } else {
        memset(m, 0, sizeof *m);
        rc = read_top(&p, stem, m);
        yaml_document_delete(&p.doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

static int compare_files(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

int hwdb_models_load(const char *dir, struct simt_hwdb_model **out, size_t *count, struct simt_diag *diag)
{
    *out = NULL;
    *count = 0;
    char path[4096];
    hwdb_bprintf(path, sizeof path, "%s/models", dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return errno == ENOENT ? SIMT_OK
                               : hwdb_report(diag, SIMT_EIO, path, "models", (struct pos){0, 0}, "",
                                             "cannot open the directory: %s", strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = SIMT_OK;
    struct dirent *e;
    while (rc == SIMT_OK && (e = readdir(d)) != NULL) {
        if (!is_yaml(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **bigger = realloc(names, cap * sizeof *names);
            if (bigger == NULL)
                rc = SIMT_ENOMEM;
            else
                names = bigger;
        }
        if (rc == SIMT_OK && (names[n] = hwdb_dup_string(e->d_name)) != NULL)
            n++;
        else
            rc = SIMT_ENOMEM;
    }
    closedir(d);
    if (rc == SIMT_OK && n > 0) {
        qsort(names, n, sizeof *names, compare_files);
        *out = calloc(n, sizeof **out);
        if (*out == NULL)
            rc = SIMT_ENOMEM;
    }
    if (rc == SIMT_ENOMEM)
        rc = hwdb_report(diag, SIMT_ENOMEM, path, "models", (struct pos){0, 0}, "", "out of memory");
    for (size_t i = 0; rc == SIMT_OK && i < n; i++)
        rc = load_one(dir, names[i], &(*out)[i], diag);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc != SIMT_OK) {
        free(*out);
        *out = NULL;
        return rc;
    }
    *count = n;
    return SIMT_OK;
}

void hwdb_models_free(struct simt_hwdb_model *models)
{
    free(models);
}
