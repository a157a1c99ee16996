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
 * Size sets (--sizes), each a list of the same kernel kinds; no row of one
 * shares a name or parameters with a row of another:
 *  - heldout (the default): the held-out lists (fit / held-out split by
 *    split.py);
 *  - confirm: the same kinds at other sizes and parameters, an independent
 *    confirmation set (measured 2026-12-02, after the held-out models were
 *    fitted);
 *  - confirm2: a second independent set, the same kinds at sizes and
 *    parameters in neither the held-out nor the confirm lists, measured blind
 *    after the model changes of 2026-12-07 (L2 write bandwidth, L2 request
 *    rate, scatter tables);
 *  - probe: fit probes alone: gathers from and scatters into tables of 2 and
 *    16 MiB (L2-resident), L2 warm writes of 12, 24, 52 and 56 MiB and a warm read of 52 MiB;
 *  - check3: a third independent set, small, of the classes the rules of
 *    the afternoon of 2026-12-07 touched (a row read again past a quarter
 *    of L2's reuse share, a gather's table near what an L2 partition holds,
 *    FP64 chains at low occupancy), at sizes and parameters no other list
 *    uses, measured blind once those rules were committed;
 *  - check4: a fourth independent set, small, of the class the DRAM
 *    read-modify-write rate of 2026-12-07 (dram_partial_stores_per_s)
 *    touched: scatters into tables of 40 MiB to 2 GiB and 4-byte stores
 *    192 B to 2 KiB apart, at sizes and strides no other list uses,
 *    measured blind once the rule was committed;
 *  - check5: a fifth, of scatters into tables near the L2's size (28 to 112
 *    MiB), measured blind once the store-table rule of the same day (a
 *    table keeps the share of its lines a gather's would) was committed;
 *  - wide: the rows of heldout, confirm and confirm2 whose kernel read 8- or
 *    16-byte elements (coalesce_8B_*, coalesce_16B_*, l2_read_*), again, by
 *    the same names and requests. Until 2026-12-08 m_coalesce and m_l2_read
 *    read such an element as 2 or 4 separate 4-byte loads (fold() of a
 *    reference into global memory: the PTX held ld.global.nc.u32 where the
 *    request says one 8- or 16-byte access; Nsight Compute on the H100 saw
 *    2 or 4 L1 requests per element and, at lanes 256 B or more apart,
 *    1.3-1.55x the L2 sectors of one load per lane:
 *    tests/gpu/results/h100/ncu/coalesce-*.json). They now load the element
 *    whole (__ldg: ld.global.nc.v2/v4); the earlier rows measured another
 *    kernel than their request;
 *  - check6: a sixth, of kernels the pipes pace after one load round (hash
 *    loops at new round counts and grid sizes, a loaded value's FMA
 *    chain), measured blind once the waves-in-step rule was committed. */
#ifndef SIMT_HELDOUT_CUH
#define SIMT_HELDOUT_CUH

#include "../micro/common.cuh"

/* --sizes heldout | confirm | confirm2 | probe | check3 | check4 | check5 | check6 | wide (see above) */
enum class SizeSet { heldout, confirm, confirm2, probe, check3, check4, check5, check6, wide };

struct Held {
    Ctx c;
    TimedStart cold; /* sleep + flush */
    TimedStart warm; /* sleep only */
    float *A = nullptr, *B = nullptr, *Cb = nullptr, *D = nullptr; /* 1 GiB each, in c.pool */
    float *O = nullptr;                                            /* outputs: c.pool2 (2 GiB) */
    unsigned *idx = nullptr;                                       /* 256 MiB of indices */
    SizeSet set = SizeSet::heldout; /* --sizes */
    bool list_only = false; /* --list: print the case names, touch no CUDA */
};

/* --list: set before any case runs; desc() then skips cudaFuncGetAttributes */
extern bool held_list_only;

/* the chosen set's list: the held-out list, or under --sizes confirm the
 * confirmation list, under --sizes confirm2 the second confirmation list.
 * --sizes probe gets the held-out list: the kinds that take part in the probe
 * set choose its cases themselves, and run_everyday / run_microbench run no
 * other kind under it */
template <typename T>
std::vector<T> sizes(const Held &h, std::vector<T> heldout, std::vector<T> confirm, std::vector<T> confirm2) {
    switch (h.set) {
        case SizeSet::confirm: return confirm;
        case SizeSet::confirm2: return confirm2;
        default: return heldout;
    }
}

Stats time_cold(Held &h, const std::function<void()> &launch);
Stats time_warm(Held &h, const std::function<void()> &launch, int n);

/* one access, briefly; distinct: the grid-wide number of distinct elements
 * the access touches (a gather's or a scatter's table, a histogram's bins),
 * written as distinct_addresses for a load, store or atomic alike; 0: not said */
Access acc(const char *space, const char *op, double count, int element_bytes, long long stride,
           long long independent = 1, int repeats = -1, long long distinct = 0);

/* adds the row: name, kind (group), class ("everyday" | "micro"), timing */
void add_case(Held &h, const std::string &name, const std::string &kind, const char *cls, const KernelDesc &d,
              const Stats &s, const std::string &timing, const std::string &extra = "");

void run_everyday(Held &h);
void run_microbench(Held &h);

#endif
