//! The `shop` example's own tests (its `#[cfg(test)] mod tests`), run by `cargo test`: included
//! here rather than `test = true` on the example, as tests/examples_testing.rs explains.

#[allow(dead_code)] // its `main` runs as the example, not here
#[path = "../examples/shop.rs"]
mod shop;
