#!/usr/bin/env bash
# Instructions and allocations per request, deterministic (see docs/benchmarks.md).
#
# Each server runs under valgrind twice, once serving N1 and once N2 requests from `loadgen`
# over one keep-alive connection; (cost(N2) - cost(N1)) / (N2 - N1) is the cost of one request,
# start-up and shutdown cancelling out. callgrind counts instructions; dhat counts allocations.
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-2000}
N2=${N2:-12000}
PORT=${PORT:-3998}
servers=(${SERVERS:-green-tea-server axum-server actix-server hyper-server})
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
cargo build --release -q --bins
out=results/callgrind-$(date -u +%Y%m%dT%H%M%SZ).tsv
mkdir -p results/profiles
printf 'server\ttool\tn\ttotal\n' > "$out"

measure() { # server tool n
    local server=$1 tool=$2 n=$3 file="results/profiles/$1.$2.$3"
    local flags=(--tool="$tool")
    if [ "$tool" = callgrind ]; then flags+=(--callgrind-out-file="$file"); else flags+=(--dhat-out-file="$file"); fi
    PORT=$PORT WORKERS=1 valgrind "${flags[@]}" "target/release/$server" 2>"$file.log" &
    local pid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
    target/release/loadgen "http://127.0.0.1:$PORT" "$n"
    kill -INT "$pid"
    # Every server exits on SIGINT; one that does not within a minute has no profile to give.
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; echo "$server did not exit on SIGINT" >&2; exit 1; fi
    wait "$pid" 2>/dev/null || true
    local total
    if [ "$tool" = callgrind ]; then
        total=$(awk '/^summary:/ { print $2 }' "$file")
    else
        total=$(grep -oE 'Total: +[0-9,]+ bytes in +[0-9,]+ blocks' "$file.log" | awk '{ gsub(",", "", $5); print $5 }')
    fi
    printf '%s\t%s\t%s\t%s\n' "$server" "$tool" "$n" "$total" | tee -a "$out"
}

for server in "${servers[@]}"; do
    for tool in callgrind dhat; do
        measure "$server" "$tool" "$N1"
        measure "$server" "$tool" "$N2"
    done
done
python3 analyze.py callgrind "$out"
