/* test_property.c - every endpoint driven in-process with extreme values of
 * every numeric field its descriptor declares (min, max, just outside,
 * huge, tiny, 0, negative) and with what-if overrides of every numeric field
 * of the GPU record (its min and max), starting from each 200 case folder's
 * request. Each answer must be a response (never a 5xx); each 200 must hold
 * only finite, non-negative numbers, and no time below the work over the
 * GPU's highest peak (flops / max peak) where the answer says both. */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "endpoint.h"
#include "hwdb.h"
#include "routes.h"

#define CASES_DIR SIMT_TEST_DIR "/api/cases"

static struct simt_hwdb *db;
static long answers_200, answers_total, violations;

/* Keys whose value is signed by nature: an offset or a difference. */
static int signed_key(const char *key)
{
    static const char *const keys[] = {"value", "lane_stride_elements", "offset", "delta", "change", NULL};
    for (size_t i = 0; keys[i] != NULL; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return strstr(key, "offset") != NULL || strstr(key, "_change") != NULL;
}

static void report(const char *route, const char *body, const char *why)
{
    violations++;
    if (violations <= 40)
        fprintf(stderr, "VIOLATION %s %s: %s\n", route, body, why);
}

/* Walks an answer: every number finite, and non-negative unless signed. */
static void check_numbers(const char *route, const char *body, const char *key, json_t *v)
{
    char why[256];
    if (json_is_real(v) || json_is_integer(v)) {
        double x = json_number_value(v);
        if (!isfinite(x)) {
            snprintf(why, sizeof why, "%s is not finite", key);
            report(route, body, why);
        } else if (x < 0 && !signed_key(key)) {
            snprintf(why, sizeof why, "%s = %g is negative", key, x);
            report(route, body, why);
        }
    } else if (json_is_object(v)) {
        const char *k;
        json_t *child;
        json_object_foreach(v, k, child) check_numbers(route, body, k, child);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) check_numbers(route, body, key, child);
    }
}

/* The highest flops/s figure of a GPU over every data type and unit. */
static double max_peak_flops(const struct simt_gpu_spec *spec)
{
    size_t count = 0;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    double peak = 0;
    for (size_t i = 0; i < count; i++) {
        if (strstr(fields[i].name, "flops") == NULL && strstr(fields[i].name, "ops_per_s") == NULL)
            continue;
        if (fields[i].type == SIMT_FIELD_DTYPES) {
            for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
                double x = simt_hwdb_field_get_dtype(spec, &fields[i], (enum simt_dtype)d);
                peak = x > peak ? x : peak;
            }
        } else if (fields[i].type != SIMT_FIELD_CARVEOUTS) {
            double x = simt_hwdb_field_get(spec, &fields[i]);
            peak = x > peak ? x : peak;
        }
    }
    return peak;
}

/* time_s below flops over the GPU's highest peak is impossible. */
static void check_time(const char *route, const char *body, json_t *request, json_t *answer)
{
    json_t *time_s = json_object_get(answer, "time_s");
    json_t *flops = json_object_get(answer, "flops");
    json_t *gpu = json_object_get(request, "gpu");
    if (!json_is_number(time_s) || !json_is_number(flops) || !json_is_string(gpu))
        return;
    const struct simt_hwdb_gpu *g = simt_hwdb_find(db, json_string_value(gpu));
    if (g == NULL)
        return;
    double floor_s = json_number_value(flops) / max_peak_flops(&g->spec);
    if (json_number_value(time_s) < floor_s * (1 - 1e-9)) {
        char why[200];
        snprintf(why, sizeof why, "time_s %g is below flops / peak = %g", json_number_value(time_s), floor_s);
        report(route, body, why);
    }
}

static void ask(const char *route, json_t *request, int check_physics)
{
    char *body = json_dumps(request, JSON_COMPACT);
    ck_assert(body != NULL);
    struct simt_api_request req = {"POST", route, "application/json", body, strlen(body)};
    struct simt_api_response resp;
    memset(&resp, 0, sizeof resp);
    int rc = simt_api_handle(db, &req, &resp);
    answers_total++;
    if (rc != 0 || resp.status >= 500) {
        report(route, body, "no answer, or a 5xx");
    } else if (resp.status == 200) {
        answers_200++;
        json_error_t err;
        json_t *answer = json_loadb(resp.body, resp.body_len, 0, &err);
        if (answer == NULL) {
            report(route, body, "the 200 is not JSON");
        } else {
            check_numbers(route, body, "", answer);
            if (check_physics)
                check_time(route, body, request, answer);
            json_decref(answer);
        }
    }
    simt_api_response_clear(&resp);
    free(body);
}

/* Extreme values around a field's declared range. */
static size_t extremes(const struct simt_api_field *f, double *out)
{
    size_t n = 0;
    double span = fabs(f->max - f->min);
    out[n++] = f->min;
    out[n++] = f->max;
    out[n++] = f->min - (f->type == SIMT_API_INTEGER ? 1 : span * 1e-9 + 1e-12);
    out[n++] = f->max + (f->type == SIMT_API_INTEGER ? 1 : span * 1e-9 + 1e-12);
    out[n++] = 0;
    out[n++] = -1;
    out[n++] = 1e300;
    out[n++] = -1e300;
    out[n++] = 1e-300;
    out[n++] = 9007199254740993.0; /* 2^53 + 1 */
    out[n++] = 9.3e18;             /* past int64 */
    out[n++] = 2147483648.0;       /* past int */
    out[n++] = 0.5;
    return n;
}

static json_t *number(const struct simt_api_field *f, double x)
{
    if (f->type == SIMT_API_INTEGER && !(x - floor(x) > 0) && fabs(x) < 9.2e18)
        return json_integer((json_int_t)x);
    return json_real(x);
}

/* Every numeric field of `fields`, at the object `at` inside request. */
static void drive_fields(const char *route, json_t *request, json_t *at, const struct simt_api_field *fields,
                         size_t count, int depth)
{
    for (size_t i = 0; i < count; i++) {
        const struct simt_api_field *f = &fields[i];
        if (f->type == SIMT_API_INTEGER || f->type == SIMT_API_NUMBER) {
            double values[16];
            size_t n = extremes(f, values);
            json_t *saved = json_object_get(at, f->name);
            if (saved != NULL)
                json_incref(saved);
            for (size_t k = 0; k < n; k++) {
                json_object_set_new(at, f->name, number(f, values[k]));
                ask(route, request, 1);
            }
            if (saved != NULL)
                json_object_set_new(at, f->name, saved);
            else
                json_object_del(at, f->name);
        } else if (f->type == SIMT_API_OBJECT && f->members != NULL && depth < 3) {
            json_t *inner = json_object_get(at, f->name);
            if (json_is_object(inner))
                drive_fields(route, request, inner, f->members, f->member_count, depth + 1);
        } else if (f->type == SIMT_API_ARRAY && f->members != NULL && depth < 3) {
            json_t *list = json_object_get(at, f->name);
            if (json_is_array(list) && json_is_object(json_array_get(list, 0)))
                drive_fields(route, request, json_array_get(list, 0), f->members, f->member_count, depth + 1);
        }
    }
}

/* The request with gpu replaced by a what-if of every record field at its
 * min and max (and just outside, which must be refused, not served). */
static void drive_whatif(const char *route, json_t *request)
{
    json_t *gpu = json_object_get(request, "gpu");
    if (!json_is_string(gpu))
        return;
    char base[64];
    snprintf(base, sizeof base, "%s", json_string_value(gpu));
    size_t count = 0;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    for (size_t i = 0; i < count; i++) {
        const struct simt_hwdb_field *f = &fields[i];
        if (f->type == SIMT_FIELD_CARVEOUTS || strcmp(f->group, "measured") == 0 ||
            strcmp(f->group, "achievable") == 0)
            continue;
        double values[] = {f->min, f->max, f->min > 0 ? f->min / 2 : -1, f->max * 2 + 1};
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            json_t *whatif = json_pack("{s:s}", "base", base);
            json_t *v = json_real(values[k]);
            if (f->type == SIMT_FIELD_INT || f->type == SIMT_FIELD_INT64)
                v = (json_decref(v), json_integer((json_int_t)values[k]));
            if (f->type == SIMT_FIELD_DTYPES) {
                json_t *per = json_object();
                for (int d = 0; d < SIMT_DTYPE_COUNT; d++)
                    json_object_set(per, simt_dtype_name((enum simt_dtype)d), v);
                json_decref(v);
                v = per;
            }
            json_object_set_new(whatif, f->name, v);
            json_object_set_new(request, "gpu", whatif);
            ask(route, request, 0);
        }
    }
    json_object_set_new(request, "gpu", json_string(base));
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

START_TEST(test_every_endpoint_at_extremes)
{
    DIR *d = opendir(CASES_DIR);
    ck_assert(d != NULL);
    struct dirent *entry;
    int seeds = 0;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/status", CASES_DIR, entry->d_name);
        char *status = read_all(path);
        snprintf(path, sizeof path, "%s/%s/route", CASES_DIR, entry->d_name);
        char *route_line = read_all(path);
        snprintf(path, sizeof path, "%s/%s/request.json", CASES_DIR, entry->d_name);
        char *body = read_all(path);
        char route[200] = "";
        int ok = status && route_line && body && atoi(status) == 200 &&
                 sscanf(route_line, "POST %199s", route) == 1;
        const struct simt_api_endpoint *ep = ok ? simt_api_endpoint_find("POST", route) : NULL;
        json_t *request = ep ? json_loads(body, 0, NULL) : NULL;
        if (json_is_object(request)) {
            seeds++;
            drive_fields(route, request, request, ep->fields, ep->field_count, 0);
            drive_whatif(route, request);
        }
        json_decref(request);
        free(status);
        free(route_line);
        free(body);
    }
    closedir(d);
    printf("%d seeds, %ld answers, %ld of them 200, %ld violations\n", seeds, answers_total, answers_200,
           violations);
    ck_assert_int_gt(seeds, 20);
    ck_assert_int_gt(answers_200, 100);
    ck_assert_int_eq(violations, 0);
}
END_TEST

int main(void)
{
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    if (simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) != 0) {
        fprintf(stderr, "%s:%d:%d: %s\n", diag.file, diag.line, diag.column, diag.message);
        return 1;
    }
    Suite *s = suite_create("property");
    TCase *tc = tcase_create("extremes");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_every_endpoint_at_extremes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    simt_hwdb_unref(db);
    return failed == 0 ? 0 : 1;
}
