//! Every diagnostic the macros emit, checked against its `.stderr`
//! (bless with `TRYBUILD=overwrite cargo test -p green-tea-macros --test ui`).

// Two runs, not one: trybuild checks compile-fail cases together (one `cargo check --keep-going`
// over every case) only in a run that has no pass case; a run with one builds and links every
// case alone (`cargo clean` and `cargo build` per case, about 0.2 s each, 48 s for these).
const KINDS: [&str; 6] = [
    "provider",
    "decorator",
    "worker",
    "step",
    "route",
    "settings",
];

#[test]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    for kind in KINDS {
        cases.compile_fail(format!("tests/ui/{kind}/fail/*.rs"));
    }
}

#[test]
fn pass() {
    let cases = trybuild::TestCases::new();
    for kind in KINDS {
        cases.pass(format!("tests/ui/{kind}/pass/*.rs"));
    }
}
