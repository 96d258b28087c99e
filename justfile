# The same commands CI runs (.ci/run), one recipe each.

default: fmt clippy test doc

fmt:
    cargo fmt --all --check

clippy:
    cargo clippy --workspace --all-targets -- -D warnings

test:
    cargo test --workspace

doc:
    RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps

# Regenerates the trybuild .stderr files after a deliberate change to a diagnostic.
ui-bless:
    TRYBUILD=overwrite cargo test -p green-tea-macros --test ui

run:
    cargo run --example orders
