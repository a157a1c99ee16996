/* test_collective.c - the collective model against hand-worked cases: the
 * NCCL tests' bus-bandwidth factors, the alpha-beta identities (time =
 * latency + transfer, busbw = algbw * factor, large messages reach the
 * bottleneck's achievable bandwidth), which link or NIC is the bottleneck,
 * ring against tree across nodes, the LL protocol for small messages, and
 * every refusal. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "collective.h"

/* NVLink 4 through NVSwitch, 400 GB/s per direction; PCIe 50 GB/s. */
static void switch_gpu(struct simt_gpu_spec *g)
{
    memset(g, 0, sizeof *g);
    g->vendor = SIMT_VENDOR_NVIDIA;
    g->compute_major = 9;
    g->sm_count = 100;
    g->nvlink_generation = 4;
    g->nvlink_links = 18;
    g->nvlink_bandwidth_bytes_per_s = 400.0e9;
    g->nvswitch = 1;
    g->pcie_generation = 5;
    g->pcie_lanes = 16;
    g->pcie_bandwidth_bytes_per_s = 50.0e9;
}

static struct simt_collective_result predict_ok(const struct simt_gpu_spec *g, enum simt_collective_op op,
                                                enum simt_link link, double bytes, int gpus, int nodes,
                                                double network)
{
    struct simt_collective_request req = {op, link, bytes, gpus, nodes, network, SIMT_COLLECTIVE_AUTO,
                                          0,  NULL, 0.0};
    struct simt_collective_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_collective_predict(g, &req, &r, &diag);
    ck_assert_msg(rc == SIMT_OK, "predict failed: %s (%s)", diag.message, diag.field);
    return r;
}

/* nccl-tests doc/PERFORMANCE.md */
static const struct {
    enum simt_collective_op op;
    int ranks;
    double factor;
} factor_rows[] = {
    {SIMT_COLLECTIVE_ALL_REDUCE, 2, 1.0},      {SIMT_COLLECTIVE_ALL_REDUCE, 8, 1.75},
    {SIMT_COLLECTIVE_ALL_REDUCE, 16, 1.875},   {SIMT_COLLECTIVE_ALL_GATHER, 8, 0.875},
    {SIMT_COLLECTIVE_REDUCE_SCATTER, 4, 0.75}, {SIMT_COLLECTIVE_ALL_TO_ALL, 2, 0.5},
    {SIMT_COLLECTIVE_BROADCAST, 8, 1.0},       {SIMT_COLLECTIVE_ALL_REDUCE, 1, 0.0},
    {SIMT_COLLECTIVE_ALL_REDUCE, 0, 0.0},      {SIMT_COLLECTIVE_OP_COUNT, 8, 0.0},
};

START_TEST(bus_factor_rows)
{
    ck_assert_double_eq_tol(simt_collective_bus_factor(factor_rows[_i].op, factor_rows[_i].ranks),
                            factor_rows[_i].factor, 1e-15);
}
END_TEST

/* Every op, 2 and 8 GPUs on NVSwitch, 4 GiB: the Simple protocol; busbw
 * comes within the pipeline's and the latency's share (a few percent) of
 * the per-GPU achievable bandwidth, and the identities of the NCCL tests
 * hold. */
START_TEST(large_messages_reach_link_bandwidth)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    const double bytes = 4294967296.0;
    for (int op = 0; op < SIMT_COLLECTIVE_OP_COUNT; op++) {
        for (int gpus = 2; gpus <= 8; gpus += 6) {
            if (op == SIMT_COLLECTIVE_SEND_RECV && gpus > 2)
                continue; /* one rank to one other */
            int nvls = op == SIMT_COLLECTIVE_ALL_REDUCE && gpus == 8;
            struct simt_collective_result r =
                predict_ok(&g, (enum simt_collective_op)op, SIMT_LINK_NVLINK, bytes, gpus, 1, 0.0);
            double factor = simt_collective_bus_factor((enum simt_collective_op)op, gpus);
            ck_assert_str_eq(simt_collective_protocol_name(r.protocol), "simple");
            ck_assert_int_eq(r.ranks, gpus);
            ck_assert_double_eq_tol(r.bus_factor, factor, 1e-15);
            ck_assert_double_eq_tol(r.time_s, r.latency_s + r.transfer_s, 1e-15);
            ck_assert_double_eq_tol(r.algbw_bytes_per_s, bytes / r.time_s, 1e-3);
            ck_assert_double_eq_tol(r.busbw_bytes_per_s, r.algbw_bytes_per_s * factor, 1e-3);
            ck_assert_double_eq_tol(r.link_bytes_per_s, 0.82 * 400.0e9, 1.0);
            ck_assert_int_eq(r.nvswitch, 1);
            if (nvls) {
                /* NVLink SHARP: busbw = 2 x line rate x 0.528, less the pipeline */
                ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "nvls");
                ck_assert(r.busbw_bytes_per_s < 2.0 * 400.0e9 * 0.528);
                ck_assert(r.busbw_bytes_per_s > 0.93 * 2.0 * 400.0e9 * 0.528);
                continue;
            }
            ck_assert(r.busbw_bytes_per_s < r.link_bytes_per_s);
            ck_assert(r.busbw_bytes_per_s > 0.93 * r.link_bytes_per_s);
            ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm),
                             op == SIMT_COLLECTIVE_ALL_TO_ALL || op == SIMT_COLLECTIVE_SEND_RECV ? "direct"
                                                                                                 : "ring");
        }
    }
}
END_TEST

/* Hand-worked: 1 GiB all-reduce on 2 GPUs. Link 400 GB/s x 0.82 = 328
 * GB/s; bus bytes 1 x 1 GiB: 3.2736031 ms at full bandwidth; latency 10.05
 * us + 2 NVLink hops of 0.6 us = 11.25 us; Simple pipelines it:
 * 11.25 us + (sqrt(4.24 us) + sqrt(3.2736031 ms))^2 = 3.5247206 ms. */
START_TEST(hand_worked_all_reduce)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result r =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1073741824.0, 2, 1, 0.0);
    ck_assert_double_eq_tol(r.time_s, 3.524720601138798e-3, 1e-12);
    ck_assert_double_eq_tol(r.latency_s, 11.25e-6 + 4.24e-6, 1e-15);
    ck_assert_double_eq_tol(r.busbw_bytes_per_s, 1073741824.0 / 3.524720601138798e-3, 1.0);
    /* 64 KiB all-gather: LL, 10.65 us + 32 KiB over half of 328 GB/s */
    r = predict_ok(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_NVLINK, 65536.0, 2, 1, 0.0);
    ck_assert_str_eq(simt_collective_protocol_name(r.protocol), "ll");
    ck_assert_double_eq_tol(r.time_s, 1.084980487804878e-05, 1e-15);
}
END_TEST

/* A 1 KiB all-reduce is latency: the LL protocol (half the bandwidth, no
 * pipeline handshake) wins, and the time is within a hair of its latency.
 * PCIe's hops cost more than NVLink's. */
START_TEST(small_messages_are_latency)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result nv =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1024.0, 8, 1, 0.0);
    ck_assert_str_eq(simt_collective_protocol_name(nv.protocol), "ll");
    ck_assert(nv.transfer_s < 0.01 * nv.latency_s);
    ck_assert_double_eq_tol(nv.transfer_s, 1.75 * 1024.0 / (0.5 * nv.link_bytes_per_s), 1e-18);
    /* 10.05 us + 14 ring steps of 0.6 us */
    ck_assert_double_eq_tol(nv.latency_s, 10.05e-6 + 14.0 * 0.6e-6, 1e-15);
    struct simt_collective_result pc =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_PCIE, 1024.0, 8, 1, 0.0);
    ck_assert(pc.latency_s > nv.latency_s);
    /* fewer ranks, fewer ring steps, less latency */
    struct simt_collective_result two =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1024.0, 2, 1, 0.0);
    ck_assert(two.latency_s < nv.latency_s);
    /* time grows with bytes, never shrinks */
    double last = 0.0;
    for (double b = 1024.0; b <= 4294967296.0; b *= 2.0) {
        struct simt_collective_result r =
            predict_ok(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_NVLINK, b, 8, 1, 0.0);
        ck_assert(r.time_s >= last);
        last = r.time_s;
    }
}
END_TEST

/* PCIe: 50 GB/s per direction; busbw of a large all-gather sits at its
 * achievable share. */
START_TEST(pcie_bandwidth)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result r =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_PCIE, 4294967296.0, 4, 1, 0.0);
    ck_assert_double_eq_tol(r.link_bytes_per_s, 0.75 * 50.0e9, 1.0);
    ck_assert(r.busbw_bytes_per_s < r.link_bytes_per_s && r.busbw_bytes_per_s > 0.95 * r.link_bytes_per_s);
}
END_TEST

/* Two nodes of 8 GPUs, 25 GB/s NICs: a node's 8 rings leave through its 8
 * NICs, 8 x 25 x 0.9 = 180 GB/s, below NVLink's achievable 320+ GB/s: the
 * network is the bottleneck of a large all-reduce. */
START_TEST(multi_node_ring_is_network_bound)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    const double bytes = 4294967296.0;
    struct simt_collective_result r =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, bytes, 8, 2, 25.0e9);
    ck_assert_int_eq(r.ranks, 16);
    ck_assert_double_eq_tol(r.bus_factor, 1.875, 1e-15);
    ck_assert_double_eq_tol(r.network_bytes_per_s, 0.9 * 25.0e9, 1.0);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
    double node_bw = 8.0 * 0.9 * 25.0e9;
    ck_assert(r.busbw_bytes_per_s < node_bw && r.busbw_bytes_per_s > 0.95 * node_bw);
    /* 30 ring steps: 28 over NVLink (0.6 us), 2 across the network (2.7 us) */
    ck_assert_double_eq_tol(r.latency_s, 10.05e-6 + 28.0 * 0.6e-6 + 2.0 * 2.7e-6 + 4.24e-6, 1e-15);
    /* the default NIC is 400 Gb/s: 8 x 50 x 0.9 = 360 GB/s for the node */
    struct simt_collective_result d =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, bytes, 8, 2, 0.0);
    ck_assert_double_eq_tol(d.network_bytes_per_s, 0.9 * SIMT_COLLECTIVE_DEFAULT_NETWORK_BYTES_PER_S, 1.0);
    ck_assert(d.time_s < r.time_s);
}
END_TEST

/* 64 nodes: the tree's log2(nodes) steps beat the ring's 2(n-1) for small
 * messages. 8 nodes, 4 GiB: the ring's 2(n-1)/n bytes at full bandwidth beat
 * the tree's 2 bytes at 0.92 of it (26.8 ms x (1/0.92 - 1) = 2.3 ms) by more
 * than the ring's extra latency (126 steps, about 0.6 ms). */
START_TEST(tree_for_small_across_nodes)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result s =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 8192.0, 8, 64, 0.0);
    ck_assert_str_eq(simt_collective_algorithm_name(s.algorithm), "tree");
    struct simt_collective_result l =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 4294967296.0, 8, 8, 0.0);
    ck_assert_str_eq(simt_collective_algorithm_name(l.algorithm), "ring");
    /* one node: never the tree */
    struct simt_collective_result one =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 8192.0, 8, 1, 0.0);
    ck_assert_str_eq(simt_collective_algorithm_name(one.algorithm), "ring");
    /* other ops have no tree */
    struct simt_collective_result ag =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_NVLINK, 8192.0, 8, 64, 0.0);
    ck_assert_str_eq(simt_collective_algorithm_name(ag.algorithm), "ring");
}
END_TEST

/* All-to-all across 2 nodes of 8: each GPU sends 8/16 of its buffer through
 * its own NIC (22.5 GB/s achievable) and 7/16 over NVLink: the NIC bounds. */
START_TEST(all_to_all_across_nodes)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    const double bytes = 1073741824.0;
    struct simt_collective_result r =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_TO_ALL, SIMT_LINK_NVLINK, bytes, 8, 2, 25.0e9);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "direct");
    double t = 0.5 * bytes / (0.9 * 25.0e9);
    double pipelined = sqrt(4.24e-6) + sqrt(t);
    ck_assert_double_eq_tol(r.transfer_s, pipelined * pipelined - 4.24e-6, 1e-12);
}
END_TEST

/* Direct NVLink (no NVSwitch), 4 links: up to 5 GPUs in a full mesh. */
START_TEST(direct_nvlink)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    g.nvswitch = 0;
    g.nvlink_links = 4;
    struct simt_collective_result r =
        predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1.0e9, 2, 1, 0.0);
    ck_assert_int_eq(r.nvswitch, 0);
    r = predict_ok(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1.0e9, 5, 1, 0.0);
    ck_assert_int_gt(r.assumption_count, 1);
}
END_TEST

static const struct {
    int op, link;
    double bytes;
    int gpus, nodes;
    double network;
    int nvlink, nvswitch, links;
    double pcie;
    int rc;
    const char *field;
} error_rows[] = {
    {SIMT_COLLECTIVE_OP_COUNT, 0, 1024.0, 2, 1, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "op"},
    {0, SIMT_LINK_COUNT, 1024.0, 2, 1, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "link"},
    {0, 0, 0.0, 2, 1, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "bytes"},
    {0, 0, -5.0, 2, 1, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "bytes"},
    {0, 0, 1024.0, 0, 1, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "gpus"},
    {0, 0, 1024.0, 2, 0, 0.0, 4, 1, 18, 50e9, SIMT_EINVAL, "nodes"},
    {0, 0, 1024.0, 2, 2, -1.0, 4, 1, 18, 50e9, SIMT_EINVAL, "network_bytes_per_s"},
    {0, 0, 1024.0, 1, 1, 0.0, 4, 1, 18, 50e9, SIMT_EUNSAT, "gpus"},               /* one rank */
    {0, SIMT_LINK_NVLINK, 1024.0, 2, 1, 0.0, 0, 0, 0, 50e9, SIMT_EUNSAT, "link"}, /* no NVLink */
    {0, SIMT_LINK_NVLINK, 1024.0, 6, 1, 0.0, 4, 0, 4, 50e9, SIMT_EUNSAT, "gpus"}, /* 6 > 4 links + 1 */
    {0, SIMT_LINK_PCIE, 1024.0, 2, 1, 0.0, 4, 1, 18, 0.0, SIMT_EUNSAT, "link"},   /* no PCIe figure */
};

START_TEST(error_rows_test)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    g.nvlink_generation = error_rows[_i].nvlink;
    g.nvswitch = error_rows[_i].nvswitch;
    g.nvlink_links = error_rows[_i].links;
    if (error_rows[_i].nvlink == 0)
        g.nvlink_bandwidth_bytes_per_s = 0.0;
    g.pcie_bandwidth_bytes_per_s = error_rows[_i].pcie;
    struct simt_collective_request req = {(enum simt_collective_op)error_rows[_i].op,
                                          (enum simt_link)error_rows[_i].link,
                                          error_rows[_i].bytes,
                                          error_rows[_i].gpus,
                                          error_rows[_i].nodes,
                                          error_rows[_i].network,
                                          SIMT_COLLECTIVE_AUTO,
                                          0,
                                          NULL,
                                          0.0};
    struct simt_collective_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_collective_predict(&g, &req, &r, &diag), error_rows[_i].rc);
    ck_assert_str_eq(diag.field, error_rows[_i].field);
    ck_assert(diag.message[0] != '\0');
}
END_TEST

START_TEST(names_round_trip)
{
    for (int op = 0; op < SIMT_COLLECTIVE_OP_COUNT; op++) {
        enum simt_collective_op parsed;
        ck_assert_int_eq(
            simt_collective_op_parse(simt_collective_op_name((enum simt_collective_op)op), &parsed), SIMT_OK);
        ck_assert_int_eq(parsed, op);
    }
    for (int l = 0; l < SIMT_LINK_COUNT; l++) {
        enum simt_link parsed;
        ck_assert_int_eq(simt_link_parse(simt_link_name((enum simt_link)l), &parsed), SIMT_OK);
        ck_assert_int_eq(parsed, l);
    }
    enum simt_collective_op op;
    ck_assert_int_eq(simt_collective_op_parse("allreduce", &op), SIMT_EINVAL);
    enum simt_link link;
    ck_assert_int_eq(simt_link_parse("infiniband", &link), SIMT_EINVAL);
    ck_assert_ptr_null(simt_collective_op_name(SIMT_COLLECTIVE_OP_COUNT));
    ck_assert_ptr_null(simt_link_name(SIMT_LINK_COUNT));
    ck_assert_str_eq(simt_collective_algorithm_name(SIMT_COLLECTIVE_TREE), "tree");
    ck_assert_str_eq(simt_collective_protocol_name(SIMT_COLLECTIVE_PROTO_LL), "ll");
}
END_TEST

static int predict_alg(const struct simt_gpu_spec *g, enum simt_collective_op op, enum simt_link link,
                       double bytes, int gpus, enum simt_collective_algorithm algorithm, int pairs_only,
                       struct simt_collective_result *r, struct simt_diag *diag)
{
    struct simt_collective_request req = {op, link, bytes, gpus, 1, 0.0, algorithm, pairs_only, NULL, 0.0};
    memset(diag, 0, sizeof *diag);
    return simt_collective_predict(g, &req, r, diag);
}

/* Hand-worked NVLS: 8 GPUs on NVSwitch (NVLink 4, 400 GB/s a direction),
 * 4 GiB all-reduce. Each link carries 7/8 x 4 GiB = 3758096384 B at 0.528
 * x 400 GB/s = 211.2 GB/s: 17.794017 ms; latency 10.05 us + NVLS's 25 us;
 * Simple pipelines it: 35.05 us + (sqrt(4.24 us) + sqrt(17.794017 ms))^2 =
 * 18.382658 ms; busbw 1.75 x 4 GiB / that = 408.87 GB/s. Forced to the
 * ring: 1.75 x 4 GiB over 0.82 x 400 GB/s = 22.915 ms, + 10.05 us + 14
 * hops of 0.6 us, pipelined: 23.561324 ms. */
START_TEST(hand_worked_nvls)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 4294967296.0, 8,
                                 SIMT_COLLECTIVE_AUTO, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "nvls");
    ck_assert_double_eq_tol(r.time_s, 0.018382657975708663, 1e-12);
    ck_assert_double_eq_tol(r.busbw_bytes_per_s, 408874101772.0, 1e3);
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 4294967296.0, 8,
                                 SIMT_COLLECTIVE_RING, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
    ck_assert_double_eq_tol(r.time_s, 0.023561323565641917, 1e-12);
    /* 4 GPUs: NCCL's tuner keeps the ring under auto; nvls may be asked */
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 4294967296.0, 4,
                                 SIMT_COLLECTIVE_AUTO, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 4294967296.0, 4,
                                 SIMT_COLLECTIVE_NVLS, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "nvls");
    /* small messages: NVLS's 25 us loses to the ring's LL */
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 8192.0, 8,
                                 SIMT_COLLECTIVE_AUTO, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
}
END_TEST

/* Where an algorithm does not exist: NVLS before Hopper, without NVSwitch,
 * on PCIe, for another op; the tree for another op; a ring for all-to-all. */
START_TEST(algorithm_refusals)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_NVLINK, 1e9, 8,
                                 SIMT_COLLECTIVE_NVLS, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "algorithm");
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_PCIE, 1e9, 8, SIMT_COLLECTIVE_NVLS,
                                 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_GATHER, SIMT_LINK_NVLINK, 1e9, 8,
                                 SIMT_COLLECTIVE_TREE, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_TO_ALL, SIMT_LINK_NVLINK, 1e9, 8,
                                 SIMT_COLLECTIVE_RING, 0, &r, &diag),
                     SIMT_EUNSAT);
    g.compute_major = 8; /* an A100: NVSwitch, no SHARP */
    g.nvlink_generation = 3;
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1e9, 8,
                                 SIMT_COLLECTIVE_NVLS, 0, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1e9, 8,
                                 SIMT_COLLECTIVE_AUTO, 0, &r, &diag),
                     SIMT_OK);
    ck_assert_str_eq(simt_collective_algorithm_name(r.algorithm), "ring");
}
END_TEST

/* PCIe cards joined by NVLink bridges: a pair, and no more. */
START_TEST(bridged_pairs_only)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    g.nvswitch = 0;
    g.nvlink_links = 12;
    struct simt_collective_result r;
    struct simt_diag diag;
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1e9, 2,
                                 SIMT_COLLECTIVE_AUTO, 1, &r, &diag),
                     SIMT_OK);
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_NVLINK, 1e9, 4,
                                 SIMT_COLLECTIVE_AUTO, 1, &r, &diag),
                     SIMT_EUNSAT);
    ck_assert_str_eq(diag.field, "gpus");
    ck_assert_ptr_nonnull(strstr(diag.message, "link"));
    ck_assert_int_eq(predict_alg(&g, SIMT_COLLECTIVE_ALL_REDUCE, SIMT_LINK_PCIE, 1e9, 4, SIMT_COLLECTIVE_AUTO,
                                 1, &r, &diag),
                     SIMT_OK);
}
END_TEST

/* GPUs without peer-to-peer reach each other through host memory: 8 GPUs
 * and 400 GB/s of host memory give each GPU 400 / (2 x 8) = 25 GB/s, below
 * the PCIe link's 0.75 x 50 = 37.5: the bound; 2 GPUs get 100, above it:
 * the link stays. Given with NVLink, or negative: a 400 naming the field. */
START_TEST(host_memory_path)
{
    struct simt_gpu_spec g;
    switch_gpu(&g);
    struct simt_collective_request req = {SIMT_COLLECTIVE_ALL_REDUCE,
                                          SIMT_LINK_PCIE,
                                          8589934592.0,
                                          8,
                                          1,
                                          0.0,
                                          SIMT_COLLECTIVE_AUTO,
                                          0,
                                          NULL,
                                          400.0e9};
    struct simt_collective_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_collective_predict(&g, &req, &r, &diag), SIMT_OK);
    ck_assert_double_eq_tol(r.link_bytes_per_s, 25.0e9, 1.0);
    ck_assert_int_eq(r.host_memory_bound, 1);
    ck_assert(r.busbw_bytes_per_s < 25.0e9 && r.busbw_bytes_per_s > 0.95 * 25.0e9);
    req.gpus = 2;
    ck_assert_int_eq(simt_collective_predict(&g, &req, &r, &diag), SIMT_OK);
    ck_assert_double_eq_tol(r.link_bytes_per_s, 0.75 * 50.0e9, 1.0);
    ck_assert_int_eq(r.host_memory_bound, 0);
    req.link = SIMT_LINK_NVLINK;
    ck_assert_int_eq(simt_collective_predict(&g, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "host_memory_bytes_per_s");
    req.link = SIMT_LINK_PCIE;
    req.host_memory_bytes_per_s = -1.0;
    ck_assert_int_eq(simt_collective_predict(&g, &req, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "host_memory_bytes_per_s");
}
END_TEST

static Suite *collective_suite(void)
{
    Suite *s = suite_create("collective");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, bus_factor_rows, 0, (int)(sizeof factor_rows / sizeof factor_rows[0]));
    tcase_add_test(tc, large_messages_reach_link_bandwidth);
    tcase_add_test(tc, hand_worked_all_reduce);
    tcase_add_test(tc, small_messages_are_latency);
    tcase_add_test(tc, pcie_bandwidth);
    tcase_add_test(tc, multi_node_ring_is_network_bound);
    tcase_add_test(tc, tree_for_small_across_nodes);
    tcase_add_test(tc, all_to_all_across_nodes);
    tcase_add_test(tc, direct_nvlink);
    tcase_add_loop_test(tc, error_rows_test, 0, (int)(sizeof error_rows / sizeof error_rows[0]));
    tcase_add_test(tc, names_round_trip);
    tcase_add_test(tc, hand_worked_nvls);
    tcase_add_test(tc, algorithm_refusals);
    tcase_add_test(tc, bridged_pairs_only);
    tcase_add_test(tc, host_memory_path);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(collective_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
