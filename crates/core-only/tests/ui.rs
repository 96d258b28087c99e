//! `#[provider]`'s diagnostics through green-tea-core, in a crate that depends on it alone: the
//! same messages as through the facade (crates/macros/tests/ui/provider/fail/, where each case
//! comes from), naming core's paths (bless with `TRYBUILD=overwrite cargo test -p
//! green-tea-core-only-check --test ui`).

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
