#!/bin/bash
# tests/gpu/heldout/run_heldout.sh - one nvidia-h200 call for issue 11 items
# 3 and 5 and issue 14 item 6, from the repository root: simt-calibrate (run
# 4), simt-micro twice (old timing, for the comparison with kernels.json's
# medians, and with a sleep kernel before each launch), simt-heldout (the
# held-out kernels), gemm_heldout.py (the held-out GEMMs), simt-calibrate
# (run 5), then split.py. Everything lands in $OUT/results.tgz and logs.tgz.
#
# SIZES=confirm or SIZES=confirm2 (default heldout) instead times that
# independent kernel set alone (simt-heldout --sizes $SIZES, nvidia-smi meta
# before and after) and finishes it with confirm_kernels.py --set $SIZES into
# $R/$SIZES/kernels.json (no calibrate, micro or GEMM runs); SIZES=probe times
# the fit probes alone into $R/kernels-probe-raw.json.
set -u
SIZES=${SIZES:-heldout}
case "$SIZES" in heldout | confirm | confirm2 | probe) ;; *) echo "SIZES=$SIZES: heldout, confirm, confirm2 or probe" >&2; exit 1 ;; esac
O=${OUT:-/tmp/simt-out}
R=/tmp/simt-res
L=/tmp/simt-res/logs
mkdir -p "$O" "$R" "$L"
export PYTHONUNBUFFERED=1
pack() { tar czf "$O/results.tgz" -C /tmp simt-res 2>/dev/null; }
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 500 > "$L/smi-samples.csv" 2>&1 &
sampler=$!
t0=$(date +%s)
stamp() { echo "=== $1 at +$(( $(date +%s) - t0 )) s"; }
stamp start
nvidia-smi > "$L/smi-start.txt" 2>&1
python3 tests/gpu/gpu_meta.py > "$R/meta-before.json"
python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))' 2>&1 | tee "$L/torch.txt"
BIN=${BIN:-build-gpu/dev}
if ! "$BIN/simt-micro" --check > "$L/check.log" 2>&1 || ! "$BIN/simt-heldout" --only none --out /tmp/x.json >> "$L/check.log" 2>&1; then
    cat "$L/check.log"
    stamp "carried binaries do not run: building here"
    tests/gpu/build.sh build-gpu/onhost > "$L/build.log" 2>&1 && BIN=build-gpu/onhost
fi
if ldd "$BIN/simt-calibrate" | grep -q "not found"; then
    lib=$(find / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
    [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
fi
cp -f "$BIN"/ptxas-*.txt "$R/" 2>/dev/null
pack

if [ "$SIZES" != heldout ]; then
    stamp "kernel set $SIZES"
    raw="$R/kernels-$SIZES-raw.json"
    timeout 150 "$BIN/simt-heldout" --sizes "$SIZES" --out "$raw" > "$L/$SIZES.log" 2>&1; tail -n 3 "$L/$SIZES.log"
    python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
    if [ "$SIZES" != probe ]; then
        python3 tests/gpu/heldout/confirm_kernels.py "$raw" "$R/meta-before.json" "$R/meta-after.json" \
            "$BIN/ptxas-heldout.txt" "$R/$SIZES/kernels.json" --set "$SIZES" 2>&1 | tail -n 3
    fi
    nvidia-smi > "$L/smi-end.txt" 2>&1
    kill "$sampler" 2>/dev/null
    stamp end
    pack
    ls -la "$O"
    exit 0
fi

stamp "calibrate run 4"
timeout 150 "$BIN/simt-calibrate" --yaml "$R/calibrate-run4.yaml" --json "$R/calibrate-run4.json" > "$L/calibrate-run4.log" 2>&1
grep -E "\[1/9\]|\[2/9\]|\[5/9\]|\[8/9\]|best|wrote" "$L/calibrate-run4.log" | cut -c1-220; pack

stamp "micro, old timing"
timeout 120 "$BIN/simt-micro" --out "$R/micro-verify-raw.json" > "$L/micro-verify.log" 2>&1; tail -n 2 "$L/micro-verify.log"
stamp "micro, sleep kernel first"
timeout 120 "$BIN/simt-micro" --sleep --out "$R/micro-sleep-raw.json" > "$L/micro-sleep.log" 2>&1; tail -n 2 "$L/micro-sleep.log"
python3 tests/gpu/gpu_meta.py > "$R/meta-after-micro.json"; pack

stamp "held-out kernels"
timeout 150 "$BIN/simt-heldout" --out "$R/kernels-raw.json" > "$L/heldout.log" 2>&1; tail -n 3 "$L/heldout.log"; pack

stamp "held-out GEMMs"
timeout 200 python3 tests/gpu/heldout/gemm_heldout.py --out "$R/gemm-raw.json" > "$L/gemm.log" 2>&1; tail -n 3 "$L/gemm.log"; pack

stamp "calibrate run 5"
timeout 150 "$BIN/simt-calibrate" --yaml "$R/calibrate-run5.yaml" --json "$R/calibrate-run5.json" > "$L/calibrate-run5.log" 2>&1
grep -E "\[8/9\]|wrote" "$L/calibrate-run5.log" | cut -c1-220
python3 tests/gpu/compare_calibrate.py "$R/calibrate-run4.json" "$R/calibrate-run5.json" > "$L/compare.txt" 2>&1; cat "$L/compare.txt"
python3 tests/gpu/gpu_meta.py > "$R/meta-after.json"
python3 tests/gpu/heldout/split.py "$R/gemm-raw.json" "$R/kernels-raw.json" "$R/meta-before.json" "$R/meta-after.json" \
    "$BIN/ptxas-heldout.txt" "$R/heldout" 2>&1 | tail -n 3
nvidia-smi > "$L/smi-end.txt" 2>&1
kill "$sampler" 2>/dev/null
stamp end
pack
ls -la "$O"
