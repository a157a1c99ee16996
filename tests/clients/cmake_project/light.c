/* light.c - light.cu's kernel for builds without nvcc: the lines below are
 * what `nvcc -c -arch=sm_90 -Xptxas -v light.cu` printed (CUDA 12). */
// clang-format off
//ptxas:ptxas info    : 0 bytes gmem
//ptxas:ptxas info    : Compiling entry function '_Z5scalePffi' for 'sm_90'
//ptxas:ptxas info    : Function properties for _Z5scalePffi
//ptxas:    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//ptxas:ptxas info    : Used 8 registers, used 0 barriers
//  clang-format on
int light_placeholder(void);
int light_placeholder(void)
{
    return 8;
}
