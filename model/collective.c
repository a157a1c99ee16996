/* collective.c - NCCL collectives as alpha-beta: per algorithm (ring, tree,
 * pairwise) and protocol (LL, Simple) a fixed latency, a latency per step,
 * and the bytes one rank moves over the achievable bandwidth of the
 * bottleneck; the least time wins, as NCCL's own tuner picks. Pure. */
#include "collective.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- constants that are not in the database. The NVLink ones were
 * derived once from the named subsets of NCCL 2.28.9 through
 * torch.distributed on two H200s joined by NV18, CUDA-graph timed
 * (tests/gpu/results/h200x2/collectives.json); the others come from the
 * sources named. Each is stated in the answer's assumptions. ---- */

/* The links' achievable bandwidths are figures (figures.h:
 * SIMT_FIG_NVLINK_BANDWIDTH and SIMT_FIG_PCIE_BANDWIDTH, the record's link
 * rate times NCCL's documented share of it, each with its source). The
 * network between nodes is the request's, not the GPU's: NCCL's share of
 * it is an ESTIMATE, 0.90 of the NIC's line rate (the same protocol share
 * as on NVLink would be 0.82; InfiniBand's RDMA moves 4 KiB payloads with
 * little more than a header each, so the share is taken higher). */
#define NETWORK_FRACTION 0.90
/* NVLink SHARP (NVLS) all-reduce: the NVSwitch reduces and multicasts, so
 * each GPU sends its data once and receives the result once. NCCL's tests
 * measure it on 8 H200s joined by NVLink 4 (450 GB/s per direction) at a
 * busbw of 475 GB/s (github.com/NVIDIA/nccl-tests/issues/272, 4 GiB,
 * NCCL 2.20.3): busbw = 2 x line x f, f = 475 / 900 = 0.528 of the line rate
 * each way. NCCL uses it on NVSwitch systems of Hopper and later (NCCL
 * documentation, NCCL_NVLS_ENABLE: "NVLink SHARP is available in
 * third-generation NVSwitch systems (NVLink4) with Hopper and later GPU
 * architectures"); the tuner picks it over the ring from more than 4 GPUs
 * (issue 11). */
#define NVLS_LINE_FRACTION 0.528
#define NVLS_MIN_AUTO_GPUS 5
/* NVLS's fixed latency on top of a collective's: NCCL's tuner puts it at
 * 25 us (src/graph/tuning.cc, hwLat for NVLink, NVLS, Simple: 25, against
 * 0.6 us a ring step with LL), one cost, not one per step. */
#define NVLS_LATENCY_S 25.0e-6
/* A tree all-reduce reaches 0.92 of the ring's bus bandwidth (NCCL's tuner,
 * src/graph/tuning.cc: "busBw*.92" for Tree/AllReduce). */
#define TREE_BANDWIDTH_FRACTION 0.92
/* NCCL's LL protocol stores 4 bytes of data with a 4-byte flag in each
 * 8-byte word: half the bandwidth, no per-chunk handshake. */
#define LL_BANDWIDTH_FRACTION 0.5
/* The fixed cost of one collective (launch in a stream, first handshake):
 * the median over all 35 operations of 64 KiB or less of the measured time
 * less their NVLink hops. */
#define BASE_LATENCY_S 10.05e-6
/* NCCL's Simple protocol pipelines a message through its FIFO in chunks,
 * each with a handshake; the best chunking of a pipelined transfer of t
 * seconds with a per-chunk cost a takes (sqrt(a) + sqrt(t))^2 (the classical
 * pipelined-transfer result). a fitted once to the all-reduces of 16 to 256
 * MiB (median error 0). */
#define PIPELINE_LATENCY_S 4.24e-6

/* Latency of one hop of a ring or tree step, from NCCL's tuner defaults for
 * the LL protocol (src/graph/tuning.cc, NCCL 2.2x: NVLink 0.6 us, PCI 1.0
 * us, network 2.7 us on a ring and 5.0 us on a tree). */
enum hop { HOP_NVLINK = 0, HOP_PCIE, HOP_NET, HOP_COUNT };
static const double ring_hop_s[HOP_COUNT] = {0.6e-6, 1.0e-6, 2.7e-6};
static const double tree_hop_s[HOP_COUNT] = {0.6e-6, 1.0e-6, 5.0e-6};

static const char *const op_names[SIMT_COLLECTIVE_OP_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv",
};
static const char *const link_names[SIMT_LINK_COUNT] = {"nvlink", "pcie", "xgmi"};

const char *simt_collective_op_name(enum simt_collective_op op)
{
    if ((int)op < 0 || op >= SIMT_COLLECTIVE_OP_COUNT)
        return NULL;
    return op_names[op];
}

const char *simt_link_name(enum simt_link link)
{
    if ((int)link < 0 || link >= SIMT_LINK_COUNT)
        return NULL;
    return link_names[link];
}

const char *simt_collective_algorithm_name(enum simt_collective_algorithm algorithm)
{
    switch (algorithm) {
    case SIMT_COLLECTIVE_AUTO:
        return "auto";
    case SIMT_COLLECTIVE_RING:
        return "ring";
    case SIMT_COLLECTIVE_TREE:
        return "tree";
    case SIMT_COLLECTIVE_NVLS:
        return "nvls";
    case SIMT_COLLECTIVE_DIRECT:
        return "direct";
    case SIMT_COLLECTIVE_ALGORITHM_COUNT:
        break;
    }
    return NULL;
}

const char *simt_collective_protocol_name(enum simt_collective_protocol protocol)
{
    switch (protocol) {
    case SIMT_COLLECTIVE_PROTO_LL:
        return "ll";
    case SIMT_COLLECTIVE_PROTO_SIMPLE:
        return "simple";
    }
    return NULL;
}

int simt_collective_op_parse(const char *name, enum simt_collective_op *out)
{
    for (int i = 0; i < SIMT_COLLECTIVE_OP_COUNT; i++) {
        if (strcmp(name, op_names[i]) == 0) {
            *out = (enum simt_collective_op)i;
            return SIMT_OK;
        }
    }
    return SIMT_EINVAL;
}

int simt_link_parse(const char *name, enum simt_link *out)
{
    for (int i = 0; i < SIMT_LINK_COUNT; i++) {
        if (strcmp(name, link_names[i]) == 0) {
            *out = (enum simt_link)i;
            return SIMT_OK;
        }
    }
    return SIMT_EINVAL;
}

double simt_collective_bus_factor(enum simt_collective_op op, int ranks)
{
    if (ranks < 1)
        return 0.0;
    double n = (double)ranks;
    switch (op) {
    case SIMT_COLLECTIVE_ALL_REDUCE:
        return 2.0 * (n - 1.0) / n;
    case SIMT_COLLECTIVE_ALL_GATHER:
    case SIMT_COLLECTIVE_REDUCE_SCATTER:
    case SIMT_COLLECTIVE_ALL_TO_ALL:
        return (n - 1.0) / n;
    case SIMT_COLLECTIVE_BROADCAST:
    case SIMT_COLLECTIVE_SEND_RECV:
        return 1.0;
    case SIMT_COLLECTIVE_OP_COUNT:
        break;
    }
    return 0.0;
}

static void assume(struct simt_collective_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void assume(struct simt_collective_result *out, const char *fmt, ...)
{
    if (out->assumption_count >= SIMT_COLLECTIVE_MAX_ASSUMPTIONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->assumptions[out->assumption_count], SIMT_COLLECTIVE_ASSUMPTION_BYTES, fmt, ap);
    va_end(ap);
    out->assumption_count++;
}

/* The topology the request describes, reduced to what the model needs. */
struct fabric {
    int gpus; /* per node */
    int nodes;
    int ranks;
    double intra_bytes_per_s;      /* achievable per GPU within a node; HUGE_VAL when one GPU a node */
    double net_bytes_per_s;        /* achievable per GPU between nodes; HUGE_VAL for one node */
    double link_alone_bytes_per_s; /* the link's achievable rate when host memory bounds intra (else 0) */
    enum hop intra_hop;
};

/* One algorithm before its protocol: its fixed latency, and how long its
 * bytes take at the full achievable bandwidth. */
struct plan {
    enum simt_collective_algorithm algorithm;
    double latency_s;
    double bandwidth_s;
};

struct choice {
    enum simt_collective_algorithm algorithm;
    enum simt_collective_protocol protocol;
    double latency_s;
    double transfer_s;
    double time_s;
};

static int ceil_log2(int n)
{
    int steps = 0;
    while ((1 << steps) < n)
        steps++;
    return steps;
}

static double smaller(double a, double b)
{
    return a < b ? a : b;
}

/* Ring (a pipelined chain for broadcast): every rank sends the bus bytes
 * over its ring edge; with several nodes each of a node's `gpus` rings leaves
 * through its own NIC, so the node's rings share gpus * NIC bandwidth. */
static struct plan ring_plan(const struct fabric *f, enum simt_collective_op op, double bytes)
{
    int steps = op == SIMT_COLLECTIVE_ALL_REDUCE ? 2 * (f->ranks - 1) : f->ranks - 1;
    int inter_steps = op == SIMT_COLLECTIVE_ALL_REDUCE ? 2 * (f->nodes - 1) : f->nodes - 1;
    double bw = smaller(f->intra_bytes_per_s, (double)f->gpus * f->net_bytes_per_s);
    struct plan p;
    p.algorithm = SIMT_COLLECTIVE_RING;
    p.latency_s = BASE_LATENCY_S + (double)(steps - inter_steps) * ring_hop_s[f->intra_hop] +
                  (double)inter_steps * ring_hop_s[HOP_NET];
    p.bandwidth_s = simt_collective_bus_factor(op, f->ranks) * bytes / bw;
    return p;
}

/* Tree all-reduce across nodes: a chain inside each node, a double binary
 * tree between nodes. Each rank sends and receives about 2 * bytes (reduce
 * up, broadcast down), against the ring's 2(n-1)/n * bytes, but the steps
 * grow with log2(nodes) instead of with the ranks. */
static struct plan tree_plan(const struct fabric *f, double bytes)
{
    double bw = smaller(f->intra_bytes_per_s, (double)f->gpus * f->net_bytes_per_s);
    struct plan p;
    p.algorithm = SIMT_COLLECTIVE_TREE;
    p.latency_s = BASE_LATENCY_S + 2.0 * ((double)(f->gpus - 1) * tree_hop_s[f->intra_hop] +
                                          (double)ceil_log2(f->nodes) * tree_hop_s[HOP_NET]);
    p.bandwidth_s = 2.0 * bytes / (bw * TREE_BANDWIDTH_FRACTION);
    return p;
}

/* Direct: every rank sends to every other at once (NCCL's grouped send and
 * receive); its own node's share over the intra-node link, the rest through
 * its own NIC. What one rank sends to each other rank: all-to-all
 * bytes/ranks; all-gather and reduce-scatter bytes/ranks (its shard);
 * all-reduce twice that (a reduce-scatter, then an all-gather); broadcast:
 * the root sends all the bytes to every other rank; send_recv all the bytes
 * to one rank. */
static struct plan direct_plan(const struct fabric *f, enum simt_collective_op op, double bytes)
{
    double share = bytes / (double)f->ranks;
    double rounds = 1.0;
    int peers_intra = f->gpus - 1, peers_inter = f->ranks - f->gpus;
    if (op == SIMT_COLLECTIVE_ALL_REDUCE)
        rounds = 2.0;
    if (op == SIMT_COLLECTIVE_BROADCAST || op == SIMT_COLLECTIVE_SEND_RECV)
        share = bytes;
    if (op == SIMT_COLLECTIVE_SEND_RECV) {
        peers_intra = f->gpus > 1 ? 1 : 0;
        peers_inter = f->gpus > 1 ? 0 : 1;
    }
    double intra = peers_intra > 0 ? rounds * (double)peers_intra * share / f->intra_bytes_per_s : 0.0;
    double inter = peers_inter > 0 ? rounds * (double)peers_inter * share / f->net_bytes_per_s : 0.0;
    struct plan p;
    p.algorithm = SIMT_COLLECTIVE_DIRECT;
    p.latency_s = BASE_LATENCY_S + rounds * ((peers_intra > 0 ? ring_hop_s[f->intra_hop] : 0.0) +
                                             (peers_inter > 0 ? ring_hop_s[HOP_NET] : 0.0));
    p.bandwidth_s = intra > inter ? intra : inter;
    return p;
}

/* NVLS all-reduce in one node: each rank's link carries (n-1)/n of the bytes
 * each way (its shard reduced in the switch, the result multicast back) at
 * the NVLS share of the line rate, after NVLS's own latency. */
static struct plan nvls_plan(const struct fabric *f, double line_bytes_per_s, double bytes)
{
    struct plan p;
    p.algorithm = SIMT_COLLECTIVE_NVLS;
    p.latency_s = BASE_LATENCY_S + NVLS_LATENCY_S;
    p.bandwidth_s =
        (double)(f->ranks - 1) / (double)f->ranks * bytes / (line_bytes_per_s * NVLS_LINE_FRACTION);
    return p;
}

/* The plan under each protocol; keeps the faster in *best. */
static void run_protocols(const struct plan *p, struct choice *best)
{
    struct choice ll;
    ll.algorithm = p->algorithm;
    ll.protocol = SIMT_COLLECTIVE_PROTO_LL;
    ll.latency_s = p->latency_s;
    ll.transfer_s = p->bandwidth_s / LL_BANDWIDTH_FRACTION;
    ll.time_s = ll.latency_s + ll.transfer_s;

    struct choice simple;
    simple.algorithm = p->algorithm;
    simple.protocol = SIMT_COLLECTIVE_PROTO_SIMPLE;
    double pipelined = sqrt(PIPELINE_LATENCY_S) + sqrt(p->bandwidth_s);
    simple.latency_s = p->latency_s + PIPELINE_LATENCY_S;
    simple.time_s = p->latency_s + pipelined * pipelined;
    simple.transfer_s = simple.time_s - simple.latency_s;

    if (ll.time_s < best->time_s && p->algorithm != SIMT_COLLECTIVE_NVLS) /* NVLS runs Simple only */
        *best = ll;
    if (simple.time_s < best->time_s)
        *best = simple;
}

static int check_coll_request(const struct simt_collective_request *req, struct simt_diag *diag)
{
    if ((int)req->op < 0 || req->op >= SIMT_COLLECTIVE_OP_COUNT)
        return simt_diag_fail(
            diag, SIMT_EINVAL, "op",
            "op must be all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv");
    if ((int)req->link < 0 || req->link >= SIMT_LINK_COUNT)
        return simt_diag_fail(diag, SIMT_EINVAL, "link", "link must be nvlink, pcie or xgmi");
    if ((int)req->algorithm < 0 || req->algorithm >= SIMT_COLLECTIVE_ALGORITHM_COUNT)
        return simt_diag_fail(diag, SIMT_EINVAL, "algorithm",
                              "algorithm must be auto, ring, tree, nvls or direct");
    if (!(req->bytes > 0.0) || !isfinite(req->bytes))
        return simt_diag_fail(diag, SIMT_EINVAL, "bytes", "bytes must be a positive number");
    if (req->gpus < 1)
        return simt_diag_fail(diag, SIMT_EINVAL, "gpus", "gpus must be a positive integer");
    if (req->nodes < 1)
        return simt_diag_fail(diag, SIMT_EINVAL, "nodes", "nodes must be a positive integer");
    if (req->network_bytes_per_s < 0.0 || !isfinite(req->network_bytes_per_s))
        return simt_diag_fail(diag, SIMT_EINVAL, "network_bytes_per_s",
                              "network_bytes_per_s must be a positive number");
    if (req->host_memory_bytes_per_s < 0.0 || !isfinite(req->host_memory_bytes_per_s))
        return simt_diag_fail(diag, SIMT_EINVAL, "host_memory_bytes_per_s",
                              "host_memory_bytes_per_s must be a positive number");
    if (req->host_memory_bytes_per_s > 0.0 && req->link != SIMT_LINK_PCIE)
        return simt_diag_fail(diag, SIMT_EINVAL, "host_memory_bytes_per_s",
                              "host_memory_bytes_per_s applies to link \"pcie\" (GPUs without peer-to-peer "
                              "reach each other through host memory)");
    if ((int64_t)req->gpus * req->nodes > 1000000)
        return simt_diag_fail(diag, SIMT_EINVAL, "nodes", "gpus * nodes must be at most 1000000");
    return SIMT_OK;
}

/* Infinity Fabric: a full mesh of xgmi_links + 1 GPUs, one link to each
 * peer, each at RCCL's share of its line rate. RCCL runs one ring per link
 * (a complete directed graph splits into that many rings), and a direct
 * algorithm sends to every peer at once, each over its own link: either way
 * a GPU moves its bytes over its gpus - 1 links together. A single ring
 * would have one link in and one out. */
static int setup_xgmi(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                      const struct simt_collective_request *req, struct fabric *f, double *link_raw,
                      struct simt_collective_result *out, struct simt_diag *diag)
{
    if (gpu->xgmi_links < 1 || !(figures->value[SIMT_FIG_XGMI_BANDWIDTH] > 0.0))
        return simt_diag_fail(diag, SIMT_EUNSAT, "link",
                              "this GPU has no AMD Infinity Fabric (xGMI) links; use \"%s\"",
                              gpu->nvlink_generation > 0 ? "nvlink" : "pcie");
    if (req->gpus > gpu->xgmi_links + 1)
        return simt_diag_fail(diag, SIMT_EUNSAT, "gpus",
                              "Infinity Fabric joins at most %d GPUs in a full mesh (%d links each)",
                              gpu->xgmi_links + 1, gpu->xgmi_links);
    /* the figure is all links together at RCCL's share (figures.c) */
    out->figures_used |= SIMT_FIG_BIT(SIMT_FIG_XGMI_BANDWIDTH);
    *link_raw = gpu->xgmi_bandwidth_bytes_per_s / gpu->xgmi_links;
    if (req->gpus > 1)
        f->intra_bytes_per_s =
            (double)(req->gpus - 1) * figures->value[SIMT_FIG_XGMI_BANDWIDTH] / gpu->xgmi_links;
    return SIMT_OK;
}

/* PCIe GPUs without peer-to-peer (GeForce cards: "GeForce cards do not
 * support P2P", NCCL's maintainer, github.com/NVIDIA/nccl-tests/issues/287)
 * reach each other through host memory, NCCL's SHM transport: the sender
 * writes a chunk there and the receiver reads it, so each GPU's flow costs
 * the host memory twice its rate and a node's flows share it ("On PCI
 * systems, the performance you get is usually determined by the bandwidth
 * your CPU and memory can deliver. In your case, with 8 GPUs, that's 8
 * flows at 28GB/s in both directions", github.com/NVIDIA/nccl/issues/1639,
 * sjeaugey). A GPU's rate is then the smaller of its link's and
 * host / (2 gpus). */
static void host_path(const struct simt_collective_request *req, struct fabric *f,
                      struct simt_collective_result *out)
{
    if (!(req->host_memory_bytes_per_s > 0.0) || req->gpus < 2)
        return;
    double share = req->host_memory_bytes_per_s / (2.0 * (double)req->gpus);
    if (share < f->intra_bytes_per_s) {
        f->link_alone_bytes_per_s = f->intra_bytes_per_s;
        f->intra_bytes_per_s = share;
        out->host_memory_bound = 1;
    }
}

/* The link between the node's GPUs (NVLink or PCIe) at its achievable rate
 * (a figure); SIMT_EUNSAT when the GPU has no such link, or the link cannot
 * join that many GPUs. */
static int setup_link(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                      const struct simt_collective_request *req, struct fabric *f,
                      struct simt_collective_result *out, double *link_raw, struct simt_diag *diag)
{
    *link_raw = 0.0;
    f->link_alone_bytes_per_s = 0.0;
    f->intra_hop = HOP_NVLINK;
    f->intra_bytes_per_s = HUGE_VAL;
    if (req->link == SIMT_LINK_NVLINK) {
        if (gpu->nvlink_generation < 1 || !(figures->value[SIMT_FIG_NVLINK_BANDWIDTH] > 0.0))
            return simt_diag_fail(diag, SIMT_EUNSAT, "link", "this GPU has no NVLink; use \"%s\"",
                                  gpu->xgmi_links > 0 ? "xgmi\" (its Infinity Fabric) or \"pcie" : "pcie");
        out->nvswitch = gpu->nvswitch != 0;
        if (!out->nvswitch && req->nvlink_pairs_only && req->gpus > 2)
            return simt_diag_fail(diag, SIMT_EUNSAT, "gpus",
                                  "NVLink bridges join this PCIe card to one other: gpus must be 2 over "
                                  "link \"nvlink\" (use link \"pcie\" for %d GPUs)",
                                  req->gpus);
        if (!out->nvswitch && gpu->nvlink_links > 0 && req->gpus > gpu->nvlink_links + 1)
            return simt_diag_fail(diag, SIMT_EUNSAT, "gpus",
                                  "without NVSwitch, direct NVLink joins at most %d GPUs (%d links each)",
                                  gpu->nvlink_links + 1, gpu->nvlink_links);
        *link_raw = gpu->nvlink_bandwidth_bytes_per_s;
        out->figures_used |= SIMT_FIG_BIT(SIMT_FIG_NVLINK_BANDWIDTH);
        if (req->gpus > 1)
            f->intra_bytes_per_s = figures->value[SIMT_FIG_NVLINK_BANDWIDTH];
    } else if (req->link == SIMT_LINK_XGMI) {
        return setup_xgmi(gpu, figures, req, f, link_raw, out, diag);
    } else {
        if (!(figures->value[SIMT_FIG_PCIE_BANDWIDTH] > 0.0))
            return simt_diag_fail(diag, SIMT_EUNSAT, "link", "this GPU's record gives no PCIe bandwidth");
        *link_raw = gpu->pcie_bandwidth_bytes_per_s;
        f->intra_hop = HOP_PCIE;
        out->figures_used |= SIMT_FIG_BIT(SIMT_FIG_PCIE_BANDWIDTH);
        if (req->gpus > 1)
            f->intra_bytes_per_s = figures->value[SIMT_FIG_PCIE_BANDWIDTH];
        host_path(req, f, out);
    }
    return SIMT_OK;
}

/* Whether NVLS applies: all-reduce in one node over NVSwitch, NVIDIA
 * Hopper or later with NVLink 4 or later. */
static int nvls_applies(const struct simt_gpu_spec *gpu, const struct simt_collective_request *req)
{
    return req->op == SIMT_COLLECTIVE_ALL_REDUCE && req->link == SIMT_LINK_NVLINK && req->nodes == 1 &&
           gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->nvswitch != 0 && gpu->compute_major >= 9 &&
           gpu->nvlink_generation >= 4;
}

/* The algorithm the request asks for, or why it cannot run. */
static int check_algorithm(const struct simt_gpu_spec *gpu, const struct simt_collective_request *req,
                           struct simt_diag *diag)
{
    switch (req->algorithm) {
    case SIMT_COLLECTIVE_TREE:
        if (req->op != SIMT_COLLECTIVE_ALL_REDUCE)
            return simt_diag_fail(diag, SIMT_EUNSAT, "algorithm", "NCCL's tree runs all_reduce only");
        break;
    case SIMT_COLLECTIVE_NVLS:
        if (!nvls_applies(gpu, req))
            return simt_diag_fail(diag, SIMT_EUNSAT, "algorithm",
                                  "NVLink SHARP (nvls) runs all_reduce within one node over an NVSwitch of "
                                  "NVLink 4 or later, with Hopper or later GPUs");
        break;
    case SIMT_COLLECTIVE_RING:
        if (req->op == SIMT_COLLECTIVE_ALL_TO_ALL || req->op == SIMT_COLLECTIVE_SEND_RECV)
            return simt_diag_fail(diag, SIMT_EUNSAT, "algorithm",
                                  "%s has no ring: every rank sends to its peers directly (use direct)",
                                  simt_collective_op_name(req->op));
        break;
    default:
        break;
    }
    return SIMT_OK;
}

/* The candidates: the requested algorithm, or under AUTO every one NCCL's
 * tuner weighs for this op and system; the fastest is kept in *best. */
static void choose(const struct simt_gpu_spec *gpu, const struct simt_collective_request *req,
                   const struct fabric *f, struct choice *best)
{
    enum simt_collective_algorithm a = req->algorithm;
    int all_reduce = req->op == SIMT_COLLECTIVE_ALL_REDUCE;
    int peer_ops = req->op == SIMT_COLLECTIVE_ALL_TO_ALL || req->op == SIMT_COLLECTIVE_SEND_RECV;
    struct plan p;
    if (a == SIMT_COLLECTIVE_DIRECT || (a == SIMT_COLLECTIVE_AUTO && peer_ops)) {
        p = direct_plan(f, req->op, req->bytes);
        run_protocols(&p, best);
    }
    if (a == SIMT_COLLECTIVE_RING || (a == SIMT_COLLECTIVE_AUTO && !peer_ops)) {
        p = ring_plan(f, req->op, req->bytes);
        run_protocols(&p, best);
    }
    if (a == SIMT_COLLECTIVE_TREE || (a == SIMT_COLLECTIVE_AUTO && all_reduce && f->nodes > 1)) {
        p = tree_plan(f, req->bytes);
        run_protocols(&p, best);
    }
    if (a == SIMT_COLLECTIVE_NVLS ||
        (a == SIMT_COLLECTIVE_AUTO && nvls_applies(gpu, req) && req->gpus >= NVLS_MIN_AUTO_GPUS)) {
        p = nvls_plan(f, gpu->nvlink_bandwidth_bytes_per_s, req->bytes);
        run_protocols(&p, best);
    }
}

/* What the answer rests on: link, network, latency, protocol, algorithm. */
static void assume_collective(const struct simt_collective_request *req, const struct fabric *f,
                              const struct choice *best, double link_raw, double network_raw,
                              struct simt_collective_result *out)
{
    if (req->gpus > 1 && req->link == SIMT_LINK_XGMI)
        assume(out,
               "link: AMD Infinity Fabric (xGMI), a full mesh: one %.4g bytes/s link (a direction) to each "
               "peer, of which RCCL moves %.4g (figures_used says why); a ring per link (direct: a peer per "
               "link), so %d links carry %.4g bytes/s (one ring alone: one link)",
               link_raw, f->intra_bytes_per_s / (req->gpus - 1), req->gpus - 1, f->intra_bytes_per_s);
    else if (req->gpus > 1)
        assume(out,
               "link: %s, %.4g bytes/s per direction per GPU, of which NCCL moves %.4g (figures_used says "
               "why)",
               req->link == SIMT_LINK_PCIE ? "PCIe"
               : out->nvswitch             ? "NVLink through NVSwitch"
               : req->nvlink_pairs_only    ? "NVLink bridge between two PCIe cards"
                                           : "NVLink directly between the GPUs",
               link_raw, out->host_memory_bound ? f->link_alone_bytes_per_s : f->intra_bytes_per_s);
    if (req->gpus > 1 && req->host_memory_bytes_per_s > 0.0)
        assume(out,
               "host memory: no peer-to-peer, so NCCL stages every transfer in host memory (written by the "
               "sender, read by the receiver): %d flows share %.4g bytes/s twice over, %.4g bytes/s a GPU%s",
               req->gpus, req->host_memory_bytes_per_s, req->host_memory_bytes_per_s / (2.0 * req->gpus),
               out->host_memory_bound ? ", below the PCIe link's: the bound" : ", above the PCIe link's");
    if (req->nodes > 1)
        assume(out,
               "network: %.4g bytes/s per GPU per direction%s x %.2f achievable (ESTIMATE) = %.4g bytes/s; a "
               "node's rings leave through its %d NICs",
               network_raw, req->network_bytes_per_s > 0.0 ? "" : " (default: one 400 Gb/s NDR NIC per GPU)",
               NETWORK_FRACTION, f->net_bytes_per_s, req->gpus);
    assume(out,
           "latency: %.3g s a collective (measured floor on two H200s) plus %.3g s a %s hop (NCCL's tuner)%s",
           BASE_LATENCY_S, ring_hop_s[f->intra_hop],
           req->link == SIMT_LINK_NVLINK ? "NVLink"
           : req->link == SIMT_LINK_XGMI ? "xGMI (RCCL takes it as NCCL's NVLink path; ESTIMATE)"
                                         : "PCIe",
           req->nodes > 1 ? ", network hops 2.7e-06 s (ring) and 5e-06 s (tree)" : "");
    if (best->protocol == SIMT_COLLECTIVE_PROTO_SIMPLE)
        assume(out,
               "protocol: Simple, pipelined in chunks: (sqrt(%.3g s) + sqrt(bytes / bandwidth))^2 after the "
               "latency (per-chunk cost fitted to the H200 pair's all-reduces of 16-256 MiB)",
               PIPELINE_LATENCY_S);
    else
        assume(out, "protocol: LL (4 bytes of data and a 4-byte flag a word: half the bandwidth, no pipeline "
                    "handshake), faster than Simple at this size");
    if (best->algorithm == SIMT_COLLECTIVE_NVLS)
        assume(
            out,
            "algorithm: nvls (NVLink SHARP: the NVSwitch reduces and multicasts), each GPU's link at %.3g of "
            "its line rate each way (8 H200s, nccl-tests issue 272: 475 GB/s busbw)%s",
            NVLS_LINE_FRACTION, req->algorithm == SIMT_COLLECTIVE_AUTO ? "; NCCL's choice here" : "");
    else if (req->algorithm != SIMT_COLLECTIVE_AUTO)
        assume(out, "algorithm: %s, as asked", simt_collective_algorithm_name(best->algorithm));
    else if (best->algorithm == SIMT_COLLECTIVE_DIRECT)
        assume(out,
               "algorithm: direct, every rank sending to its peers at once (NCCL's grouped send/receive)");
    else
        assume(out, "algorithm: %s, the fastest NCCL runs here%s",
               simt_collective_algorithm_name(best->algorithm),
               req->op == SIMT_COLLECTIVE_ALL_REDUCE && req->nodes > 1
                   ? " (ring and tree weighed; CollNet not modelled)"
                   : "");
}

int simt_collective_predict(const struct simt_gpu_spec *gpu, const struct simt_collective_request *req,
                            struct simt_collective_result *out, struct simt_diag *diag)
{
    int rc = check_coll_request(req, diag);
    if (rc != SIMT_OK)
        return rc;

    struct fabric f;
    f.gpus = req->gpus;
    f.nodes = req->nodes;
    f.ranks = req->gpus * req->nodes;
    if (f.ranks < 2)
        return simt_diag_fail(diag, SIMT_EUNSAT, "gpus",
                              "a collective needs at least two GPUs (gpus * nodes >= 2)");
    if (req->op == SIMT_COLLECTIVE_SEND_RECV && f.ranks != 2)
        return simt_diag_fail(diag, SIMT_EUNSAT, "gpus",
                              "send_recv is one rank to one other: gpus * nodes must be 2");
    if ((rc = check_algorithm(gpu, req, diag)) != SIMT_OK)
        return rc;

    struct simt_figure_set own;
    const struct simt_figure_set *figures = req->figures;
    if (figures == NULL) {
        simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &own);
        figures = &own;
    }
    memset(out, 0, sizeof *out);
    double link_raw;
    if ((rc = setup_link(gpu, figures, req, &f, out, &link_raw, diag)) != SIMT_OK)
        return rc;
    double network_raw = req->network_bytes_per_s > 0.0 ? req->network_bytes_per_s
                                                        : SIMT_COLLECTIVE_DEFAULT_NETWORK_BYTES_PER_S;
    f.net_bytes_per_s = req->nodes > 1 ? network_raw * NETWORK_FRACTION : HUGE_VAL;

    struct choice best;
    memset(&best, 0, sizeof best);
    best.time_s = HUGE_VAL;
    choose(gpu, req, &f, &best);

    out->time_s = best.time_s;
    out->algorithm = best.algorithm;
    out->protocol = best.protocol;
    out->ranks = f.ranks;
    out->bus_factor = simt_collective_bus_factor(req->op, f.ranks);
    out->algbw_bytes_per_s = req->bytes / best.time_s;
    out->busbw_bytes_per_s = out->algbw_bytes_per_s * out->bus_factor;
    out->latency_s = best.latency_s;
    out->transfer_s = best.transfer_s;
    out->link_bytes_per_s = req->gpus > 1 ? f.intra_bytes_per_s : 0.0;
    out->network_bytes_per_s = req->nodes > 1 ? f.net_bytes_per_s : 0.0;

    assert(isfinite(out->time_s) && out->time_s > 0.0);
    assume_collective(req, &f, &best, link_raw, network_raw, out);
    return SIMT_OK;
}
