/* db.c - the database's lifecycle: lists the YAML files under <dir>/arch
 * and <dir>/gpus (refusing .yml and badly named files rather than
 * ignoring them), reads each through yaml_reader.c, merges every GPU over
 * its architecture (merge.c), and returns an immutable, reference-counted
 * database with GPUs sorted by id; lookups by index and by id. The count is
 * atomic, so a server can swap databases while requests still read the old
 * one. A failure leaks nothing and returns no database. */
#define _POSIX_C_SOURCE 200809L

#include "hwdb_internal.h"
#include "models.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct simt_hwdb {
    atomic_int refs;
    char *dir;
    size_t count;
    struct simt_hwdb_gpu *gpus;
    size_t model_count;             /* transformer presets (models.c) */
    struct simt_hwdb_model *models; /* sorted by id */
};

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
static SIMT_WARN_UNUSED int list_yaml(const char *dir, const char *sub, struct name_list *out,
                                      struct simt_diag *diag)
{
    out->names = NULL;
    out->count = 0;
    char *path = hwdb_join_path(dir, sub);
    if (!path)
        return hwdb_report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    DIR *d = opendir(path);
    if (!d) {
        int err = errno;
        int rc =
            hwdb_report(diag, err == ENOENT ? SIMT_ENOENT : SIMT_EIO, path, path, (struct pos){0, 0}, "",
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
        hwdb_bprintf(rel, sizeof rel, "%s/%s", sub, name);
        hwdb_bprintf(full, sizeof full, "%s/%s", path, name);
        if (ends_with(name, ".yml")) {
            rc = hwdb_report(diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "",
                             "database files end in .yaml (rename it to be loaded)");
            break;
        }
        if (!ends_with(name, ".yaml"))
            continue;
        size_t stem = strlen(name) - strlen(".yaml");
        char id[MAX_ID_LEN + 2];
        if (stem == 0 || stem > MAX_ID_LEN) {
            rc = hwdb_report(diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "",
                             "file name too long or empty");
            break;
        }
        memcpy(id, name, stem);
        id[stem] = '\0';
        if (!hwdb_valid_id(id)) {
            rc = hwdb_report(
                diag, SIMT_EPARSE, full, rel, (struct pos){0, 0}, "",
                "a file name must be <id>.yaml with an id of lowercase letters, digits, '-', '_', '.'");
            break;
        }
        if (out->count == capacity) {
            size_t grown = capacity ? capacity * 2 : 16;
            char **bigger = realloc(out->names, grown * sizeof *bigger);
            if (!bigger) {
                rc = hwdb_report(diag, SIMT_ENOMEM, path, path, (struct pos){0, 0}, "", "out of memory");
                break;
            }
            out->names = bigger;
            capacity = grown;
        }
        out->names[out->count] = hwdb_dup_string(name);
        if (!out->names[out->count]) {
            rc = hwdb_report(diag, SIMT_ENOMEM, path, path, (struct pos){0, 0}, "", "out of memory");
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
    hwdb_models_free(db->models);
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
        return hwdb_report(diag, SIMT_EINVAL, "", "", (struct pos){0, 0}, "",
                           "no directory or no result pointer");

    struct name_list arch_names = {0}, gpu_names = {0};
    struct layer **archs = NULL;
    struct simt_hwdb *db = NULL;
    int rc = list_yaml(dir, "arch", &arch_names, diag);
    if (rc == SIMT_OK)
        rc = list_yaml(dir, "gpus", &gpu_names, diag);
    if (rc == SIMT_OK && gpu_names.count == 0) {
        char *gpus = hwdb_join_path(dir, "gpus");
        rc = hwdb_report(diag, SIMT_ENOENT, gpus ? gpus : dir, gpus ? gpus : dir, (struct pos){0, 0}, "",
                         "no GPU files (<id>.yaml) in the directory");
        free(gpus);
    }
    if (rc == SIMT_OK && arch_names.count > 0) {
        archs = calloc(arch_names.count, sizeof *archs);
        if (!archs)
            rc = hwdb_report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    for (size_t i = 0; rc == SIMT_OK && i < arch_names.count; i++)
        rc = hwdb_layer_load(dir, "arch", arch_names.names[i], 0, &archs[i], diag);

    if (rc == SIMT_OK) {
        db = calloc(1, sizeof *db);
        if (db) {
            db->dir = hwdb_dup_string(dir);
            db->gpus = calloc(gpu_names.count, sizeof *db->gpus);
        }
        if (!db || !db->dir || !db->gpus)
            rc = hwdb_report(diag, SIMT_ENOMEM, dir, dir, (struct pos){0, 0}, "", "out of memory");
    }
    for (size_t i = 0; rc == SIMT_OK && i < gpu_names.count; i++) {
        struct layer *gpu;
        rc = hwdb_layer_load(dir, "gpus", gpu_names.names[i], 1, &gpu, diag);
        if (rc != SIMT_OK)
            break;
        const struct layer *arch = NULL;
        for (size_t a = 0; a < arch_names.count; a++) {
            if (strcmp(archs[a]->name, gpu->arch) == 0)
                arch = archs[a];
        }
        if (!arch)
            rc = hwdb_report(diag, SIMT_ENOENT, gpu->path, gpu->rel, gpu->arch_at, "arch",
                             "unknown architecture \"%s\" (no arch/%s.yaml)", gpu->arch, gpu->arch);
        else
            rc = hwdb_merge(arch, gpu, &db->gpus[i], diag);
        hwdb_layer_free(gpu);
        if (rc == SIMT_OK)
            db->count++;
    }
    for (size_t i = 0; archs && i < arch_names.count; i++)
        hwdb_layer_free(archs[i]);
    free(archs);
    names_free(&arch_names);
    names_free(&gpu_names);
    if (rc == SIMT_OK)
        rc = hwdb_models_load(dir, &db->models, &db->model_count, diag);
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

static int is_dir(const char *path)
{
    struct stat st;
    return path != NULL && path[0] != '\0' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *simt_hwdb_default_dir(const char *from_bin, const char *build_dir, const char *source_dir)
{
    const char *env = getenv("SIMT_HWDB");
    if (env != NULL && env[0] != '\0')
        return env;
    static char found[PATH_MAX + 64];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    if (from_bin != NULL && from_bin[0] != '\0') {
        snprintf(found, sizeof found, "%s/%s", exe, from_bin);
        if (is_dir(found))
            return found;
    }
    size_t build_len = build_dir != NULL ? strlen(build_dir) : 0;
    if (build_len > 0 && strncmp(exe, build_dir, build_len) == 0 &&
        (exe[build_len] == '/' || exe[build_len] == '\0') && is_dir(source_dir))
        return source_dir;
    return NULL;
}

size_t simt_hwdb_model_count(const struct simt_hwdb *db)
{
    return db ? db->model_count : 0;
}

const struct simt_hwdb_model *simt_hwdb_model_at(const struct simt_hwdb *db, size_t i)
{
    return db && i < db->model_count ? &db->models[i] : NULL;
}

const struct simt_hwdb_model *simt_hwdb_model_find(const struct simt_hwdb *db, const char *id)
{
    for (size_t i = 0; db && id && i < db->model_count; i++)
        if (strcmp(db->models[i].id, id) == 0)
            return &db->models[i];
    return NULL;
}
