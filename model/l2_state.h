/* l2_state.h - the L2 a cold single launch finds: other work's dirty lines.
 *
 * One call on an idle GPU follows other work (in the H200 timings, a
 * 256 MiB write that flushes the L2 before every timed call). The L2 is
 * write-back, so that work's lines are still there, dirty, and a line the
 * launch fills evicts a victim chosen regardless of dirt (the sets are
 * hashed and hold lines of every age): each fill takes a dirty victim with
 * probability remaining / capacity, so after f bytes of fills D (1 -
 * exp(-f / C)) of the D dirty bytes have been written back, approaching D
 * only after several L2s of fills. The launch's own stores evict dirty
 * lines too, but leave as many of their own behind when it ends (written
 * back after it), so they add nothing: the extra writes are the dirty
 * bytes its fills evict beyond those its stores leave.
 *
 * D is SIMT_COLD_L2_DIRTY_FRACTION of the L2, fitted on fit data only
 * (tests/gpu/results/h200/kmemory_probe.json, l2_read: the same reads after
 * a 256 MiB write and after a 256 MiB read, 8 to 160 MiB; the write flush
 * costs 1.4 us more at 8 MiB, 3.8 at 32, 6.3 at 64 and 9.9 at 128 and
 * 160 MiB). It describes what precedes the call, not the hardware, and is
 * the same for every model that prices a cold launch (the kernel model and
 * the GEMM model). A launch that follows work on its own data (`l2_warm`,
 * or a GEMM in a chain of a layer's kernels) finds none. Pure. */
#ifndef SIMT_L2_STATE_H
#define SIMT_L2_STATE_H

#define SIMT_COLD_L2_DIRTY_FRACTION 0.55

/* Bytes written back to DRAM, beyond the launch's own, when a launch that
 * fills `fills` bytes into an L2 of `capacity` bytes, `own_writes` of them
 * its own stores, starts with the cold dirty share of the L2. 0 when the
 * capacity is unknown (0). */
double simt_cold_l2_write_back(double capacity, double fills, double own_writes);

#endif
