#!/usr/bin/env bash
# bench.sh - simtd against nginx serving an answer as a static file, on
# loopback, in one run, with varied requests: every POST /v1/occupancy draws
# a random body (GPU, block size, registers, shared memory, carveout, grid)
# from 4096 made by make_requests.py, so that answers do not repeat.
#
#   tests/bench/bench.sh [SIMTD_BINARY]        (default: build/server/simtd)
#
# Builds nothing; run by hand, never by CI (results go to RESULTS.md).
# Needs wrk, nginx (Debian's nginx-light will do), curl, python3.
#
# 1. Throughput and latency: wrk with random_body.lua loads, in turn each
#    round, simtd with --cache-entries 0 (every answer computed), nginx (one
#    worker, access log off, the answer of the first body as a static file:
#    POST turned into the file with `error_page 405 =200 $uri`) and simtd
#    with its answer cache (default --cache-entries; a hit only when the
#    body repeats, 4096 bodies). Prints requests/s, p50 and p99 and the
#    ratios to nginx's run of the same round, then the medians of the rounds.
# 2. Server time, one request at a time on one keep-alive connection
#    (server_time.py, medians of COUNT requests): a 1024-point occupancy sweep
#    (points and columns), POST /v1/kernel and POST /v1/occupancy, varied
#    bodies, uncached.
# 3. Resident memory of the uncached simtd (VmRSS) after 1 million and after
#    RSS_REQUESTS varied requests, loaded by wrk in 20-second bursts.
#
# The record for issue 13 (its acceptance figures) should come from a quiet
# machine: nothing else running (check `uptime`), the default build
# (RelWithDebInfo, as every figure in RESULTS.md), and about 15 minutes
# (part 3's 10 million requests take most of it):
#
#   cmake -S . -B build && cmake --build build -j
#   tests/bench/bench.sh build/server/simtd | tee bench.txt
#
# then copy the three tables and the load averages it prints into
# tests/bench/RESULTS.md. tests/bench/rss.sh repeats part 3 alone, with the
# resident pages split by mapping and, on request, malloc's own counts.
#
# Environment (defaults in brackets):
#   DURATION [10s]  CONNECTIONS [64]  WRK_THREADS [1]  ROUNDS [3]
#   COUNT [300]            requests per server-time measurement
#   RSS_REQUESTS [10000000]  0 skips part 3
#   SIMTD_ARGS             extra simtd flags for both simtd, e.g. "--threads 2"
#   KEEP_TMP=1             keep the temporary directory (configs, logs)
set -euo pipefail

if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
fi
SIMTD=${1:-build/server/simtd}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
WRK_THREADS=${WRK_THREADS:-1}
ROUNDS=${ROUNDS:-3}
COUNT=${COUNT:-300}
RSS_REQUESTS=${RSS_REQUESTS:-10000000}
SIMTD_ARGS=${SIMTD_ARGS:-}
HERE=$(cd "$(dirname "$0")" && pwd)

for tool in wrk nginx curl python3; do
    command -v "$tool" >/dev/null || { echo "bench.sh: $tool is not installed" >&2; exit 1; }
done
[ -x "$SIMTD" ] || { echo "bench.sh: no simtd binary at $SIMTD (build first, or pass its path)" >&2; exit 1; }
NGINX=$(command -v nginx)

tmp=$(mktemp -d /tmp/simtd-bench.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

python3 "$HERE/make_requests.py" set "$tmp"

# ---- two simtd: without and with the answer cache ----
start_simtd() { # name, extra flags; sets port_<name> and pid_<name>
    local name=$1 port=""
    shift
    # shellcheck disable=SC2086
    "$SIMTD" --port 0 --access-log off --log-level warn "$@" $SIMTD_ARGS >"$tmp/$name.out" 2>"$tmp/$name.err" &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do
        port=$(sed -n 's|^simtd: listening on http://.*:\([0-9]*\)$|\1|p' "$tmp/$name.out")
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$tmp/$name.err" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$port" ] || { echo "bench.sh: simtd did not start" >&2; exit 1; }
    printf -v "port_$name" %s "$port"
    printf -v "pid_$name" %s "$pid"
}
start_simtd uncached --cache-entries 0
start_simtd cached

# ---- nginx: simtd's answer to the first body as a static file ----
mkdir -p "$tmp/www" "$tmp/nginx-temp"
first_body=$(head -1 "$tmp/occupancy.txt")
status=$(curl -s -o "$tmp/www/occupancy.json" -w '%{http_code}' -H 'Content-Type: application/json' \
         --data-binary "$first_body" "http://127.0.0.1:$port_uncached/v1/occupancy")
[ "$status" = 200 ] || { echo "bench.sh: simtd answered $status: $(cat "$tmp/www/occupancy.json")" >&2; exit 1; }
chmod -R a+rX "$tmp/www"
nginx_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
user_line=""
[ "$(id -u)" = 0 ] && user_line="user nobody nogroup;"
cat >"$tmp/nginx.conf" <<EOF
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx-temp/body;
    proxy_temp_path $tmp/nginx-temp/proxy;
    fastcgi_temp_path $tmp/nginx-temp/fastcgi;
    uwsgi_temp_path $tmp/nginx-temp/uwsgi;
    scgi_temp_path $tmp/nginx-temp/scgi;
    keepalive_requests 100000000;
    keepalive_timeout 75s;
    server {
        listen 127.0.0.1:$nginx_port;
        default_type application/json;
        # static files refuse POST with 405; serve the file instead
        error_page 405 =200 \$uri;
        location = /v1/occupancy { alias $tmp/www/occupancy.json; }
    }
}
EOF
"$NGINX" -e "$tmp/nginx-error.log" -c "$tmp/nginx.conf" -p "$tmp" >"$tmp/nginx.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/probe" && break
    sleep 0.1
done
a=$(curl -s -H 'Content-Type: application/json' --data-binary "$first_body" "http://127.0.0.1:$nginx_port/v1/occupancy")
[ "$a" = "$(cat "$tmp/www/occupancy.json")" ] || { echo "bench.sh: nginx does not serve the answer" >&2; exit 1; }

# ---- 1. throughput and latency ----
# prints "rps p50_ms p99_ms errors"
run_wrk() {
    local port=$1 out
    out=$(BODIES="$tmp/occupancy.txt" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency \
          -s "$HERE/random_body.lua" "http://127.0.0.1:$port/v1/occupancy")
    echo "$out" >>"$tmp/wrk.log"
    echo "$out" | awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v
        }
        /^ +50%/ { p50 = ms($2) }
        /^ +99%/ { p99 = ms($2) }
        /^Requests\/sec:/ { rps = $2 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        /Socket errors:/ { errors += 1 }
        END { printf "%.0f %.3f %.3f %d\n", rps, p50, p99, errors }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
served() {
    curl -s "http://127.0.0.1:$1/metrics" | awk '/^simtd_requests_total/ { n += $NF } END { printf "%d", n }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# "seconds count" of a route's request-duration histogram (headers in to
# answer queued, as the server measures it)
duration_sum_count() {
    curl -s "http://127.0.0.1:$1/metrics" | awk -v r="route=\"$2\"" '
        index($0, "simtd_request_duration_seconds_sum{" r "}") == 1 { s = $NF }
        index($0, "simtd_request_duration_seconds_count{" r "}") == 1 { c = $NF }
        END { printf "%s %s\n", (s == "" ? 0 : s), (c == "" ? 0 : c) }'
}

echo "simtd: $SIMTD $SIMTD_ARGS; nginx $("$NGINX" -v 2>&1 | sed 's/.*: //'), one worker"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION --latency, random_body.lua over 4096 varied bodies, $ROUNDS rounds"
echo
printf '%-16s %5s %11s %8s %8s %9s %9s\n' server round 'requests/s' 'p50 ms' 'p99 ms' 'rps/nginx' 'p99/nginx'
declare -A RPS P50 P99 RR PR
for round in $(seq "$ROUNDS"); do
    read -r u_rps u_p50 u_p99 u_err < <(run_wrk "$port_uncached")
    read -r n_rps n_p50 n_p99 n_err < <(run_wrk "$nginx_port")
    read -r c_rps c_p50 c_p99 c_err < <(run_wrk "$port_cached")
    for s in uncached nginx cached; do
        case $s in
        uncached) r=$u_rps p5=$u_p50 p9=$u_p99 e=$u_err label="simtd uncached" ;;
        nginx) r=$n_rps p5=$n_p50 p9=$n_p99 e=$n_err label="nginx static" ;;
        cached) r=$c_rps p5=$c_p50 p9=$c_p99 e=$c_err label="simtd cached" ;;
        esac
        rr=$(ratio "$r" "$n_rps")
        pr=$(ratio "$p9" "$n_p99")
        printf '%-16s %5s %11s %8s %8s %9s %9s\n' "$label" "$round" "$r" "$p5" "$p9" "$rr" "$pr"
        RPS[$s]+=" $r" P50[$s]+=" $p5" P99[$s]+=" $p9" RR[$s]+=" $rr" PR[$s]+=" $pr"
        [ "$e" = 0 ] || echo "  warning: $e errors or non-2xx answers from $label (KEEP_TMP=1: wrk.log)" >&2
    done
done
for s in uncached nginx cached; do
    case $s in uncached) label="simtd uncached" ;; nginx) label="nginx static" ;; cached) label="simtd cached" ;; esac
    printf '%-16s %5s %11s %8s %8s %9s %9s\n' "$label" median "$(median <<<"${RPS[$s]}")" \
        "$(median <<<"${P50[$s]}")" "$(median <<<"${P99[$s]}")" "$(median <<<"${RR[$s]}")" \
        "$(median <<<"${PR[$s]}")"
done
echo "load average after part 1: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 2. server time ----
echo
echo "server time, one request at a time on a keep-alive connection, $COUNT varied requests each, uncached"
echo "(first/last: wall time to the answer's first/last byte at the client; server mean: /metrics' own"
echo "request duration, headers in to answer queued, for these requests):"
printf '%-22s %12s %10s %12s %10s %14s %9s\n' request 'first ms p50' 'first p90' 'last ms p50' 'last p90' \
    'server mean ms' 'bytes'
for row in "sweep 1024 points|/v1/occupancy/sweep|sweep.txt" "sweep 1024 columns|/v1/occupancy/sweep|sweep-columns.txt" \
           "kernel|/v1/kernel|kernel.txt" "occupancy|/v1/occupancy|occupancy.txt"; do
    IFS='|' read -r label path file <<<"$row"
    read -r sum0 count0 < <(duration_sum_count "$port_uncached" "$path")
    read -r f50 f90 l50 l90 bytes statuses < <(python3 "$HERE/server_time.py" "127.0.0.1:$port_uncached" "$path" \
                                                 "$tmp/$file" "$COUNT")
    read -r sum1 count1 < <(duration_sum_count "$port_uncached" "$path")
    mean=$(awk -v a="$sum0" -v b="$sum1" -v m="$count0" -v n="$count1" \
           'BEGIN { printf "%.3f", (n > m ? (b - a) * 1000 / (n - m) : 0) }')
    printf '%-22s %12s %10s %12s %10s %14s %9s  (%s)\n' "$label" "$f50" "$f90" "$l50" "$l90" "$mean" "$bytes" \
        "$statuses"
done

# ---- 3. resident memory ----
if [ "$RSS_REQUESTS" -gt 0 ]; then
    echo
    echo "resident memory of the uncached simtd under varied requests (wrk in 20 s bursts):"
    echo "  $(served "$port_uncached") requests: $(rss_kb "$pid_uncached") kB"
    marked_1m=0
    while :; do
        n=$(served "$port_uncached")
        if [ "$marked_1m" = 0 ] && [ "$n" -ge 1000000 ]; then
            rss_1m=$(rss_kb "$pid_uncached") n_1m=$n marked_1m=1
        fi
        [ "$n" -ge "$RSS_REQUESTS" ] && break
        BODIES="$tmp/occupancy.txt" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d20s -s "$HERE/random_body.lua" \
            "http://127.0.0.1:$port_uncached/v1/occupancy" >/dev/null
        echo "  $(served "$port_uncached") requests: $(rss_kb "$pid_uncached") kB"
    done
    rss_end=$(rss_kb "$pid_uncached")
    echo "VmRSS $rss_1m kB after $n_1m requests, $rss_end kB after $n: $(awk -v a="$rss_1m" -v b="$rss_end" \
         'BEGIN { printf "%+.1f%%", (b - a) * 100 / a }')"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
