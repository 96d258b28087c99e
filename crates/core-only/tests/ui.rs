//! `#[provider]`'s and `#[decorator]`'s diagnostics through green-tea-core, in a crate that
//! depends on it alone: the same messages as through the facade
//! (crates/macros/tests/ui/{provider,decorator}/fail/, where each case comes from), naming
//! core's paths, and a decorator that compiles with core alone (bless with
//! `TRYBUILD=overwrite cargo test -p green-tea-core-only-check --test ui`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
