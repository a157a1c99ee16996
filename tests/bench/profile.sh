#!/usr/bin/env bash
# profile.sh - where an uncached request's time goes: api_loop (the API
# in-process, no HTTP, no answer cache) over varied bodies under
# `perf record --call-graph dwarf`, then the top functions by inclusive
# ("children") and by self time.
#
#   tests/bench/profile.sh BUILD_DIR [PATH] [KIND] [ITERATIONS]
#     defaults: /v1/occupancy occupancy 150000
#
# Needs Debian's linux-perf. jansson ships without symbols, so its own
# functions show as addresses; the "dso" table gives its share.
set -euo pipefail
BUILD=${1:?usage: profile.sh BUILD_DIR [PATH] [KIND] [ITERATIONS]}
ROUTE=${2:-/v1/occupancy}
KIND=${3:-occupancy}
N=${4:-150000}
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/simtd-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 "$HERE/make_requests.py" "$KIND" 4096 >"$tmp/bodies.txt"
"$BUILD/tests/bench/api_loop" "$ROUTE" "$tmp/bodies.txt" "$N"
perf record -q --call-graph dwarf,16384 -F 997 -o "$tmp/perf.data" \
    "$BUILD/tests/bench/api_loop" "$ROUTE" "$tmp/bodies.txt" "$N" >/dev/null 2>&1
echo "--- by shared object (self) ---"
perf report -i "$tmp/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -6
echo "--- inclusive (children) and self, top named functions ---"
perf report -i "$tmp/perf.data" --children --sort symbol --stdio -g none 2>/dev/null |
    grep -E '^ +[0-9]' | grep -v -E '0x0000|_start|libc_start|main_impl| main +-' | head -${TOP:-30}
