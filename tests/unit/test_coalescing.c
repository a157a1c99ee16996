/* test_coalescing.c - sectors, lines, DRAM bytes and transactions of one
 * warp-wide access, against hand-worked cases on the fixture GPU (32-byte
 * sectors, 128-byte lines, 64-byte DRAM granules). */
#include <check.h>
#include <stdint.h>

#include "coalescing.h"
#include "model_fixture.h"

#define ALL ((uint64_t)0xffffffffu)

struct row {
    const char *name;
    int element_bytes;
    int64_t stride;
    int64_t offset;
    uint64_t mask;
    int sectors, lines, granules, transactions;
    int64_t transaction_bytes, dram_bytes, useful_bytes;
    double efficiency;
};

static const struct row rows[] = {
    /* 32 lanes x 4 B at [0,128): 4 sectors, 1 line, 2 granules; one 128-B transaction */
    {"f32 unit stride", 4, 1, 0, ALL, 4, 1, 2, 1, 128, 128, 128, 1.0},
    /* lanes at 0,8,..,248: bytes [0,252) touch sectors 0..7, lines 0..1, granules 0..3;
     * useful 128 of 256 moved */
    {"f32 stride 2", 4, 2, 0, ALL, 8, 2, 4, 2, 256, 256, 128, 0.5},
    /* every lane reads bytes [0,4): one sector, one 64-B granule; 4 distinct useful bytes of 32 */
    {"f32 broadcast", 4, 0, 0, ALL, 1, 1, 1, 1, 32, 64, 4, 0.125},
    /* [4,132): sectors 0..4 (5), lines 0..1, granules 0..2 (192 B);
     * line 0 needs 128 B, line 1 only sector 4 -> a 32-B transaction */
    {"f32 misaligned by one", 4, 1, 1, ALL, 5, 2, 3, 2, 160, 192, 128, 0.8},
    /* 256 B contiguous: 8 sectors, 2 lines, 4 granules */
    {"f64 unit stride", 8, 1, 0, ALL, 8, 2, 4, 2, 256, 256, 256, 1.0},
    /* 128 B apart: every lane its own sector, line and granule: 32 x 64 B from DRAM,
     * 32 x 32 B transactions, 128 useful of 1024 moved */
    {"f32 stride 32", 4, 32, 0, ALL, 32, 32, 32, 32, 1024, 2048, 128, 0.125},
    /* 512 B: 16 sectors, 4 lines, 8 granules */
    {"16-byte unit stride", 16, 1, 0, ALL, 16, 4, 8, 4, 512, 512, 512, 1.0},
    /* 32 bytes: one sector, but a whole 64-B granule from DRAM */
    {"bytes unit stride", 1, 1, 0, ALL, 1, 1, 1, 1, 32, 64, 32, 1.0},
    /* 64 B: 2 sectors in the lower half of one line -> one 64-B transaction */
    {"half unit stride", 2, 1, 0, ALL, 2, 1, 1, 1, 64, 64, 64, 1.0},
    /* lanes 0..15 only: 64 B */
    {"half warp active", 4, 1, 0, 0x0000ffffu, 2, 1, 1, 1, 64, 64, 64, 1.0},
    /* stride -1 from element 31: the same 128 bytes backwards */
    {"f32 reversed", 4, -1, 31, ALL, 4, 1, 2, 1, 128, 128, 128, 1.0},
    /* 8 B apart for 8-B elements with lanes 8..31 off: lanes 0..7 read [0,64) */
    {"f64 quarter warp", 8, 1, 0, 0x000000ffu, 2, 1, 1, 1, 64, 64, 64, 1.0},
    /* no lane active: nothing moves */
    {"no lane", 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, t->element_bytes);
    a.lane_stride_elements = t->stride;
    a.offset_elements = t->offset;
    a.active_mask = t->mask;
    struct simt_coalescing_result r;
    struct simt_diag diag;
    ck_assert_int_eq(simt_coalescing_compute(&gpu, &a, &r, &diag), SIMT_OK);
    ck_assert_msg(r.sectors == t->sectors, "%s: sectors %d", t->name, r.sectors);
    ck_assert_msg(r.cache_lines == t->lines, "%s: lines %d", t->name, r.cache_lines);
    ck_assert_msg(r.dram_granules == t->granules, "%s: granules %d", t->name, r.dram_granules);
    ck_assert_msg(r.transactions == t->transactions, "%s: transactions %d", t->name, r.transactions);
    ck_assert_msg(r.transaction_bytes == t->transaction_bytes, "%s: transaction bytes %lld", t->name,
                  (long long)r.transaction_bytes);
    ck_assert_msg(r.dram_bytes == t->dram_bytes, "%s: dram %lld", t->name, (long long)r.dram_bytes);
    ck_assert_msg(r.useful_bytes == t->useful_bytes, "%s: useful %lld", t->name, (long long)r.useful_bytes);
    ck_assert_double_eq_tol(r.efficiency, t->efficiency, 1e-12);
    ck_assert_int_eq(r.assumed, 0);
}
END_TEST

/* Explicit addresses: a permutation of the unit-stride addresses coalesces
 * the same; lanes scattered 4 KiB apart each take a sector. */
/* Distinct aligned blocks (the kernel model's 256-B DRAM row chunks). */
struct block_row {
    const char *name;
    int element_bytes;
    int64_t stride, offset;
    uint64_t mask;
    int64_t block_bytes;
    int blocks;
};

static const struct block_row block_rows[] = {
    /* 128 B contiguous from 0: inside one 256-B chunk */
    {"f32 unit stride", 4, 1, 0, ALL, 256, 1},
    /* [248, 376): crosses the chunk boundary at 256 */
    {"f32 unit stride from element 62", 4, 1, 62, ALL, 256, 2},
    /* lanes 128 B apart: two per chunk, 4 KiB in 16 chunks */
    {"f32 stride 32", 4, 32, 0, ALL, 256, 16},
    /* lanes 256 B apart (8-B elements, stride 32): a chunk each */
    {"f64 stride 32", 8, 32, 0, ALL, 256, 32},
    /* 1 KiB apart: still a chunk each */
    {"f64 stride 128", 8, 128, 0, ALL, 256, 32},
    /* the same lanes counted in 1-KiB blocks: 8 KiB / 1 KiB */
    {"f64 stride 32, 1-KiB blocks", 8, 32, 0, ALL, 1024, 8},
    /* every lane the same address */
    {"broadcast", 4, 0, 0, ALL, 256, 1},
    /* lanes 0..3 only, 256 B apart */
    {"four lanes", 8, 32, 0, 0xfu, 256, 4},
    {"no lane", 4, 1, 0, 0, 256, 0},
};

START_TEST(test_distinct_blocks)
{
    const struct block_row *t = &block_rows[_i];
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, t->element_bytes);
    a.lane_stride_elements = t->stride;
    a.offset_elements = t->offset;
    a.active_mask = t->mask;
    ck_assert_msg(simt_coalescing_distinct_blocks(&a, t->block_bytes) == t->blocks, "%s: %d", t->name,
                  simt_coalescing_distinct_blocks(&a, t->block_bytes));
}
END_TEST

START_TEST(test_explicit)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, 4);
    a.explicit_addresses = 1;
    for (int lane = 0; lane < 32; lane++)
        a.lane_address_bytes[lane] = (31 - lane) * 4;
    struct simt_coalescing_result r;
    ck_assert_int_eq(simt_coalescing_compute(&gpu, &a, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.sectors, 4);
    ck_assert_int_eq(r.useful_bytes, 128);
    for (int lane = 0; lane < 32; lane++)
        a.lane_address_bytes[lane] = (int64_t)lane * 4096;
    ck_assert_int_eq(simt_coalescing_compute(&gpu, &a, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.sectors, 32);
    ck_assert_int_eq(r.dram_bytes, 32 * 64);
}
END_TEST

/* Absent database fields fall back to 32/128/sector and say so. */
START_TEST(test_defaults)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    gpu.sector_bytes = 0;
    gpu.cache_line_bytes = 0;
    gpu.dram_access_granularity_bytes = 0;
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, 4);
    struct simt_coalescing_result r;
    ck_assert_int_eq(simt_coalescing_compute(&gpu, &a, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.dram_bytes, 128); /* 4 sectors of 32 B */
    ck_assert_uint_eq(r.assumed,
                      SIMT_COAL_ASSUMED_SECTOR | SIMT_COAL_ASSUMED_LINE | SIMT_COAL_ASSUMED_GRANULARITY);
}
END_TEST

struct bad {
    int element_bytes;
    int explicit_addresses;
    int64_t address3;
    int64_t stride;
    const char *field;
};

static const struct bad bads[] = {
    {3, 0, 0, 1, "element_bytes"},
    {32, 0, 0, 1, "element_bytes"},
    {8, 1, 4, 1, "lane_addresses[3]"},  /* not aligned to 8 */
    {4, 1, -4, 1, "lane_addresses[3]"}, /* negative */
    {4, 0, 0, (int64_t)1 << 40, "lane_stride_elements"},
};

START_TEST(test_bad)
{
    const struct bad *t = &bads[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, t->element_bytes);
    a.lane_stride_elements = t->stride;
    a.explicit_addresses = t->explicit_addresses;
    for (int lane = 0; lane < 32; lane++)
        a.lane_address_bytes[lane] = lane * 16;
    a.lane_address_bytes[3] = t->address3;
    struct simt_coalescing_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_coalescing_compute(&gpu, &a, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, t->field);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coalescing");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_loop_test(tc, test_distinct_blocks, 0, (int)(sizeof block_rows / sizeof block_rows[0]));
    tcase_add_test(tc, test_explicit);
    tcase_add_test(tc, test_defaults);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bads / sizeof bads[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
