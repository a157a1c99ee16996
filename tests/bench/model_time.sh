#!/usr/bin/env bash
# model_time.sh - in-process CPU time per POST /v1/kernel and
# /v1/latency-hiding call (api_loop: the API and the model, no HTTP, no
# answer cache) over the README's examples, the API case folders' requests
# of those routes (200s only) and varied bodies (make_requests.py kernel,
# diff_answers.py latency), for one or two builds' api_loop, alternated
# round by round; prints the median of the rounds' CPU ns per call.
#
#   tests/bench/model_time.sh API_LOOP [OLD_API_LOOP] [ROUNDS]
set -euo pipefail
NEW=${1:?usage: model_time.sh API_LOOP [OLD_API_LOOP] [ROUNDS]}
OLD=${2:-}
ROUNDS=${3:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
tmp=$(mktemp -d /tmp/simtd-model-time.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
compact() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.read()), separators=(",", ":")))'; }
for route in kernel latency-hiding; do
    grep -o "curl -s --json '[^']*' localhost:8080/v1/$route " "$ROOT/README.md" |
        sed -e "s/^curl -s --json '//" -e "s/' localhost.*//" | while read -r body; do echo "$body" | compact; done \
        >"$tmp/readme_$route.txt"
    : >"$tmp/cases_$route.txt"
    for d in "$ROOT"/tests/api/cases/*/; do
        if [ "$(cat "$d/route")" = "POST /v1/$route" ] && [ "$(cat "$d/status")" = 200 ]; then
            compact <"$d/request.json" >>"$tmp/cases_$route.txt"
        fi
    done
done
python3 "$HERE/make_requests.py" kernel 4096 >"$tmp/varied_kernel.txt"
python3 "$HERE/diff_answers.py" --bodies latency 2000 7 >"$tmp/varied_latency-hiding.txt"
cpu_ns() { "$1" "/v1/$2" "$3" "$4" | sed -E 's/.*\(([0-9]+) ns of CPU\).*/\1/'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for set in readme_kernel cases_kernel varied_kernel readme_latency-hiding cases_latency-hiding varied_latency-hiding; do
    route=${set#*_}
    file="$tmp/$set.txt"
    lines=$(grep -c . "$file")
    case $set in varied_*) calls=400 ;; *) calls=$((lines * 40)) ;; esac
    : >"$tmp/new.ns"
    : >"$tmp/old.ns"
    for _ in $(seq "$ROUNDS"); do
        [ -n "$OLD" ] && cpu_ns "$OLD" "$route" "$file" "$calls" >>"$tmp/old.ns"
        cpu_ns "$NEW" "$route" "$file" "$calls" >>"$tmp/new.ns"
    done
    if [ -n "$OLD" ]; then
        printf '%-24s %3d bodies  old %9d ns  new %9d ns\n' "$set" "$lines" "$(median <"$tmp/old.ns")" "$(median <"$tmp/new.ns")"
    else
        printf '%-24s %3d bodies  %9d ns\n' "$set" "$lines" "$(median <"$tmp/new.ns")"
    fi
done
