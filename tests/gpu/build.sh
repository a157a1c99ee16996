#!/bin/bash
# tests/gpu/build.sh - builds the GPU programs with nvcc alone (no CMake):
# simt-micro (tests/gpu/micro), simt-calibrate (clients/calibrate),
# simt-heldout (tests/gpu/heldout) and ksparse_probe (tests/gpu/probe), the
# first three with the shared kernels of clients/calibrate/kernels.cu, for
# Hopper (sm_90), keeping ptxas -v's register and shared-memory report.
#   tests/gpu/build.sh [OUTDIR]       (default build-gpu/dev)
# Run from the repository root.
set -euo pipefail
out=${1:-build-gpu/dev}
mkdir -p "$out"
NVCC=${NVCC:-nvcc}
arch="-gencode=arch=compute_90,code=sm_90"
$NVCC -O3 -std=c++17 $arch -lineinfo -Xptxas -v -Iclients/calibrate -o "$out/simt-micro" tests/gpu/micro/*.cu clients/calibrate/kernels.cu \
    2> "$out/ptxas-micro.txt" || { cat "$out/ptxas-micro.txt"; exit 1; }
$NVCC -O3 -std=c++17 $arch -lineinfo -Xptxas -v -o "$out/simt-calibrate" clients/calibrate/simt-calibrate.cu clients/calibrate/kernels.cu \
    -lcublasLt -ldl -Xlinker -rpath,/usr/local/cuda/lib64 \
    2> "$out/ptxas-calibrate.txt" || { cat "$out/ptxas-calibrate.txt"; exit 1; }
echo "built $out/simt-micro $out/simt-calibrate"
$NVCC -O3 -std=c++17 $arch -lineinfo -Xptxas -v -Iclients/calibrate -o "$out/simt-heldout" tests/gpu/heldout/*.cu \
    tests/gpu/micro/common.cu clients/calibrate/kernels.cu \
    2> "$out/ptxas-heldout.txt" || { cat "$out/ptxas-heldout.txt"; exit 1; }
echo "built $out/simt-heldout"
$NVCC -O3 -std=c++17 $arch -Xptxas -v -o "$out/ksparse_probe" tests/gpu/probe/ksparse_probe.cu \
    2> "$out/ptxas-ksparse.txt" || { cat "$out/ptxas-ksparse.txt"; exit 1; }
echo "built $out/ksparse_probe"
