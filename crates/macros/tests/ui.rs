//! Every diagnostic the macros emit, checked against its `.stderr`
//! (bless with `TRYBUILD=overwrite cargo test -p green-tea-macros --test ui`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    for kind in [
        "provider",
        "decorator",
        "worker",
        "step",
        "route",
        "settings",
    ] {
        cases.compile_fail(format!("tests/ui/{kind}/fail/*.rs"));
        cases.pass(format!("tests/ui/{kind}/pass/*.rs"));
    }
}
