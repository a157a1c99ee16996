/* test_collective_fabrics.c - the collective model's fabrics, worked by hand
 * (issue 15 item 4): AMD Infinity Fabric (xGMI) as a full mesh on an
 * MI300X-like record (7 links of 64 GB/s a direction, RCCL moving 0.75 of
 * each), send_recv over xGMI and NVLink, NVLink bridges joining a pair of
 * PCIe cards and refusing four, and the refusals that name `link` or
 * `gpus`. Constants every hand-worked time uses (model/collective.c): a
 * collective's fixed 10.05 us, 0.6 us a hop (xGMI is NCCL's NVLink path in
 * RCCL), and the Simple protocol's pipeline: latency + (sqrt(4.24 us) +
 * sqrt(t))^2 for t seconds of bytes at full bandwidth; sqrt(4.24e-6) =
 * 2.0591260e-3. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "collective.h"

/* MI300X as hwdb/gpus/mi300x.yaml has it: 7 xGMI links, 448 GB/s a
 * direction in all, no NVLink, PCIe Gen5. */
static void xgmi_gpu(struct simt_gpu_spec *g)
{
    memset(g, 0, sizeof *g);
    g->vendor = SIMT_VENDOR_AMD;
    g->compute_major = 9;
    g->sm_count = 304;
    g->xgmi_links = 7;
    g->xgmi_bandwidth_bytes_per_s = 448.0e9;
    g->pcie_generation = 5;
    g->pcie_lanes = 16;
    g->pcie_bandwidth_bytes_per_s = 63.0e9;
}

/* An H100 PCIe-like card: NVLink 4 bridges, 300 GB/s a direction, 12
 * links, no NVSwitch. */
static void bridged_gpu(struct simt_gpu_spec *g)
{
    memset(g, 0, sizeof *g);
    g->vendor = SIMT_VENDOR_NVIDIA;
    g->compute_major = 9;
    g->sm_count = 114;
    g->nvlink_generation = 4;
    g->nvlink_links = 12;
    g->nvlink_bandwidth_bytes_per_s = 300.0e9;
    g->pcie_generation = 5;
    g->pcie_lanes = 16;
    g->pcie_bandwidth_bytes_per_s = 50.0e9;
}

static int predict(const struct simt_gpu_spec *g, enum simt_collective_op op, enum simt_link link,
                   double bytes, int gpus, int pairs_only, struct simt_collective_result *r,
                   struct simt_diag *diag)
{
    struct simt_collective_request req = {op,         link, bytes, gpus, 1, 0.0, SIMT_COLLECTIVE_AUTO,
                                          pairs_only, NULL, 0.0};
    memset(diag, 0, sizeof *diag);
    return simt_collective_predict(g, &req, r, diag);
}

#define GIB 1073741824.0

/* 8 MI300X, 1 GiB all-reduce over xGMI. A link: 448 / 7 = 64 GB/s, RCCL
 * 0.75 of it = 48 GB/s; one ring per link, 7 links: 336 GB/s. Ring bus
 * bytes 2 x 7/8 x 1 GiB = 1879048192 B / 336e9 = 5.5924053 ms; latency
 * 10.05 us + 14 hops x 0.6 us = 18.45 us; Simple: 18.45 us + (2.0591260e-3
 * + sqrt(5.5924053e-3) = 0.074782387)^2 = 5.9230681 ms; busbw 1.75 x 1 GiB /
 * that = 317.24 GB/s (RCCL measured 322.4 GB/s at 1 GiB, ROCm 6.4.1:
 * github.com/ROCm/rocm-systems/pull/5297). LL (half the bandwidth, no
 * pipeline) takes 11.2 ms: Simple wins. */
START_TEST(xgmi_all_reduce_by_hand)
{
    struct simt_gpu_spec g;
    xgmi_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_XGMI, GIB, 8, 0, &r, &diag), SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
    ck_assert_str_eq(simt_collective_protocol_name(r.protocol), "simple");
    ck_assert_double_eq_tol(r.link_bytes_per_s, 336.0e9, 1.0);
    ck_assert_double_eq_tol(r.latency_s, 18.45e-6 + 4.24e-6, 1e-15);
    ck_assert_double_eq_tol(r.time_s, 5.923068050393355e-3, 1e-12);
    ck_assert_double_eq_tol(r.busbw_bytes_per_s, 1.75 * GIB / 5.923068050393355e-3, 1e3);
    ck_assert_int_eq(r.nvswitch, 0);
    /* 4 GPUs of the mesh: 3 links, 144 GB/s (RCCL's own "totalBw 144.0" for
     * 4 MI300X, github.com/ROCm/rccl/issues/1210); 1.5 x 1 GiB / 144e9 =
     * 11.184811 ms; 10.05 + 6 x 0.6 = 13.65 us; Simple: 11.638240 ms */
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_XGMI, GIB, 4, 0, &r, &diag), SIMT_OK);
    ck_assert_double_eq_tol(r.link_bytes_per_s, 144.0e9, 1.0);
    ck_assert_double_eq_tol(r.time_s, 0.011638239859973842, 1e-12);
}
END_TEST

/* 8 MI300X, 1 GiB all-to-all: each GPU sends 1/8 GiB to each of 7 peers,
 * each over its own link at 48 GB/s, all at once: 134217728 B / 48e9 =
 * 2.7962027 ms (= 7/8 GiB over 336 GB/s); latency 10.05 + 0.6 = 10.65 us;
 * Simple: 10.65 us + (2.0591260e-3 + 0.052879133)^2 = 3.0288623 ms. */
START_TEST(xgmi_all_to_all_by_hand)
{
    struct simt_gpu_spec g;
    xgmi_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_TO_ALL, SIMT_LINK_XGMI, GIB, 8, 0, &r, &diag), SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "direct");
    ck_assert_double_eq_tol(r.time_s, 3.0288622633202547e-3, 1e-12);
    ck_assert_double_eq_tol(r.busbw_bytes_per_s, 0.875 * GIB / 3.0288622633202547e-3, 1e3);
}
END_TEST

/* send_recv, 1 GiB, two GPUs. Over xGMI one link carries it: 1 GiB / 48e9
 * = 22.369621 ms, + 10.65 us, Simple: (2.0591260e-3 + 0.14956477)^2 +
 * 10.65 us = 23.000457 ms. Over NVLink through NVSwitch, 400 GB/s x 0.82 =
 * 328 GB/s: 3.2736031 ms, Simple: (2.0591260e-3 + 0.057215410)^2 + 10.65
 * us = 3.5241206 ms. busbw = algbw (factor 1). */
START_TEST(send_recv_by_hand)
{
    struct simt_gpu_spec g;
    xgmi_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_SEND_RECV, SIMT_LINK_XGMI, GIB, 2, 0, &r, &diag), SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "direct");
    ck_assert_double_eq_tol(r.link_bytes_per_s, 48.0e9, 1.0);
    ck_assert_double_eq_tol(r.time_s, 0.02300045676745338, 1e-12);
    ck_assert_double_eq_tol(r.busbw_bytes_per_s, r.algbw_bytes_per_s, 1e-3);
    struct simt_gpu_spec nv;
    memset(&nv, 0, sizeof nv);
    nv.vendor = SIMT_VENDOR_NVIDIA;
    nv.compute_major = 9;
    nv.nvlink_generation = 4;
    nv.nvlink_links = 18;
    nv.nvlink_bandwidth_bytes_per_s = 400.0e9;
    nv.nvswitch = 1;
    nv.pcie_bandwidth_bytes_per_s = 50.0e9;
    ck_assert_int_eq(predict(&nv, SIMT_COLLECTIVE_SEND_RECV, SIMT_LINK_NVLINK, GIB, 2, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_double_eq_tol(r.time_s, 0.003524120601138798, 1e-12);
    /* one rank to one other only */
    ck_assert_int_eq(predict(&nv, SIMT_COLLECTIVE_SEND_RECV, SIMT_LINK_NVLINK, GIB, 4, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "gpus");
}
END_TEST

/* NVLink bridges join two PCIe cards: a pair all-reduces 1 GiB over the
 * bridge at 300 GB/s x 0.82 = 246 GB/s: 4.3648042 ms, + 10.05 us + 2 hops
 * x 0.6 us = 11.25 us, Simple: (2.0591260e-3 + 0.066066665)^2 + 11.25 us =
 * 4.6523733 ms. Four such cards over "nvlink" are refused naming gpus and
 * pointing at link "pcie"; over PCIe they run. */
START_TEST(bridge_pairs_by_hand)
{
    struct simt_gpu_spec g;
    bridged_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, GIB, 2, 1, &r, &diag),
                     SIMT_OK);
    ck_assert_double_eq_tol(r.time_s, 0.004652373339676469, 1e-12);
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, GIB, 4, 1, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "gpus");
    ck_assert_ptr_nonnull(strstr(diag.message, "pcie"));
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_PCIE, GIB, 4, 1, &r, &diag), SIMT_OK);
}
END_TEST

/* Fabric refusals: xGMI on a GPU without Infinity Fabric (naming link and
 * suggesting its own fabric), NVLink on the MI300X (naming link and
 * suggesting xgmi), more GPUs than the mesh joins (naming gpus). */
START_TEST(fabric_refusals)
{
    struct simt_gpu_spec g;
    struct simt_collective_result r;
    struct simt_diag diag;
    bridged_gpu(&g);
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_XGMI, GIB, 2, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "link");
    ck_assert_ptr_nonnull(strstr(diag.message, "nvlink"));
    xgmi_gpu(&g);
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, GIB, 8, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "link");
    ck_assert_ptr_nonnull(strstr(diag.message, "xgmi"));
    ck_assert_int_eq(predict(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_XGMI, GIB, 9, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "gpus");
    /* the link name round-trips */
    enum simt_link link;
    ck_assert_int_eq(simt_link_parse("xgmi", &link), SIMT_OK);
    ck_assert_int_eq(link, SIMT_LINK_XGMI);
    ck_assert_str_eq(simt_link_name(SIMT_LINK_XGMI), "xgmi");
}
END_TEST

static Suite *fabrics_suite(void)
{
    Suite *s = suite_create("collective_fabrics");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, xgmi_all_reduce_by_hand);
    tcase_add_test(tc, xgmi_all_to_all_by_hand);
    tcase_add_test(tc, send_recv_by_hand);
    tcase_add_test(tc, bridge_pairs_by_hand);
    tcase_add_test(tc, fabric_refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fabrics_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
