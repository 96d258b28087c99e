#!/usr/bin/env bash
# Throughput and latency, four servers side by side, in one run (see docs/benchmarks.md).
#
# Each server is pinned to core 0 with one worker; wrk (-t1 -c64) is pinned to core 1. After a
# 1 s warm-up, ROUNDS rounds of DURATION seconds each, rotating the order every round, so each
# round gives a paired ratio green-tea/X measured under the same machine conditions. green-tea
# is the macro form (green-tea-server); the hand-wired form (green-tea-wired-server) runs beside
# it. PROFILE picks the build: release (what `cargo build --release` gives), tuned (thin LTO,
# one codegen unit) or both (default: all the rounds in release, then all in tuned; never a
# ratio across profiles). SERVERS overrides the list; its first server is the one the ratios
# are of (X / each other). A server whose name holds `sqlite` gets a fresh database file in a
# temporary directory of its own for each round (`DATABASE_URL`), removed afterwards, with
# `DATABASE_SYNCHRONOUS=normal` (what the recipe reads; the axum servers set it in code), and is
# warmed up by 2,000 requests from loadgen rather than wrk's second.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-8}
DURATION=${DURATION:-5}
PORT=${PORT:-3999}
if ! command -v wrk >/dev/null; then
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
read -ra servers <<<"${SERVERS:-green-tea-server green-tea-wired-server axum-server actix-server hyper-server}"
export PROFILE=${PROFILE:-both}
source ./build.sh
profile_names=$(profiles)
mapfile -t profiles <<<"$profile_names"
# The SQLite servers' warm-up is loadgen's.
needs_loadgen=
for server in "${servers[@]}"; do [[ $server != *sqlite* ]] || needs_loadgen=loadgen; done
for profile in "${profiles[@]}"; do build_servers "$profile" "${servers[@]}" ${needs_loadgen:+"$needs_loadgen"}; done
out=results/http-$(date -u +%Y%m%dT%H%M%SZ).tsv
mkdir -p results
printf 'profile\tround\tserver\treq_per_s\tp50_ms\tp99_ms\n' > "$out"
cat > /tmp/green-tea-post.lua <<'LUA'
wrk.method = "POST"
wrk.body = '{"userId":"u1","amount":5}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Request-Id"] = "bench"
LUA

to_ms() { # wrk prints 1.23ms, 812.00us or 1.01s
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

run_one() {
    local profile=$1 round=$2 server=$3
    local database=
    if [[ $server == *sqlite* ]]; then
        database=$(mktemp -d)
        DATABASE_URL=sqlite://$database/bench.db DATABASE_SYNCHRONOUS=normal PORT=$PORT WORKERS=1 taskset -c 0 "target/$profile/$server" >/dev/null 2>&1 &
    else
        PORT=$PORT WORKERS=1 taskset -c 0 "target/$profile/$server" >/dev/null 2>&1 &
    fi
    local pid=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.05; done
    if [ -n "$database" ]; then
        # The SQLite servers are warmed up by requests that are each answered before the next
        # (loadgen), not by wrk, which ends by closing connections with requests in flight: a
        # request dropped while sqlx's `begin_with` ("BEGIN IMMEDIATE", the recipe's) waits can
        # leave its connection in the pool inside a transaction (docs/benchmarks.md, "A write on
        # SQLite"), and the round would measure the failures that follow.
        taskset -c 1 "target/$profile/loadgen" "http://127.0.0.1:$PORT" 2000
    else
        taskset -c 1 wrk -t1 -c64 -d1s -s /tmp/green-tea-post.lua "http://127.0.0.1:$PORT/orders" >/dev/null
    fi
    local report
    report=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency -s /tmp/green-tea-post.lua "http://127.0.0.1:$PORT/orders")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    [ -z "$database" ] || rm -rf "$database"
    local rps p50 p99
    rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$report")
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$report")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$report")")
    if grep -q 'Non-2xx' <<<"$report"; then echo "$server answered non-2xx: $report" >&2; exit 1; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$profile" "$round" "$server" "$rps" "$p50" "$p99" | tee -a "$out"
}

for profile in "${profiles[@]}"; do
    for round in $(seq "$ROUNDS"); do
        shift_by=$(( (round - 1) % ${#servers[@]} ))
        order=("${servers[@]:$shift_by}" "${servers[@]:0:$shift_by}")
        for server in "${order[@]}"; do run_one "$profile" "$round" "$server"; done
    done
done
python3 analyze.py http "$out" "${servers[0]}"
