/* test_transformer.c - the transformer model's memory arithmetic against
 * numbers worked by hand (Llama 3 8B's published shape), its refusals, and
 * the layer's shape of operations. */
#include <check.h>
#include <string.h>

#include "hwdb.h"
#include "transformer.h"

/* A GPU of the bundled database. */
static void load_gpu(const char *id, struct simt_gpu_spec *out)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s", diag.message);
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, id);
    ck_assert_ptr_nonnull(gpu);
    *out = gpu->spec;
    simt_hwdb_unref(db);
}

static struct simt_tfm_request llama3_8b_decode(void)
{
    struct simt_tfm_request r;
    memset(&r, 0, sizeof r);
    r.shape = (struct simt_tfm_shape){.hidden = 4096,
                                      .heads = 32,
                                      .kv_heads = 8,
                                      .head_dim = 128,
                                      .ffn = 14336,
                                      .layers = 32,
                                      .vocab = 128256,
                                      .mlp = SIMT_TFM_SWIGLU,
                                      .tied_embeddings = 0};
    r.phase = SIMT_TFM_DECODE;
    r.batch = 32;
    r.seq_len = 1;
    r.kv_len = 4096;
    r.weights = r.activations = r.kv_cache = SIMT_TFM_BF16;
    r.tp = 1;
    return r;
}

START_TEST(parameters_by_hand)
{
    struct simt_tfm_request r = llama3_8b_decode();
    /* per layer: q,k,v 4096 x (32 + 2 x 8) x 128 = 25,165,824; o 32 x 128 x
     * 4096 = 16,777,216; gate, up, down 3 x 4096 x 14336 = 176,160,768; two
     * norms 8,192: 218,112,000. x 32 = 6,979,584,000; embedding and LM head
     * 2 x 128256 x 4096 = 1,050,673,152; final norm 4,096. */
    ck_assert_double_eq(simt_tfm_parameters(&r.shape), 8030261248.0);
    r.shape.tied_embeddings = 1;
    ck_assert_double_eq(simt_tfm_parameters(&r.shape), 8030261248.0 - 128256.0 * 4096.0);
}
END_TEST

START_TEST(memory_by_hand)
{
    struct simt_tfm_request r = llama3_8b_decode();
    struct simt_tfm_memory m;
    simt_tfm_memory_need(&r, 80e9, &m);
    ck_assert_double_eq(m.weights_bytes, 16060522496.0); /* x 2 bytes */
    /* 2 x 32 layers x 8 x 128 x 4096 x 32 sequences x 2 bytes */
    ck_assert_double_eq(m.kv_cache_bytes, 17179869184.0);
    /* one token a sequence: (2 x 4096 + 6144 + 4096 + 3 x 14336 + 128256) x 2 bytes = 379,392 */
    ck_assert_double_eq(m.activations_bytes, 32.0 * 379392.0);
    ck_assert_double_eq(m.total_bytes_per_gpu, 16060522496.0 + 17179869184.0 + 32.0 * 379392.0);
    ck_assert_int_eq(m.fits, 1);
    /* (80e9 - 16,060,522,496) / (536,870,912 + 379,392) = 119.01 */
    ck_assert_int_eq(m.max_batch, 119);

    /* fp8 weights and cache over tp = 2: halved twice */
    r.weights = r.kv_cache = SIMT_TFM_FP8;
    r.tp = 2;
    simt_tfm_memory_need(&r, 80e9, &m);
    ck_assert_double_eq(m.weights_bytes, 8030261248.0 / 2.0);
    ck_assert_double_eq(m.kv_cache_bytes, 17179869184.0 / 4.0);

    /* weights alone over the memory: nothing fits */
    r = llama3_8b_decode();
    simt_tfm_memory_need(&r, 16e9, &m);
    ck_assert_int_eq(m.fits, 0);
    ck_assert_int_eq(m.max_batch, 0);
}
END_TEST

START_TEST(refusals_name_the_field)
{
    struct simt_gpu_spec h200, a100;
    load_gpu("h200-sxm", &h200);
    load_gpu("a100-sxm4-80gb", &a100);
    struct simt_tfm_result out;
    struct simt_diag diag;
    struct simt_tfm_request r = llama3_8b_decode();
    r.weights = SIMT_TFM_FP8;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_tfm_predict(&a100, &r, &out, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "dtype.weights");
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &out, &diag), SIMT_OK);
    r = llama3_8b_decode();
    r.tp = 3;
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &out, &diag), SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "parallel.tp");
    r = llama3_8b_decode();
    r.kv_len = 0;
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &out, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "kv_len");
}
END_TEST

START_TEST(layer_ops_and_tp)
{
    struct simt_gpu_spec h200;
    load_gpu("h200-sxm", &h200);
    struct simt_tfm_result one, two;
    struct simt_diag diag;
    struct simt_tfm_request r = llama3_8b_decode();
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &one, &diag), SIMT_OK);
    ck_assert_int_eq(one.op_count, 11); /* no all-reduce on one GPU */
    double sum = 0.0;
    for (int i = 0; i < one.op_count; i++)
        sum += one.ops[i].time_s;
    ck_assert_double_eq_tol(sum, one.layer_time_s, 1e-12);
    ck_assert_str_eq(one.ops[1].name, "qkv_proj");
    ck_assert_int_eq(one.ops[1].m, 32);
    ck_assert_int_eq(one.ops[1].n, 6144);
    ck_assert_int_eq(one.ops[1].k, 4096);
    r.tp = 2;
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &two, &diag), SIMT_OK);
    ck_assert_int_eq(two.op_count, 13); /* two all-reduces */
    ck_assert_int_eq(two.ops[1].n, 3072);
    ck_assert(two.tokens_per_s > one.tokens_per_s); /* decode at batch 32 reads half the weights per GPU */
    /* more context, longer attention; prefill slower per step than decode */
    r = llama3_8b_decode();
    r.kv_len = 32768;
    struct simt_tfm_result longer;
    ck_assert_int_eq(simt_tfm_predict(&h200, &r, &longer, &diag), SIMT_OK);
    ck_assert(longer.layer_time_s > one.layer_time_s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("transformer");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, parameters_by_hand);
    tcase_add_test(tc, memory_by_hand);
    tcase_add_test(tc, refusals_name_the_field);
    tcase_add_test(tc, layer_ops_and_tp);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
