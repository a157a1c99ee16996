#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined)
# and runs each for SECONDS (default 120) from the committed seed corpus.
# New inputs go to BUILD_DIR/corpus-<target> (kept between runs; the committed
# corpus is not touched); a crash, leak, sanitizer report or failed check is
# saved as BUILD_DIR/findings-<target>/crash-* and printed, and the script
# exits 1. Prints the executions of every target.
# Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
#   SIMT_FUZZ_PARALLEL=1  run the targets at the same time (one core each)
#   SIMT_FUZZ_TARGETS="api hwdb"  which targets
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-120}
build=${2:-$root/build-fuzz}
targets=${SIMT_FUZZ_TARGETS:-api hwdb}
cc=${CC:-clang}
if ! command -v "$cc" >/dev/null 2>&1 || ! "$cc" --version 2>/dev/null | grep -q clang; then
  echo "fuzz: needs clang (CC=$cc is not clang); skipped" >&2
  exit 2
fi

CC=$cc cmake -S "$root" -B "$build" -DSIMT_FUZZ=ON -DSIMT_SANITIZE=address,undefined -DSIMT_WERROR=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 bin="$build/tests/fuzz/fuzz_$1" start=$SECONDS rc=0
  mkdir -p "$build/corpus-$t" "$build/findings-$t"
  local seeds=("$root/tests/fuzz/corpus/$t")
  [ -d "$root/tests/fuzz/regress/$t" ] && seeds+=("$root/tests/fuzz/regress/$t")
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$root/tests/fuzz/$t.dict" -artifact_prefix="$build/findings-$t/" \
    "$build/corpus-$t" "${seeds[@]}" >"$build/fuzz-$t.log" 2>&1 || rc=$?
  echo $((SECONDS - start)) >"$build/fuzz-$t.seconds"
  return $rc
}

declare -A status
if [ "${SIMT_FUZZ_PARALLEL:-0}" = 1 ]; then
  declare -A pids
  for t in $targets; do run_one "$t" & pids[$t]=$!; done
  for t in $targets; do if wait "${pids[$t]}"; then status[$t]=0; else status[$t]=$?; fi; done
else
  for t in $targets; do if run_one "$t"; then status[$t]=0; else status[$t]=$?; fi; done
fi

failed=0
for t in $targets; do
  log="$build/fuzz-$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  corpus=$(find "$build/corpus-$t" -type f | wc -l)
  took=$(cat "$build/fuzz-$t.seconds" 2>/dev/null || echo "?")
  echo "fuzz_$t: ${execs:-?} executions in ${took} s (${rate:-?}/s), coverage ${cov:-?} edges, corpus $corpus new + $(find "$root/tests/fuzz/corpus/$t" -type f | wc -l) seeds, exit ${status[$t]}"
  if [ "${status[$t]}" -ne 0 ]; then
    failed=1
    echo "fuzz_$t: FINDING (log: $log)"
    grep -E 'ERROR: |runtime error|check failed|SUMMARY|^    #[0-9]+ ' "$log" | head -40 || true
    ls -1 "$build/findings-$t"/ 2>/dev/null | sed "s|^|  $build/findings-$t/|"
    echo "  reproduce: $build/tests/fuzz/fuzz_$t $build/findings-$t/<file>"
  fi
done
exit $failed
