#!/bin/bash
# tests/gpu/heldout/run_blind_gemm6.sh - one device call, from the repository
# root: the sixth GEMM confirmation set (gemm_heldout.py --seed 2031: no
# shape of any earlier set or of either card's fit probes), three runs merged
# by merge_runs.py (median of medians) into $OUT/gemm6.json, split
# "confirm6" on an H200 and "h100-confirm6" on an H100; the model's answers
# for both cards were committed before it ran
# (tests/gpu/results/{h200,h100}/confirm/blind-predictions-gemm6.json: judge
# with predict_blind.py --judge PREDICTIONS gemm6.json). On an H200 it then
# runs the check3 and check5 kernel sets (run_check.sh; their H200 answers
# in tests/gpu/results/h200/confirm/blind-predictions2.json). First, on
# either card, the wide set (run_check.sh wide: the 8- and 16-byte reads of
# the earlier lists, each element loaded whole, -> $OUT/kernels-wide.json;
# answers in tests/gpu/results/<card>/confirm/blind-predictions-wide.json).
# Then the fit probe probe/ksparse_probe.cu (sparse reads after a dirty
# and after a clean L2, -> $OUT/ksparse_probe.json). Binaries: BIN
# (default build-gpu/dev, from tests/gpu/build.sh; carry it with the call).
set -u
O=${OUT:-/tmp/simt-out}
R=/tmp/simt-gemm6
mkdir -p "$O" "$R"
t0=$(date +%s)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$card"
case "$card" in *H200*) split=confirm6 ;; *H100*) split=h100-confirm6 ;; *) echo "not a GH100 card: stop"; exit 3 ;; esac
echo "=== wide at +$(($(date +%s) - t0)) s"
OUT="$O" timeout 150 bash tests/gpu/heldout/run_check.sh wide 2>&1 | tail -n 2
echo "=== ksparse_probe at +$(($(date +%s) - t0)) s"
timeout 60 "${BIN:-build-gpu/dev}/ksparse_probe" "$O/ksparse_probe.json" > "$R/ksparse.log" 2>&1
tail -n 3 "$R/ksparse.log"
for i in 1 2 3; do
    echo "=== gemm seed 2031 run $i at +$(($(date +%s) - t0)) s"
    timeout 180 python3 tests/gpu/heldout/gemm_heldout.py --seed 2031 --out "$R/gemm6-run$i.json" > "$R/gemm6-run$i.log" 2>&1
    tail -n 1 "$R/gemm6-run$i.log"
done
python3 tests/gpu/heldout/merge_runs.py --split "$split" --purpose "A sixth GEMM confirmation set for issue 11, drawn with seed 2031 on 2026-12-07 after the rules from the H100's windows3 probe, the model's answers for both GH100 cards committed before any card ran it (tests/gpu/results/{h200,h100}/confirm/blind-predictions-gemm6.json); no row fitted." \
    --out "$O/gemm6.json" $(ls "$R"/gemm6-run[123].json 2>/dev/null) 2>&1 | tail -n 2
case "$card" in
*H200*)
    for set in check3 check5; do
        echo "=== $set at +$(($(date +%s) - t0)) s"
        OUT="$O" timeout 150 bash tests/gpu/heldout/run_check.sh "$set" 2>&1 | tail -n 2
    done
    ;;
esac
echo "=== end at +$(($(date +%s) - t0)) s"
