#!/usr/bin/env bash
# Memory per idle keep-alive connection (see docs/benchmarks.md).
#
# Each server (one worker) is started alone; after one warm-up request its resident memory
# (VmRSS in /proc/PID/status) is read, then `idle-client`, in a process of its own, opens
# CONNECTIONS keep-alive connections, sends `GET /health` on each and reads the whole answer,
# and leaves them idle. The server's VmRSS is read again, and the client checks that the server
# closed none of them meanwhile (green-tea closes a connection idle for 10 s, actix-web one idle
# for 5 s: the run must be faster, and says so if it is not). KiB per connection is the growth
# divided by CONNECTIONS. ROUNDS runs per server (default 3); the table gives each run and the
# median. SERVERS overrides the list of binaries.
set -euo pipefail
cd "$(dirname "$0")"
CONNECTIONS=${CONNECTIONS:-10000}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-4100}
servers=(${SERVERS:-green-tea-server axum-server actix-server hyper-server hyper-http1-server})
# The server and the client each hold CONNECTIONS sockets.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -le $((CONNECTIONS + 100)) ]; then
    echo "the open-files limit ($(ulimit -n)) is too low for $CONNECTIONS connections" >&2; exit 2
fi
source ./build.sh
build_servers release "${servers[@]}"
cargo build --release -q --no-default-features --bin idle-client
out=results/idle-memory-$(date -u +%Y%m%dT%H%M%SZ).tsv
mkdir -p results
printf 'server\tround\tconnections\trss_before_kib\trss_after_kib\tkib_per_connection\n' > "$out"

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

run_one() { # server round port
    local server=$1 round=$2 port=$3
    PORT=$port WORKERS=1 "target/release/$server" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.05; done
    local before after ready open
    before=$(rss_kib "$pid")
    coproc CLIENT { exec target/release/idle-client "127.0.0.1:$port" "$CONNECTIONS"; }
    local client=$CLIENT_PID
    read -r ready <&"${CLIENT[0]}"
    after=$(rss_kib "$pid")
    echo check >&"${CLIENT[1]}"
    read -r open <&"${CLIENT[0]}"
    wait "$client"
    kill "$pid"; wait "$pid" 2>/dev/null || true
    if [ "$ready" != "ready $CONNECTIONS" ] || [ "$open" != "open $CONNECTIONS" ]; then
        echo "$server: $ready, $open of $CONNECTIONS: connections closed before the measurement" >&2
        exit 1
    fi
    local per
    per=$(awk -v b="$before" -v a="$after" -v n="$CONNECTIONS" 'BEGIN { printf "%.2f", (a - b) / n }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$round" "$CONNECTIONS" "$before" "$after" "$per" | tee -a "$out"
}

# A port per run: the closed connections' TIME_WAIT entries stay with the port they used.
for round in $(seq "$ROUNDS"); do
    for server in "${servers[@]}"; do
        run_one "$server" "$round" "$PORT"
        PORT=$((PORT + 1))
    done
done
python3 - "$out" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| server | KiB per idle connection (median) | runs |")
print("|---|---|---|")
for server in dict.fromkeys(r["server"] for r in rows):
    per = [float(r["kib_per_connection"]) for r in rows if r["server"] == server]
    print(f"| {server} | {statistics.median(per):.2f} | {', '.join(f'{p:.2f}' for p in per)} |")
PY
