//! Request-scoped declarations (steps, route handlers) are checked in the same graph.

mod support;

use green_tea::{Container, Declaration, NodeKind, Problem, Source};
use support::{Log, Probe, Service};

struct User;

fn step(name: &'static str) -> Declaration {
    Declaration::new(NodeKind::Step, name)
}

fn route(name: &'static str) -> Declaration {
    Declaration::new(NodeKind::Route, name)
}

#[test]
fn steps_and_routes_are_wired_to_providers_and_to_each_other() {
    let log = Log::default();
    let (container, wiring) = Container::builder()
        .provider(Probe::new("billing", &[], &log))
        .build_with(vec![
            route("POST /orders -> create")
                .needs::<User>("user")
                .needs::<Service>("billing"),
            step("auth")
                .provides::<User>("user")
                .needs::<String>("token"),
            step("token").provides::<String>("token"),
        ])
        .unwrap();
    assert_eq!(wiring.needs[0][0], Source::Request { decl: 1, index: 0 });
    assert_eq!(
        wiring.needs[0][1],
        Source::App(container.app_value("billing").unwrap())
    );
    assert_eq!(wiring.runs_before(0), [2, 1], "token runs before auth");
    assert!(wiring.runs_before(2).is_empty());
    assert!(
        container.app_value("user").is_none(),
        "step keys are not app values"
    );
}

#[test]
fn a_provider_needing_a_step_value_is_a_scope_violation() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Probe::new("audit", &["user"], &log))
        .build_with(vec![step("auth").provides::<Service>("user")])
        .unwrap_err();
    let Problem::ScopeViolation {
        key,
        consumer,
        provider,
    } = &err.problems()[0]
    else {
        panic!("{err}")
    };
    assert_eq!(
        (key.as_str(), consumer.name.as_str(), provider.name.as_str()),
        ("user", "audit", "auth")
    );
    assert!(
        err.to_string()
            .contains("error[GT0006]: app-scoped provider `audit`"),
        "{err}"
    );
}

#[test]
fn a_route_needing_a_missing_key_is_reported_with_the_route() {
    let err = Container::builder()
        .value("billing", 1_u32)
        .build_with(vec![route("POST /orders -> create").needs::<u32>("biling")])
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("no provider for `biling`\n  needed by route POST /orders -> create ("),
        "{text}"
    );
    assert!(text.contains("did you mean `billing`?"), "{text}");
}

#[tokio::test]
async fn app_values_resolve_by_index() {
    let container = Container::builder()
        .value("port", 3000_u16)
        .build()
        .unwrap();
    let port = container.app_value("port").unwrap();
    assert!(container.try_value(port).unwrap().is_none());
    let value = container.value(port).await.unwrap();
    assert_eq!(*value.downcast::<u16>().unwrap(), 3000);
    assert!(container.try_value(port).unwrap().is_some());
    container.close().await.unwrap();
    assert!(container.try_value(port).is_err());
}
