#!/usr/bin/env bash
# Soak: the orders example under wrk for DURATION seconds (default 300) while the fake billing
# upstream flips between up and down every FLIP seconds (default 10), and nothing scrapes
# /metrics. Samples open file descriptors and resident memory every 10 s. Fails (exit 1, with a
# line saying why) when a status other than 201 and the breaker's 503 comes back, when the
# highest resident memory of the last minute is more than 10% above the highest of the minute
# after the warm-up (WARMUP seconds, default 30), or when the open file descriptors grow by more
# than FD_SLACK (default 8: billing's pooled connections come and go with the flips) between
# the same two minutes. The breaker's transitions show in the log. Results in
# bench/results/soak-*.txt (see docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-300}
FLIP=${FLIP:-10}
WARMUP=${WARMUP:-30}
FD_SLACK=${FD_SLACK:-8}
ORDERS_PORT=${ORDERS_PORT:-3100}
BILLING_PORT=${BILLING_PORT:-3101}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
cargo build --release -q --example orders --example billing_upstream
out=bench/results/soak-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p bench/results

PORT=$BILLING_PORT target/release/examples/billing_upstream --mode up >"$out.billing.log" 2>&1 &
billing=$!
BILLING_URL=http://127.0.0.1:$BILLING_PORT BILLING_BREAKER_RESET=2s BILLING_TIMEOUT=500ms PORT=$ORDERS_PORT \
    target/release/examples/orders >"$out.orders.log" 2>&1 &
orders=$!
trap 'kill $billing $orders 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$ORDERS_PORT/orders/health" >/dev/null && break; sleep 0.1; done
sample() { echo "fds=$(ls /proc/$orders/fd | wc -l) rss_kb=$(awk '/VmRSS/ { print $2 }' /proc/$orders/status)"; }
echo "before load: $(sample)" >"$out.start"

cat > /tmp/soak.lua <<'LUA'
-- Counts responses by status in each thread; done() (its own Lua state) reads them back.
wrk.method = "POST"
wrk.body = '{"userId":"u1","amount":5}'
wrk.headers["Content-Type"] = "application/json"
local threads = {}
setup = function(thread) table.insert(threads, thread) end
s201, s503, other, last_other = 0, 0, 0, 0
response = function(status)
  if status == 201 then s201 = s201 + 1
  elseif status == 503 then s503 = s503 + 1
  else other = other + 1; last_other = status end
end
done = function()
  local a, b, c, last = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("s201"); b = b + t:get("s503"); c = c + t:get("other")
    if t:get("last_other") ~= 0 then last = t:get("last_other") end
  end
  io.write(string.format("status 201: %d\nstatus 503: %d\nstatus other: %d (last: %d)\n", a, b, c, last))
end
LUA

(
    mode=down
    end_at=$((SECONDS + DURATION))
    while [ $SECONDS -lt $end_at ]; do
        sleep "$FLIP"
        curl -sf -X PUT "http://127.0.0.1:$BILLING_PORT/mode" -H 'content-type: application/json' -d "{\"mode\":\"$mode\"}" >/dev/null || true
        if [ $mode = down ]; then mode=up; else mode=down; fi
    done
) &
flipper=$!

(
    start=$SECONDS
    end_at=$((SECONDS + DURATION))
    while [ $SECONDS -lt $end_at ]; do
        echo "t=$((SECONDS - start))s $(sample)"
        sleep 10
    done
) >"$out.samples" &
sampler=$!

wrk -t1 -c32 -d"${DURATION}s" -s /tmp/soak.lua "http://127.0.0.1:$ORDERS_PORT/orders" | tee "$out.wrk"
wait $flipper $sampler || true
# After the load, before the shutdown (wrk's connections closed): shown, not compared.
echo "after the load: $(sample)" >"$out.end"
kill -INT $orders; wait $orders || true

{
    echo "== requests"; grep 'requests in' "$out.wrk"
    echo "== statuses"; grep '^status' "$out.wrk" | sort
    echo "== fds and rss (seconds since the load started)"; cat "$out.start" "$out.samples" "$out.end"
    echo "== breaker transitions"; grep -c 'circuit opened' "$out.orders.log" | sed 's/^/opened: /'
    grep -c 'circuit closed' "$out.orders.log" | sed 's/^/closed: /'
    echo "== close"; grep -E 'disposed|closed cleanly|closed with' "$out.orders.log" | tail -5
} | tee "$out.txt"

# Flat after the warm-up: the highest sample of the first minute after WARMUP seconds against the
# highest of the last minute under load. Highest, not one sample each: resident memory saws up
# and down between two upkeeps of the metrics recorder, and one sample lands anywhere on it.
window=60
highest() { # the highest $1 among samples from $2 to $3 seconds
    awk -v key="$1" -v from="$2" -v to="$3" '{
        t = $1; sub(/^t=/, "", t); sub(/s$/, "", t)
        for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) { v = substr($i, length(key) + 2) + 0 }
        if (t + 0 >= from && t + 0 < to && (found == "" || v > max)) { max = v; found = 1 }
    } END { if (found != "") print max }' "$out.samples"
}
last=$(tail -n 1 "$out.samples" | sed 's/^t=\([0-9]*\)s.*/\1/')
failed=0
if ! grep -q '^status other: 0 ' "$out.wrk"; then echo "FAIL: unexpected statuses" | tee -a "$out.txt" >&2; failed=1; fi
if [ $((last - window)) -lt $((WARMUP + window)) ]; then
    echo "FAIL: DURATION=$DURATION leaves no two ${window}s windows after the ${WARMUP}s warm-up" | tee -a "$out.txt" >&2; failed=1
else
    rss0=$(highest rss_kb "$WARMUP" $((WARMUP + window))); rss1=$(highest rss_kb $((last - window + 1)) $((last + 1)))
    fds0=$(highest fds "$WARMUP" $((WARMUP + window))); fds1=$(highest fds $((last - window + 1)) $((last + 1)))
    echo "highest from ${WARMUP}s to $((WARMUP + window))s: rss_kb=$rss0 fds=$fds0; in the last ${window}s: rss_kb=$rss1 fds=$fds1" | tee -a "$out.txt"
    if [ "$rss1" -gt $((rss0 + rss0 / 10)) ]; then
        echo "FAIL: resident memory grew from $rss0 kB after the warm-up to $rss1 kB (more than 10%)" | tee -a "$out.txt" >&2
        failed=1
    fi
    if [ "$fds1" -gt $((fds0 + FD_SLACK)) ]; then
        echo "FAIL: open file descriptors grew from $fds0 after the warm-up to $fds1 (more than $FD_SLACK)" | tee -a "$out.txt" >&2
        failed=1
    fi
fi
if [ $failed = 0 ]; then echo "OK: flat after the ${WARMUP}s warm-up, no unexpected status" | tee -a "$out.txt"; fi
exit $failed
