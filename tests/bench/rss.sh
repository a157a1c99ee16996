#!/usr/bin/env bash
# rss.sh - resident memory of simtd under varied POST /v1/occupancy requests
# (make_requests.py's 4096 bodies, random_body.lua), loaded by wrk in bursts
# on loopback: VmRSS after the first burst past 1 million requests and after
# REQUESTS, and their change (issue 13 asks for within 10%).
#
#   tests/bench/rss.sh [SIMTD_BINARY] [REQUESTS]   (build/server/simtd, 10000000)
#
# Each reading is taken between bursts (wrk gone, its connections closed),
# with the split of the resident pages by mapping: the main heap ([heap]),
# anonymous mappings (the threads' malloc arenas and stacks, large blocks),
# and the rest (the binary, libraries). MALLOC_STATS=1 also has gdb call
# glibc's malloc_stats() in the daemon at each reading (bytes in use and
# held per arena, written to simtd's stderr, kept in $TMP/simtd.err with
# KEEP_TMP=1): in use flat while held grows is fragmentation, not a leak.
#
# WARMUP=1 first asks what bench.sh's part 2 asks before its part 3 (300
# 1024-point sweeps in each format, 300 /v1/kernel), so that the heap has
# the same history as there.
#
# Environment: BURST [20s] CONNECTIONS [64] WRK_THREADS [1] WARMUP [0]
#   SIMTD_ARGS ["--cache-entries 0": every answer computed]  KEEP_TMP=1
# About 4 minutes of both CPUs per 10 million requests at 45k req/s.
set -euo pipefail
SIMTD=${1:-build/server/simtd}
REQUESTS=${2:-10000000}
BURST=${BURST:-20s}
CONNECTIONS=${CONNECTIONS:-64}
WRK_THREADS=${WRK_THREADS:-1}
SIMTD_ARGS=${SIMTD_ARGS:---cache-entries 0}
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in wrk curl python3; do
    command -v "$tool" >/dev/null || { echo "rss.sh: $tool is not installed" >&2; exit 1; }
done
[ -x "$SIMTD" ] || { echo "rss.sh: no simtd binary at $SIMTD" >&2; exit 1; }
tmp=$(mktemp -d /tmp/simtd-rss.XXXXXX)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
python3 "$HERE/make_requests.py" set "$tmp"
# shellcheck disable=SC2086
"$SIMTD" --port 0 --access-log off --log-level warn $SIMTD_ARGS >"$tmp/simtd.out" 2>"$tmp/simtd.err" &
pid=$!
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|^simtd: listening on http://.*:\([0-9]*\)$|\1|p' "$tmp/simtd.out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$tmp/simtd.err" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "rss.sh: simtd did not start" >&2; exit 1; }
served() {
    curl -s "http://127.0.0.1:$port/metrics" | awk '/^simtd_requests_total/ { n += $NF } END { printf "%d", n }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
# "heap anon other" resident kB from smaps
split_kb() {
    awk '/^[0-9a-f]+-[0-9a-f]+ / { kind = ($6 == "[heap]") ? "heap" : ($6 == "" ? "anon" : "other"); next }
         /^Rss:/ { kb[kind] += $2 }
         END { printf "heap %d anon %d other %d", kb["heap"], kb["anon"], kb["other"] }' "/proc/$pid/smaps"
}
reading() { # requests
    local line
    line=$(printf '%10d requests: VmRSS %6d kB (%s)' "$1" "$(rss_kb)" "$(split_kb)")
    echo "$line"
    if [ "${MALLOC_STATS:-0}" = 1 ]; then
        echo "=== $1 requests" >>"$tmp/simtd.err"
        gdb -p "$pid" -batch -ex 'call (void)malloc_stats()' >/dev/null 2>&1 || true
        # in use / held totals of the last malloc_stats() block
        tail -n 4 "$tmp/simtd.err" | awk '/system bytes/ { s = $NF } /in use bytes/ { u = $NF }
            END { if (s) printf "           malloc_stats: held %d B, in use %d B\n", s, u }'
    fi
}
echo "simtd: $SIMTD $SIMTD_ARGS; wrk -t$WRK_THREADS -c$CONNECTIONS, $BURST bursts; $(nproc) CPUs"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
reading "$(served)"
if [ "${WARMUP:-0}" = 1 ]; then
    for row in /v1/occupancy/sweep:sweep.txt /v1/occupancy/sweep:sweep-columns.txt /v1/kernel:kernel.txt; do
        python3 "$HERE/server_time.py" "127.0.0.1:$port" "${row%%:*}" "$tmp/${row#*:}" 300 >/dev/null
    done
    reading "$(served)"
fi
rss_1m="" n_1m=""
while :; do
    n=$(served)
    if [ -z "$rss_1m" ] && [ "$n" -ge 1000000 ]; then rss_1m=$(rss_kb) n_1m=$n; fi
    [ "$n" -ge "$REQUESTS" ] && break
    BODIES="$tmp/occupancy.txt" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$BURST" -s "$HERE/random_body.lua" \
        "http://127.0.0.1:$port/v1/occupancy" >/dev/null
    reading "$(served)"
done
rss_end=$(rss_kb)
if [ -n "$rss_1m" ]; then
    echo "VmRSS $rss_1m kB after $n_1m requests, $rss_end kB after $n: $(awk -v a="$rss_1m" -v b="$rss_end" \
        'BEGIN { printf "%+.1f%%", (b - a) * 100 / a }')"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
