/* test_banks.c - ways, wavefronts and padding of shared-memory accesses,
 * hand-worked on 32 banks of 4 bytes (bank = (byte / 4) mod 32): wavefronts
 * = max(most distinct words in one bank, ceil(distinct bytes / 128)),
 * min_wavefronts = ceil(distinct bytes / 128), ways = their ratio. */
#include <check.h>
#include <stdint.h>

#include "banks.h"
#include "model_fixture.h"

#define ALL ((uint64_t)0xffffffffu)

struct row {
    const char *name;
    int element_bytes;
    int64_t stride;
    uint64_t mask;
    int ways, wavefronts, min_wavefronts, broadcast;
    int64_t padding;
};

static const struct row rows[] = {
    /* words 0..31: one per bank */
    {"f32 stride 1", 4, 1, ALL, 1, 1, 1, 0, 0},
    /* words 2l: banks 0,2,..,30 hold lanes l and l+16 -> 2 ways; stride 3 is odd -> pad 1 */
    {"f32 stride 2", 4, 2, ALL, 2, 2, 1, 0, 1},
    /* words 16l: banks 0 and 16 hold 16 words each */
    {"f32 stride 16", 4, 16, ALL, 16, 16, 1, 0, 1},
    /* words 32l: all in bank 0 -> 32 ways; 33 is odd -> pad 1 (the seed's tile[32][33]) */
    {"f32 stride 32", 4, 32, ALL, 32, 32, 1, 0, 1},
    {"f32 stride 33", 4, 33, ALL, 1, 1, 1, 0, 0},
    {"f32 stride 64", 4, 64, ALL, 32, 32, 1, 0, 1},
    /* one word for every lane: broadcast, one wavefront */
    {"f32 broadcast", 4, 0, ALL, 1, 1, 1, 1, 0},
    /* lanes 0..7 of the stride-32 column: 8 words in bank 0 */
    {"f32 stride 32, 8 lanes", 4, 32, 0xffu, 8, 8, 1, 0, 1},
    /* 256 B: words 0..63, two per bank; 256/128 = 2 -> 2 wavefronts, no conflict */
    {"f64 stride 1", 8, 1, ALL, 1, 2, 2, 0, 0},
    /* words {4l, 4l+1}, l = 0..31: banks 4l mod 32 hold lanes l, l+8, l+16, l+24 -> 4 words,
     * 4 wavefronts against 2 -> 2 ways; stride 3 (24 B): words 6l, 6l+1 -> banks 6l mod 32 repeat
     * every 16 lanes -> 2 per bank = 256/128: free -> pad 1 */
    {"f64 stride 2", 8, 2, ALL, 2, 4, 2, 0, 1},
    /* words {64l, 64l+1}: banks 0 and 1 hold 32 words each -> 32 wavefronts, 16 ways;
     * stride 33 (264 B): word 66l -> bank 2l mod 32, 2 per bank -> free -> pad 1 */
    {"f64 stride 32", 8, 32, ALL, 16, 32, 2, 0, 1},
    /* every lane the same 8 bytes: 2 words, 8 distinct bytes -> one wavefront */
    {"f64 broadcast", 8, 0, ALL, 1, 1, 1, 1, 0},
    /* 512 B: words 0..127, four per bank -> 4 wavefronts = 512/128: no conflict */
    {"16-byte stride 1", 16, 1, ALL, 1, 4, 4, 0, 0},
    /* words 8l..8l+3: banks 8l mod 32 hold lanes l, l+4, ..., l+28 -> 8 words, 8 against 4 -> 2 ways */
    {"16-byte stride 2", 16, 2, ALL, 2, 8, 4, 0, 1},
    /* bytes 0..31 -> words 0..7, four lanes a word: broadcast, one wavefront */
    {"bytes stride 1", 1, 1, ALL, 1, 1, 1, 1, 0},
    /* 2-byte elements 128 B apart: words 32l, all bank 0 -> 32 ways.
     * stride 65 (130 B): lane 1 at word 32 shares bank 0 with lane 0 -> conflict;
     * stride 66 (132 B): word 33l -> bank l -> free: pad 2 */
    {"half stride 64", 2, 64, ALL, 32, 32, 1, 0, 2},
    /* no lane active: nothing to do */
    {"no lane", 4, 32, 0, 0, 0, 0, 0, 0},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, t->element_bytes);
    a.lane_stride_elements = t->stride;
    a.active_mask = t->mask;
    struct simt_banks_result r;
    ck_assert_int_eq(simt_banks_compute(&gpu, &a, &r, NULL), SIMT_OK);
    ck_assert_msg(r.ways == t->ways, "%s: ways %d", t->name, r.ways);
    ck_assert_msg(r.wavefronts == t->wavefronts, "%s: wavefronts %d", t->name, r.wavefronts);
    ck_assert_msg(r.min_wavefronts == t->min_wavefronts, "%s: min %d", t->name, r.min_wavefronts);
    ck_assert_msg(r.broadcast == t->broadcast, "%s: broadcast %d", t->name, r.broadcast);
    ck_assert_msg(r.suggested_padding_elements == t->padding, "%s: padding %lld", t->name,
                  (long long)r.suggested_padding_elements);
    double efficiency = r.wavefronts > 0 ? (double)t->min_wavefronts / t->wavefronts : 1.0;
    ck_assert_double_eq_tol(r.efficiency, efficiency, 1e-12);
}
END_TEST

/* Explicit addresses: lanes 0..15 read word 0, lanes 16..31 word 32 (both
 * bank 0): 2 ways with broadcast, and no padding applies. */
START_TEST(test_explicit)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, 4);
    a.explicit_addresses = 1;
    for (int lane = 0; lane < 32; lane++)
        a.lane_address_bytes[lane] = lane < 16 ? 0 : 128;
    struct simt_banks_result r;
    ck_assert_int_eq(simt_banks_compute(&gpu, &a, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.ways, 2);
    ck_assert_int_eq(r.wavefronts, 2);
    ck_assert_int_eq(r.broadcast, 1);
    ck_assert_int_eq(r.suggested_padding_elements, -1);
}
END_TEST

/* The seed's padded transpose tile: tile[32][33] read down a column is
 * conflict-free for every column offset. */
START_TEST(test_padded_tile_columns)
{
    struct simt_gpu_spec gpu = fixture_gpu();
    for (int column = 0; column < 32; column++) {
        struct simt_warp_access a;
        simt_warp_access_init(&a, 32, 4);
        a.lane_stride_elements = 33;
        a.offset_elements = column;
        struct simt_banks_result r;
        ck_assert_int_eq(simt_banks_compute(&gpu, &a, &r, NULL), SIMT_OK);
        ck_assert_int_eq(r.ways, 1);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("banks");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_explicit);
    tcase_add_test(tc, test_padded_tile_columns);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
