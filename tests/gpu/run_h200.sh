#!/bin/bash
# tests/gpu/run_h200.sh - everything measured on one H200 in one go, from the
# repository root: the binaries' check (rebuilt with tests/gpu/build.sh when
# the carried ones do not run), simt-calibrate (run 1), simt-micro (issue 3),
# simt-calibrate (run 2), the GEMM sweep (issue 5). Results land in $OUT
# (default /tmp/simt-out): kernels.json, calibrate-run{1,2}.{yaml,json},
# gemm.json and logs.tgz (logs, nvidia-smi, ptxas and SASS listings).
set -u
O=${OUT:-/tmp/simt-out}
L=/tmp/simt-logs/h200
mkdir -p "$O" "$L"
export PYTHONUNBUFFERED=1
snap() { tar czf "$O/logs.tgz" -C /tmp simt-logs 2>/dev/null; }
# clocks, power and throttle reasons every 250 ms while this runs
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 250 > "$L/smi-samples.csv" 2>&1 &
sampler=$!
t0=$(date +%s)
stamp() { echo "=== $1 at +$(( $(date +%s) - t0 )) s"; }

stamp start
date -u > "$L/date.txt"
nvidia-smi > "$L/smi-start.txt" 2>&1
nvidia-smi -q > "$L/smi-q.txt" 2>&1
python3 tests/gpu/gpu_meta.py > "$L/meta-before.json"
python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))' > "$L/torch.txt" 2>&1
cat "$L/torch.txt"

BIN=${BIN:-build-gpu/dev}
if ! "$BIN/simt-micro" --check > "$L/check.log" 2>&1; then
    cat "$L/check.log"
    stamp "carried binaries do not run: building here"
    tests/gpu/build.sh build-gpu/onhost > "$L/build.log" 2>&1 && BIN=build-gpu/onhost
    cp -f build-gpu/onhost/ptxas-*.txt "$L/" 2>/dev/null
fi
if ldd "$BIN/simt-calibrate" | grep -q "not found"; then
    lib=$(find / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
    [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
    echo "cuBLASLt from $lib" | tee -a "$L/check.log"
fi
cp -f "$BIN"/ptxas-*.txt "$L/" 2>/dev/null
(cuobjdump -sass "$BIN/simt-micro" > "$L/simt-micro.sass" 2>&1; cuobjdump -sass "$BIN/simt-calibrate" > "$L/simt-calibrate.sass" 2>&1) &
snap

stamp "calibrate run 1"
timeout 100 "$BIN/simt-calibrate" --yaml "$O/calibrate-run1.yaml" --json "$O/calibrate-run1.json" 2>&1 | tee "$L/calibrate-run1.log"
snap

stamp "micro"
timeout 180 "$BIN/simt-micro" --out "$L/kernels-raw.json" > "$L/micro.log" 2>&1
tail -n 40 "$L/micro.log"
python3 tests/gpu/gpu_meta.py > "$L/meta-after-micro.json"
python3 tests/gpu/merge_meta.py "$L/kernels-raw.json" "$L/meta-before.json" "$L/meta-after-micro.json" \
    "$BIN/ptxas-micro.txt" "$O/kernels.json" 2>&1 | tee -a "$L/micro.log"
snap

stamp "calibrate run 2"
timeout 100 "$BIN/simt-calibrate" --yaml "$O/calibrate-run2.yaml" --json "$O/calibrate-run2.json" 2>&1 | tee "$L/calibrate-run2.log"
python3 tests/gpu/compare_calibrate.py "$O/calibrate-run1.json" "$O/calibrate-run2.json" 2>&1 | tee "$L/compare.txt"
snap

stamp "gemm"
timeout 190 python3 tests/gpu/gemm_bench.py --out "$O/gemm.json" --budget-s 150 > "$L/gemm.log" 2>&1
grep -E "checks|8192   8192   8192|16384  16384  16384|wrote|fast-accum" "$L/gemm.log"
nvidia-smi > "$L/smi-end.txt" 2>&1
kill "$sampler" 2>/dev/null
wait
stamp end
snap
ls -la "$O"
