#!/bin/bash
# tests/gpu/run_x2_all.sh - one call on an nvidia-h200-x2 machine: the
# collectives on both GPUs (run_h200x2.sh), then the one-GPU suite on GPU 0
# (run_h200.sh: calibrate twice, micro, GEMM). Eight files come back in $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
bash tests/gpu/run_h200x2.sh
CUDA_VISIBLE_DEVICES=0 bash tests/gpu/run_h200.sh
