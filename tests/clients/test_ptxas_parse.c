/* test_ptxas_parse.c - the resource-line reader behind `simt ptxas`, on the
 * committed samples (real `nvcc -Xptxas -v` output of tests/clients/cuda/
 * kernels.cu for sm_80 and sm_90, older ptxas variants, cuobjdump
 * --dump-resource-usage) and on small inline inputs. One row per kernel. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxas.h"

#ifndef SIMT_CLIENT_TEST_DIR
#error "SIMT_CLIENT_TEST_DIR must name tests/clients"
#endif

struct expect {
    const char *file;
    const char *name;
    const char *arch;
    int registers;
    long long shared_bytes;
    long long stack_bytes;
    long long spill_store_bytes;
    long long spill_load_bytes;
    long long local_bytes;
    long long constant_bytes;
    int barriers;
    int source;
};

static const struct expect rows[] = {
    /* real nvcc 13.0 output, two architectures */
    {"ptxas_sm80_sm90.txt", "_Z5heavyPfi", "sm_80", 110, 0, 256, 0, 0, 0, 364, 0, 0},
    {"ptxas_sm80_sm90.txt", "_Z8big_smemPfPKf", "sm_80", 10, 49152, 0, 0, 0, 0, 368, 1, 0},
    {"ptxas_sm80_sm90.txt", "_Z5tiledPfPKfi", "sm_80", 12, 4224, 0, 0, 0, 0, 372, 1, 0},
    {"ptxas_sm80_sm90.txt", "_Z5smallPf", "sm_80", 8, 0, 0, 0, 0, 0, 360, 0, 0},
    {"ptxas_sm80_sm90.txt", "_Z5heavyPfi", "sm_90", 112, 0, 256, 0, 0, 0, 0, 0, 0},
    {"ptxas_sm80_sm90.txt", "_Z8big_smemPfPKf", "sm_90", 13, 49152, 0, 0, 0, 0, 0, 1, 0},
    {"ptxas_sm80_sm90.txt", "_Z5tiledPfPKfi", "sm_90", 14, 4224, 0, 0, 0, 0, 0, 1, 0},
    {"ptxas_sm80_sm90.txt", "_Z5smallPf", "sm_90", 8, 0, 0, 0, 0, 0, 0, 0, 0},
    /* older forms: a+b smem, lmem, spills, no barrier count */
    {"ptxas_legacy.txt", "_Z6kernelPf", "sm_20", 46, 1040, 72, 8, 12, 0, 176, -1, 0},
    {"ptxas_legacy.txt", "saxpy", "sm_13", 4, 24, 0, 0, 0, 24, 0, -1, 0},
    /* cuobjdump: same-line and next-line forms; device functions listed too */
    {"cuobjdump_resource_usage.txt", "_Z5heavyPfi", "sm_90", 112, 0, 256, 0, 0, 0, 528, -1, 1},
    {"cuobjdump_resource_usage.txt", "_Z6helperf", "sm_90", 24, 0, 256, 0, 0, 0, 0, -1, 1},
    {"cuobjdump_resource_usage.txt", "_Z5tiledPfPKfi", "sm_90", 14, 4224, 0, 0, 0, 0, 540, -1, 1},
    {"cuobjdump_resource_usage.txt", "_Z5tiledPfPKfi", "sm_80", 12, 4224, 0, 0, 0, 0, 372, -1, 1},
};

static const struct {
    const char *file;
    size_t kernels;
} counts[] = {
    {"ptxas_sm80_sm90.txt", 8},
    {"ptxas_legacy.txt", 2}, /* the entry without a "Used" line is dropped */
    {"cuobjdump_resource_usage.txt", 4},
};

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", SIMT_CLIENT_TEST_DIR, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(text);
    *len = fread(text, 1, (size_t)size, f);
    fclose(f);
    return text;
}

static void parse_file(const char *name, struct simt_ptxas_report *report)
{
    size_t len = 0;
    char *text = slurp(name, &len);
    memset(report, 0, sizeof *report);
    ck_assert_int_eq(simt_ptxas_parse(text, len, report), 0);
    free(text);
}

START_TEST(test_kernel_row)
{
    const struct expect *e = &rows[_i];
    struct simt_ptxas_report report;
    parse_file(e->file, &report);
    const struct simt_ptxas_kernel *k = NULL;
    for (size_t i = 0; i < report.count; i++)
        if (strcmp(report.kernels[i].name, e->name) == 0 && strcmp(report.kernels[i].arch, e->arch) == 0)
            k = &report.kernels[i];
    ck_assert_msg(k != NULL, "%s: no kernel %s for %s", e->file, e->name, e->arch);
    ck_assert_int_eq(k->registers, e->registers);
    ck_assert_int_eq(k->shared_bytes, e->shared_bytes);
    ck_assert_int_eq(k->stack_bytes, e->stack_bytes);
    ck_assert_int_eq(k->spill_store_bytes, e->spill_store_bytes);
    ck_assert_int_eq(k->spill_load_bytes, e->spill_load_bytes);
    ck_assert_int_eq(k->local_bytes, e->local_bytes);
    ck_assert_int_eq(k->constant_bytes, e->constant_bytes);
    ck_assert_int_eq(k->barriers, e->barriers);
    ck_assert_int_eq(k->source, e->source);
    simt_ptxas_report_free(&report);
}
END_TEST

START_TEST(test_kernel_count)
{
    struct simt_ptxas_report report;
    parse_file(counts[_i].file, &report);
    ck_assert_uint_eq(report.count, counts[_i].kernels);
    simt_ptxas_report_free(&report);
}
END_TEST

/* Inline inputs: what is found, and what is not. */
static const struct {
    const char *text;
    size_t kernels;
    int registers; /* of the first kernel */
} inline_rows[] = {
    {"", 0, 0},
    {"nothing to see here\nptxas info    : 0 bytes gmem\n", 0, 0},
    /* a usage line with no entry before it is ignored */
    {"ptxas info    : Used 8 registers\n", 0, 0},
    /* CRLF line ends, no trailing newline */
    {"ptxas info    : Compiling entry function 'k' for 'sm_75'\r\nptxas info    : Used 40 registers", 1, 40},
    /* the same kernel twice (a rebuild appended): the later one wins */
    {"ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used 40 registers\n"
     "ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used 72 registers\n",
     1, 72},
    /* a device function's properties do not touch the entry before it */
    {"ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used 16 registers\n"
     "ptxas info    : Function properties for helper\n    512 bytes stack frame, 0 bytes spill stores, 0 "
     "bytes "
     "spill loads\n",
     1, 16},
    /* cuobjdump -sass "Function : k" lines are not resource lines */
    {"        Function : _Z1kv\n        /*0000*/ MOV R1, c[0x0][0x28] ;\n", 0, 0},
};

START_TEST(test_inline)
{
    struct simt_ptxas_report report;
    memset(&report, 0, sizeof report);
    const char *text = inline_rows[_i].text;
    ck_assert_int_eq(simt_ptxas_parse(text, strlen(text), &report), 0);
    ck_assert_uint_eq(report.count, inline_rows[_i].kernels);
    if (report.count > 0) {
        ck_assert_int_eq(report.kernels[0].registers, inline_rows[_i].registers);
        ck_assert_int_eq(report.kernels[0].stack_bytes, 0);
    }
    simt_ptxas_report_free(&report);
}
END_TEST

/* Several inputs into one report accumulate. */
START_TEST(test_accumulates)
{
    struct simt_ptxas_report report;
    memset(&report, 0, sizeof report);
    const char *a =
        "ptxas info    : Compiling entry function 'a' for 'sm_90'\nptxas info    : Used 8 registers\n";
    const char *b =
        "ptxas info    : Compiling entry function 'b' for 'sm_90'\nptxas info    : Used 9 registers\n";
    ck_assert_int_eq(simt_ptxas_parse(a, strlen(a), &report), 0);
    ck_assert_int_eq(simt_ptxas_parse(b, strlen(b), &report), 0);
    ck_assert_uint_eq(report.count, 2);
    ck_assert_str_eq(report.kernels[1].name, "b");
    simt_ptxas_report_free(&report);
    ck_assert_uint_eq(report.count, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ptxas_parse");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, test_kernel_row, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_loop_test(tc, test_kernel_count, 0, (int)(sizeof counts / sizeof counts[0]));
    tcase_add_loop_test(tc, test_inline, 0, (int)(sizeof inline_rows / sizeof inline_rows[0]));
    tcase_add_test(tc, test_accumulates);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
