use super::*;
use crate::key::{Location, TypeInfo};

fn decl(
    kind: NodeKind,
    name: &str,
    line: u32,
    provides: &[(&'static str, TypeInfo)],
    needs: &[(&'static str, TypeInfo)],
) -> Decl<'static> {
    let spec = |(key, ty): &(&'static str, TypeInfo)| KeySpec {
        key: Key::from(*key),
        ty: *ty,
    };
    Decl {
        kind,
        name: name.to_owned().into(),
        location: Location::new("src/app.rs", line, 1),
        scope: if kind == NodeKind::Step {
            Scope::Request
        } else {
            Scope::App
        },
        provides: provides.iter().map(spec).collect::<Vec<_>>().into(),
        needs: needs.iter().map(spec).collect::<Vec<_>>().into(),
    }
}

fn provider(name: &'static str, needs: &[&'static str]) -> Decl<'static> {
    let u = TypeInfo::of::<u32>();
    let needs: Vec<_> = needs.iter().map(|k| (*k, u)).collect();
    decl(NodeKind::Provider, name, 1, &[(name, u)], &needs)
}

fn problems(decls: &[Decl]) -> Vec<Problem> {
    let mut problems = analyze(decls).expect_err("the graph has problems");
    problems.sort_by(|a, b| a.code().cmp(b.code()));
    problems
}

#[test]
fn a_diamond_orders_dependencies_first() {
    let decls = [
        provider("top", &["left", "right"]),
        provider("left", &["base"]),
        provider("right", &["base"]),
        provider("base", &[]),
    ];
    let analysis = analyze(&decls).unwrap();
    let pos = |n: usize| analysis.order.iter().position(|&x| x == n).unwrap();
    assert!(pos(3) < pos(1) && pos(3) < pos(2));
    assert!(pos(1) < pos(0) && pos(2) < pos(0));
    assert_eq!(
        analysis.needs[0],
        vec![
            ValueRef { node: 1, index: 0 },
            ValueRef { node: 2, index: 0 }
        ]
    );
    let mut base_dependents = analysis.dependents[3].clone();
    base_dependents.sort();
    assert_eq!(base_dependents, vec![1, 2]);
}

#[test]
fn a_missing_key_names_the_chain_and_a_near_miss() {
    let decls = [
        provider("billing_api", &[]),
        provider("billing", &["billingApi"]),
        provider("orders", &["billing"]),
    ];
    let found = problems(&decls);
    assert_eq!(found.len(), 1);
    let Problem::MissingKey {
        key,
        chain,
        suggestion,
    } = &found[0]
    else {
        panic!("expected a missing key, got {:?}", found[0]);
    };
    assert_eq!(key.as_str(), "billingApi");
    let names: Vec<&str> = chain.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["billing", "orders"]);
    assert_eq!(suggestion.as_ref().unwrap().key.as_str(), "billing_api");
    let text = found[0].to_string();
    assert!(
        text.starts_with("error[GT0001]: no provider for `billingApi`"),
        "{text}"
    );
    assert!(
        text.contains("needed by provider `billing` (src/app.rs:1)"),
        "{text}"
    );
    assert!(text.contains("help: did you mean `billing_api`?"), "{text}");
}

#[test]
fn a_far_miss_offers_no_suggestion() {
    let found = problems(&[provider("database", &[]), provider("billing", &["zzz"])]);
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
    let decls = [
        provider("a", &["b"]),
        provider("b", &["c"]),
        provider("c", &["a"]),
        provider("d", &["a"]),
    ];
    let found = problems(&decls);
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
    let found = problems(&[provider("a", &["a"])]);
    assert!(matches!(&found[0], Problem::Cycle { ring } if ring.len() == 1));
}

#[test]
fn two_separate_cycles_are_both_reported() {
    let decls = [
        provider("a", &["b"]),
        provider("b", &["a"]),
        provider("x", &["y"]),
        provider("y", &["x"]),
    ];
    let found = problems(&decls);
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
    let mut second = provider("billing", &[]);
    second.name = "billing_again".into();
    let found = problems(&[provider("billing", &[]), second]);
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
    let consumer = decl(
        NodeKind::Provider,
        "orders",
        9,
        &[("orders", TypeInfo::of::<u32>())],
        &[("billing", TypeInfo::of::<String>())],
    );
    let found = problems(&[provider("billing", &[]), consumer]);
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
fn an_override_replaces_the_key_and_must_match_its_type() {
    let good = decl(
        NodeKind::Override,
        "fake",
        20,
        &[("billing", TypeInfo::of::<u32>())],
        &[],
    );
    let analysis = analyze(&[
        provider("billing", &[]),
        provider("orders", &["billing"]),
        good,
    ])
    .unwrap();
    assert_eq!(analysis.needs[1], vec![ValueRef { node: 2, index: 0 }]);

    let bad = decl(
        NodeKind::Override,
        "fake",
        20,
        &[("billing", TypeInfo::of::<String>())],
        &[],
    );
    let found = problems(&[provider("billing", &[]), bad]);
    assert!(
        matches!(&found[0], Problem::TypeMismatch { consumer, .. } if consumer.kind == NodeKind::Override)
    );
}

#[test]
fn an_override_of_nothing_is_reported() {
    let stray = decl(
        NodeKind::Override,
        "fake",
        20,
        &[("biling", TypeInfo::of::<u32>())],
        &[],
    );
    let found = problems(&[provider("billing", &[]), stray]);
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
    let one = decl(
        NodeKind::Override,
        "fake1",
        20,
        &[("billing", TypeInfo::of::<u32>())],
        &[],
    );
    let two = decl(
        NodeKind::Override,
        "fake2",
        21,
        &[("billing", TypeInfo::of::<u32>())],
        &[],
    );
    let found = problems(&[provider("billing", &[]), one, two]);
    assert!(matches!(&found[0], Problem::DuplicateProvider { .. }));
}

#[test]
fn an_app_provider_needing_a_step_is_a_scope_violation() {
    let step = decl(
        NodeKind::Step,
        "auth",
        3,
        &[("user", TypeInfo::of::<u32>())],
        &[],
    );
    let found = problems(&[step, provider("audit", &["user"])]);
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
fn every_problem_is_reported_at_once() {
    let decls = [
        provider("a", &["b"]),
        provider("b", &["a"]),
        provider("c", &["missing"]),
        provider("c", &[]),
    ];
    let codes: Vec<&str> = problems(&decls).iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0001", "GT0002", "GT0003"]);
}
