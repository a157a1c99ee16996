#!/usr/bin/env bash
# bench.sh - simtd's throughput against nginx serving the same answer as a
# static file, both loaded by wrk on loopback in one run, one after the other.
#
#   tests/bench/bench.sh [SIMTD_BINARY]        (default: build/server/simtd)
#
# Builds nothing. Starts simtd (--port 0, access log off) and Debian's nginx
# (unprivileged temporary config, daemon off, one worker, access log off,
# keep-alive unlimited), writes simtd's own answer for each request into
# nginx's document root (POST is turned into the static file with
# `error_page 405 =200 $uri`), checks both give the same bytes, then runs wrk
# with a Lua script that POSTs the JSON body. Prints requests/s, p50 and p99
# for both and the ratio simtd/nginx; with ROUNDS > 1 the two servers are
# loaded in turn each round and the medians (ratio: median of the per-round
# ratios) close each request's block.
#
# Environment (defaults in brackets):
#   DURATION [10s]  CONNECTIONS [64]  WRK_THREADS [2]  ROUNDS [1]
#   SIMTD_ARGS      extra simtd flags, e.g. "--threads 2"
#   CASES           "occupancy" [default] or "all" (every endpoint of issue 2)
#   KEEP_TMP=1      keep the temporary directory (configs, logs)
set -euo pipefail

SIMTD=${1:-build/server/simtd}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
WRK_THREADS=${WRK_THREADS:-2}
ROUNDS=${ROUNDS:-1}
SIMTD_ARGS=${SIMTD_ARGS:-}
CASES=${CASES:-occupancy}

for tool in wrk nginx curl python3; do
    command -v "$tool" >/dev/null || { echo "bench.sh: $tool is not installed" >&2; exit 1; }
done
[ -x "$SIMTD" ] || { echo "bench.sh: no simtd binary at $SIMTD (build first, or pass its path)" >&2; exit 1; }
NGINX=$(command -v nginx)

tmp=$(mktemp -d /tmp/simtd-bench.XXXXXX)
chmod 755 "$tmp"
simtd_pid=""
nginx_pid=""
cleanup() {
    [ -n "$simtd_pid" ] && kill "$simtd_pid" 2>/dev/null && wait "$simtd_pid" 2>/dev/null || true
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null || true
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# ---- the requests: name, method, path, body ----
declare -a NAMES METHODS PATHS BODIES
add_case() { NAMES+=("$1"); METHODS+=("$2"); PATHS+=("$3"); BODIES+=("$4"); }
add_case occupancy POST /v1/occupancy '{"gpu":"h200-sxm","block_size":256,"registers_per_thread":64}'
if [ "$CASES" = all ]; then
    add_case healthz GET /healthz ''
    add_case gpu GET /v1/gpus/h200-sxm ''
    add_case sweep POST /v1/occupancy/sweep \
        '{"gpu":"h200-sxm","registers_per_thread":64,"vary":"block_size","from":32,"to":1024,"step":32}'
    add_case suggest POST /v1/launch/suggest '{"gpu":"h200-sxm","registers_per_thread":64}'
fi

# ---- simtd ----
# shellcheck disable=SC2086
"$SIMTD" --port 0 --access-log off --log-level warn $SIMTD_ARGS >"$tmp/simtd.out" 2>"$tmp/simtd.err" &
simtd_pid=$!
simtd_port=""
for _ in $(seq 100); do
    simtd_port=$(sed -n 's|^simtd: listening on http://.*:\([0-9]*\)$|\1|p' "$tmp/simtd.out")
    [ -n "$simtd_port" ] && break
    kill -0 "$simtd_pid" 2>/dev/null || { cat "$tmp/simtd.err" >&2; exit 1; }
    sleep 0.1
done
[ -n "$simtd_port" ] || { echo "bench.sh: simtd did not start" >&2; cat "$tmp/simtd.err" >&2; exit 1; }

# ---- nginx's document root: simtd's own answers ----
mkdir -p "$tmp/www" "$tmp/nginx-temp" "$tmp/lua"
for i in "${!NAMES[@]}"; do
    file="$tmp/www/${NAMES[$i]}.json"
    if [ "${METHODS[$i]}" = POST ]; then
        status=$(curl -s -o "$file" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
                 --data-binary "${BODIES[$i]}" "http://127.0.0.1:$simtd_port${PATHS[$i]}")
    else
        status=$(curl -s -o "$file" -w '%{http_code}' "http://127.0.0.1:$simtd_port${PATHS[$i]}")
    fi
    [ "$status" = 200 ] || { echo "bench.sh: simtd answered $status to ${PATHS[$i]}: $(cat "$file")" >&2; exit 1; }
    # wrk's Lua script for this request
    {
        echo "wrk.method = \"${METHODS[$i]}\""
        if [ -n "${BODIES[$i]}" ]; then
            echo "wrk.body = [==[${BODIES[$i]}]==]"
            echo 'wrk.headers["Content-Type"] = "application/json"'
        fi
    } >"$tmp/lua/${NAMES[$i]}.lua"
done
chmod -R a+rX "$tmp/www"

locations=""
for i in "${!NAMES[@]}"; do
    locations+="        location = ${PATHS[$i]} { alias $tmp/www/${NAMES[$i]}.json; }"$'\n'
done
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
$locations    }
}
EOF
"$NGINX" -e "$tmp/nginx-error.log" -c "$tmp/nginx.conf" -p "$tmp" >"$tmp/nginx.out" 2>&1 &
nginx_pid=$!
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/healthz-probe" && break
    kill -0 "$nginx_pid" 2>/dev/null || { cat "$tmp/nginx.out" "$tmp/nginx-error.log" >&2; exit 1; }
    sleep 0.1
done

# both servers give the same bytes for every request
for i in "${!NAMES[@]}"; do
    args=(-s)
    [ "${METHODS[$i]}" = POST ] && args+=(-X POST -H 'Content-Type: application/json' --data-binary "${BODIES[$i]}")
    a=$(curl "${args[@]}" "http://127.0.0.1:$simtd_port${PATHS[$i]}")
    b=$(curl "${args[@]}" "http://127.0.0.1:$nginx_port${PATHS[$i]}")
    [ "$a" = "$b" ] || { echo "bench.sh: nginx and simtd differ on ${PATHS[$i]}" >&2; exit 1; }
done

# ---- load ----
# prints "rps p50_ms p99_ms errors"
run_wrk() {
    local url=$1 lua=$2 out
    out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$lua" "$url")
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

echo "simtd: $SIMTD $SIMTD_ARGS (port $simtd_port); nginx: $("$NGINX" -v 2>&1 | sed 's/.*: //') one worker (port $nginx_port)"
echo "wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS round(s), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$simtd_pid/status"; }
rss_before=$(rss_kb)
printf '%-10s %-6s %5s %12s %9s %9s %8s\n' request server round 'requests/s' 'p50 ms' 'p99 ms' ratio
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for i in "${!NAMES[@]}"; do
    S_RPS="" S_P50="" S_P99="" N_RPS="" N_P50="" N_P99="" RATIOS=""
    for round in $(seq "$ROUNDS"); do
        read -r s_rps s_p50 s_p99 s_err < <(run_wrk "http://127.0.0.1:$simtd_port${PATHS[$i]}" "$tmp/lua/${NAMES[$i]}.lua")
        read -r n_rps n_p50 n_p99 n_err < <(run_wrk "http://127.0.0.1:$nginx_port${PATHS[$i]}" "$tmp/lua/${NAMES[$i]}.lua")
        ratio=$(awk -v a="$s_rps" -v b="$n_rps" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
        printf '%-10s %-6s %5s %12s %9s %9s %8s\n' "${NAMES[$i]}" simtd "$round" "$s_rps" "$s_p50" "$s_p99" "$ratio"
        printf '%-10s %-6s %5s %12s %9s %9s %8s\n' "${NAMES[$i]}" nginx "$round" "$n_rps" "$n_p50" "$n_p99" ""
        if [ "$s_err" != 0 ] || [ "$n_err" != 0 ]; then
            echo "  warning: errors during the run (simtd $s_err, nginx $n_err); see wrk output (KEEP_TMP=1)" >&2
        fi
        S_RPS+=" $s_rps" S_P50+=" $s_p50" S_P99+=" $s_p99" N_RPS+=" $n_rps" N_P50+=" $n_p50" N_P99+=" $n_p99"
        RATIOS+=" $ratio"
    done
    if [ "$ROUNDS" -gt 1 ]; then
        printf '%-10s %-6s %5s %12s %9s %9s %8s\n' "${NAMES[$i]}" simtd median "$(median <<<"$S_RPS")" \
            "$(median <<<"$S_P50")" "$(median <<<"$S_P99")" "$(median <<<"$RATIOS")"
        printf '%-10s %-6s %5s %12s %9s %9s %8s\n' "${NAMES[$i]}" nginx median "$(median <<<"$N_RPS")" \
            "$(median <<<"$N_P50")" "$(median <<<"$N_P99")" ""
    fi
done
served=$(curl -s "http://127.0.0.1:$simtd_port/metrics" | awk '/^simtd_requests_total/ { n += $NF } END { printf "%d", n }')
echo "simtd resident memory: $rss_before kB before the load, $(rss_kb) kB after $served requests"
