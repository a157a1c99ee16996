/* tests/gpu/cluster/cluster_oracle.cu - the CUDA runtime's own cluster
 * occupancy answers, and the GPC layout seen by resident clusters.
 *
 *   cluster_oracle oracle > oracle.jsonl   one line per launch configuration:
 *       the kernel's registers (cudaFuncGetAttributes), block size, dynamic
 *       shared bytes, cluster dims, cudaOccupancyMaxActiveBlocksPerMultiprocessor
 *       and cudaOccupancyMaxActiveClusters (or the error the runtime gave)
 *   cluster_oracle layout > layout.json    the SMs that resident clusters
 *       share: blocks of one cluster always sit in one GPC, so SMs joined by
 *       any cluster are in one GPC; connected components over many launches
 *       of sizes 2..16 (one block per SM) give each GPC's SMs
 *
 * Kernels: one per register cap (__maxnreg__), each with enough live values
 * to use its cap; the register count recorded is the runtime's. */
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <numeric>
#include <algorithm>

namespace cg = cooperative_groups;

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

/* enough independent accumulators to need about 2*A registers */
template <int A>
__device__ __forceinline__ void busy(float *out, int iters, float b) {
    float acc[A];
#pragma unroll
    for (int i = 0; i < A; i++) acc[i] = threadIdx.x * 0.001f + i;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int i = 0; i < A; i++) acc[i] = fmaf(acc[i], b, acc[(i + 1) % A]);
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < A; i++) s += acc[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

#define KERNEL(R, A) \
    __global__ void __maxnreg__(R) k_r##R(float *out, int iters, float b) { busy<A>(out, iters, b); }
KERNEL(16, 4)
KERNEL(24, 12)
KERNEL(32, 20)
KERNEL(40, 28)
KERNEL(48, 36)
KERNEL(56, 44)
KERNEL(64, 52)
KERNEL(72, 60)
KERNEL(80, 68)
KERNEL(96, 84)
KERNEL(112, 100)
KERNEL(128, 116)
KERNEL(152, 140)
KERNEL(168, 156)
KERNEL(192, 180)
KERNEL(216, 204)
KERNEL(240, 228)
KERNEL(255, 250)

typedef void (*kfn)(float *, int, float);
static const kfn kernels[] = {k_r16, k_r24, k_r32, k_r40, k_r48, k_r56, k_r64, k_r72, k_r80,
                              k_r96, k_r112, k_r128, k_r152, k_r168, k_r192, k_r216, k_r240, k_r255};

static const int kcap[] = {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 152, 168, 192, 216, 240, 255};

static int oracle(void) {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    const int blocks[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 896, 1024};
    const int shm[] = {0, 1024, 4096, 8192, 20000, 32768, 49152, 65536, 81920, 100000, 116736, 150000, 200000, 232448};
    const int dims[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {4, 1, 1}, {5, 1, 1}, {6, 1, 1}, {7, 1, 1}, {8, 1, 1},
                           {9, 1, 1}, {10, 1, 1}, {11, 1, 1}, {12, 1, 1}, {13, 1, 1}, {14, 1, 1}, {15, 1, 1},
                           {16, 1, 1}, {2, 2, 1}, {4, 2, 1}, {2, 4, 1}, {2, 2, 2}, {4, 4, 1}, {1, 8, 1}};
    long n = 0;
    unsigned rng = 12345u;
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        kfn k = kernels[ki];
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, (const void *)k));
        CK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)p.sharedMemPerBlockOptin - (int)fa.sharedSizeBytes));
        CK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        for (int bs : blocks) {
            if (bs > fa.maxThreadsPerBlock) continue;
            for (int s : shm) {
                for (auto &d : dims) {
                    int csz = d[0] * d[1] * d[2];
                    /* thin the set: all cluster sizes at a third of the
                     * (block, shared) pairs chosen by a fixed LCG */
                    rng = rng * 1664525u + 1013904223u;
                    if ((rng >> 28) % 3 != 0 && csz != 1 && csz != 2 && csz != 8 && csz != 16) continue;
                    int bpsm = -1;
                    cudaError_t e1 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bpsm, k, bs, s);
                    cudaLaunchConfig_t cfg = {};
                    cudaLaunchAttribute attr[1];
                    attr[0].id = cudaLaunchAttributeClusterDimension;
                    attr[0].val.clusterDim.x = d[0];
                    attr[0].val.clusterDim.y = d[1];
                    attr[0].val.clusterDim.z = d[2];
                    cfg.gridDim = dim3(d[0] * 16, d[1], d[2]);
                    cfg.blockDim = dim3(bs, 1, 1);
                    cfg.dynamicSmemBytes = s;
                    cfg.attrs = attr;
                    cfg.numAttrs = 1;
                    int clusters = -1;
                    cudaError_t e2 = cudaOccupancyMaxActiveClusters(&clusters, (const void *)k, &cfg);
                    printf("{\"kernel\":\"k_r%d\",\"registers\":%d,\"static_shared\":%zu,\"block\":%d,"
                           "\"dynamic_shared\":%d,\"cluster\":[%d,%d,%d],\"blocks_per_sm\":%d,\"blocks_err\":\"%s\","
                           "\"active_clusters\":%d,\"clusters_err\":\"%s\"}\n",
                           kcap[ki], fa.numRegs, fa.sharedSizeBytes, bs, s, d[0], d[1], d[2],
                           e1 == cudaSuccess ? bpsm : -1, e1 == cudaSuccess ? "" : cudaGetErrorName(e1),
                           e2 == cudaSuccess ? clusters : -1, e2 == cudaSuccess ? "" : cudaGetErrorName(e2));
                    if (e1 != cudaSuccess || e2 != cudaSuccess) cudaGetLastError();
                    n++;
                }
            }
        }
    }
    fprintf(stderr, "oracle: %ld configurations\n", n);
    return 0;
}

/* one block per SM (shared memory sized so), every block records its SM and
 * its cluster; blocks wait until the whole grid has arrived or a timeout so
 * that all clusters are resident together */
__global__ void k_probe(int *smid, int *cluster_of, unsigned *arrived, unsigned total, long long spin_ns) {
    extern __shared__ char big[];
    unsigned s, cid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    cg::cluster_group c = cg::this_cluster();
    cid = blockIdx.x / c.num_blocks();
    if (threadIdx.x == 0) {
        big[0] = (char)s;
        smid[blockIdx.x] = (int)s;
        cluster_of[blockIdx.x] = (int)cid;
        atomicAdd(arrived, 1u);
        long long t0;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        for (;;) {
            if (atomicAdd(arrived, 0u) >= total) break;
            long long t1;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
            if (t1 - t0 > spin_ns) break;
        }
    }
    c.sync();
}

static int find(std::vector<int> &p, int x) { return p[x] == x ? x : p[x] = find(p, p[x]); }

static int layout(void) {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int nsm = p.multiProcessorCount;
    int shm = (int)p.sharedMemPerMultiprocessor / 2 + 1024; /* > half an SM: one block per SM */
    CK(cudaFuncSetAttribute((const void *)k_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, shm));
    CK(cudaFuncSetAttribute((const void *)k_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    std::vector<int> parent(nsm);
    std::iota(parent.begin(), parent.end(), 0);
    int *d_sm, *d_cl;
    unsigned *d_arr;
    CK(cudaMalloc(&d_sm, 4096 * sizeof(int)));
    CK(cudaMalloc(&d_cl, 4096 * sizeof(int)));
    CK(cudaMalloc(&d_arr, sizeof(unsigned)));
    printf("{\"sm_count\":%d,\"launches\":[\n", nsm);
    bool first = true;
    for (int rep = 0; rep < 6; rep++) {
        for (int csz = 2; csz <= 16; csz++) {
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = csz;
            attr[0].val.clusterDim.y = 1;
            attr[0].val.clusterDim.z = 1;
            cfg.blockDim = dim3(128, 1, 1);
            cfg.dynamicSmemBytes = shm;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            cfg.gridDim = dim3(csz * 16, 1, 1); /* the query needs a grid the cluster divides */
            int maxc = 0;
            cudaError_t e = cudaOccupancyMaxActiveClusters(&maxc, (const void *)k_probe, &cfg);
            if (e != cudaSuccess || maxc <= 0) {
                fprintf(stderr, "cluster %d: %s, %d clusters\n", csz, cudaGetErrorName(e), maxc);
                cudaGetLastError();
                continue;
            }
            unsigned total = (unsigned)(maxc * csz);
            cfg.gridDim = dim3(total, 1, 1);
            CK(cudaMemset(d_arr, 0, sizeof(unsigned)));
            CK(cudaMemset(d_sm, 0xff, 4096 * sizeof(int)));
            CK(cudaLaunchKernelEx(&cfg, k_probe, d_sm, d_cl, d_arr, total, (long long)200000000));
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            std::vector<int> sm(total), cl(total);
            unsigned arrived = 0;
            CK(cudaMemcpy(sm.data(), d_sm, total * sizeof(int), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(cl.data(), d_cl, total * sizeof(int), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&arrived, d_arr, sizeof arrived, cudaMemcpyDeviceToHost));
            printf("%s {\"cluster_size\":%d,\"max_active_clusters\":%d,\"all_resident\":%s,\"sm_by_block\":[",
                   first ? "" : ",", csz, maxc, arrived >= total ? "true" : "false");
            first = false;
            for (unsigned i = 0; i < total; i++) printf("%s%d", i ? "," : "", sm[i]);
            printf("]}\n");
            for (unsigned i = 0; i < total; i++)
                if (i % csz) parent[find(parent, sm[i])] = find(parent, sm[i - i % csz]);
        }
    }
    std::vector<std::vector<int>> gpc;
    std::vector<int> root_index(nsm, -1);
    for (int s = 0; s < nsm; s++) {
        int r = find(parent, s);
        if (root_index[r] < 0) {
            root_index[r] = (int)gpc.size();
            gpc.push_back({});
        }
        gpc[root_index[r]].push_back(s);
    }
    printf("],\"gpcs\":[");
    for (size_t g = 0; g < gpc.size(); g++) {
        printf("%s[", g ? "," : "");
        for (size_t i = 0; i < gpc[g].size(); i++) printf("%s%d", i ? "," : "", gpc[g][i]);
        printf("]");
    }
    printf("],\"sms_per_gpc\":[");
    for (size_t g = 0; g < gpc.size(); g++) printf("%s%zu", g ? "," : "", gpc[g].size());
    printf("]}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: cluster_oracle oracle|layout\n");
        return 2;
    }
    if (!strcmp(argv[1], "oracle")) return oracle();
    if (!strcmp(argv[1], "layout")) return layout();
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
