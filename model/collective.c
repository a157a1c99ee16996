/* collective.c - NCCL collectives as alpha-beta: per algorithm (ring, tree,
 * pairwise) and protocol (LL, Simple) a fixed latency, a latency per step,
 * and the bytes one rank moves over the achievable bandwidth of the
 * bottleneck; the least time wins, as NCCL's own tuner picks. Pure. */
#include "collective.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- constants that are not in the database ---- */

/* Achievable fraction of a link's per-direction bandwidth for bulk
 * (Simple-protocol) transfers. */
#define NVLINK_FRACTION 0.80  /* placeholder until the H200 pair's measurements */
#define PCIE_FRACTION 0.75    /* nccl-tests on PCIe 4.0 x16 report 22-24 of 32 GB/s busbw */
#define NETWORK_FRACTION 0.90 /* nccl-tests over NDR InfiniBand report ~45 of 50 GB/s per NIC */
/* A tree all-reduce reaches 0.92 of the ring's bus bandwidth (NCCL's tuner,
 * src/graph/tuning.cc: "busBw*.92" for Tree/AllReduce). */
#define TREE_BANDWIDTH_FRACTION 0.92

/* Latencies in seconds, from NCCL's tuner defaults (src/graph/tuning.cc,
 * NCCL 2.2x): a base per launch and one hop per pipeline step, by link kind. */
enum hop { HOP_NVLINK = 0, HOP_PCIE, HOP_NET, HOP_COUNT };

struct protocol {
    enum simt_coll_protocol id;
    double bandwidth_fraction;        /* of the Simple protocol's bandwidth */
    double ring_base_s;
    double tree_base_s;
    double ring_hop_s[HOP_COUNT];
    double tree_hop_s[HOP_COUNT];
};

static const struct protocol protocols[] = {
    /* LL: each 8-byte store carries 4 bytes of data and a 4-byte flag */
    {SIMT_COLL_PROTO_LL, 0.5, 6.6e-6, 6.8e-6, {0.6e-6, 1.0e-6, 2.7e-6}, {0.6e-6, 1.0e-6, 5.0e-6}},
    {SIMT_COLL_PROTO_SIMPLE, 1.0, 8.4e-6, 8.4e-6, {3.4e-6, 5.7e-6, 14.0e-6}, {4.0e-6, 4.0e-6, 14.0e-6}},
};

static const char *const op_names[SIMT_COLL_OP_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
};
static const char *const link_names[SIMT_LINK_COUNT] = {"nvlink", "pcie"};

const char *simt_coll_op_name(enum simt_coll_op op)
{
    if ((int)op < 0 || op >= SIMT_COLL_OP_COUNT)
        return NULL;
    return op_names[op];
}

const char *simt_link_name(enum simt_link link)
{
    if ((int)link < 0 || link >= SIMT_LINK_COUNT)
        return NULL;
    return link_names[link];
}

const char *simt_coll_algorithm_name(enum simt_coll_algorithm algorithm)
{
    switch (algorithm) {
    case SIMT_COLL_RING: return "ring";
    case SIMT_COLL_TREE: return "tree";
    case SIMT_COLL_PAIRWISE: return "pairwise";
    }
    return NULL;
}

const char *simt_coll_protocol_name(enum simt_coll_protocol protocol)
{
    switch (protocol) {
    case SIMT_COLL_PROTO_LL: return "ll";
    case SIMT_COLL_PROTO_SIMPLE: return "simple";
    }
    return NULL;
}

int simt_coll_op_parse(const char *name, enum simt_coll_op *out)
{
    for (int i = 0; i < SIMT_COLL_OP_COUNT; i++) {
        if (strcmp(name, op_names[i]) == 0) {
            *out = (enum simt_coll_op)i;
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

double simt_coll_bus_factor(enum simt_coll_op op, int ranks)
{
    if (ranks < 1)
        return 0.0;
    double n = (double)ranks;
    switch (op) {
    case SIMT_COLL_ALL_REDUCE: return 2.0 * (n - 1.0) / n;
    case SIMT_COLL_ALL_GATHER:
    case SIMT_COLL_REDUCE_SCATTER:
    case SIMT_COLL_ALL_TO_ALL: return (n - 1.0) / n;
    case SIMT_COLL_BROADCAST: return 1.0;
    case SIMT_COLL_OP_COUNT: break;
    }
    return 0.0;
}

static int set_error(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int set_error(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
{
    if (diag != NULL) {
        memset(diag, 0, sizeof *diag);
        snprintf(diag->field, sizeof diag->field, "%s", field);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(diag->message, sizeof diag->message, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static void assume(struct simt_coll_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void assume(struct simt_coll_result *out, const char *fmt, ...)
{
    if (out->assumption_count >= SIMT_COLL_MAX_ASSUMPTIONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->assumptions[out->assumption_count], SIMT_COLL_ASSUMPTION_BYTES, fmt, ap);
    va_end(ap);
    out->assumption_count++;
}

/* The topology the request describes, reduced to what the model needs. */
struct fabric {
    int gpus;            /* per node */
    int nodes;
    int ranks;
    double intra_bytes_per_s; /* achievable per GPU within a node; HUGE_VAL when one GPU a node */
    double net_bytes_per_s;   /* achievable per GPU between nodes; HUGE_VAL for one node */
    enum hop intra_hop;
};

struct choice {
    enum simt_coll_algorithm algorithm;
    const struct protocol *protocol;
    double latency_s;
    double transfer_s;
    double time_s;
};

static void keep_faster(struct choice *best, const struct choice *candidate)
{
    if (candidate->time_s < best->time_s)
        *best = *candidate;
}

static int ceil_log2(int n)
{
    int steps = 0;
    while ((1 << steps) < n)
        steps++;
    return steps;
}

/* Ring (chain for broadcast): every rank sends factor * bytes over its ring
 * edge; with several nodes each of a node's `gpus` rings leaves through its
 * own NIC, so the node's rings share gpus * NIC bandwidth. */
static void ring_time(const struct fabric *f, enum simt_coll_op op, double bytes, const struct protocol *p,
                      struct choice *c)
{
    int steps, inter_steps;
    double factor;
    switch (op) {
    case SIMT_COLL_ALL_REDUCE:
        steps = 2 * (f->ranks - 1);
        inter_steps = 2 * (f->nodes - 1);
        factor = 2.0 * (double)(f->ranks - 1) / (double)f->ranks;
        break;
    case SIMT_COLL_BROADCAST:
        steps = f->ranks - 1;
        inter_steps = f->nodes - 1;
        factor = 1.0;
        break;
    default:
        steps = f->ranks - 1;
        inter_steps = f->nodes - 1;
        factor = (double)(f->ranks - 1) / (double)f->ranks;
        break;
    }
    double bw = f->intra_bytes_per_s;
    double node_net = (double)f->gpus * f->net_bytes_per_s;
    if (node_net < bw)
        bw = node_net;
    c->algorithm = SIMT_COLL_RING;
    c->protocol = p;
    c->latency_s = p->ring_base_s + (double)(steps - inter_steps) * p->ring_hop_s[f->intra_hop] +
                   (double)inter_steps * p->ring_hop_s[HOP_NET];
    c->transfer_s = factor * bytes / (bw * p->bandwidth_fraction);
    c->time_s = c->latency_s + c->transfer_s;
}

/* Tree all-reduce across nodes: a chain inside each node, a double binary
 * tree between nodes. Each rank sends and receives about 2 * bytes (reduce
 * up, broadcast down), against the ring's 2(n-1)/n * bytes, but the steps
 * grow with log2(nodes) instead of with the ranks. */
static void tree_time(const struct fabric *f, double bytes, const struct protocol *p, struct choice *c)
{
    double bw = f->intra_bytes_per_s;
    double node_net = (double)f->gpus * f->net_bytes_per_s;
    if (node_net < bw)
        bw = node_net;
    c->algorithm = SIMT_COLL_TREE;
    c->protocol = p;
    c->latency_s = p->tree_base_s + 2.0 * ((double)(f->gpus - 1) * p->tree_hop_s[f->intra_hop] +
                                           (double)ceil_log2(f->nodes) * p->tree_hop_s[HOP_NET]);
    c->transfer_s = 2.0 * bytes / (bw * TREE_BANDWIDTH_FRACTION * p->bandwidth_fraction);
    c->time_s = c->latency_s + c->transfer_s;
}

/* All-to-all: every rank sends bytes/ranks to each other rank at once; the
 * part for its own node over the intra-node link, the rest through its own
 * NIC. */
static void pairwise_time(const struct fabric *f, double bytes, const struct protocol *p, struct choice *c)
{
    double share = bytes / (double)f->ranks;
    double intra = f->gpus > 1 ? (double)(f->gpus - 1) * share / f->intra_bytes_per_s : 0.0;
    double inter = f->nodes > 1 ? (double)(f->ranks - f->gpus) * share / f->net_bytes_per_s : 0.0;
    c->algorithm = SIMT_COLL_PAIRWISE;
    c->protocol = p;
    c->latency_s = p->ring_base_s + (f->gpus > 1 ? p->ring_hop_s[f->intra_hop] : 0.0) +
                   (f->nodes > 1 ? p->ring_hop_s[HOP_NET] : 0.0);
    c->transfer_s = (intra > inter ? intra : inter) / p->bandwidth_fraction;
    c->time_s = c->latency_s + c->transfer_s;
}

int simt_coll_predict(const struct simt_gpu_spec *gpu, const struct simt_coll_request *req,
                      struct simt_coll_result *out, struct simt_diag *diag)
{
    if ((int)req->op < 0 || req->op >= SIMT_COLL_OP_COUNT)
        return set_error(diag, SIMT_EINVAL, "op",
                         "op must be all_reduce, all_gather, reduce_scatter, all_to_all or broadcast");
    if ((int)req->link < 0 || req->link >= SIMT_LINK_COUNT)
        return set_error(diag, SIMT_EINVAL, "link", "link must be nvlink or pcie");
    if (!(req->bytes > 0.0) || !isfinite(req->bytes))
        return set_error(diag, SIMT_EINVAL, "bytes", "bytes must be a positive number");
    if (req->gpus < 1)
        return set_error(diag, SIMT_EINVAL, "gpus", "gpus must be a positive integer");
    if (req->nodes < 1)
        return set_error(diag, SIMT_EINVAL, "nodes", "nodes must be a positive integer");
    if (req->network_bytes_per_s < 0.0 || !isfinite(req->network_bytes_per_s))
        return set_error(diag, SIMT_EINVAL, "network_bytes_per_s", "network_bytes_per_s must be a positive number");
    if ((int64_t)req->gpus * req->nodes > 1000000)
        return set_error(diag, SIMT_EINVAL, "nodes", "gpus * nodes must be at most 1000000");

    struct fabric f;
    f.gpus = req->gpus;
    f.nodes = req->nodes;
    f.ranks = req->gpus * req->nodes;
    if (f.ranks < 2)
        return set_error(diag, SIMT_EUNSAT, "gpus", "a collective needs at least two GPUs (gpus * nodes >= 2)");

    memset(out, 0, sizeof *out);
    double link_raw = 0.0;
    f.intra_hop = HOP_NVLINK;
    f.intra_bytes_per_s = HUGE_VAL;
    if (req->link == SIMT_LINK_NVLINK) {
        if (gpu->nvlink_generation < 1 || !(gpu->nvlink_bandwidth_bytes_per_s > 0.0))
            return set_error(diag, SIMT_EUNSAT, "link", "this GPU has no NVLink; use \"pcie\"");
        out->nvswitch = gpu->nvswitch != 0;
        if (!out->nvswitch && gpu->nvlink_links > 0 && req->gpus > gpu->nvlink_links + 1)
            return set_error(diag, SIMT_EUNSAT, "gpus",
                             "without NVSwitch, direct NVLink joins at most %d GPUs (%d links each)",
                             gpu->nvlink_links + 1, gpu->nvlink_links);
        link_raw = gpu->nvlink_bandwidth_bytes_per_s;
        if (req->gpus > 1)
            f.intra_bytes_per_s = link_raw * NVLINK_FRACTION;
    } else {
        if (!(gpu->pcie_bandwidth_bytes_per_s > 0.0))
            return set_error(diag, SIMT_EUNSAT, "link", "this GPU's record gives no PCIe bandwidth");
        link_raw = gpu->pcie_bandwidth_bytes_per_s;
        f.intra_hop = HOP_PCIE;
        if (req->gpus > 1)
            f.intra_bytes_per_s = link_raw * PCIE_FRACTION;
    }
    double network_raw = req->network_bytes_per_s > 0.0 ? req->network_bytes_per_s
                                                        : SIMT_COLL_DEFAULT_NETWORK_BYTES_PER_S;
    f.net_bytes_per_s = req->nodes > 1 ? network_raw * NETWORK_FRACTION : HUGE_VAL;

    struct choice best;
    memset(&best, 0, sizeof best);
    best.time_s = HUGE_VAL;
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++) {
        const struct protocol *p = &protocols[i];
        struct choice c;
        if (req->op == SIMT_COLL_ALL_TO_ALL) {
            pairwise_time(&f, req->bytes, p, &c);
            keep_faster(&best, &c);
            continue;
        }
        ring_time(&f, req->op, req->bytes, p, &c);
        keep_faster(&best, &c);
        if (req->op == SIMT_COLL_ALL_REDUCE && f.nodes > 1) {
            tree_time(&f, req->bytes, p, &c);
            keep_faster(&best, &c);
        }
    }

    out->time_s = best.time_s;
    out->algorithm = best.algorithm;
    out->protocol = best.protocol->id;
    out->ranks = f.ranks;
    out->bus_factor = simt_coll_bus_factor(req->op, f.ranks);
    out->algbw_bytes_per_s = req->bytes / best.time_s;
    out->busbw_bytes_per_s = out->algbw_bytes_per_s * out->bus_factor;
    out->latency_s = best.latency_s;
    out->transfer_s = best.transfer_s;
    out->link_bytes_per_s = req->gpus > 1 ? f.intra_bytes_per_s : 0.0;
    out->network_bytes_per_s = req->nodes > 1 ? f.net_bytes_per_s : 0.0;

    if (req->gpus > 1) {
        if (req->link == SIMT_LINK_NVLINK)
            assume(out, "link: NVLink %s, %.4g bytes/s per direction per GPU x %.2f achievable (bulk transfers) = "
                   "%.4g bytes/s",
                   out->nvswitch ? "through NVSwitch" : "directly between the GPUs", link_raw, NVLINK_FRACTION,
                   f.intra_bytes_per_s);
        else
            assume(out, "link: PCIe, %.4g bytes/s per direction per GPU x %.2f achievable (nccl-tests on PCIe reach "
                   "about three quarters of the link) = %.4g bytes/s",
                   link_raw, PCIE_FRACTION, f.intra_bytes_per_s);
    }
    if (req->nodes > 1)
        assume(out, "network: %.4g bytes/s per GPU per direction%s x %.2f achievable = %.4g bytes/s; a node's rings "
               "leave through its %d NICs",
               network_raw, req->network_bytes_per_s > 0.0 ? "" : " (default: one 400 Gb/s NDR NIC per GPU)",
               NETWORK_FRACTION, f.net_bytes_per_s, req->gpus);
    assume(out, "latency: NCCL's tuner constants: %s protocol, base %.3g s plus %.3g s per %s step",
           simt_coll_protocol_name(best.protocol->id),
           best.algorithm == SIMT_COLL_TREE ? best.protocol->tree_base_s : best.protocol->ring_base_s,
           best.algorithm == SIMT_COLL_TREE ? best.protocol->tree_hop_s[f.intra_hop]
                                            : best.protocol->ring_hop_s[f.intra_hop],
           req->link == SIMT_LINK_NVLINK ? "NVLink" : "PCIe");
    assume(out, "algorithm: %s/%s, the least predicted time among ring%s and the LL and Simple protocols; NVLink "
           "SHARP (NVLS) and CollNet are not modelled",
           simt_coll_algorithm_name(best.algorithm), simt_coll_protocol_name(best.protocol->id),
           req->op == SIMT_COLL_ALL_REDUCE && req->nodes > 1 ? ", tree" : "");
    return SIMT_OK;
}
