//! The `auth` example's shape: its token store, its bearer step and its route, as
//! `examples/auth.lock` records them (a change shows in review as sentences).

#[allow(dead_code, clippy::module_inception)]
// its `main` runs as the example, not here
#[path = "../../examples/auth.rs"]
mod auth;

#[test]
fn the_auth_example_s_shape_is_the_locked_one() {
    let app = auth::app().build().unwrap();
    green_tea::test::assert_graph_lock(&app, "examples/auth.lock");
}
