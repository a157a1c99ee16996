/* collective.h - how long one NCCL collective (all-reduce, all-gather,
 * reduce-scatter, all-to-all, broadcast) takes among GPUs joined by NVLink
 * (through NVSwitch, or directly), AMD Infinity Fabric (xGMI, a full mesh
 * between peers, as RCCL runs it), PCIe, and a network between nodes: the
 * alpha-beta model (a fixed latency, a latency per pipeline step, and the
 * bytes each rank must move over the bottleneck link's achievable bandwidth)
 * for each algorithm and protocol NCCL has, the fastest one named. Algorithm
 * and bus bandwidth are as NCCL's tests define them (nccl-tests,
 * doc/PERFORMANCE.md): algbw = bytes / time, busbw = algbw * factor, the
 * factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
 * all-to-all, 1 for broadcast.
 *
 * `bytes` counts as the NCCL tests count it: the larger of one rank's send
 * and receive buffers. Pure: no allocation, no I/O, no globals. */
#ifndef SIMT_COLLECTIVE_H
#define SIMT_COLLECTIVE_H

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

enum simt_collective_op {
    SIMT_COLLECTIVE_ALL_REDUCE = 0,
    SIMT_COLLECTIVE_ALL_GATHER,
    SIMT_COLLECTIVE_REDUCE_SCATTER,
    SIMT_COLLECTIVE_ALL_TO_ALL,
    SIMT_COLLECTIVE_BROADCAST,
    SIMT_COLLECTIVE_SEND_RECV, /* one rank to one other */
    SIMT_COLLECTIVE_OP_COUNT
};

enum simt_link {
    SIMT_LINK_NVLINK = 0, /* through NVSwitch where the GPU's platform has one, else direct links */
    SIMT_LINK_PCIE,
    SIMT_LINK_XGMI, /* AMD Infinity Fabric: a full mesh, one link to each peer (xgmi_links + 1 GPUs at most)
                     */
    SIMT_LINK_COUNT
};

/* In the order of the API's choices ("auto", "ring", "tree", "nvls",
 * "direct"); a result is never AUTO. */
enum simt_collective_algorithm {
    SIMT_COLLECTIVE_AUTO = 0, /* request: what NCCL's tuner would pick (the fastest that applies) */
    SIMT_COLLECTIVE_RING,     /* ring (a pipelined chain for broadcast) */
    SIMT_COLLECTIVE_TREE,     /* all-reduce: chain within a node, double binary tree across nodes */
    SIMT_COLLECTIVE_NVLS, /* all-reduce in the NVSwitch (NVLink SHARP): Hopper and later, NVLink 4+, one node
                           */
    SIMT_COLLECTIVE_DIRECT, /* every rank sends to every other at once (NCCL's grouped send/receive) */
    SIMT_COLLECTIVE_ALGORITHM_COUNT
};
#define SIMT_COLLECTIVE_PAIRWISE SIMT_COLLECTIVE_DIRECT

enum simt_collective_protocol {
    SIMT_COLLECTIVE_PROTO_LL = 0, /* low-latency: 8-byte stores carrying a 4-byte flag */
    SIMT_COLLECTIVE_PROTO_SIMPLE  /* bulk chunks with a fence and flag per chunk */
};

/* API names ("all_reduce", "nvlink", "ring", "simple"); NULL when out of range. */
const char *simt_collective_op_name(enum simt_collective_op op);
const char *simt_link_name(enum simt_link link);
const char *simt_collective_algorithm_name(enum simt_collective_algorithm algorithm);
const char *simt_collective_protocol_name(enum simt_collective_protocol protocol);
/* Parse an API name; 0 and *out set, or SIMT_EINVAL. */
int simt_collective_op_parse(const char *name, enum simt_collective_op *out) SIMT_WARN_UNUSED;
int simt_link_parse(const char *name, enum simt_link *out) SIMT_WARN_UNUSED;

/* NCCL tests' bus-bandwidth factor for `ranks` ranks; 0 when ranks < 1 or
 * the op is out of range. */
double simt_collective_bus_factor(enum simt_collective_op op, int ranks);

/* Default per-GPU network bandwidth between nodes: one 400 Gb/s NDR
 * InfiniBand NIC per GPU, per direction. */
#define SIMT_COLLECTIVE_DEFAULT_NETWORK_BYTES_PER_S 50.0e9

struct simt_collective_request {
    enum simt_collective_op op;
    enum simt_link link;
    double bytes;                             /* > 0 */
    int gpus;                                 /* per node, >= 1 */
    int nodes;                                /* >= 1 */
    double network_bytes_per_s;               /* per GPU, per direction; 0: the default above */
    enum simt_collective_algorithm algorithm; /* AUTO (0): NCCL's choice */
    int nvlink_pairs_only; /* 1: NVLink bridges join pairs of PCIe cards, no switch (H100 PCIe) */
    /* the figures to use (the caller's, knowing its policy and what-if);
     * NULL: built from gpu, measured figures preferred */
    const struct simt_figure_set *figures;
    /* link PCIe only: the sustained bandwidth of the host's memory (bytes/s,
     * all sockets) when the GPUs cannot reach each other's memory directly
     * (no peer-to-peer: GeForce cards); 0: peer-to-peer over PCIe. NCCL then
     * stages every transfer in host memory, written by the sender and read
     * by the receiver, so a node's gpus flows share it twice over. */
    double host_memory_bytes_per_s;
};

#define SIMT_COLLECTIVE_MAX_ASSUMPTIONS 8
#define SIMT_COLLECTIVE_ASSUMPTION_BYTES 320

struct simt_collective_result {
    double time_s;
    double algbw_bytes_per_s;
    double busbw_bytes_per_s;
    enum simt_collective_algorithm algorithm;
    enum simt_collective_protocol protocol;
    int ranks; /* gpus * nodes */
    double bus_factor;
    double latency_s;           /* the fixed and per-step part of time_s */
    double transfer_s;          /* the bytes-over-bandwidth part */
    double link_bytes_per_s;    /* achievable per-GPU bandwidth within a node (0 for one GPU a node) */
    double network_bytes_per_s; /* achievable per-GPU network bandwidth (0 for one node) */
    int nvswitch;               /* 1 when NVLink goes through NVSwitch */
    int host_memory_bound;      /* 1 when host memory, not the PCIe link, bounds link_bytes_per_s */
    simt_figure_mask figures_used;

    int assumption_count;
    char assumptions[SIMT_COLLECTIVE_MAX_ASSUMPTIONS][SIMT_COLLECTIVE_ASSUMPTION_BYTES];
};

/* Predicts one collective. Returns 0 and fills *out. SIMT_EINVAL for an op
 * or link out of range, bytes <= 0 or not finite, gpus or nodes < 1,
 * host_memory_bytes_per_s < 0, not finite, or given with a link other than
 * PCIe (diag->field: "op", "link", "bytes", "gpus", "nodes",
 * "network_bytes_per_s", "algorithm", "host_memory_bytes_per_s"). SIMT_EUNSAT when it cannot run:
 * fewer than two ranks (send_recv: exactly two), NVLink on a GPU without
 * it, more GPUs than direct NVLink joins, more than a pair over bridges,
 * xGMI on a GPU without Infinity Fabric or more GPUs than its mesh joins
 * (xgmi_links + 1), no PCIe figure, an algorithm the op or system does not have (tree: all-reduce
 * only; nvls: all-reduce in one node of NVSwitch with NVLink 4 or later).
 * *out is unspecified on failure. */
int simt_collective_predict(const struct simt_gpu_spec *gpu, const struct simt_collective_request *req,
                            struct simt_collective_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
