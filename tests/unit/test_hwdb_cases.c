/* test_hwdb_cases.c - data-driven tests of the database loader: every folder
 * under tests/hwdb/cases/ is a small database tree (arch/, gpus/). With an
 * `error` file the load must fail and every line of `error` must occur in the
 * diagnostic's message; a first line of the form "rel/path.yaml:L:C: ..." must
 * also agree with diag.file, diag.line and diag.column. Without one the load
 * must succeed, and an optional `expect` file ("<gpu id> <field>[.<dtype>]
 * <value>" per line) names values the merged record must hold. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwdb.h"

#define CASES_DIR SIMT_TEST_DIR "/hwdb/cases"
#define MAX_CASES 256

static char *case_names[MAX_CASES];
static int case_count;

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_cases(void)
{
    DIR *d = opendir(CASES_DIR);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && case_count < MAX_CASES) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", CASES_DIR, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            case_names[case_count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(case_names, (size_t)case_count, sizeof case_names[0], compare_names);
}

/* Reads a small text file whole; NULL when absent. Caller frees. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = buf ? fread(buf, 1, 65535, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* "gpus/g1.yaml:14:3: ..." -> rel "gpus/g1.yaml", 14, 3; 0 when not of that form */
static int parse_location(const char *line, char *rel, size_t size, int *l, int *c)
{
    const char *colon = strchr(line, ':');
    if (!colon || (size_t)(colon - line) >= size)
        return 0;
    char *end;
    long lv = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != ':')
        return 0;
    const char *cstart = end + 1;
    long cv = strtol(cstart, &end, 10);
    if (end == cstart || *end != ':')
        return 0;
    memcpy(rel, line, (size_t)(colon - line));
    rel[colon - line] = '\0';
    *l = (int)lv;
    *c = (int)cv;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void check_error(const char *name, const char *dir, const char *expected)
{
    struct simt_hwdb *db = (struct simt_hwdb *)(uintptr_t)1;
    struct simt_diag diag;
    int rc = simt_hwdb_load_dir(dir, &db, &diag);
    ck_assert_msg(rc < 0, "%s: loaded, but should fail with: %s", name, expected);
    ck_assert_msg(db == NULL, "%s: failure must leave *out NULL", name);
    ck_assert_msg(diag.file[0] != '\0', "%s: diag.file empty", name);
    char *copy = strdup(expected);
    int first = 1;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '\0')
            continue;
        ck_assert_msg(strstr(diag.message, line) != NULL, "%s:\n  expected: %s\n  got:      %s", name, line,
                      diag.message);
        char rel[256];
        int l, c;
        if (first && parse_location(line, rel, sizeof rel, &l, &c)) {
            ck_assert_msg(diag.line == l && diag.column == c,
                          "%s: diag line:column %d:%d, message says %d:%d", name, diag.line, diag.column, l,
                          c);
            ck_assert_msg(ends_with(diag.file, rel), "%s: diag.file %s does not end with %s", name, diag.file,
                          rel);
        }
        first = 0;
    }
    free(copy);
}

static double value_of(const struct simt_hwdb_gpu *gpu, const char *key, int *found)
{
    *found = 1;
    if (strcmp(key, "has_measured") == 0)
        return gpu->has_measured;
    if (strcmp(key, "shared_carveout_count") == 0)
        return gpu->spec.shared_carveout_count;
    int index;
    if (sscanf(key, "shared_carveout_bytes[%d]", &index) == 1) {
        ck_assert(index >= 0 && index < SIMT_MAX_CARVEOUTS);
        return (double)gpu->spec.shared_carveout_bytes[index];
    }
    char field_name[128];
    snprintf(field_name, sizeof field_name, "%s", key);
    char *dot = strchr(field_name, '.');
    if (dot)
        *dot = '\0';
    const struct simt_hwdb_field *f = simt_hwdb_field_find(field_name);
    if (!f) {
        *found = 0;
        return 0;
    }
    if (dot) {
        enum simt_dtype dtype;
        if (simt_dtype_parse(dot + 1, &dtype) != SIMT_OK) {
            *found = 0;
            return 0;
        }
        return simt_hwdb_field_get_dtype(&gpu->spec, f, dtype);
    }
    return simt_hwdb_field_get(&gpu->spec, f);
}

static void check_success(const char *name, const char *dir, const char *expect)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    int rc = simt_hwdb_load_dir(dir, &db, &diag);
    ck_assert_msg(rc == SIMT_OK, "%s: should load, got %d: %s", name, rc, diag.message);
    ck_assert_ptr_nonnull(db);
    ck_assert_uint_ge(simt_hwdb_count(db), 1);
    if (expect) {
        char *copy = strdup(expect);
        for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char id[64], key[128];
            double want;
            if (line[0] == '#' || sscanf(line, "%63s %127s %lf", id, key, &want) != 3)
                continue;
            const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, id);
            ck_assert_msg(gpu != NULL, "%s: no GPU %s", name, id);
            int found;
            double got = value_of(gpu, key, &found);
            ck_assert_msg(found, "%s: no field %s", name, key);
            ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: %s %s = %g, expected %g", name, id, key,
                          got, want);
        }
        free(copy);
    }
    simt_hwdb_unref(db);
}

START_TEST(test_case)
{
    ck_assert_int_gt(case_count, 0);
    const char *name = case_names[_i];
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/%s", CASES_DIR, name);
    snprintf(path, sizeof path, "%s/error", dir);
    char *error = read_text(path);
    snprintf(path, sizeof path, "%s/expect", dir);
    char *expect = read_text(path);
    if (error && error[0])
        check_error(name, dir, error);
    else
        check_success(name, dir, expect);
    free(error);
    free(expect);
}
END_TEST

/* The kinds of bad file the loader must refuse each have a case. */
static const char *const required_cases[] = {
    "unknown-key",
    "duplicate-key",
    "wrong-type-string",
    "out-of-range",
    "non-integer",
    "missing-required",
    "unknown-arch",
    "malformed-yaml",
    "id-mismatch",
    "empty-file",
    "measured-missing-method",
    "measured-unknown-key",
    "valid-minimal",
    "valid-measured",
};

START_TEST(test_required_cases_present)
{
    const char *want = required_cases[_i];
    int found = 0;
    for (int i = 0; i < case_count; i++)
        found |= strcmp(case_names[i], want) == 0;
    ck_assert_msg(found, "case folder %s/%s is missing", CASES_DIR, want);
}
END_TEST

int main(void)
{
    collect_cases();
    Suite *s = suite_create("hwdb_cases");
    TCase *tc = tcase_create("cases");
    tcase_add_loop_test(tc, test_case, 0, case_count > 0 ? case_count : 1);
    tcase_add_loop_test(tc, test_required_cases_present, 0,
                        (int)(sizeof required_cases / sizeof required_cases[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < case_count; i++)
        free(case_names[i]);
    printf("hwdb cases: %d folders\n", case_count);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
