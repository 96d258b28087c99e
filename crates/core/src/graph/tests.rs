use std::borrow::Cow;
use std::sync::Arc;

use super::*;
use crate::descriptor::Descriptor;
use crate::key::{KeySpec, Location, TypeInfo};

/// Declarations for a test graph, kept alive while it is analysed.
#[derive(Default)]
struct Graph {
    providers: Vec<(NodeKind, Descriptor)>,
    steps: Vec<Descriptor>,
    routes: Vec<(Descriptor, Vec<Cow<'static, str>>)>,
}

fn descriptor(
    name: &str,
    line: u32,
    provides: &[(&'static str, TypeInfo)],
    needs: &[(&'static str, TypeInfo)],
) -> Descriptor {
    let spec = |(key, ty): &(&'static str, TypeInfo)| KeySpec {
        key: Key::from(*key),
        ty: *ty,
    };
    let mut d = Descriptor::new(name.to_owned()).at(Location::new("src/app.rs", line, 1));
    d.provides = provides.iter().map(spec).collect();
    d.needs = needs.iter().map(spec).collect();
    d
}

fn u32s(keys: &[&'static str]) -> Vec<(&'static str, TypeInfo)> {
    keys.iter().map(|k| (*k, TypeInfo::of::<u32>())).collect()
}

impl Graph {
    /// A provider `name` of the key `name` (a `u32`), needing `needs` (`u32`s).
    fn provider(mut self, name: &'static str, needs: &[&'static str]) -> Self {
        let d = descriptor(name, 1, &u32s(&[name]), &u32s(needs));
        self.providers.push((NodeKind::Provider, d));
        self
    }

    fn declared(mut self, kind: NodeKind, d: Descriptor) -> Self {
        self.providers.push((kind, d));
        self
    }

    fn step(mut self, d: Descriptor) -> Self {
        self.steps.push(d);
        self
    }

    fn route(mut self, d: Descriptor, guards: &[&'static str]) -> Self {
        let guards = guards.iter().map(|g| Cow::Borrowed(*g)).collect();
        self.routes.push((d, guards));
        self
    }

    fn analyze(&self) -> Result<Analysis, Vec<Problem>> {
        let input = Input {
            providers: self
                .providers
                .iter()
                .map(|(kind, descriptor)| Decl {
                    in_module: None,
                    keys_qualified: false,
                    kind: *kind,
                    descriptor,
                })
                .collect(),
            steps: self
                .steps
                .iter()
                .map(|descriptor| Decl {
                    kind: NodeKind::Step,
                    descriptor,
                    in_module: None,
                    keys_qualified: false,
                })
                .collect(),
            routes: self
                .routes
                .iter()
                .map(|(descriptor, guards)| RouteDecl {
                    decl: Decl {
                        kind: NodeKind::Route,
                        descriptor,
                        in_module: None,
                        keys_qualified: false,
                    },
                    guards,
                })
                .collect(),
            module_table: &[],
            shapes: None,
        };
        analyze(&input)
    }

    fn problems(&self) -> Vec<Problem> {
        let mut problems = self.analyze().expect_err("the graph has problems");
        problems.sort_by(|a, b| a.code().cmp(b.code()));
        problems
    }
}

fn at(provider: usize) -> AppValue {
    AppValue {
        provider: ProviderId::at(provider),
        index: 0,
    }
}

#[test]
fn a_diamond_orders_dependencies_first() {
    let analysis = Graph::default()
        .provider("top", &["left", "right"])
        .provider("left", &["base"])
        .provider("right", &["base"])
        .provider("base", &[])
        .analyze()
        .unwrap();
    let pos = |n: usize| {
        analysis
            .provider_order
            .iter()
            .position(|&x| x == ProviderId::at(n))
            .unwrap()
    };
    assert!(pos(3) < pos(1) && pos(3) < pos(2));
    assert!(pos(1) < pos(0) && pos(2) < pos(0));
    assert_eq!(
        &analysis.provider_needs[ProviderId::at(0)],
        [Some(at(1)), Some(at(2))]
    );
    let mut base_dependents = analysis.provider_dependents[ProviderId::at(3)].to_vec();
    base_dependents.sort();
    assert_eq!(base_dependents, [ProviderId::at(1), ProviderId::at(2)]);
}

#[test]
fn a_missing_key_names_the_chain_and_a_near_miss() {
    let found = Graph::default()
        .provider("billing_api", &[])
        .provider("billing", &["billingApi"])
        .provider("orders", &["billing"])
        .problems();
    assert_eq!(found.len(), 1);
    let Problem::MissingKey {
        key,
        needed_by,
        suggestion,
        ..
    } = &found[0]
    else {
        panic!("expected a missing key, got {:?}", found[0]);
    };
    assert_eq!(key.as_str(), "billingApi");
    let names: Vec<Vec<&str>> = needed_by
        .iter()
        .map(|chain| chain.iter().map(|o| o.name.as_str()).collect())
        .collect();
    assert_eq!(names, [["billing", "orders"]]);
    assert_eq!(suggestion.as_ref().unwrap().key.as_str(), "billing_api");
    let text = found[0].to_string();
    assert!(
        text.starts_with("error[GT0001]: no provider for `billingApi`"),
        "{text}"
    );
    assert!(
        text.contains(
            "needed by provider `billing` (src/app.rs:1)\n    which is needed by provider `orders` (src/app.rs:1)"
        ),
        "{text}"
    );
    assert!(text.contains("help: did you mean `billing_api`?"), "{text}");
}

#[test]
fn a_key_missing_for_several_consumers_is_one_problem_naming_each() {
    let route = |name: &str, line| descriptor(name, line, &[], &u32s(&["user"]));
    let found = Graph::default()
        .route(route("GET /todos -> Todos::list", 30), &[])
        .route(route("POST /todos -> Todos::create", 40), &[])
        .problems();
    assert_eq!(found.len(), 1, "{found:?}");
    let Problem::MissingKey { needed_by, .. } = &found[0] else {
        panic!("{:?}", found[0])
    };
    assert_eq!(needed_by.len(), 2);
    let text = found[0].to_string();
    assert!(
        text.contains("  needed by route GET /todos -> Todos::list (src/app.rs:30)\n  needed by route POST /todos -> Todos::create (src/app.rs:40)"),
        "{text}"
    );
}

#[test]
fn a_guard_missing_a_key_names_the_routes_that_run_it() {
    let guard = descriptor("require_admin", 5, &[], &u32s(&["user"]));
    let found = Graph::default()
        .step(guard)
        .route(descriptor("DELETE /cache", 9, &[], &[]), &["require_admin"])
        .problems();
    let text = found[0].to_string();
    assert!(
        text.contains("needed by step `require_admin` (src/app.rs:5)\n    which is needed by route DELETE /cache (src/app.rs:9)"),
        "{text}"
    );
}

#[test]
fn an_unknown_guard_is_reported_with_a_near_miss() {
    let found = Graph::default()
        .step(descriptor("require_admin", 5, &[], &[]))
        .route(descriptor("DELETE /cache", 9, &[], &[]), &["require_admn"])
        .problems();
    let Problem::UnknownStep {
        step, suggestion, ..
    } = &found[0]
    else {
        panic!("{:?}", found[0])
    };
    assert_eq!(step, "require_admn");
    assert_eq!(suggestion.as_deref(), Some("require_admin"));
}

#[test]
fn a_far_miss_offers_no_suggestion() {
    let found = Graph::default()
        .provider("database", &[])
        .provider("billing", &["zzz"])
        .problems();
    assert!(matches!(
        &found[0],
        Problem::MissingKey {
            suggestion: None,
            ..
        }
    ));
}

#[test]
fn a_cycle_is_printed_as_a_ring() {
    let found = Graph::default()
        .provider("a", &["b"])
        .provider("b", &["c"])
        .provider("c", &["a"])
        .provider("d", &["a"])
        .problems();
    assert_eq!(found.len(), 1);
    let Problem::Cycle { ring } = &found[0] else {
        panic!("{:?}", found[0])
    };
    let ring: Vec<(&str, &str)> = ring
        .iter()
        .map(|(o, k)| (o.name.as_str(), k.as_str()))
        .collect();
    assert_eq!(ring, [("a", "b"), ("b", "c"), ("c", "a")]);
    let text = found[0].to_string();
    assert!(
        text.starts_with("error[GT0002]: dependency cycle: `a` -> `b` -> `c` -> `a`"),
        "{text}"
    );
}

#[test]
fn a_provider_needing_itself_is_a_cycle() {
    let found = Graph::default().provider("a", &["a"]).problems();
    assert!(matches!(&found[0], Problem::Cycle { ring } if ring.len() == 1));
}

#[test]
fn two_separate_cycles_are_both_reported() {
    let found = Graph::default()
        .provider("a", &["b"])
        .provider("b", &["a"])
        .provider("x", &["y"])
        .provider("y", &["x"])
        .problems();
    assert_eq!(
        found
            .iter()
            .filter(|p| matches!(p, Problem::Cycle { .. }))
            .count(),
        2
    );
}

#[test]
fn a_key_provided_twice_is_a_duplicate() {
    let again = descriptor("billing_again", 1, &u32s(&["billing"]), &[]);
    let found = Graph::default()
        .provider("billing", &[])
        .declared(NodeKind::Provider, again)
        .problems();
    let Problem::DuplicateProvider { key, first, second } = &found[0] else {
        panic!("{:?}", found[0])
    };
    assert_eq!(
        (key.as_str(), first.name.as_str(), second.name.as_str()),
        ("billing", "billing", "billing_again")
    );
    assert_eq!(found[0].code(), "GT0003");
}

#[test]
fn a_consumer_expecting_another_type_is_a_mismatch() {
    let consumer = descriptor(
        "orders",
        9,
        &u32s(&["orders"]),
        &[("billing", TypeInfo::of::<String>())],
    );
    let found = Graph::default()
        .provider("billing", &[])
        .declared(NodeKind::Provider, consumer)
        .problems();
    let Problem::TypeMismatch {
        key,
        expected,
        provided,
        ..
    } = &found[0]
    else {
        panic!("{:?}", found[0])
    };
    assert_eq!(key.as_str(), "billing");
    assert_eq!(
        (*expected, *provided),
        (TypeInfo::of::<String>(), TypeInfo::of::<u32>())
    );
    let text = found[0].to_string();
    assert!(
        text.contains(
            "`billing` has type `u32`, but provider `orders` (src/app.rs:9) expects `String`"
        ),
        "{text}"
    );
}

#[test]
fn an_override_replaces_the_key() {
    let fake = descriptor("fake", 20, &u32s(&["billing"]), &[]);
    let analysis = Graph::default()
        .provider("billing", &[])
        .provider("orders", &["billing"])
        .declared(NodeKind::Override, fake)
        .analyze()
        .unwrap();
    assert_eq!(&analysis.provider_needs[ProviderId::at(1)], [Some(at(2))]);
}

trait Clock: Send + Sync {}
struct SystemClock;
impl Clock for SystemClock {}

#[test]
fn an_override_of_another_type_is_one_problem_with_the_sides_right() {
    let clock = descriptor(
        "clock",
        5,
        &[("clock", TypeInfo::of::<Arc<dyn Clock>>())],
        &[],
    );
    let consumer = descriptor(
        "scheduler",
        7,
        &u32s(&["scheduler"]),
        &[("clock", TypeInfo::of::<Arc<dyn Clock>>())],
    );
    let fake = descriptor(
        "value `clock`",
        20,
        &[("clock", TypeInfo::of::<Arc<SystemClock>>())],
        &[],
    );
    let found = Graph::default()
        .declared(NodeKind::Provider, clock)
        .declared(NodeKind::Provider, consumer)
        .declared(NodeKind::Override, fake)
        .problems();
    assert_eq!(found.len(), 1, "{found:?}");
    let Problem::OverrideTypeMismatch {
        declared, provided, ..
    } = &found[0]
    else {
        panic!("{:?}", found[0])
    };
    assert_eq!(*declared, TypeInfo::of::<Arc<dyn Clock>>());
    assert_eq!(*provided, TypeInfo::of::<Arc<SystemClock>>());
    let text = found[0].to_string();
    assert_eq!(found[0].code(), "GT0004");
    assert!(
        text.starts_with("error[GT0004]: override value `clock` (src/app.rs:20) provides `clock` as `Arc<SystemClock>`, but `clock` has type `Arc<dyn Clock>`"),
        "{text}"
    );
    assert!(
        text.contains("help: the override must be a `Arc<dyn Clock>` itself: coerce the value with `as Arc<dyn Clock>`"),
        "{text}"
    );
}

#[test]
fn an_override_of_nothing_is_reported() {
    let stray = descriptor("fake", 20, &u32s(&["biling"]), &[]);
    let found = Graph::default()
        .provider("billing", &[])
        .declared(NodeKind::Override, stray)
        .problems();
    let Problem::OverrideReplacesNothing {
        key, suggestion, ..
    } = &found[0]
    else {
        panic!("{:?}", found[0])
    };
    assert_eq!(key.as_str(), "biling");
    assert_eq!(suggestion.as_ref().unwrap().key.as_str(), "billing");
}

#[test]
fn two_overrides_of_one_key_are_a_duplicate() {
    let found = Graph::default()
        .provider("billing", &[])
        .declared(
            NodeKind::Override,
            descriptor("fake1", 20, &u32s(&["billing"]), &[]),
        )
        .declared(
            NodeKind::Override,
            descriptor("fake2", 21, &u32s(&["billing"]), &[]),
        )
        .problems();
    assert!(matches!(&found[0], Problem::DuplicateProvider { .. }));
}

#[test]
fn an_app_provider_needing_a_step_is_a_scope_violation() {
    let found = Graph::default()
        .step(descriptor("auth", 3, &u32s(&["user"]), &[]))
        .provider("audit", &["user"])
        .problems();
    let Problem::ScopeViolation {
        key,
        consumer,
        provider,
    } = &found[0]
    else {
        panic!("{:?}", found[0])
    };
    assert_eq!(
        (key.as_str(), consumer.name.as_str(), provider.name.as_str()),
        ("user", "audit", "auth")
    );
    assert_eq!(found[0].code(), "GT0006");
}

#[test]
fn steps_and_routes_resolve_to_typed_values() {
    let analysis = Graph::default()
        .provider("sessions", &[])
        .step(descriptor(
            "auth",
            3,
            &u32s(&["user"]),
            &u32s(&["sessions"]),
        ))
        .route(
            descriptor("GET /me", 9, &[], &u32s(&["user", "sessions"])),
            &[],
        )
        .analyze()
        .unwrap();
    let auth = StepId::at(0);
    assert_eq!(&*analysis.step_needs[auth], [Value::App(at(0))]);
    assert_eq!(
        &*analysis.route_needs[RouteId::at(0)],
        [
            Value::Step(StepValue {
                step: auth,
                index: 0
            }),
            Value::App(at(0))
        ]
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let codes: Vec<&str> = Graph::default()
        .provider("a", &["b"])
        .provider("b", &["a"])
        .provider("c", &["missing"])
        .provider("c", &[])
        .problems()
        .iter()
        .map(Problem::code)
        .collect();
    assert_eq!(codes, ["GT0001", "GT0002", "GT0003"]);
}
