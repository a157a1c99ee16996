#!/usr/bin/env bash
# The one test command: installs what is missing, builds simtd with warnings
# as errors, and runs every test (unit, case folders, oracle where the CUDA
# header exists, end-to-end against the real daemon, accuracy against the
# committed H200 measurements, fuzz corpus replay), after checking that every
# C file is formatted by the checked-in .clang-format. Then, as CI does:
#   lint      cppcheck over the product code (tests/house/lint.sh)
#   valgrind  the end-to-end suite once more with every simtd under valgrind
#             (memcheck): no error and no definite leak
#   asan      the whole suite again, built with -fsanitize=address,undefined
#             (no recover) in BUILD_DIR-asan
#   fuzz      each libFuzzer target for SIMT_FUZZ_SECONDS (default 120, the
#             targets side by side when there are 2 cores or more) with clang
#             in BUILD_DIR-fuzz (tests/fuzz/run.sh); skipped without clang
# Every stage runs even when an earlier one failed; the summary at the end
# gives each stage's result and time, and the exit status is 1 if any failed.
# Usage: tests/run-all.sh [BUILD_DIR]
#   SIMT_STAGES="format test lint valgrind asan fuzz"  the stages to run (default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
stages=${SIMT_STAGES:-format test lint valgrind asan fuzz}
jobs=$(nproc)
bash "$root/.ci/deps"

summary=()
failed=0
run_stage() { # name command...
  local name=$1 start=$SECONDS rc=0
  shift
  case " $stages " in *" $name "*) ;; *) return 0 ;; esac
  echo "=== run-all: $name"
  "$@" || rc=$?
  summary+=("$(printf '%-9s %-6s %4d s' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" $((SECONDS - start)))")
  [ $rc -eq 0 ] || failed=1
}

stage_test() {
  cmake -S "$root" -B "$build" -DSIMT_WERROR=ON
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
}

# The e2e harness puts $SIMTD_WRAPPER in front of every simtd it starts.
# Each simtd writes its own valgrind log; with -q a log says something only
# for an error or a definite leak, so any non-empty log fails the stage (also
# for a daemon whose exit status a test does not check). One test at a time:
# test_limits bounds the latency of other clients (0.5 s), which two
# valgrind daemons side by side on 2 cores can exceed.
stage_valgrind() {
  local logs="$build/valgrind" rc=0
  rm -rf "$logs" && mkdir -p "$logs"
  SIMTD_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
--errors-for-leak-kinds=definite --log-file=$logs/simtd.%p.log" \
    ctest --test-dir "$build" -L e2e --output-on-failure -j 1 || rc=1
  local count bad
  count=$(find "$logs" -name 'simtd.*.log' | wc -l)
  bad=$(find "$logs" -name 'simtd.*.log' -size +0)
  echo "valgrind: $count simtd processes ran under memcheck"
  if [ "$count" -eq 0 ]; then
    echo "valgrind: no simtd ran under valgrind" >&2
    rc=1
  fi
  if [ -n "$bad" ]; then
    for f in $bad; do echo "--- $f"; cat "$f"; done
    rc=1
  fi
  return $rc
}

# Sanitizer reports abort the process (-fno-sanitize-recover=all), which fails
# its test; the full output is also searched for reports from daemons whose
# exit status a test did not check.
stage_asan() {
  local rc=0
  cmake -S "$root" -B "$build-asan" -DSIMT_WERROR=ON -DSIMT_SANITIZE=address,undefined
  cmake --build "$build-asan" -j "$jobs"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    ctest --test-dir "$build-asan" --output-on-failure -j "$jobs" --output-log "$build-asan/ctest.log" || rc=1
  if grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' "$build-asan/ctest.log"; then
    rc=1
  fi
  return $rc
}

stage_fuzz() {
  if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang is not installed; skipped"
    return 0
  fi
  local parallel=0
  [ "$jobs" -ge 2 ] && parallel=1
  SIMT_FUZZ_PARALLEL=$parallel CC=clang bash "$root/tests/fuzz/run.sh" "${SIMT_FUZZ_SECONDS:-120}" "$build-fuzz"
}

# cppcheck over the product code as the test stage built it.
stage_lint() {
  bash "$root/tests/house/lint.sh" "$build"
}

# The checked-in .clang-format, applied: any file it would change fails.
stage_format() {
  (cd "$root" && { git ls-files '*.c' '*.h' 2>/dev/null ||
    find model hwdb api server clients tests -name node_modules -prune -o -name '*.[ch]' -print; } |
    xargs clang-format --dry-run --Werror)
}

run_stage format stage_format
run_stage test stage_test
run_stage lint stage_lint
run_stage valgrind stage_valgrind
run_stage asan stage_asan
run_stage fuzz stage_fuzz

echo "=== run-all: summary (build $build)"
printf '%s\n' "${summary[@]}"
exit $failed
