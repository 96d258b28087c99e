#!/usr/bin/env bash
# The first hour's first command, timed as a new user meets it: a fresh clone of this repository
# (its HEAD), an empty cargo home (every crate downloaded), no target directory, then the
# README's `cargo run --example orders`; the time from the command to the first `201 Created`
# answer to `POST /orders`. Only the Rust toolchain is needed (and git and curl here).
#
#   bench/first-run.sh                         # prints "first 201 after N s"
#   FIRST_RUN_DIR=/tmp/first bench/first-run.sh   # keep the clone and its build there
#   FIRST_RUN_CARGO_HOME=~/.cargo bench/first-run.sh  # a warm cargo home: the build alone
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${FIRST_RUN_DIR:-$(mktemp -d)}"
rm -rf "$dir/clone" "$dir/cargo-home"
git clone --quiet "$repo" "$dir/clone"
export CARGO_HOME="${FIRST_RUN_CARGO_HOME:-$dir/cargo-home}"
mkdir -p "$CARGO_HOME"
# What a developer's shell has: cargo's defaults (incremental debug builds), no CI variables.
unset CARGO_INCREMENTAL CARGO_TARGET_DIR

log="$dir/orders.log"
cd "$dir/clone"
start=$(date +%s.%N)
PORT=0 cargo run --quiet --example orders >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT

addr=""
while [ -z "$addr" ]; do
    kill -0 $pid 2>/dev/null || { echo "cargo run stopped:"; tail -20 "$log"; exit 1; }
    addr=$(grep -o 'listening on http://[^ ]*' "$log" | head -1 | sed 's/listening on //') || true
    [ -n "$addr" ] || sleep 0.2
done
until [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' \
    -d '{"userId":"u1","amount":5}' "$addr/orders")" = 201 ]; do
    sleep 0.1
done
end=$(date +%s.%N)
printf 'first 201 after %.1f s (%s)\n' "$(echo "$end - $start" | bc -l)" \
    "$([ -n "${FIRST_RUN_CARGO_HOME:-}" ] && echo "cargo home $CARGO_HOME" || echo "empty cargo home")"
