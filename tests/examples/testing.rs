//! The `testing` example's own tests (its `#[cfg(test)] mod tests`), run by `cargo test`.
//!
//! Not `test = true` on the example: with it, `cargo test` builds the example only as a test
//! harness, never as the program that tests/examples/smoke.rs starts, so that test would find no
//! binary (or a stale one from an earlier `cargo build`). Including the file here runs the same
//! tests while cargo builds the example as usual; `cargo test --example testing` runs them too.

#[allow(dead_code, clippy::module_inception)]
// its `main` runs as the example, not here
// The example under its own name, inside the topic named after it.
#[path = "../../examples/testing.rs"]
mod testing;
