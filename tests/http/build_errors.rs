//! `AppBuilder::build()` finds every problem of providers, steps and routes at once, in one
//! `BuildError`, and builds nothing.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::error::{NodeKind, Problem};
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::{Guard, StepFn};
use green_tea::{App, AppBuilder, HttpError};
use green_tea::{BuildError, ProviderFn};
use support::{Log, Probe, Service};

const FILE: &str = "tests/http/build_errors.rs";

/// How many times anything was built or run: it must stay 0.
#[derive(Clone, Default)]
struct Built(Arc<AtomicUsize>);

impl Built {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

async fn handler(_: RequestContext) -> &'static str {
    "unreachable"
}

/// A graph with one of each mistake a route, a step or a provider can make.
fn broken(log: &Log, built: &Built) -> AppBuilder {
    let (step_runs, provider_runs) = (built.clone(), built.clone());
    App::builder()
        .provider(Probe::new("db", &[], log))
        .provider(Probe::new("billing_api", &[], log))
        .value("greeting", String::from("hello"))
        // GT0006: an app-scoped provider needs a request-scoped step value.
        .provider(
            ProviderFn::new("audit", move |needs| {
                let runs = provider_runs.clone();
                async move {
                    runs.0.fetch_add(1, Ordering::SeqCst);
                    Ok(format!("audit of {}", needs.get::<String>(0)?))
                }
            })
            .needs::<String>("user"),
        )
        .step(
            StepFn::new("user", move |_, _| {
                step_runs.0.fetch_add(1, Ordering::SeqCst);
                Ok(String::from("ada"))
            })
            .named("auth"),
        )
        // GT0001 from a step: `session` is provided by nothing.
        .step(
            StepFn::new("account", |_, _| Ok(1_u64))
                .needs::<Service>("session")
                .named("load_account"),
        )
        .step(Guard::new("require_admin", |_, _| Ok(())))
        // GT0001 from a route, with did-you-mean.
        .route(
            Route::post("/orders", handler)
                .needs::<Service>("billingApi")
                .named("Orders::create"),
        )
        // GT0007: a guard that does not exist, with did-you-mean.
        .route(Route::delete("/orders/{id}", handler).step("require_admn"))
        // GT0008: the same method and path twice.
        .route(Route::get("/health", handler))
        .route(Route::get("/health", handler))
        // GT0008: templates the router cannot tell apart.
        .route(Route::get("/users/{id}", handler))
        .route(Route::get("/users/{name}", handler))
        // GT0004: `greeting` is a String, not a number.
        .route(Route::get("/greeting", handler).needs::<u64>("greeting"))
}

fn build_error(builder: AppBuilder) -> BuildError {
    builder.build().expect_err("the graph is broken")
}

#[tokio::test]
async fn every_problem_is_reported_at_once_and_nothing_is_built() {
    let (log, built) = (Log::default(), Built::default());
    let error = build_error(broken(&log, &built));
    let codes: Vec<&str> = error.problems().iter().map(Problem::code).collect();
    assert_eq!(
        codes,
        [
            "GT0001", "GT0001", "GT0004", "GT0006", "GT0007", "GT0008", "GT0008"
        ],
        "{error}"
    );
    assert!(
        error
            .to_string()
            .ends_with("the graph has 7 problems; nothing was built"),
        "{error}"
    );
    assert!(
        log.events().is_empty(),
        "no provider was built: {:?}",
        log.events()
    );
    assert_eq!(
        built.count(),
        0,
        "no step ran and no provider fn was called"
    );
}

#[tokio::test]
async fn a_missing_key_names_the_route_or_step_that_needs_it() {
    let error = build_error(broken(&Log::default(), &Built::default()));
    let missing: Vec<(&str, &str, NodeKind)> = error
        .problems()
        .iter()
        .filter_map(|p| match p {
            Problem::MissingKey { key, needed_by, .. } => {
                let chain = &needed_by[0];
                Some((key.as_str(), chain[0].name.as_str(), chain[0].kind))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        missing,
        [
            (
                "billingApi",
                "POST /orders -> Orders::create",
                NodeKind::Route
            ),
            ("session", "load_account", NodeKind::Step),
        ]
    );
    let text = error.to_string();
    for expected in [
        "error[GT0001]: no provider for `billingApi`",
        "needed by route POST /orders -> Orders::create (tests/http/build_errors.rs:",
        "help: did you mean `billing_api`?",
        "error[GT0001]: no provider for `session`",
        "needed by step `load_account` (tests/http/build_errors.rs:",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[tokio::test]
async fn an_unknown_guard_suggests_the_closest_step() {
    let error = build_error(broken(&Log::default(), &Built::default()));
    let unknown = error
        .problems()
        .iter()
        .find_map(|p| match p {
            Problem::UnknownStep {
                step,
                route,
                suggestion,
            } => Some((step.as_str(), route.name.as_str(), suggestion.as_deref())),
            _ => None,
        })
        .expect("a GT0007");
    assert_eq!(
        unknown,
        ("require_admn", "DELETE /orders/{id}", Some("require_admin"))
    );
    let text = error.to_string();
    assert!(
        text.contains("error[GT0007]: route DELETE /orders/{id} (tests/http/build_errors.rs:"),
        "{text}"
    );
    assert!(
        text.contains("runs step `require_admn`, but there is no such step"),
        "{text}"
    );
    assert!(
        text.contains("help: did you mean `require_admin`?"),
        "{text}"
    );
}

#[tokio::test]
async fn conflicting_routes_are_reported_with_the_reason() {
    let error = build_error(broken(&Log::default(), &Built::default()));
    let conflicts: Vec<(&str, &str)> = error
        .problems()
        .iter()
        .filter_map(|p| match p {
            Problem::RouteConflict { route, reason } => {
                Some((route.name.as_str(), reason.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(conflicts.len(), 2, "{conflicts:?}");
    assert!(
        conflicts
            .iter()
            .any(|(route, reason)| *route == "GET /health"
                && reason.starts_with(
                    "GET /health is already routed to GET /health (tests/http/build_errors.rs:"
                )),
        "the first route is named with its location: {conflicts:?}"
    );
    let (route, reason) = conflicts
        .iter()
        .find(|(route, _)| route.starts_with("GET /users/"))
        .expect("the /users templates conflict");
    assert_eq!(*route, "GET /users/{name}", "the second one is refused");
    assert!(
        reason.contains("/users/{id}"),
        "names the existing template: {reason}"
    );
    assert!(error.problems().iter().all(|p| match p {
        Problem::RouteConflict { route, .. } => route.location.file().ends_with(FILE),
        _ => true,
    }));
}

#[tokio::test]
async fn a_provider_needing_a_step_value_is_a_scope_violation() {
    let error = build_error(broken(&Log::default(), &Built::default()));
    let violation = error
        .problems()
        .iter()
        .find_map(|p| match p {
            Problem::ScopeViolation {
                key,
                consumer,
                provider,
            } => Some((
                key.as_str(),
                consumer.name.as_str(),
                consumer.kind,
                provider.name.as_str(),
                provider.kind,
            )),
            _ => None,
        })
        .expect("a GT0006");
    assert_eq!(
        violation,
        ("user", "audit", NodeKind::Provider, "auth", NodeKind::Step)
    );
}

#[tokio::test]
async fn a_route_needing_the_wrong_type_names_both_types() {
    let error = build_error(broken(&Log::default(), &Built::default()));
    let mismatch = error
        .problems()
        .iter()
        .find_map(|p| match p {
            Problem::TypeMismatch {
                key,
                consumer,
                expected,
                provided,
                ..
            } => Some((
                key.as_str(),
                consumer.name.clone(),
                expected.short_name(),
                provided.short_name(),
            )),
            _ => None,
        })
        .expect("a GT0004");
    assert_eq!(
        mismatch,
        (
            "greeting",
            "GET /greeting".to_owned(),
            "u64".to_owned(),
            "String".to_owned()
        )
    );
    assert!(
        error
            .to_string()
            .contains("error[GT0004]: `greeting` has type `String`, but route GET /greeting"),
        "{error}"
    );
}

#[tokio::test]
async fn a_fixed_graph_builds() {
    // The same app with every mistake removed builds, so each problem above is the mistake's.
    let app = App::builder()
        .provider(Probe::new("billingApi", &[], &Log::default()))
        .step(Guard::new("require_admin", |_, _| {
            Err(HttpError::forbidden("no"))
        }))
        .route(Route::post("/orders", handler).needs::<Service>("billingApi"))
        .route(Route::delete("/orders/{id}", handler).step("require_admin"))
        .route(Route::get("/health", handler))
        .route(Route::get("/users/{id}", handler))
        .build();
    assert!(app.is_ok(), "{}", app.unwrap_err());
}
