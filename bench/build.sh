#!/usr/bin/env bash
# Builds the named binaries and loadgen, each binary with only its own framework's features:
# the feature is the binary's name without `-server` (the loopback servers) or `-inproc` (the
# in-process drivers), and `green-tea` for both green-tea forms (`green-tea-wired-*` too); see
# servers/Cargo.toml. Sourced by http.sh and callgrind.sh.
build_servers() {
    local bin feature
    for bin in "$@"; do
        feature=${bin%-server}
        feature=${feature%-inproc}
        feature=${feature%-wired}
        cargo build --release -q --no-default-features --features "$feature" --bin "$bin"
    done
    cargo build --release -q --no-default-features --bin loadgen
}
