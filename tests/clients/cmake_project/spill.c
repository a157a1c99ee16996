/* spill.c - heavy.cu compiled with -maxrregcount=32 for builds without
 * nvcc: what `nvcc -c -arch=sm_90 -Xptxas -v -maxrregcount=32 heavy.cu`
 * printed (CUDA 12): few registers, full occupancy, but it spills. */
// clang-format off
//ptxas:ptxas info    : 0 bytes gmem
//ptxas:ptxas info    : Compiling entry function '_Z10accumulatePfi' for 'sm_90'
//ptxas:ptxas info    : Function properties for _Z10accumulatePfi
//ptxas:    1592 bytes stack frame, 1596 bytes spill stores, 3612 bytes spill loads
//ptxas:ptxas info    : Used 32 registers, used 0 barriers, 1592 bytes cumulative stack size
//  clang-format on
int spill_placeholder(void);
int spill_placeholder(void)
{
    return 32;
}
