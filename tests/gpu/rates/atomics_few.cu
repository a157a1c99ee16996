/* atomics_few.cu - what one warp's global atomic request to a few lines
 * costs the L2 slice that holds them (issue 11: histograms over 16 to 4096
 * bins run slower than lanes / slice rate predicts). Every warp instruction
 * of the grid sends the same lane pattern (a table of word offsets, -1 =
 * lane idle) to the same small set, so the slice's time per request is the
 * launch time over the requests: k lanes on k words of ONE 32-byte sector
 * against k lanes one per sector, uneven same-address counts in one line,
 * few lanes on each of 8 lines, and the pattern rotated from warp to warp.
 * GPU time of one launch without CPU gaps, as atomics_int.cu (L2 flush,
 * 50 us sleep kernel, event pair; 2 untimed, 7 timed, median). Prints one
 * JSON object. Standalone: nvcc -O3 -arch=sm_90. */
#include "cold_timing.cuh"

__constant__ int tab[32];
#define PER 4
/* lane l of warp instruction w adds 1 to word tab[(l + rot(w)) % 32]; rot(w) = 0, or 7w when rotate */
__global__ void k_tab(unsigned *h, int rotate) {
    unsigned lane = threadIdx.x & 31;
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        size_t w = warp * PER + j;
        unsigned r = rotate ? (unsigned)(w * 7) : 0u;
        int word = tab[(lane + r) & 31];
        if (word >= 0) atomicAdd(&h[word], 1u);
    }
}

struct Pat {
    const char *name;
    int rotate;
    std::vector<int> words; /* per lane; missing lanes idle */
};

static std::vector<int> seq(int n, int first, int step) {
    std::vector<int> v;
    for (int i = 0; i < n; i++) v.push_back(first + i * step);
    return v;
}

int main() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    cold_timing_init();
    unsigned *h;
    CK(cudaMalloc(&h, 1 << 20));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    /* uneven counts on 8 words of one line: 10, 6, 4, 4, 2, 2, 2, 2 (a skewed 16-bin histogram) */
    std::vector<int> uneven;
    int counts[8] = {10, 6, 4, 4, 2, 2, 2, 2}, words8[8] = {0, 8, 4, 12, 2, 6, 10, 14};
    for (int b = 0; b < 8; b++)
        for (int c = 0; c < counts[b]; c++) uneven.push_back(words8[b]);
    std::vector<int> uneven_mixed(32); /* the same counts, lanes interleaved */
    for (int l = 0; l < 32; l++) uneven_mixed[(l * 13) % 32] = uneven[l];
    /* 32 lanes over 8 lines (1 KiB), 4 lanes a line: distinct words in one sector, or one per sector */
    std::vector<int> lines8_sector, lines8_spread, lines8_1lane;
    for (int l = 0; l < 32; l++) {
        lines8_sector.push_back((l % 8) * 32 + l / 8);
        lines8_spread.push_back((l % 8) * 32 + (l / 8) * 8);
    }
    lines8_1lane = seq(8, 0, 32);
    std::vector<Pat> pats = {
        {"sector1_lanes1", 0, seq(1, 0, 1)},
        {"sector1_lanes2", 0, seq(2, 0, 1)},
        {"sector1_lanes4", 0, seq(4, 0, 1)},
        {"sector1_lanes8", 0, seq(8, 0, 1)},
        {"sectors2_lanes2", 0, seq(2, 0, 8)},
        {"sectors4_lanes4", 0, seq(4, 0, 8)},
        {"sectors4_lanes8", 0, {0, 1, 8, 9, 16, 17, 24, 25}},
        {"line_32words", 0, seq(32, 0, 1)},
        {"line_8words_4each_1sector", 0, {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
                                          0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}},
        {"line_8words_4each_4sectors", 0, {0, 1, 8, 9, 16, 17, 24, 25, 0, 1, 8, 9, 16, 17, 24, 25,
                                           0, 1, 8, 9, 16, 17, 24, 25, 0, 1, 8, 9, 16, 17, 24, 25}},
        {"line_uneven_10_6_4_4_2_2_2_2", 0, uneven},
        {"line_uneven_mixed", 0, uneven_mixed},
        {"line_uneven_mixed_rotated", 1, uneven_mixed},
        {"lines8_4lanes_1sector", 0, lines8_sector},
        {"lines8_4lanes_4sectors", 0, lines8_spread},
        {"lines8_1lane", 0, lines8_1lane},
        {"lines8_4lanes_1sector_rotated", 1, lines8_sector},
    };
    const unsigned blocks = 16384, threads = 256;
    const double warp_instr = (double)blocks * threads / 32 * PER;
    printf("{\"card\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %d, \"driver_api\": %d, \"warp_instructions\": %.0f, "
           "\"rows\": [",
           p.name, p.multiProcessorCount, p.l2CacheSize, drv, warp_instr);
    for (size_t i = 0; i < pats.size(); i++) {
        int t[32];
        for (int l = 0; l < 32; l++) t[l] = l < (int)pats[i].words.size() ? pats[i].words[l] : -1;
        CK(cudaMemcpyToSymbol(tab, t, sizeof t));
        CK(cudaMemset(h, 0, 1 << 20));
        int rot = pats[i].rotate;
        double s = time_cold([&] { k_tab<<<blocks, threads>>>(h, rot); });
        printf("%s\n  {\"name\": \"%s\", \"median_s\": %.6e, \"ns_per_request\": %.4f, \"lane_words\": [", i ? "," : "",
               pats[i].name, s, s / warp_instr * 1e9);
        for (size_t l = 0; l < pats[i].words.size(); l++) printf("%s%d", l ? ", " : "", pats[i].words[l]);
        printf("], \"rotated\": %d}", rot);
        fflush(stdout);
    }
    printf("\n]}\n");
    return 0;
}
