#!/bin/sh
# run.sh SCRIPT [ARGS...] - runs one node test of this folder, installing its
# npm packages first (setup.sh). Exits 77 (ctest: skipped) when node is
# missing or the packages cannot be installed; otherwise the script's status.
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
    echo "SKIPPED: node is not installed (.ci/deps installs it)"
    exit 77
fi
sh "$here/setup.sh" || exit $?
script=$1
shift
exec node "$here/$script" "$@"
