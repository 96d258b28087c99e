//! Request-scoped declarations (steps, route handlers) are checked in the same graph, and each
//! route is compiled into a plan of typed ids: the HTTP layer's view of the core.

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::build::RequestDecls;
use green_tea_core::__private::layer::values::Source;

use crate::support;

use green_tea::error::Problem;
use green_tea::{Container, Descriptor};
use support::{Log, Probe, Service};

struct User;

#[tokio::test]
async fn steps_and_routes_are_wired_to_providers_and_to_each_other() {
    let log = Log::default();
    let mut scope = RequestDecls::new();
    let create = scope.add_route(
        Descriptor::new("POST /orders -> create")
            .needs::<User>("user")
            .needs::<Service>("billing"),
        Vec::new(),
        "create",
    );
    let auth = scope.add_step(
        Descriptor::new("auth")
            .provides::<User>("user")
            .needs::<String>("token"),
        "auth",
    );
    let token = scope.add_step(
        Descriptor::new("token").provides::<String>("token"),
        "token",
    );
    let builder = Container::builder().provider(Probe::new("billing", &[], &log));
    let wired = layer::build::build_scope(builder, scope).unwrap();

    let plan = &wired.routes[create].plan;
    let runs: Vec<_> = plan.steps.iter().map(|s| s.step).collect();
    assert_eq!(runs, [token, auth], "token runs before auth");
    assert_eq!(plan.locals, 2);
    // auth's need is token's value, the request's first; the route's `user` is auth's, the
    // second.
    assert!(matches!(plan.steps[1].needs[0], Source::Local(l) if l.position() == 0));
    assert!(matches!(plan.needs[0], Source::Local(l) if l.position() == 1));
    let Source::App(billing) = plan.needs[1] else {
        panic!("billing is a provider's value: {:?}", plan.needs[1])
    };
    assert_eq!(&*plan.app_values, [billing]);
    assert_eq!(wired.steps[auth].step, "auth");
    assert_eq!(wired.routes[create].route, "create");

    let built = wired.container.get::<Service>("billing").await.unwrap();
    let planned = layer::values::value(&wired.container, billing).expect("built");
    assert!(std::ptr::eq(
        &**planned as *const _ as *const Service,
        &*built as *const Service
    ));
    assert_eq!(
        wired
            .container
            .keys()
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>(),
        ["billing"],
        "step keys are not app values"
    );
    wired.container.close().await.unwrap();
}

#[test]
fn a_provider_needing_a_step_value_is_a_scope_violation() {
    let log = Log::default();
    let mut scope = RequestDecls::<(), ()>::new();
    scope.add_step(Descriptor::new("auth").provides::<Service>("user"), ());
    let builder = Container::builder().provider(Probe::new("audit", &["user"], &log));
    let Err(err) = layer::build::build_scope(builder, scope) else {
        panic!("a provider needing a step's value builds")
    };
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
    let mut scope = RequestDecls::<(), ()>::new();
    scope.add_route(
        Descriptor::new("POST /orders -> create").needs::<u32>("biling"),
        Vec::new(),
        (),
    );
    let builder = Container::builder().value("billing", 1_u32);
    let Err(err) = layer::build::build_scope(builder, scope) else {
        panic!("a route needing a missing key builds")
    };
    let text = err.to_string();
    assert!(
        text.contains("no provider for `biling`\n  needed by route POST /orders -> create ("),
        "{text}"
    );
    assert!(text.contains("did you mean `billing`?"), "{text}");
}

#[tokio::test]
async fn app_values_resolve_by_id() {
    let mut scope = RequestDecls::new();
    let route = scope.add_route(
        Descriptor::new("GET /port").needs::<u16>("port"),
        Vec::new(),
        (),
    );
    let builder = Container::builder().value("port", 3000_u16);
    let wired = layer::build::build_scope::<(), ()>(builder, scope).unwrap();
    let Source::App(port) = wired.routes[route].plan.needs[0] else {
        panic!("port is a provider's value")
    };
    let container = &wired.container;
    assert!(layer::values::try_value(container, port).unwrap().is_none());
    layer::values::build(container, port).await.unwrap();
    let value = layer::values::try_value(container, port)
        .unwrap()
        .expect("built");
    assert_eq!(*value.downcast_ref::<u16>().unwrap(), 3000);
    container.close().await.unwrap();
    assert!(layer::values::try_value(container, port).is_err());
}
