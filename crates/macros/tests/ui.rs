//! Every diagnostic the macros emit, checked against its `.stderr`
//! (bless with `TRYBUILD=overwrite cargo test -p green-tea-macros --test ui`).

const KINDS: [&str; 6] = [
    "provider",
    "decorator",
    "worker",
    "step",
    "route",
    "settings",
];

// Compile-fail cases only: trybuild checks them together (one `cargo check --keep-going` over
// every case) in a run that has no pass case, where a run with one would build and link every
// case alone. What compiles is tested in tests/pass/ (`whole::` holds whole files, strict
// lints and all), built and linked once with the area's other tests.
#[test]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    for kind in KINDS {
        cases.compile_fail(format!("tests/ui/{kind}/fail/*.rs"));
    }
}
