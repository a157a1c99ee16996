#!/bin/bash
# tests/gpu/heldout/run_check3.sh - one device call, from the repository
# root: the third independent kernel set (simt-heldout --sizes check3,
# finished by confirm_kernels.py --set check3) on whichever card the call
# got. Results: $OUT/kernels3.json (-> tests/gpu/results/<card>/confirm/),
# committed before any comparison with the model. Binaries: BIN (default
# build-gpu/dev, from tests/gpu/build.sh; carry it with the call).
set -u
O=${OUT:-/tmp/simt-out}
BIN=${BIN:-build-gpu/dev}
R=/tmp/simt-check3
mkdir -p "$O" "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
python3 tests/gpu/gpu_meta.py > "$R/meta-before.json"
timeout 200 "$BIN/simt-heldout" --sizes check3 --out "$R/kernels-check3-raw.json" > "$R/check3.log" 2>&1
tail -n 2 "$R/check3.log"
python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
python3 tests/gpu/heldout/confirm_kernels.py "$R/kernels-check3-raw.json" "$R/meta-before.json" "$R/meta-after.json" \
    "$BIN/ptxas-heldout.txt" "$O/kernels3.json" --set check3 2>&1 | tail -n 2
cp "$R/check3.log" "$O/check3.log"
