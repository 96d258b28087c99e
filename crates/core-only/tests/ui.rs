//! `#[provider]`'s and `#[decorator]`'s diagnostics through green-tea-core, in a crate that
//! depends on it alone: the same messages as through the facade
//! (crates/macros/tests/ui/{provider,decorator}/fail/, where each case comes from), naming
//! core's paths (bless with
//! `TRYBUILD=overwrite cargo test -p green-tea-core-only-check --test ui`).

// Compile-fail cases only, checked together (crates/macros/tests/ui.rs says why); what
// compiles with core alone is tested in tests/providers/.
#[test]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

/// `just ui-bless` regenerates these cases' `.stderr` files too, with the command above.
#[test]
fn just_ui_bless_blesses_these_cases() {
    let justfile = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../justfile"))
        .expect("the workspace's justfile");
    let recipe: Vec<&str> = justfile
        .split("\nui-bless:\n")
        .nth(1)
        .expect("the justfile has a `ui-bless` recipe")
        .lines()
        .take_while(|line| line.starts_with("    "))
        .map(str::trim)
        .collect();
    assert!(
        recipe.contains(&"TRYBUILD=overwrite cargo test -p green-tea-core-only-check --test ui"),
        "`just ui-bless` runs {recipe:?}"
    );
}
