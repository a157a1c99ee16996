/* gemm_constants.h - the GEMM model's constants that are not in the
 * database, each with the measurements it was derived from. Included by
 * gemm.c only. */
#ifndef SIMT_GEMM_CONSTANTS_H
#define SIMT_GEMM_CONSTANTS_H

/* ---- constants that are not in the database. Each was derived once from
 * the named subset of the committed H200 measurements (cuBLAS 13.1 through
 * PyTorch 2.11, tests/gpu/results/h200/) and is stated in the answer's
 * assumptions when it is used. ---- */

/* What a library GEMM reaches of each kind of figure:
 *  - a measured tensor-core figure is itself a cuBLASLt GEMM (simt-calibrate
 *    times 4096^3 .. 16384x16384x8192 and keeps the best): taken as is, with
 *    the calibration shape's wave quantization removed;
 *  - a datasheet figure times the record's achievable fraction (figures.h,
 *    source ACHIEVABLE) is what a library reaches: taken as is;
 *  - a bare datasheet figure (no measured value, no achievable fraction) is
 *    refused: the model holds no efficiency constant of its own for it;
 *  - an FMA figure, measured or achievable, is a microbenchmark of
 *    independent FMA chains (simt-calibrate's FP32/FP64 loops; the
 *    achievable fp32 and fp64 fractions are those loops over the datasheet).
 *    An SGEMM's inner loop also issues its shared-memory loads, so it reaches
 *    less: on the H200 cuBLAS SGEMM on the fp32 squares 4096..16384 reaches
 *    51 TFLOP/s of the FMA loop's 62.3, 0.82. The ratio of two kernels on
 *    the same FMA units, not a datasheet efficiency: kept here until the
 *    database carries it (proposed: achievable.sgemm_of_fma in arch/). */
#define FMA_KERNEL_OF_LOOP_FRACTION 0.82
/* Leading dimensions that are not 16-byte multiples rule out TMA and 16-byte
 * vector loads: cuBLAS falls back to kernels that load each operand in
 * pieces as wide as the alignment allows. Two constants describe them:
 *  - NONTMA_FRACTION: their rate relative to the aligned kernels when each
 *    load carries 8 bytes or more, fitted to the fp64 squares 4095, 4097,
 *    8191, 8193 (median error 0; they run at about 0.7 of the aligned fp64
 *    squares beside them);
 *  - SCALAR_LOADS_PER_CLOCK_PER_SM: operand loads an SM issues per clock,
 *    each carrying as many elements as the alignment allows (one for an odd
 *    dimension), fitted to the twelve fp16, bf16 and tf32 squares 4095,
 *    4097, 8191, 8193 (median error 0): 2- and 4-byte elements run at nearly
 *    the same flop rate (about 150 TFLOP/s at 8191), so the limit counts
 *    loads, not bytes. These kernels are the older data-parallel ones: no
 *    stream-K, split-K reduced by a second kernel. */
#define NONTMA_FRACTION 0.73
#define SCALAR_LOADS_PER_CLOCK_PER_SM 3.35
/* TF32 with B row-major (torch's layout, B's n dimension contiguous):
 * Hopper's wgmma reads a tf32 operand from shared memory only K-major (its
 * transposed layouts are for 16-bit types), so B reaches the tensor cores
 * through registers, element by element. Taken at the rate above for one
 * element per load (no new constant): each B element serves 2*tile_m
 * flops. On an H200 (2.7e12 tf32 flop/s per SM) the 256-row tiles keep the
 * full rate, the 128-row tiles reach 0.63 of it and the 64-row ones 0.31,
 * which is what small tf32 shapes pay. cuBLAS 13.1 shows the layout's
 * cost: for tf32 it runs none of the TMA "nvjet" kernels it runs for fp16,
 * bf16 and fp8, only sm90_xmma kernels and, for small shapes, Ampere's
 * mma.sync kernels (tests/gpu/results/h200/gemm_kernels.json). */
/* FMA (SIMT) kernels have neither TMA nor tensor-core operand paths: every
 * element of a tile's operands, and of its output, passes through the SM's
 * load/store path on its own. SIMT_STAGED_PER_CLOCK_PER_SM, elements per
 * clock per SM, fitted to the fp32 skinny GEMMs m = 2, 4, 8 with n = k =
 * 8192 (median error 0), which cuBLAS runs as a dedicated small-M kernel
 * (sgemm_largek, an 8x64 tile, tests/gpu/results/h200/gemm_kernels.json):
 * padded to 8 rows its math is 21 us, its DRAM traffic 60 us, and it takes
 * 117 us, flat in m. The limit binds on tiles of few flops per element
 * (2*tm*tn/(tm+tn) under 62.3e12 * 0.82 / 132 / (2.6 * 1.98e9) = 75 on an
 * H200: the 8x64, 32x64 and 64x64 tiles) and on small K, where the
 * output's elements outnumber the operands'. */
#define SIMT_STAGED_PER_CLOCK_PER_SM 2.6
/* In-kernel split-K and stream-K meet at semaphores in a workspace that
 * must be zero first: cuBLAS issues a memset before such a kernel, one more
 * operation on the stream. Measured on an H200 under the profiler
 * (tests/gpu/results/h200/gemm_kernels_quick.json): 0.8 us before the tf32
 * 128x8192x8192 stream-K kernel, 0.9 us before the tf32 1025^3 split-K 3
 * kernel. */
#define WORKSPACE_MEMSET_S 0.85e-6
/* The fixed cost of one GEMM kernel, besides its work and its first loads'
 * and last stores' DRAM latencies, in the two ways a GEMM is launched:
 *  - SINGLE_KERNEL_FLOOR_S, one call on an idle GPU (the held-out set's
 *    timing: a sleep kernel, an L2 flush, events around one call): what the
 *    kernel costs beyond the launch overhead figure (an empty kernel timed
 *    the same way): its prologue (kernel parameters, TMA descriptors and
 *    instructions fetched cold, barriers set up) and epilogue. Fitted to the
 *    fit half of tests/gpu/results/h200/heldout/gemm.json with
 *    IN_FLIGHT_STAGES below (refitted there on 2026-12-02);
 *  - KERNEL_FLOOR_S, one of a stream of back-to-back calls (CUDA-graph
 *    replay, the older set tests/gpu/results/h200/gemm.json): the launch is
 *    hidden behind the previous kernel, what is left is the kernel-to-kernel
 *    gap with its ramp-up and tear-down. The 256^3 GEMMs take 2.6 to 4.0 us
 *    in bf16, fp16, fp8, int8 and fp64, of which their work and two DRAM
 *    latencies are under a microsecond: fitted to those five. */
#define SINGLE_KERNEL_FLOOR_S 1.6e-6
#define KERNEL_FLOOR_S 2.45e-6
/* FP32 split outputs with a side this long ran sm80_xmma's two launches
 * (16x512 and up); outputs of a few elements a side (8x8, 7x5, 16x16,
 * long K) ran CUTLASS's split SIMT SGEMM and splitKreduce: gemm_reduce.c.
 * ESTIMATE between 90 and 512. */
#define XMMA_TWO_PASS_MIN_SIDE 512
/* K stages of its tile's operands an SM keeps in flight from memory (the
 * pipeline's depth, Little's law): an SM draws at most that many stages
 * (the tile's rows and columns times its K depth) per memory latency,
 * whatever its share of the chip's bandwidth. Binds on small tiles, whose
 * stages are small, and on GEMMs that occupy few SMs: small, skinny and
 * short-K shapes; the large tiles of large GEMMs need a fraction of it.
 * Fitted with SINGLE_KERNEL_FLOOR_S to the fit half of the held-out set
 * (tests/gpu/results/h200/heldout/gemm.json, rows with "split": "fit"),
 * the least median error on a grid of 1 to 6 stages and 1.5 to 2.1 us
 * (3 stages, 1.8 us: 10.9%); checked again on that grid once a single
 * call paid the dirty lines it evicts: still the least (8.9% to 9.0%, the
 * neighbours within 0.1%). Refitted on 2026-12-02 at the model of that
 * day (its split-K, short-K, skinny and int8 tile rules), on the same fit
 * half and criterion, 1.2 to 1.8 us by 0.1 and 2 to 4 stages: 1.6 us and
 * 3 stages the least (fit median 4.6%; 1.5 and 1.7 us 4.7%, 1.8 us 5.0%,
 * 1.2 us 5.3%; 2 and 4 stages 4.9% and 4.7%). The probes' single tiny
 * kernels (2x2x2 to 64x64x16, one kernel, 4.4 to 4.8 us measured,
 * gemm_probe_tiny.json) had been 10 to 20% slow at 1.8 us. */
#define IN_FLIGHT_STAGES 3.0
/* simt-calibrate measures tensor-core rates as cuBLASLt GEMMs of this size. */
#define CALIBRATION_DIMENSION 8192

#endif
