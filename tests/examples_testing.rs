//! The `testing` example's own tests (its `#[cfg(test)] mod tests`), run by `cargo test`.
//!
//! Not `test = true` on the example: with it, `cargo test` builds the example only as a test
//! harness, never as the program that tests/examples_smoke.rs starts, so that test would find no
//! binary (or a stale one from an earlier `cargo build`). Including the file here runs the same
//! tests while cargo builds the example as usual; `cargo test --example testing` runs them too.

#[allow(dead_code)] // its `main` runs as the example, not here
#[path = "../examples/testing.rs"]
mod testing;
