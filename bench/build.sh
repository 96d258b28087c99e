#!/usr/bin/env bash
# Builds binaries, each with only its own framework's features (see servers/Cargo.toml), in the
# profiles PROFILE names: `release` (default: what `cargo build --release` gives a user), `tuned`
# (thin LTO, one codegen unit) or `both`. Binaries land in target/<profile>/. Sourced by
# http.sh and callgrind.sh.

# SQLite (bundled by libsqlite3-sys, built only for the SQLite write route's servers) with
# `synchronous` NORMAL as its default in WAL mode, for every server alike: FULL would make every
# commit an fsync, measuring the disk rather than the servers (docs/benchmarks.md, "A write on
# SQLite"). Every server also sets NORMAL itself now (the green-tea ones through the recipe's
# DATABASE_SYNCHRONOUS, which the scripts set); the build flag stays so that the recorded
# figures' build is the one rebuilt. Each of those servers checks it at start.
export LIBSQLITE3_FLAGS=${LIBSQLITE3_FLAGS-SQLITE_DEFAULT_WAL_SYNCHRONOUS=1}

# The profiles PROFILE names, one per line.
profiles() {
    case ${PROFILE:-release} in
        release | tuned) echo "${PROFILE:-release}" ;;
        both) printf 'release\ntuned\n' ;;
        *) echo "PROFILE must be release, tuned or both, not '$PROFILE'" >&2; return 2 ;;
    esac
}

# The feature a binary needs: its name without `-server` (the loopback servers) or `-inproc`
# (the in-process drivers); every green-tea binary (`green-tea-*`, `green-tea-wired-*`,
# `green-tea-layered-*`) is `green-tea`, but the binaries built with green-tea's `metrics`
# feature (`green-tea-unrecorded-inproc`, `green-tea-metrics-*`,
# `green-tea-layered-metrics-inproc`, and `green-tea-build`, which counts `build()` as the
# root's graph_shapes figures are counted) are `green-tea-metrics`, and the finishing step's
# (`green-tea-finish-inproc`, `green-tea-finish-lock-inproc`) `green-tea-finish`; the SQLite
# write route's servers are `green-tea-sqlx` (green-tea-sqlite-server,
# green-tea-sqlite-immediate-server) and `axum-sqlx`
# (axum-sqlite-server, axum-sqlite-any-server, axum-sqlite-immediate-server).
feature_of() {
    local feature=${1%-server}
    feature=${feature%-inproc}
    case $feature in
        green-tea-wired | green-tea-layered) echo green-tea ;;
        green-tea-finish | green-tea-finish-lock) echo green-tea-finish ;;
        green-tea-sqlite | green-tea-sqlite-immediate) echo green-tea-sqlx ;;
        axum-sqlite | axum-sqlite-any | axum-sqlite-immediate) echo axum-sqlx ;;
        green-tea-unrecorded | green-tea-metrics | green-tea-layered-metrics | green-tea-build) echo green-tea-metrics ;;
        *) echo "$feature" ;;
    esac
}

# build_servers PROFILE BIN...: the binaries in one profile, one cargo run per feature (the
# binaries of one feature share their build). `loadgen`, if named, goes with the first feature's
# run: it is the client, never measured, so it takes whatever features are built anyway rather
# than a dependency build of its own.
build_servers() {
    local profile=$1 bin feature features=() loadgen=
    shift
    declare -A bins=()
    for bin in "$@"; do
        if [ "$bin" = loadgen ]; then loadgen=" --bin loadgen"; continue; fi
        feature=$(feature_of "$bin")
        [ -n "${bins[$feature]:-}" ] || features+=("$feature")
        bins[$feature]+=" --bin $bin"
    done
    if [ ${#features[@]} -eq 0 ]; then
        [ -z "$loadgen" ] || cargo build --profile "$profile" -q --no-default-features --bin loadgen
        return
    fi
    bins[${features[0]}]+=$loadgen
    for feature in "${features[@]}"; do
        # shellcheck disable=SC2086 # the --bin flags split on purpose
        cargo build --profile "$profile" -q --no-default-features --features "$feature" ${bins[$feature]}
    done
}
