#!/usr/bin/env bash
# The one test command: installs what is missing, builds simtd with warnings
# as errors, and runs every test (unit, case folders, oracle where the CUDA
# header exists, end-to-end against the real daemon, accuracy against the
# committed H200 measurements). Usage: tests/run-all.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bash "$root/.ci/deps"
cmake -S "$root" -B "$build" -DSIMT_WERROR=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
