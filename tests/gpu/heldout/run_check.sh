#!/bin/bash
# tests/gpu/heldout/run_check.sh SET - one device call, from the repository
# root: a small independent kernel set (simt-heldout --sizes SET, finished
# by confirm_kernels.py --set SET) on whichever card the call got. SET:
# check3 (the third set: rows read again, gathers near L2's share, FP64
# chains), check4 (the fourth: scatters and sparse stores), check5 (the
# fifth: scatters into tables near L2's size) or check6 (the sixth: kernels
# the pipes pace after one load round) or wide (the 8- and 16-byte reads of
# the heldout, confirm and confirm2 lists again, each element loaded whole:
# heldout.cuh). Results (wide: $OUT/kernels-wide.json):
# $OUT/kernelsN.json, N the set's number (-> tests/gpu/results/<card>/
# confirm/), committed before any comparison with the model. Binaries: BIN
# (default build-gpu/dev, from tests/gpu/build.sh; carry it with the call).
set -u
case "${1:-}" in check3 | check4 | check5 | check6 | wide) SET=$1 ;; *) echo "usage: $0 check3|check4|check5|check6|wide" >&2; exit 2 ;; esac
O=${OUT:-/tmp/simt-out}
BIN=${BIN:-build-gpu/dev}
R=/tmp/simt-$SET
mkdir -p "$O" "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
python3 tests/gpu/gpu_meta.py > "$R/meta-before.json"
timeout 200 "$BIN/simt-heldout" --sizes "$SET" --out "$R/kernels-$SET-raw.json" > "$R/$SET.log" 2>&1
tail -n 2 "$R/$SET.log"
python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
python3 tests/gpu/heldout/confirm_kernels.py "$R/kernels-$SET-raw.json" "$R/meta-before.json" "$R/meta-after.json" \
    "$BIN/ptxas-heldout.txt" "$O/kernels${SET#check}.json" --set "$SET" 2>&1 | tail -n 2
[ "$SET" = wide ] && mv "$O/kernelswide.json" "$O/kernels-wide.json"
cp "$R/$SET.log" "$O/$SET.log"
