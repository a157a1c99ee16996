/* test_kernel_atomics.c - the kernel model's contended global atomics
 * against the H200 rates they were read from: every global-atomic row of
 * tests/gpu/results/h200/atomics_int_rates.json (lines by lanes by words,
 * consecutive lines) and atomics_few_rates.json (a few lanes on a few
 * sectors and lines) described as a user would through /v1/kernel (2^14
 * blocks of 256 threads, 4 atomics each, the warp's lanes as
 * lane_addresses, distinct_addresses = the words of the lines the set
 * spans) and its answer compared with the measured time. Rows whose lines
 * are 4 KiB or 64 KiB apart are skipped: a request cannot say that its set
 * has holes. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accuracy.h"
#include "api.h"
#include "hwdb.h"

#define RATES_DIR SIMT_TEST_DIR "/gpu/results/h200"
/* |error| every row but the known misses must stay within (at commit time
 * the worst was lines128_32words, +11%: 16 KiB at 22.3 slices' rate against
 * 23.3 measured) */
#define ROW_TOLERANCE 0.15

/* Rows the model misses, printed but not held to the tolerance, and why. */
static const char *const known_misses[][2] = {
    {"lines1024_32words", "about 31 us for 2^14 blocks whatever their atomics: a block-issue floor"},
    {"lines32768_32words", "the same floor"},
    {"lines1024_1word_1lane", "the same floor"},
    {"lines8_4lanes_1sector_rotated", "the same lanes in an order rotated from warp to warp: 25% slower"},
};

static json_t *request(const long long *lane_bytes, int lanes, double distinct_words)
{
    json_t *addresses = json_array();
    for (int l = 0; l < 32; l++)
        json_array_append_new(addresses, json_integer(l < lanes ? lane_bytes[l] : 0));
    json_t *active = json_array();
    for (int l = 0; l < 32; l++)
        json_array_append_new(active, json_boolean(l < lanes));
    json_t *access = json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:o, s:o}", "space", "global", "op", "atomic",
                               "count", 4, "element_bytes", 4, "independent", 1, "distinct_addresses",
                               distinct_words, "lane_addresses", addresses, "active_lanes", active);
    return json_pack("{s:s, s:{s:i, s:i}, s:{s:i}, s:{s:[o]}}", "gpu", "h200-sxm", "launch", "grid", 16384,
                     "block", 256, "resources", "registers_per_thread", 18, "per_thread", "accesses", access);
}

static double predict(const struct simt_hwdb *db, json_t *body, const char *name)
{
    int status = 0;
    json_t *answer = accuracy_post(db, "/v1/kernel", body, &status);
    ck_assert_msg(answer != NULL && status == 200, "%s: answered %d", name, status);
    double t = json_number_value(json_object_get(answer, "time_s"));
    json_decref(answer);
    json_decref(body);
    return t;
}

static double worst = 0.0;
static int rows = 0;

static void check_row(const char *file, const char *name, double predicted, double measured)
{
    double error = (predicted - measured) / measured;
    printf("%-22s %-34s measured %10.4g s  predicted %10.4g s  %+6.1f%%\n", file, name, measured, predicted,
           100.0 * error);
    for (size_t k = 0; k < sizeof known_misses / sizeof known_misses[0]; k++)
        if (strcmp(name, known_misses[k][0]) == 0) {
            printf("    known miss: %s\n", known_misses[k][1]);
            return;
        }
    ck_assert_msg(fabs(error) <= ROW_TOLERANCE, "%s %s: %+.1f%%", file, name, 100.0 * error);
    worst = fmax(worst, fabs(error));
    rows++;
}

static json_t *load(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    ck_assert_msg(doc != NULL, "%s: %s (line %d)", path, jerr.text, jerr.line);
    return doc;
}

START_TEST(atomics_match_their_rates)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s", diag.message);
    json_t *doc = load(RATES_DIR "/atomics_int_rates.json");
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row)
    {
        const char *group = json_string_value(json_object_get(row, "group"));
        if (group == NULL || strcmp(group, "global_atomic") != 0)
            continue;
        int lines = (int)json_integer_value(json_object_get(row, "lines"));
        int stride = (int)json_integer_value(json_object_get(row, "line_stride_bytes"));
        int words = (int)json_integer_value(json_object_get(row, "words_per_line"));
        int active = (int)json_integer_value(json_object_get(row, "active_lanes"));
        if (stride != 128)
            continue;
        long long lane_bytes[32];
        for (int l = 0; l < 32; l++)
            lane_bytes[l] = 4LL * (l % words);
        const char *name = json_string_value(json_object_get(row, "name"));
        double t = predict(db, request(lane_bytes, active, 32.0 * lines), name);
        check_row("atomics_int_rates", name, t, json_number_value(json_object_get(row, "median_s")));
    }
    json_decref(doc);
    doc = load(RATES_DIR "/atomics_few_rates.json");
    json_array_foreach(json_object_get(doc, "rows"), i, row)
    {
        json_t *words = json_object_get(row, "lane_words");
        long long lane_bytes[32];
        long long span = 0;
        int lanes = (int)json_array_size(words);
        for (int l = 0; l < lanes && l < 32; l++) {
            lane_bytes[l] = 4 * json_integer_value(json_array_get(words, (size_t)l));
            span = lane_bytes[l] / 128 + 1 > span ? lane_bytes[l] / 128 + 1 : span;
        }
        const char *name = json_string_value(json_object_get(row, "name"));
        double t = predict(db, request(lane_bytes, lanes, 32.0 * (double)span), name);
        check_row("atomics_few_rates", name, t, json_number_value(json_object_get(row, "median_s")));
    }
    json_decref(doc);
    printf("%d rows held to %.0f%%, worst |error| %.1f%%\n", rows, 100.0 * ROW_TOLERANCE, 100.0 * worst);
    ck_assert_int_ge(rows, 25);
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    return accuracy_run("kernel_atomics", atomics_match_their_rates);
}
