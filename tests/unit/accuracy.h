/* accuracy.h - what the accuracy tests share: a request through the API
 * in-process (as the daemon would answer it) and the median of errors.
 * Header-only (static inline) because each test is its own executable. */
#ifndef SIMT_TEST_ACCURACY_H
#define SIMT_TEST_ACCURACY_H

#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* An accuracy test's main(): one Check test named `test` in suite `suite`,
 * case "h200", 60 s, run without forking; 0 when it passed. */
static inline int accuracy_run(const char *suite, const TTest *test)
{
    Suite *s = suite_create(suite);
    TCase *tc = tcase_create("h200");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

static inline int accuracy_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts values ascending and returns their median (0 for none). */
static inline double accuracy_median(double *values, size_t count)
{
    qsort(values, count, sizeof values[0], accuracy_compare_doubles);
    if (count == 0)
        return 0.0;
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* POSTs body to path in-process; returns the parsed answer (new reference,
 * the caller decrefs) and sets *status, or NULL when nothing was answered. */
static inline json_t *accuracy_post(const struct simt_hwdb *db, const char *path, json_t *body, int *status)
{
    char *text = json_dumps(body, JSON_COMPACT);
    struct simt_api_request req = {"POST", path, "application/json", text, text != NULL ? strlen(text) : 0};
    struct simt_api_response resp;
    int rc = simt_api_handle(db, &req, &resp);
    free(text);
    *status = 0;
    if (rc != 0)
        return NULL;
    *status = resp.status;
    json_t *answer = json_loadb(resp.body, resp.body_len, 0, NULL);
    simt_api_response_clear(&resp);
    return answer;
}

#endif
