#!/bin/bash
# tests/gpu/heldout/run_blind_h200.sh - one nvidia-h200 call, from the
# repository root, for the H200 measurements issue 11 still waits on (the
# session of 2026-12-07 asked for an H200 and got an H100 or nothing):
#  1. the check6 and check4 sets (run_check.sh: kernels6.json,
#     kernels4.json), seconds each, blind on the H100 so far;
#  2. the second independent kernel set on the H200 (simt-heldout --sizes
#     confirm2, finished by confirm_kernels.py --set confirm2);
#  3. the seed-2030 GEMM set on the H200 (gemm_heldout.py --seed 2030, three
#     runs, merged by merge_runs.py: median of medians), with
#  4. simt-calibrate (the H200's own L2 request rate and launch interval,
#     which its record now takes from the H100 sibling) after the first run.
# It stops at once on any other card. Results: $OUT/results.tgz
# (kernels2.json, kernels4.json, kernels6.json -> tests/gpu/results/h200/confirm/, gemm5.json likewise,
# calibrate-run10.* -> tests/gpu/results/h200/). Commit them before any
# comparison with the model; then judge them against the answers committed
# before the run (predict_blind.py --judge
# tests/gpu/results/h200/confirm/blind-predictions.json FILES), and only then
# against the model as it stands. Binaries: BIN (default build-gpu/dev, from
# tests/gpu/build.sh; carry it with the call).
set -u
O=${OUT:-/tmp/simt-out}
R=/tmp/simt-res
BIN=${BIN:-build-gpu/dev}
mkdir -p "$O" "$R"
t0=$(date +%s)
stamp() { echo "=== $1 at +$(($(date +%s) - t0)) s"; }
pack() { tar czf "$O/results.tgz" -C /tmp simt-res 2>/dev/null; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$card"
case "$card" in *H200*) ;; *) echo "not an H200: stop"; exit 3 ;; esac
# the small check sets first (seconds each): check6 (kernels the pipes pace)
# and check4 (scatters, sparse stores), both measured blind on the H100 so far
for set in check6 check4; do
    stamp "$set"
    OUT="$R" timeout 120 bash tests/gpu/heldout/run_check.sh "$set" 2>&1 | tail -n 2
done
pack
python3 tests/gpu/gpu_meta.py > "$R/meta-before.json"
stamp confirm2
timeout 150 "$BIN/simt-heldout" --sizes confirm2 --out "$R/kernels-confirm2-raw.json" > "$R/confirm2.log" 2>&1
tail -n 2 "$R/confirm2.log"
python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
python3 tests/gpu/heldout/confirm_kernels.py "$R/kernels-confirm2-raw.json" "$R/meta-before.json" "$R/meta-after.json" \
    "$BIN/ptxas-heldout.txt" "$R/kernels2.json" --set confirm2 2>&1 | tail -n 2
pack
# the first GEMM run, then calibrate, then the other two runs: should the
# device time run out, the most distinct measurements are in by then
gemm_run() {
    stamp "gemm seed 2030 run $1"
    timeout 180 python3 tests/gpu/heldout/gemm_heldout.py --seed 2030 --out "$R/gemm5-run$1.json" > "$R/gemm5-run$1.log" 2>&1
    tail -n 1 "$R/gemm5-run$1.log"
    pack
}
gemm_run 1
if ldd "$BIN/simt-calibrate" | grep -q "not found"; then
    lib=$(find / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
    [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
fi
stamp calibrate
timeout 150 "$BIN/simt-calibrate" --yaml "$R/calibrate-run10.yaml" --json "$R/calibrate-run10.json" > "$R/calibrate-run10.log" 2>&1
grep -E "L2|launch|wrote" "$R/calibrate-run10.log" | cut -c1-250
pack
gemm_run 2
gemm_run 3
runs=$(ls "$R"/gemm5-run[123].json 2>/dev/null)
python3 tests/gpu/heldout/merge_runs.py --split confirm5 --purpose "A fifth GEMM confirmation set for issue 11, drawn with seed 2030 on 2026-12-07 and measured on the H200 before any of its H200 rows was compared with the model (the same shapes were measured on an H100 SXM on 2026-12-07 and compared with the h100-sxm model); no row fitted." \
    --out "$R/gemm5.json" $runs 2>&1 | tail -n 2
pack
stamp end
