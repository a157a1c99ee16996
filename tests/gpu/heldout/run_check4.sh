#!/bin/bash
# tests/gpu/heldout/run_check4.sh - one device call, from the repository
# root: the fourth independent kernel set (simt-heldout --sizes check4,
# finished by confirm_kernels.py --set check4) on whichever card the call
# got. Results: $OUT/kernels4.json (-> tests/gpu/results/<card>/confirm/),
# committed before any comparison with the model. Binaries: BIN (default
# build-gpu/dev, from tests/gpu/build.sh; carry it with the call).
set -u
O=${OUT:-/tmp/simt-out}
BIN=${BIN:-build-gpu/dev}
R=/tmp/simt-check4
mkdir -p "$O" "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
python3 tests/gpu/gpu_meta.py > "$R/meta-before.json"
timeout 200 "$BIN/simt-heldout" --sizes check4 --out "$R/kernels-check4-raw.json" > "$R/check4.log" 2>&1
tail -n 2 "$R/check4.log"
python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
python3 tests/gpu/heldout/confirm_kernels.py "$R/kernels-check4-raw.json" "$R/meta-before.json" "$R/meta-after.json" \
    "$BIN/ptxas-heldout.txt" "$O/kernels4.json" --set check4 2>&1 | tail -n 2
cp "$R/check4.log" "$O/check4.log"
