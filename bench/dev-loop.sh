#!/usr/bin/env bash
# The edit–compile loop a user runs a hundred times a day, measured as a user has it: the same
# small service (two providers, one step, a POST and two GET routes: the notes service of
# docs/coming-from-axum.md) as a crate of its own on green-tea, written with the macros
# (examples/from_axum_green_tea.rs), and on axum 0.8 (examples/from_axum_axum.rs); each in a
# fresh directory outside this repository, so that cargo's default debug profile applies (the
# workspace's own profile, .cargo/config.toml, reaches nothing outside it), with this
# repository's Cargo.lock (the same hyper and tokio for both).
#
# Then, paired: touch the service's file and `cargo build` (debug), green-tea then axum, RUNS
# times; the medians, rustc's peak memory (the largest child cargo waited for), the debug
# binary's size, the LLVM IR lines and copies of the service's crate (`cargo llvm-lines`,
# installed when missing), and the crates in each dependency tree.
#
#   bench/dev-loop.sh                 # 5 pairs
#   RUNS=9 bench/dev-loop.sh
#   DEV_LOOP_DIR=/tmp/loop bench/dev-loop.sh   # keep the crates (and their builds) there
#
# Then the shop example (an app of modules: examples/shop/, with its notifications crate and the
# recipes' database), copied the same way into a crate of its own: touch one module's file
# (src/orders.rs) and `cargo build`, RUNS times, and the same figures. It has no axum twin.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-5}"
dir="${DEV_LOOP_DIR:-$(mktemp -d)}"
mkdir -p "$dir"
export CARGO_INCREMENTAL=1 # what `cargo build` does in debug; set here in case the caller's says 0

command -v cargo-llvm-lines >/dev/null || cargo install --locked cargo-llvm-lines --version 0.4.48

# $1: crate name, $2: example file, $3: dependencies (TOML lines).
# $2 is a file (the crate's main.rs) or a directory (copied whole into src/, main.rs in it).
make_crate() {
    local name="$1" source="$2" deps="$3"
    mkdir -p "$dir/$name/src"
    if [ -d "$repo/examples/$source" ]; then
        cp "$repo/examples/$source"/*.rs "$dir/$name/src/"
    else
        cp "$repo/examples/$source" "$dir/$name/src/main.rs"
    fi
    cp "$repo/Cargo.lock" "$dir/$name/Cargo.lock"
    cat >"$dir/$name/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
$deps
serde = { version = "1", features = ["derive"] }
serde_json = "1"
http = "1"
tokio = { version = "1", features = ["rt-multi-thread", "macros", "net", "signal"] }
EOF
}

make_crate green-tea-service from_axum_green_tea.rs "green-tea = { path = \"$repo\" }"
make_crate axum-service from_axum_axum.rs \
    'axum = { version = "0.8", default-features = false, features = ["tokio", "http1", "json", "query"] }'

make_crate shop-service shop "green-tea = { path = \"$repo\" }
green-tea-recipes = { path = \"$repo/crates/recipes\", features = [\"sqlx\"] }
shop-notifications = { path = \"$repo/crates/shop-notifications\" }
sqlx = { version = \"0.8\", default-features = false, features = [\"derive\"] }
tracing-subscriber = { version = \"0.3\", features = [\"fmt\"] }"

# A first build of each, so the loop below rebuilds the service's crate alone.
for name in green-tea-service axum-service shop-service; do
    (cd "$dir/$name" && cargo build --quiet)
done

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

# One touch-and-build of $1 after touching its file $2 (main.rs): "seconds peak-KiB".
loop_once() {
    local name="$1" file="${2:-main.rs}"
    touch "$dir/$name/src/$file"
    (cd "$dir/$name" && /usr/bin/time -f '%e %M' cargo build --quiet 2>&1 | tail -1)
}

: >"$dir/green-tea-service.times"
: >"$dir/axum-service.times"
: >"$dir/shop-service.times"
for _ in $(seq "$runs"); do
    loop_once green-tea-service >>"$dir/green-tea-service.times"
    loop_once axum-service >>"$dir/axum-service.times"
done
for _ in $(seq "$runs"); do
    loop_once shop-service orders.rs >>"$dir/shop-service.times"
done

row() {
    local name="$1"
    local wall peak size lines copies crates
    wall=$(cut -d' ' -f1 "$dir/$name.times" | median)
    peak=$(cut -d' ' -f2 "$dir/$name.times" | median)
    size=$(stat -c %s "$dir/$name/target/debug/$name")
    read -r lines copies < <(cd "$dir/$name" && cargo llvm-lines --quiet --bin "$name" 2>/dev/null |
        awk 'NR==3 {print $1, $2}')
    crates=$(cd "$dir/$name" && cargo tree --prefix none --edges normal,build 2>/dev/null |
        sed 's/ (\*)$//' | sort -u | wc -l)
    printf '%-18s %8s s %8.0f MiB %8.1f MB %9s lines %6s copies %4s crates\n' \
        "$name" "$wall" "$(echo "$peak / 1024" | bc -l)" "$(echo "$size / 1000000" | bc -l)" \
        "$lines" "$copies" "$crates"
}

echo "touch + cargo build (debug), median of $runs paired runs; rustc peak; binary; IR of the crate"
row green-tea-service
row axum-service
row shop-service
