/* test_api_cases.c - the data-driven API suite: every folder under
 * tests/api/cases/<name>/ is one request through simt_api_handle against the
 * bundled database, in-process.
 *
 *   route          "POST /v1/occupancy" (one line)
 *   content_type   optional; the request's Content-Type (absent: none sent)
 *   request.json   the body, sent byte for byte (may be malformed on purpose)
 *   status         the expected HTTP status
 *   response.json  the expected answer: every key it holds must be in the
 *                  answer with an equal value (numbers to 1e-9 relative);
 *                  arrays must match element for element. An error case
 *                  gives code and field; the answer's error object must
 *                  have exactly those, plus a non-empty message.
 */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "hwdb.h"

#define CASES_DIR SIMT_TEST_DIR "/api/cases"

static struct simt_hwdb *db;

static char *read_file(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    text[got] = '\0';
    if (len != NULL)
        *len = got;
    return text;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* Writes where expected and actual first differ into why; 1 when they match. */
static int matches(json_t *expected, json_t *actual, const char *path, char *why, size_t why_size)
{
    if (actual == NULL) {
        snprintf(why, why_size, "%s: missing", path);
        return 0;
    }
    if (json_is_number(expected)) {
        if (!json_is_number(actual)) {
            snprintf(why, why_size, "%s: expected a number", path);
            return 0;
        }
        double e = json_number_value(expected), a = json_number_value(actual);
        if (fabs(e - a) > 1e-9 * fmax(1.0, fabs(e))) {
            snprintf(why, why_size, "%s: expected %.12g, got %.12g", path, e, a);
            return 0;
        }
        return 1;
    }
    if (json_is_object(expected)) {
        if (!json_is_object(actual)) {
            snprintf(why, why_size, "%s: expected an object", path);
            return 0;
        }
        const char *key;
        json_t *value;
        json_object_foreach(expected, key, value)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            if (!matches(value, json_object_get(actual, key), sub, why, why_size))
                return 0;
        }
        /* An error object is checked whole: a non-empty message, a field
         * exactly when the case expects one, and no other keys. */
        if (json_object_get(expected, "code") != NULL) {
            json_t *message = json_object_get(actual, "message");
            if (!json_is_string(message) || json_string_length(message) == 0) {
                snprintf(why, why_size, "%s: error without a message", path);
                return 0;
            }
            int want_field = json_object_get(expected, "field") != NULL;
            int has_field = json_object_get(actual, "field") != NULL;
            if (want_field != has_field || json_object_size(actual) != (size_t)(2 + has_field)) {
                snprintf(why, why_size, "%s: error object must be {code, message%s}", path,
                         want_field ? ", field" : "");
                return 0;
            }
        }
        return 1;
    }
    if (json_is_array(expected)) {
        if (!json_is_array(actual) || json_array_size(actual) != json_array_size(expected)) {
            snprintf(why, why_size, "%s: expected an array of %zu", path, json_array_size(expected));
            return 0;
        }
        for (size_t i = 0; i < json_array_size(expected); i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!matches(json_array_get(expected, i), json_array_get(actual, i), sub, why, why_size))
                return 0;
        }
        return 1;
    }
    if (!json_equal(expected, actual)) {
        char *e = json_dumps(expected, JSON_ENCODE_ANY), *a = json_dumps(actual, JSON_ENCODE_ANY);
        snprintf(why, why_size, "%s: expected %s, got %s", path, e, a);
        free(e);
        free(a);
        return 0;
    }
    return 1;
}

static int run_case(const char *name, char *why, size_t why_size)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", CASES_DIR, name);
    char *route = read_file(dir, "route", NULL);
    char *status_text = read_file(dir, "status", NULL);
    size_t body_len = 0;
    char *body = read_file(dir, "request.json", &body_len);
    char *content_type = read_file(dir, "content_type", NULL);
    char *expected_text = read_file(dir, "response.json", NULL);
    int ok = 0;
    if (route == NULL || status_text == NULL || expected_text == NULL) {
        snprintf(why, why_size, "case folder lacks route, status or response.json");
        goto done;
    }
    trim(route);
    if (content_type != NULL)
        trim(content_type);
    char *space = strchr(route, ' ');
    if (space == NULL) {
        snprintf(why, why_size, "route must be 'METHOD /path'");
        goto done;
    }
    *space = '\0';
    struct simt_api_request req = {route, space + 1, content_type, body, body != NULL ? body_len : 0};
    struct simt_api_response resp;
    ck_assert_int_eq(simt_api_handle(db, &req, &resp), 0);
    int want_status = atoi(status_text);
    json_error_t jerr;
    json_t *expected = json_loads(expected_text, 0, &jerr);
    json_t *actual = json_loadb(resp.body, resp.body_len, 0, &jerr);
    if (expected == NULL) {
        snprintf(why, why_size, "response.json is not JSON: %s", jerr.text);
    } else if (resp.status != want_status) {
        snprintf(why, why_size, "status %d, expected %d; body %.300s", resp.status, want_status, resp.body);
    } else if (actual == NULL) {
        snprintf(why, why_size, "answer is not JSON");
    } else {
        ok = matches(expected, actual, "$", why, why_size);
        if (!ok) {
            size_t used = strlen(why);
            snprintf(why + used, why_size - used, "; body %.400s", resp.body);
        }
    }
    json_decref(expected);
    json_decref(actual);
    simt_api_response_clear(&resp);
done:
    free(route);
    free(status_text);
    free(body);
    free(content_type);
    free(expected_text);
    return ok;
}

START_TEST(test_every_case)
{
    DIR *d = opendir(CASES_DIR);
    ck_assert_msg(d != NULL, "no case folder %s", CASES_DIR);
    struct dirent *entry;
    int cases = 0, failed = 0;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char why[2048] = "";
        cases++;
        if (!run_case(entry->d_name, why, sizeof why)) {
            failed++;
            fprintf(stderr, "FAIL %s: %s\n", entry->d_name, why);
        }
    }
    closedir(d);
    printf("%d API cases, %d failed\n", cases, failed);
    ck_assert_int_gt(cases, 0);
    ck_assert_int_eq(failed, 0);
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
    Suite *s = suite_create("api_cases");
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_every_case);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    simt_hwdb_unref(db);
    return failed == 0 ? 0 : 1;
}
