//! green-tea's examples, a package of their own so that `cargo run --example NAME` builds only
//! what they use. The examples are the files in `examples/` at the repository's root; this
//! library is empty.
