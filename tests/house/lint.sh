#!/usr/bin/env bash
# lint.sh - cppcheck over the product code (model, hwdb, api, server, clients)
# as the build compiles it (BUILD_DIR/compile_commands.json). Any finding of
# the enabled classes (warning, portability, performance, and the style checks
# cppcheck turns on with them) fails. A finding judged wrong is silenced at its
# line with "// cppcheck-suppress <id>" and a reason, never globally.
# Usage: tests/house/lint.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: lint.sh BUILD_DIR}
[ -f "$build/compile_commands.json" ] || { echo "lint: $build/compile_commands.json missing (build first)" >&2; exit 2; }
filters=()
for d in model hwdb api server clients; do filters+=("--file-filter=$root/$d/*"); done
cppcheck --project="$build/compile_commands.json" "${filters[@]}" \
  --enable=warning,portability,performance --inline-suppr --suppress=missingIncludeSystem \
  --error-exitcode=1 --quiet -j "$(nproc)"
echo "lint: cppcheck found nothing"
