/* gemm_splitk.c - how far cuBLAS splits K for outputs of a few tiles
 * against a long K: the splits beyond the 16 every GEMM may take (gemm.c's
 * least-time search), which the library uses only while one wave of the
 * SMs holds the split kernel's blocks. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11, tests/gpu/results/
 * h200/gemm_probe_splitk.json, fit data: kernel names and grids, the split
 * being the CUTLASS kernels' grid.z): outputs of one tile split 128 ways
 * from K = 4096 (fp32's simt_sgemm_64x64) or 32768 (tf32's s1688gemm) on,
 * two tiles 64 ways (fp32 and tf32 at 100x100, 16x256, 250x250 and K =
 * 8192), four tiles 32 ways (tf32 128x128, 100x100, 256x256, 64x512), eight
 * tiles 16 ways (tf32 16x1024, fp32 512x512): the tiles times the split
 * make 128 blocks, one wave of the 132 SMs. fp32's pieces of K go down to
 * 32 (8, 16 and 32 ways at K = 256, 512 and 1024), tf32's stay about 256
 * deep (one tile: 32 ways at K = 8192, 128 from 32768; 52 ways at 32x32 and
 * 64x64 x 8192).
 *
 * Where it applies: the FMA (SIMT) kernels; tf32's mma.sync kernels and
 * the unaligned 16-bit kernels in pieces of 256 or more (the latter one
 * tile 86 to 128 ways at K = 16384 to 32768, 256 at 65536: 7x5, 6x7 and
 * 33x20 in bf16 and fp16; bf16's split form, gemm_align1.c, in pieces of
 * 128 or more; their split of tiny outputs at K from 1000 on
 * not a multiple of 8 is simt_gemm_align1_split below). Not the aligned 16-bit kernels:
 * cuBLAS runs nvjet's _splitK kernels (K over grid.y in pieces of about
 * 1365, simt_gemm_stream_k_share below). Not FP64 (d884gemm 60 and 128
 * ways, its 8-byte partials summed slower: gemm_fp64.c). */
#include "gemm.h"
#include "gemm_internal.h"

/* The split factors every GEMM tries (gemm.c) go up to this; past it a
 * split must fit one wave. */
#define SPLIT_ANY_WAVES 16
/* tf32's and the unaligned 16-bit kernels' pieces of K past 16 ways: at
 * least this deep (above). */
#define DEEP_SPLIT_MIN_PIECE 256
/* bf16's align1 kernels in their split form (gemm_align1.c) past 16 ways:
 * pieces of 104 (33x20x8191, 79 ways), 128 (31x33x8192, 64 ways;
 * 33x20x32767, 256 ways), 103 (3x9x12001), 88 to 272 (6x7 at K = 10001 to
 * 32767); taken at 128 (ESTIMATE: four stages of 32) */
#define BF16_SPLIT_FORM_MIN_PIECE 128

int simt_gemm_split_fits(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int split)
{
    if (split <= SPLIT_ANY_WAVES)
        return 1;
    const struct simt_gemm_request *req = ctx->req;
    int sixteen_bit = req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16;
    int deep_pieces = req->dtype == SIMT_DTYPE_TF32 || (sixteen_bit && rate->unaligned);
    /* bf16's align1 split form keeps pieces of half that (gemm_align1.c) */
    int64_t least_piece =
        ctx->bf16_align1 && ctx->reduce_kernel_always ? BF16_SPLIT_FORM_MIN_PIECE : DEEP_SPLIT_MIN_PIECE;
    if (!(rate->staged_per_s_per_sm > 0.0) && (!deep_pieces || req->k < (int64_t)split * least_piece))
        return 0;
    int64_t tiles = (req->m + tile->m - 1) / tile->m * ((req->n + tile->n - 1) / tile->n) * req->batch;
    return tiles * (int64_t)split <= (int64_t)ctx->sm_count;
}

/* The unaligned 16-bit kernels (cutlass_75 s1688 align1 and align2, K or
 * n not a multiple of 8) on outputs of a few tiles against a long K: cuBLAS
 * cuts K so that the blocks fill the SMs, whatever power of two that is
 * not. Seen on an H200 (gemm_probe_classes_bf16n4.json, fit data, bf16 of
 * n = 7, 64x64 tiles, grid.z): 4 tiles 32 to 66 ways, 5 tiles 42 to 52, 10
 * tiles 25 and 26, one to two blocks an SM; the split factors every GEMM
 * tries (gemm.c: 16, then 32 within one wave) reach neither, so these add
 * the one-wave fill, floor(SMs / tiles), as a candidate the least time
 * weighs: 300x7 and 600x7 at K = 4000 to 12000 from +17..+32% to
 * +0..+20%. Not other dtypes (fp32's and tf32's splits are seen in their
 * own rules). */
#define FILL_SPLIT_MIN 17

int simt_gemm_fill_split(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int tile_k)
{
    const struct simt_gemm_request *req = ctx->req;
    if (ctx->fixed_split || !ctx->split_k || !rate->unaligned ||
        (req->dtype != SIMT_DTYPE_FP16 && req->dtype != SIMT_DTYPE_BF16))
        return 0;
    int64_t tiles = (req->m + tile->m - 1) / tile->m * ((req->n + tile->n - 1) / tile->n) * req->batch;
    int64_t fill = ctx->sm_count / tiles;
    int64_t piece_k = ctx->split_piece_k > 0 ? ctx->split_piece_k : tile_k;
    if (fill < FILL_SPLIT_MIN || fill * piece_k > req->k || (fill & (fill - 1)) == 0 ||
        !simt_gemm_split_fits(ctx, rate, tile, (int)fill))
        return 0;
    return (int)fill;
}

/* The unaligned 16-bit kernels of outputs of at most 256 elements (one
 * 16 x 16 wmma tile's worth) where K itself is not a multiple of 8 (A's
 * rows then start off 16 bytes, and cuBLAS runs its align1 kernels): K is
 * cut into pieces of 8 (one mma K step), a block each, as long as the whole
 * pieces stay within a cap; past it the pieces grow by 8 until they do
 * (the last, partial piece a block of its own). Up to K of about 9600 the
 * kernels are cutlass_75_tensorop_bf16_s1688gemm_bf16_64x64 (cap 256) and
 * cutlass_75_wmma_tensorop_s161616gemm_f16_16x16 (cap 384); past it cuBLAS
 * runs kernels that keep to about one wave of the SMs,
 * cutlass_75_tensorop_s1688gemm_bf16_64x64 (cap 120) and
 * cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32 (cap 128), their
 * pieces growing with K without end (no K where the rule stops).
 * Seen on an H200 (gemm_probe_tiny.json, gemm_probe_splitk.json,
 * gemm_probe_splitk2.json, fit data, grid.z): 6x7 at K = 1001, 2047 and
 * 3001 split 126, 256 and 376 ways (fp16), 126, 256 and 188 (bf16); 12x20
 * at 2001, 251 ways (both); 6x7 at 8191, 8193, 8705 and 9217 342, 342, 363
 * and 385 ways (fp16: pieces of 24, 384 whole ones at 9217) and 256, 257,
 * 218 and 231 (bf16: pieces of 32, 32, 40, 40); 3x9x9001 376 and 226. Then
 * 6x7 at K = 10001 to 16383 and 32767, 3x9x12001: 126 to 129 ways (fp16,
 * pieces of 80 to 256) and 114 to 121 (bf16, pieces of 88 to 272; whole
 * pieces 113 to 120, the next smaller piece giving 124 to 128). The switch
 * lies between K = 9217 and 10001; 9600 is taken (ESTIMATE: the middle).
 * Not larger outputs (30x30x999: 16 and 8 ways; 33x20 at 511 to 8191: 8 to
 * 79), except bf16 of 8 rows or fewer: up to 792 outputs seen (2, 4 and 8
 * rows against n = 15 to 99 at K = 1023 and 2047 split 128 and 256 ways,
 * gemm_probe_classes_bf16s.json, all 24; taken to 1024, an ESTIMATE), not
 * K under 1000 (bf16 6x7x511 and 7x5x512 ran gemmSN_NN unsplit). Not m
 * over 12 (the most seen split so, 12x20): bf16 of m = 20 to 80 against n
 * = 3 to 14 at K = 1500, outputs of 60 to 240, ran 16 ways (odd n, the
 * s1688 64x64 align1 kernel) or 12 (even n, the wmma 32x32 align2 one),
 * gemm_probe_classes_bf16n6.json (fit data): the least-time split prices
 * them (their fine split was +40% to +92%).
 * Not fp16 of even K and n (K = 2, 4 or 6 mod 8: cuBLAS's align2 kernels):
 * an H100 SXM (tests/gpu/results/h100/gemm_probe_classes_h100t.json, fit
 * data) ran cutlass_80_wmma f16 32x32_64x2 align2 16 ways at K = 2500 for
 * m = 3 and 6 against n = 2, 20 and 26, where pieces of 8 (313 ways) put
 * them +129% to +137%; the least-time split, +3% to +7%. bf16 there kept
 * the pieces (6 x 2 x 2500: 313 ways).
 * With K a multiple of 8 the pieces are 64 deep (7x5 at K = 1024 to 8192:
 * K / 64 ways), as the least-time split finds. The reduction kernel then
 * sums hundreds of partials and outweighs the GEMM kernel (8.5 to 12.7 us
 * against 3.3 to 4.3 us). */
#define ALIGN1_PIECE 8
#define ALIGN1_MAX_OUTPUT 256
#define ALIGN1_MAX_M 12
#define ALIGN1_FEW_ROWS 8
#define ALIGN1_FEW_ROWS_MAX_OUTPUT 1024
#define ALIGN1_MIN_K 1000
#define ALIGN1_WAVE_KERNEL_MIN_K 9600
#define ALIGN1_CAP_BF16 256
#define ALIGN1_CAP_FP16 384
#define ALIGN1_WAVE_CAP_BF16 120
#define ALIGN1_WAVE_CAP_FP16 128
/* bf16 of even K and n (the align2 kernels) wider than 16 columns: fewer
 * ways. An H200 split 6x82x1306 82 ways (pieces of 16, where 8 give 164:
 * gemm_probe_skinny.json), an H100 6x20x2500 and 6x26x2500 157 (16, where
 * 8 give 313: gemm_probe_classes_h100t.json), both fit data: a cap of 157
 * to 163, taken at 160 (ESTIMATE within that range); 6x82x1306 from +38%
 * to +1%. Two columns kept pieces of 8 to 313 ways (6x2x2500, H100). */
#define ALIGN2_WIDE_MIN_N 16
#define ALIGN2_WIDE_CAP_BF16 160
/* fp16 past 16 columns runs cutlass_75 wmma f16 32x32_128x1 (the 16x16
 * kernel up to 16): an H100 SXM split 2 to 6 rows by 24 at K = 2001 251
 * ways and at 2999 188 (pieces of 16, where 8 give 375: +49% to +63%),
 * gemm_probe_windows2.json; an H200 12x20x2001 251, gemm_probe_tiny.json;
 * fit data both: a cap of 251 to 374, taken at bf16's 256 (ESTIMATE
 * within that range). */
#define ALIGN1_CAP_FP16_WIDE 256
/* bf16 of 6 to 8 rows against even n and K (not both multiples of 8: the
 * align2 wmma kernels) keeps pieces of 8 from K = 500 and whatever K is
 * mod 8: an H100 SXM (gemm_probe_windows2.json, fit data) ran cutlass_80
 * wmma bf16 16x16 for 6 and 8 rows by 2 and 4 columns at K = 500, 1000,
 * 2000 and 3000 63, 125, 250 and 375 ways (10 to 20 us; the least-time
 * split, 12 to 16 ways, put them -21% to -53%), and by 8, 16 and 24 at K
 * = 500 63 (the 32x32 kernel at 24); the walk of one block (2 and 3 rows,
 * gemm_walk16.c) and gemmSN (4 rows) below them. Up to 16 columns past K =
 * 1000 (wider: the cap of 160 above); a cap of 384 (375 seen; ESTIMATE
 * past it), K from 500 (ESTIMATE under it: the rows seen there ran
 * gemmSN, all of odd n or K). */
#define ALIGN2_FINE_MIN_M 6
#define ALIGN2_FINE_MIN_K 500
#define ALIGN2_FINE_CAP 384
/* The H100's windows3 probe (gemm_probe_windows3.json, fit data) moved
 * three lines above:
 *  - bf16 of 5 to 8 rows at align1 (odd K or n) splits from K = 555 in
 *    pieces of 8 (s1688 64x64, 70 ways at 555, 75 at 600 for n = 3, 101
 *    at 801, every n of 2 to 42), where the H200 ran gemmSN up to K = 543
 *    (2, 4 and 8 rows, gemm_probe_classes_bf16s.json; 6x7x511, 6x82x501):
 *    from K = 544 (ESTIMATE between); fp16 splits from K = 511 (the H200's
 *    6x7x511, 64 ways; 7x5x256 ran gemmSN): from 500 (ESTIMATE);
 *  - K a multiple of 8 but not of 64 at odd n keeps pieces of 8 (5 to 8 x
 *    3 x 600: 75 ways), where multiples of 64 take whole 64-deep stages
 *    (7x5 at 1024 to 8192 on the H200: K / 64);
 *  - bf16 align2 of 17 to 64 columns (one 64-wide tile) caps at 256 ways
 *    (6 to 8 x 42: 226 at K = 1802, 188 at 2998, so 226 to 374; 6x20x2500
 *    157, so under 313: taken at 256, ESTIMATE within), wider ones at 160
 *    (6x82x1306 82 on the H200, 7x66 at 1802 and 2998 113 and 125: under
 *    164); up to 1024 outputs at K under 1000 (7 and 8 x 42 at K = 600:
 *    75 ways). */
#define ALIGN1_FEW_ROWS_MIN_M 5
#define ALIGN1_FEW_ROWS_MIN_K 544
#define ALIGN1_FP16_MIN_K 500
#define ALIGN1_WHOLE_STAGE 64
#define ALIGN2_ONE_TILE_N 64
#define ALIGN2_ONE_TILE_CAP 256

/* K in pieces of a multiple of unit, the fewest whole pieces within cap
 * (the smallest such piece: K / piece <= cap, that is piece > K / (cap +
 * 1)), the partial last piece a block of its own: the number of pieces. */
static int whole_pieces_within(int64_t k, int64_t unit, int64_t cap)
{
    int64_t least = k / (cap + 1) + 1;
    int64_t piece = (least + unit - 1) / unit * unit;
    return (int)((k + piece - 1) / piece);
}

/* tf32's unaligned kernels (K or n not a multiple of 4: cutlass_80_
 * tensorop_s1688gemm ... _align1 and _align2) for outputs of at most 4096
 * elements (one 64x64 tile's worth): the same rule over the blocks of all
 * its tiles (counted in 64 rows by 128 columns, the 5x100 output one), within one wave of 128
 * (the SMs in whole 8s), pieces a multiple of 8 (one mma.sync K step of
 * tf32), or of 32 (one K stage of the tile) where K is a multiple of 8.
 * Seen on an H200 (gemm_probe_tiny.json, gemm_probe_splitk.json,
 * gemm_probe_splitk2.json, fit data, grid.z): 6x7x1001 126 ways,
 * 30x30x999 125, 12x20x2001 126, 6x7 and 33x20 at 2047 128, 7x61, 33x20
 * and 5x100 at 2001 126 (256x128 tiles), at 3001 126 or 2 x 63, 7x61 and
 * 5x100 at 4001 126, 556x7x1103 9 tiles x 14 ways; 7x5 at K = 1024, 2048,
 * 4096, 8192 and 16384 to 65536: 32, 64, 128, 128 and 128 (pieces of 32
 * to 512). Outputs of more than 256 elements past K = 4096 (128 pieces of
 * one 32-deep stage) run the 64x64_16x6 kernel at about half a wave: 33x20
 * at 4001 to 8191 59, 74, 58, 57 and 57 ways, 7x61 and 5x100 at 5001 to
 * 7001 57 to 74, 31x33x8192 52: taken as a cap of 64 (ESTIMATE: the ways
 * seen lie 52 to 74), up to K = 16384 (33x20 and 6x7 at 32767 ran 131
 * ways). Not K under 768 (6x7, 7x5 and 33x20 at 511 and 512 ran an
 * unsplit sm80_xmma kernel, 30x30x999 these; ESTIMATE: between); not larger outputs (250x250x8192: 16 tiles
 * of 64x64 64 ways, four waves; the least-time split stands). */
#define TF32_ALIGN 4
#define TF32_MIN_K 768
#define TF32_PIECE 8
#define TF32_ALIGNED_K_PIECE 32
#define TF32_WAVE_ROUND 8
#define TF32_MAX_OUTPUT 4096
#define TF32_TILE_ROWS 64
#define TF32_TILE_COLUMNS 128
#define TF32_HALF_WAVE_MIN_OUTPUT 256
#define TF32_HALF_WAVE_MIN_K 4097
#define TF32_HALF_WAVE_MAX_K 16383

static int tf32_align1_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if ((req->k % TF32_ALIGN == 0 && req->n % TF32_ALIGN == 0) || req->k < TF32_MIN_K ||
        req->m * req->n > TF32_MAX_OUTPUT)
        return 0;
    int64_t tiles = (req->m + TF32_TILE_ROWS - 1) / TF32_TILE_ROWS *
                    ((req->n + TF32_TILE_COLUMNS - 1) / TF32_TILE_COLUMNS) * req->batch;
    int64_t wave = gpu->sm_count - gpu->sm_count % TF32_WAVE_ROUND;
    if (req->m * req->n > TF32_HALF_WAVE_MIN_OUTPUT && req->k >= TF32_HALF_WAVE_MIN_K &&
        req->k <= TF32_HALF_WAVE_MAX_K)
        wave /= 2;
    int64_t cap = wave / tiles;
    if (cap < 1)
        return 0;
    return whole_pieces_within(req->k, req->k % 8 == 0 ? TF32_ALIGNED_K_PIECE : TF32_PIECE, cap);
}

int simt_gemm_bf16_align2_fine(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && !req->sparse &&
           req->dtype == SIMT_DTYPE_BF16 && req->k % 2 == 0 && req->n % 2 == 0 &&
           (req->k % ALIGN1_PIECE != 0 || req->n % ALIGN1_PIECE != 0) && req->m >= ALIGN2_FINE_MIN_M &&
           req->m <= ALIGN1_FEW_ROWS && req->k >= ALIGN2_FINE_MIN_K && req->k < ALIGN1_WAVE_KERNEL_MIN_K &&
           (req->n <= ALIGN2_WIDE_MIN_N ||
            (req->k < ALIGN1_MIN_K && req->m * req->n <= ALIGN1_FEW_ROWS_MAX_OUTPUT));
}

/* the least K at which the 16-bit align1 kernels split (above) */
static int64_t align1_min_k(const struct simt_gemm_request *req)
{
    if (req->dtype == SIMT_DTYPE_FP16)
        return ALIGN1_FP16_MIN_K;
    return req->m >= ALIGN1_FEW_ROWS_MIN_M && req->m <= ALIGN1_FEW_ROWS ? ALIGN1_FEW_ROWS_MIN_K
                                                                        : ALIGN1_MIN_K;
}

/* K a multiple of 8: pieces of 8 for bf16's few rows at odd n while K is
 * no multiple of 64; else the least-time split (gemm.c) */
static int align1_whole_k(const struct simt_gemm_request *req, int few_rows)
{
    if (req->k % ALIGN1_PIECE != 0)
        return 0;
    return !(few_rows && req->m >= ALIGN1_FEW_ROWS_MIN_M && req->n % 2 != 0 &&
             req->k % ALIGN1_WHOLE_STAGE != 0);
}

int simt_gemm_align1_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major < 8 || req->sparse)
        return 0;
    if (req->dtype == SIMT_DTYPE_TF32)
        return tf32_align1_split(gpu, req);
    int sixteen_bit = req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16;
    int few_rows = req->dtype == SIMT_DTYPE_BF16 && req->m <= ALIGN1_FEW_ROWS &&
                   req->m * req->n <= ALIGN1_FEW_ROWS_MAX_OUTPUT;
    if (simt_gemm_bf16_align2_fine(gpu, req))
        return whole_pieces_within(req->k, ALIGN1_PIECE,
                                   req->n <= ALIGN2_WIDE_MIN_N   ? ALIGN2_FINE_CAP
                                   : req->n <= ALIGN2_ONE_TILE_N ? ALIGN2_ONE_TILE_CAP
                                                                 : ALIGN2_WIDE_CAP_BF16);
    if (!sixteen_bit || align1_whole_k(req, few_rows) || req->k < align1_min_k(req) ||
        req->m > ALIGN1_MAX_M || (req->m * req->n > ALIGN1_MAX_OUTPUT && !few_rows))
        return 0;
    int fp16 = req->dtype == SIMT_DTYPE_FP16;
    if (fp16 && req->k % 2 == 0 && req->n % 2 == 0) /* fp16's align2 kernels: the least-time split */
        return 0;
    int64_t cap = fp16 ? ALIGN1_CAP_FP16 : ALIGN1_CAP_BF16;
    if (!fp16 && req->k % 2 == 0 && req->n % 2 == 0 && req->n > ALIGN2_WIDE_MIN_N)
        cap = req->n <= ALIGN2_ONE_TILE_N ? ALIGN2_ONE_TILE_CAP : ALIGN2_WIDE_CAP_BF16;
    if (fp16 && req->n > ALIGN2_WIDE_MIN_N) /* its wmma 32x32 kernel, not the 16x16 */
        cap = ALIGN1_CAP_FP16_WIDE;
    if (req->k >= ALIGN1_WAVE_KERNEL_MIN_K)
        cap = fp16 ? ALIGN1_WAVE_CAP_FP16 : ALIGN1_WAVE_CAP_BF16;
    return whole_pieces_within(req->k, ALIGN1_PIECE, cap);
}

/* Hopper's TMA kernels (nvjet) for outputs of few tiles against a long K:
 * cuBLAS cuts K over grid.y (their _splitK kernels) in pieces of about 21
 * of the tile's 64-deep K steps, 1344 to 1365 of 16-bit K, however many
 * SMs stay idle: seen on an H200 (gemm_probe_splitk.json, fit data) at one
 * tile (8x8 and 32x32) 3 ways at K = 4096, 6 at 8192, 12 at 16384, 25 at
 * 32768, 51 at 65536; 6 ways for 2 to 16 tiles at 8192 (64x64, 128x128,
 * 16x256, 64x512); 4x4096x4096 (32 tiles) 3 ways (gemm_probe_small.json);
 * unsplit up to K = 2048 (8x8, 64x64, 16x1024: one block a tile). A step
 * is one 128-byte K stage of the tile. */
#define STREAM_K_LEAST_STEPS 21.0

double simt_gemm_stream_k_share(double per_sm, int64_t k_tiles)
{
    double least = STREAM_K_LEAST_STEPS;
    if (least > (double)k_tiles)
        least = (double)k_tiles;
    return per_sm > least ? per_sm : least;
}

/* FP32 outputs of 2 to 16 rows by 65 to 128 columns at K of 65 to 1024:
 * cuBLAS 13.1 runs sm80_xmma_gemm_f32f32_f32f32_f32 (FMA) after a memset,
 * K split over gridDim.z as far as every SM's resident blocks reach, the
 * splits of a tile summed in the kernel one after another (no reduction
 * kernel). Seen on an H200 (gemm_probe_tiny.json, gemm_probe_splitk2.json,
 * fit data): 6x82 and 16x80 at K = 131 to 1000: tilesize32x32, a grid of
 * 3 tiles x 176 (4 blocks an SM on 132 SMs), 26.3 to 26.9 us whatever K;
 * 16x96 at the same K: tilesize32x128, 1 x 264 (2 an SM), 49.8 to 50.7
 * us. The time grows with the split, not K: a chain of hand-offs, 0.151
 * us a split at 32x32 (against L2's latency of 0.141 us by the H200's
 * figure) and 0.19 us at 32x128: one L2 round trip each, taken (16x96
 * then 25% short). Not 16x48 nor 4x300 (the split SIMT SGEMM), nor K = 48
 * (gemmSN_NN, unsplit). The bounds past those seen are ESTIMATEs: n over
 * 64 (two 32-wide tiles; 48 ran the SIMT SGEMM) up to the 128-wide tile, K
 * over 64 up to 1024; the 32x32 tile up to n = 88 (80 and 82 ran it, 96
 * the 32x128 one). */
#define FMA_SERIAL_MIN_M 2
#define FMA_SERIAL_MAX_M 16
#define FMA_SERIAL_MIN_N 65
#define FMA_SERIAL_MAX_N 128
#define FMA_SERIAL_MIN_K 65
#define FMA_SERIAL_MAX_K 1024
#define FMA_SERIAL_NARROW_MAX_N 88

static const struct tile_shape fma_serial_tiles[] = {{32, 32, 0}, {32, 128, 0}};
/* blocks an SM holds at once, by tile (the grids above) */
static const int fma_serial_per_sm[] = {4, 2};

static int fma_serial_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m >= FMA_SERIAL_MIN_M && req->m <= FMA_SERIAL_MAX_M &&
           req->n >= FMA_SERIAL_MIN_N && req->n <= FMA_SERIAL_MAX_N && req->k >= FMA_SERIAL_MIN_K &&
           req->k <= FMA_SERIAL_MAX_K;
}

int simt_gemm_fma_serial_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (!fma_serial_runs(gpu, req))
        return 0;
    size_t t = req->n <= FMA_SERIAL_NARROW_MAX_N ? 0 : 1;
    int64_t tiles = (req->n + fma_serial_tiles[t].n - 1) / fma_serial_tiles[t].n;
    int64_t split = (int64_t)fma_serial_per_sm[t] * gpu->sm_count / tiles;
    return split >= 2 ? (int)split : 0;
}

void simt_gemm_fma_serial_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                struct shape_context *ctx, const struct tile_shape **tiles, size_t *count)
{
    int split = simt_gemm_fma_serial_split(gpu, req);
    if (split == 0 || !(ctx->l2_latency_s > 0.0))
        return;
    ctx->fixed_split = split;
    ctx->fma_serial = 1;
    *tiles = &fma_serial_tiles[req->n <= FMA_SERIAL_NARROW_MAX_N ? 0 : 1];
    *count = 1;
}

void simt_gemm_fma_serial_reduce(const struct shape_context *ctx, int split, struct candidate *c)
{
    if (!ctx->fma_serial || split < 2)
        return;
    /* the memset, then each split after the first waits one L2 round trip
     * for the one before; the partials each reads and writes at L2's rate */
    const struct simt_gemm_request *req = ctx->req;
    double partial = (double)req->m * (double)req->n * 4.0;
    double bytes_s =
        ctx->l2_bytes_per_s > 0.0 ? 2.0 * (double)(split - 1) * partial / ctx->l2_bytes_per_s : 0.0;
    c->reduce_s = ctx->memset_s + (double)(split - 1) * ctx->l2_latency_s + bytes_s;
    c->serial_reduce = 1;
}

const char *simt_gemm_fixed_split_phrase(const struct simt_gemm_request *req, int fixed_split)
{
    if (fixed_split <= 0)
        return "";
    if (req->dtype == SIMT_DTYPE_TF32)
        return " (cuBLAS's split for its unaligned tf32 kernels of a few tiles: K in pieces of 8, or 32 "
               "where K "
               "is a multiple of 8, the fewest that keep the tiles' blocks within one wave, or half a wave "
               "for the 64x64 kernel of outputs over 256 elements at K of 4097 to 16383)";
    if (req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16)
        return " (cuBLAS's split for its align1 16-bit kernels of tiny outputs: K in pieces of 8, or more to "
               "keep the whole pieces within 256 blocks for bf16, 384 for fp16, and past K = 9600 within "
               "one wave, 120 and 128)";
    if (req->n < FMA_SERIAL_MIN_N)
        return " (cuBLAS's split for fp32 of two or three columns at long K: twice the SMs' worth of blocks, "
               "over the output's 64x64 tiles)";
    if (req->n <= FMA_SERIAL_MAX_N)
        return " (cuBLAS's in-kernel split for fp32 outputs of 2 to 16 rows by 65 to 128 columns: as many "
               "blocks as the SMs hold at once)";
    return " (cuBLAS's split for its SIMT SGEMM on few tiles: K in pieces of 128)";
}
