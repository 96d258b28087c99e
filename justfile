# The same commands CI runs (.ci/run), one recipe each.

default: fmt clippy test loom doc cg-check

fmt:
    cargo fmt --all --check
    cd bench && cargo fmt --all --check

clippy:
    cargo clippy --workspace --all-targets -- -D warnings
    command -v cargo-hack >/dev/null || cargo install --locked cargo-hack --version 0.6.46
    cargo hack clippy --workspace --exclude green-tea --exclude green-tea-all-features --exclude green-tea-examples --each-feature --lib -- -D warnings
    for features in "" axum metrics tls http2; do cargo clippy -p green-tea --lib --no-default-features --features "$features" -- -D warnings; done
    cargo clippy -p green-tea --lib --all-features -- -D warnings
    cd bench && cargo clippy --all-features --all-targets -- -D warnings

# PostgreSQL for the database recipe's tests (its own cluster stopped again if the install
# started it), chromium for the explain page's browser test, promtool (Debian's prometheus, its server
# stopped again if the install started it) for the metrics lint; with GREEN_TEA_REQUIRE_TOOLS=1
# their tests fail rather than skip when a tool is missing.
test:
    command -v redis-server || { apt-get update && apt-get install -y redis-server; }
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update && apt-get install -y --no-install-recommends postgresql && if [ -d /run/systemd/system ]; then systemctl disable --now postgresql; else /etc/init.d/postgresql stop || true; fi; }
    command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium; }
    command -v promtool >/dev/null || { apt-get update && apt-get install -y --no-install-recommends prometheus && if [ -d /run/systemd/system ]; then systemctl disable --now prometheus; else /etc/init.d/prometheus stop; fi; }
    GREEN_TEA_REQUIRE_TOOLS=1 RUST_TEST_THREADS=6 cargo test --workspace
    GREEN_TEA_REQUIRE_TOOLS=1 RUST_TEST_THREADS=6 cargo test -p green-tea -p green-tea-core -p green-tea-http --lib --bins --tests
    cargo test -p green-tea-recipes --lib

# loom models of the breaker's closed path and the in-flight count (docs/reliability.md).
loom:
    cd loom && cargo fmt --check && cargo clippy --release --all-targets -- -D warnings && cargo test --release

doc:
    RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps

# Instructions and allocations per request against bench/cg-baseline.tsv (installs valgrind):
# both green-tea forms in process in both profiles, the macro form's server in release.
cg-check:
    bench/cg-check.sh

# Regenerates the trybuild .stderr files after a deliberate change to a diagnostic: the macros'
# cases through the facade and the same macros through green-tea-core alone (crates/core-only).
ui-bless:
    TRYBUILD=overwrite cargo test -p green-tea-macros --test ui
    TRYBUILD=overwrite cargo test -p green-tea-core-only-check --test ui

run:
    cargo run --example orders

# Criterion benches (resolve, build, explain, breaker); see docs/benchmarks.md.
bench:
    cargo bench --bench core --bench breaker

# Throughput and latency against axum, actix-web and raw hyper (installs wrk); both green-tea
# forms, in the release and the tuned profile (PROFILE=release or tuned for one).
bench-http:
    bench/http.sh

# Instructions and allocations per request under valgrind (deterministic); every server, both
# green-tea forms, in the release and the tuned profile (PROFILE=release or tuned for one).
bench-cg:
    bench/callgrind.sh

# The same, with each app called in process (no socket): the framework's own cost per request.
bench-cg-inproc:
    MODE=inproc bench/callgrind.sh

# Five minutes of orders under wrk while billing flips up and down every 10 s.
soak:
    bench/soak.sh

# Memory per idle keep-alive connection, 10,000 connections per server (see docs/benchmarks.md).
bench-idle:
    bench/idle-memory.sh

# The edit–compile loop: the same small service on green-tea and on axum, each a crate of its
# own, touched and rebuilt in debug, paired (docs/benchmarks.md, "The edit–compile loop").
dev-loop:
    bench/dev-loop.sh

# The README's first command on a fresh clone with an empty cargo home, to the first 201
# (docs/benchmarks.md, "The first command").
first-run:
    bench/first-run.sh
