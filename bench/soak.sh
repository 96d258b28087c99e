#!/usr/bin/env bash
# Soak: the orders example under wrk for DURATION seconds (default 300) while the fake billing
# upstream flips between up and down every FLIP seconds (default 10). Checks: only 201 and the
# breaker's 503 come back; open file descriptors and RSS stay flat after warm-up; the breaker's
# transitions show in the log. Results in results/soak-*.txt (see docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-300}
FLIP=${FLIP:-10}
ORDERS_PORT=${ORDERS_PORT:-3100}
BILLING_PORT=${BILLING_PORT:-3101}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
cargo build --release -q --example orders --example billing_upstream
out=bench/results/soak-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p bench/results

PORT=$BILLING_PORT target/release/examples/billing_upstream --mode up >"$out.billing.log" 2>&1 &
billing=$!
BILLING_URL=http://127.0.0.1:$BILLING_PORT BREAKER_RESET_MS=2000 BILLING_TIMEOUT_MS=500 PORT=$ORDERS_PORT \
    target/release/examples/orders >"$out.orders.log" 2>&1 &
orders=$!
trap 'kill $billing $orders 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$ORDERS_PORT/orders/health" >/dev/null && break; sleep 0.1; done

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
        fds=$(ls /proc/$orders/fd | wc -l)
        rss=$(awk '/VmRSS/ { print $2 }' /proc/$orders/status)
        echo "t=$((SECONDS - start))s fds=$fds rss_kb=$rss"
        sleep 10
    done
) >"$out.samples" &
sampler=$!

wrk -t1 -c32 -d"${DURATION}s" -s /tmp/soak.lua "http://127.0.0.1:$ORDERS_PORT/orders" | tee "$out.wrk"
wait $flipper $sampler || true
kill -INT $orders; wait $orders || true

{
    echo "== statuses"; grep '^status' "$out.wrk" | sort
    echo "== fds and rss (seconds since start)"; cat "$out.samples"
    echo "== breaker transitions"; grep -c 'circuit opened' "$out.orders.log" | sed 's/^/opened: /'
    grep -c 'circuit closed' "$out.orders.log" | sed 's/^/closed: /'
    echo "== close"; grep -E 'disposed|closed cleanly|closed with' "$out.orders.log" | tail -5
} | tee "$out.txt"
if ! grep -q '^status other: 0 ' "$out.wrk"; then echo "unexpected statuses" >&2; exit 1; fi
