/* kernels.cuh - the one set of calibration kernels (issue 14 item 6) that
 * simt-calibrate (clients/calibrate) and the GPU benchmarks (tests/gpu/micro,
 * tests/gpu/heldout) share: checked CUDA calls, the random-fill and hash
 * helpers, the SM clock probe, the FP32/FP64/SFU throughput loops, the empty
 * kernel, and the two kernels every timing starts with (a sleep kernel that
 * covers the host's queueing of the timed work, and an L2 flush).
 *
 * Definitions live in kernels.cu, compiled once into each program; kernels
 * are launched across translation units through their host stubs (no -rdc
 * needed). */
#ifndef SIMT_CALIBRATE_KERNELS_CUH
#define SIMT_CALIBRATE_KERNELS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                      \
    do {                                                                              \
        cudaError_t ck_err_ = (call);                                                 \
        if (ck_err_ != cudaSuccess) {                                                 \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(ck_err_));                                \
            std::exit(2);                                                             \
        }                                                                             \
    } while (0)

/* after every launch: the launch's own error */
#define CK_LAUNCH() CK(cudaGetLastError())

__host__ __device__ inline unsigned hash32(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* a hash's top 24 bits as a float in [-1, 1) */
__host__ __device__ inline float unit_float(unsigned h) { return (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f; }

/* element types k_fill writes */
enum Dt { DT_FP16, DT_BF16, DT_TF32, DT_FP8, DT_INT8, DT_FP64 };
static const int DT_RAW32 = 99; /* raw 32-bit words */

/* independent dependency chains per thread in the throughput loops */
#define CHAINS 8

__global__ void k_fill(void *p, size_t n, int dt, unsigned seed);
__global__ void k_clock_probe(float *out, unsigned long long *ticks, int iters, float b);
__global__ void k_fp32(float *out, int iters, float b, float cc);
__global__ void k_fp64(double *out, int iters, double b, double cc);
__global__ void k_sfu(float *out, int iters);
__global__ void k_empty();
/* one thread spins ns nanoseconds on %globaltimer (with __nanosleep) */
__global__ void k_sleep(unsigned long long ns);
/* writes n 16-byte words: evicts what an earlier kernel left in L2 */
__global__ void k_flush(uint4 *p, size_t n, unsigned v);

/* fills n elements of type dt (or DT_RAW32 words) with a hash of (index, seed); synchronizes */
void fill_typed(void *p, size_t n, int dt, unsigned seed);

/* SM clock under load: clock64 over %globaltimer per block of an FMA loop on
 * every SM, median over blocks of two launches after one untimed */
double sm_clock_under_load_hz(int sms);

/* The start of every timed region: a sleep kernel long enough that the host
 * has queued the timed work before the GPU reaches it, then (cold questions)
 * an L2 flush. flush may be NULL (warm questions). */
struct TimedStart {
    uint4 *flush = nullptr;
    size_t flush_words = 0;          /* 16-byte words; 256 MiB or more */
    unsigned long long sleep_ns = 100000;
    void begin(cudaStream_t s = 0) const;
};

#endif
