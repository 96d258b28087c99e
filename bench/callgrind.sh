#!/usr/bin/env bash
# Instructions and allocations per request, deterministic (see docs/benchmarks.md).
#
# Each binary runs under valgrind twice, once answering N1 and once N2 `POST /orders`;
# (cost(N2) - cost(N1)) / (N2 - N1) is the cost of one request, start-up and shutdown cancelling
# out. callgrind counts instructions; dhat counts allocations. MODE picks what answers:
#   servers (default)  X-server, the full server, fed by `loadgen` over one keep-alive
#                      loopback connection;
#   inproc             X-inproc, the same app called in process with no socket (the framework's
#                      own cost, without the connection, HTTP parsing and I/O);
#   both               the two, one after the other, in one table.
# SERVERS overrides the list of binaries (names ending in -server or -inproc).
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-2000}
N2=${N2:-12000}
PORT=${PORT:-3998}
MODE=${MODE:-servers}
case $MODE in
    servers) default="green-tea-server axum-server actix-server hyper-server" ;;
    inproc) default="green-tea-inproc axum-inproc actix-inproc hyper-inproc" ;;
    both) default="green-tea-server axum-server actix-server hyper-server green-tea-inproc axum-inproc actix-inproc hyper-inproc" ;;
    *) echo "MODE must be servers, inproc or both, not '$MODE'" >&2; exit 2 ;;
esac
servers=(${SERVERS:-$default})
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
source ./build.sh
build_servers "${servers[@]}"
out=results/callgrind-$(date -u +%Y%m%dT%H%M%SZ).tsv
mkdir -p results/profiles
printf 'server\ttool\tn\ttotal\n' > "$out"

run_server() { # server n log valgrind-flags...: the server under valgrind, loadgen sending n requests
    local server=$1 n=$2 log=$3; shift 3
    PORT=$PORT WORKERS=1 valgrind "$@" "target/release/$server" 2>"$log" &
    local pid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
    target/release/loadgen "http://127.0.0.1:$PORT" "$n"
    kill -INT "$pid"
    # Every server exits on SIGINT; one that does not within a minute has no profile to give.
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; echo "$server did not exit on SIGINT" >&2; exit 1; fi
    wait "$pid" 2>/dev/null || true
}

run_inproc() { # driver n log valgrind-flags...: the driver answering n requests itself, under valgrind
    local driver=$1 n=$2 log=$3; shift 3
    # valgrind exits with the driver's status: non-zero (and so this script stops) on a non-200.
    valgrind "$@" "target/release/$driver" "$n" 2>"$log" || { echo "$driver $n failed; see $log" >&2; exit 1; }
}

measure() { # server tool n
    local server=$1 tool=$2 n=$3 file="results/profiles/$1.$2.$3"
    local flags=(--tool="$tool")
    if [ "$tool" = callgrind ]; then flags+=(--callgrind-out-file="$file"); else flags+=(--dhat-out-file="$file"); fi
    case $server in
        *-inproc) run_inproc "$server" "$n" "$file.log" "${flags[@]}" ;;
        *) run_server "$server" "$n" "$file.log" "${flags[@]}" ;;
    esac
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
