/* heldout.cuh - simt-heldout (issue 11 item 5): the held-out H200 kernel set.
 * Everyday kernels (everyday.cu) and microbenchmarks (microbench.cu), each
 * timed as GPU time without CPU gaps and written with the POST /v1/kernel
 * body a user would write for it (including the contract's fields the model
 * may not read yet: int_ops, repeats, distinct_addresses, l2_warm).
 *
 * Timing (the row's "timing"):
 *  - "cold": a sleep kernel (100 us, covers the host's queueing), a 256 MiB
 *    L2 flush, then an event pair around ONE launch; 2 untimed, 9 timed,
 *    median.
 *  - "warm_back_to_back_N": a sleep kernel, then an event pair around N
 *    back-to-back launches over the same data (after 3 untimed), time / N;
 *    median of 5 such windows. For the L2-resident questions.
 *
 * --sizes heldout (the default) runs the held-out lists; --sizes confirm the
 * same kernel kinds at other sizes and parameters (a confirmation set: no
 * case shares a held-out case's name or parameters). */
#ifndef SIMT_HELDOUT_CUH
#define SIMT_HELDOUT_CUH

#include "../micro/common.cuh"

struct Held {
    Ctx c;
    TimedStart cold; /* sleep + flush */
    TimedStart warm; /* sleep only */
    float *A = nullptr, *B = nullptr, *Cb = nullptr, *D = nullptr; /* 1 GiB each, in c.pool */
    float *O = nullptr;                                            /* outputs: c.pool2 (2 GiB) */
    unsigned *idx = nullptr;                                       /* 256 MiB of indices */
    bool confirm = false; /* --sizes confirm: the confirmation set's sizes, none a held-out case */
    bool probe = false;   /* --sizes probe: fit probes (gathers from L2-resident tables) alone */
    bool list_only = false; /* --list: print the case names, touch no CUDA */
};

/* --list: set before any case runs; desc() then skips cudaFuncGetAttributes */
extern bool held_list_only;

/* the held-out list, or under --sizes confirm the confirmation list */
template <typename T>
std::vector<T> sizes(const Held &h, std::vector<T> heldout, std::vector<T> confirm) {
    return h.confirm ? confirm : heldout;
}

Stats time_cold(Held &h, const std::function<void()> &launch);
Stats time_warm(Held &h, const std::function<void()> &launch, int n);

/* one access, briefly */
Access acc(const char *space, const char *op, double count, int element_bytes, long long stride,
           long long independent = 1, int repeats = -1, long long distinct = 0);

/* adds the row: name, kind (group), class ("everyday" | "micro"), timing */
void add_case(Held &h, const std::string &name, const std::string &kind, const char *cls, const KernelDesc &d,
              const Stats &s, const std::string &timing, const std::string &extra = "");

void run_everyday(Held &h);
void run_microbench(Held &h);

#endif
