#!/usr/bin/env bash
# Builds the named binaries and loadgen, each binary with only its own framework's features:
# the feature is the binary's name without `-server` (the loopback servers) or `-inproc` (the
# in-process drivers); see servers/Cargo.toml. Sourced by http.sh and callgrind.sh.
build_servers() {
    local bin feature
    for bin in "$@"; do
        feature=${bin%-server}
        feature=${feature%-inproc}
        cargo build --release -q --no-default-features --features "$feature" --bin "$bin"
    done
    cargo build --release -q --no-default-features --bin loadgen
}
