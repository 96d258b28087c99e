//! What a newcomer meets first when something is wrong: each mistake reported once, the right
//! way round, readable from `main`, and an app that finds nothing saying so.

mod support;

use std::sync::Arc;

use green_tea::Warning;
use green_tea::error::Problem;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use support::logs::Logs;

trait Clock: Send + Sync {
    fn now(&self) -> u64;
}

struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        7
    }
}

#[provider(provides = "clock")]
fn clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

struct Time;

#[route("/time")]
impl Time {
    #[get("/")]
    async fn now(#[needs("clock")] clock: &Arc<dyn Clock>) -> String {
        clock.now().to_string()
    }
}

#[test]
fn an_override_of_the_wrong_type_is_one_problem_that_says_how_to_coerce() {
    let err = App::builder()
        .provider(clock::provider())
        .routes(Time::routes())
        .override_value("clock", Arc::new(SystemClock))
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 1, "{err}");
    assert!(matches!(
        &err.problems()[0],
        Problem::OverrideTypeMismatch { key, .. } if key.as_str() == "clock"
    ));
    let text = err.to_string();
    assert!(
        text.contains(
            "provides `clock` as `Arc<SystemClock>`, but `clock` has type `Arc<dyn Clock>`"
        ),
        "{text}"
    );
    assert!(
        text.contains("coerce the value with `as Arc<dyn Clock>`"),
        "{text}"
    );

    // Done as the help says, it builds.
    let app = App::builder()
        .provider(clock::provider())
        .routes(Time::routes())
        .override_value("clock", Arc::new(SystemClock) as Arc<dyn Clock>)
        .build();
    assert!(app.is_ok());
}

struct User(String);

/// Declared, but the app below forgets to register it.
#[step(provides = "user")]
fn user(parts: &Parts) -> User {
    User(parts.uri.path().to_owned())
}

struct Todos;

#[route("/todos")]
impl Todos {
    #[get("/")]
    async fn list(#[needs("user")] user: &User) -> String {
        user.0.clone()
    }

    #[post("/")]
    async fn create(#[needs("user")] user: &User) -> String {
        user.0.clone()
    }
}

#[test]
fn a_step_declared_but_not_registered_is_one_problem_that_says_so() {
    let err = App::builder().routes(Todos::routes()).build().unwrap_err();
    assert_eq!(err.problems().len(), 1, "{err}");
    let Problem::MissingKey {
        needed_by,
        unregistered,
        ..
    } = &err.problems()[0]
    else {
        panic!("{err}")
    };
    assert_eq!(needed_by.len(), 2, "both routes: {err}");
    let unregistered = unregistered.as_ref().expect("the declaration is known");
    assert_eq!(unregistered.declared.name, "user");
    assert_eq!(unregistered.register, ".step(user::step())");
    let text = err.to_string();
    assert!(
        text.contains("needed by route GET /todos -> Todos::list (tests/graph_diagnostics.rs:"),
        "{text}"
    );
    assert!(
        text.contains("needed by route POST /todos -> Todos::create (tests/graph_diagnostics.rs:"),
        "{text}"
    );
    assert!(
        text.contains("help: step `user` (tests/graph_diagnostics.rs:")
            && text.contains(
                "provides `user`, but it is not registered: register it with `.step(user::step())`"
            ),
        "{text}"
    );

    // Registered as the help says, it builds.
    assert!(
        App::builder()
            .step(user::step())
            .routes(Todos::routes())
            .build()
            .is_ok()
    );
}

#[test]
fn errors_print_as_their_report_from_main() {
    let err = App::builder().routes(Todos::routes()).build().unwrap_err();
    // `fn main() -> Result<(), E>` prints `Error: {:?}`.
    assert_eq!(format!("{err:?}"), err.to_string());
    let err = green_tea::Error::from(err);
    assert_eq!(format!("{err:?}"), err.to_string());
    assert!(format!("{err:?}").starts_with("error[GT0001]: no provider for `user`"));
    assert!(!format!("{err:?}").contains("BuildError {"));
    let closed = green_tea::ProvideError::Closed;
    assert_eq!(format!("{closed:?}"), closed.to_string());
}

#[tokio::test]
async fn discovery_that_finds_nothing_and_an_app_without_routes_warn() {
    let (logs, capturing) = Logs::start_at(tracing::Level::WARN);
    let app = App::builder()
        .discover_in(&["nothing::declared::here"])
        .build()
        .unwrap();
    drop(capturing);
    let logged = logs.text();
    assert!(
        logged.contains("WARN")
            && logged.contains(
                "discover() found no #[provider], #[decorator], #[worker], #[step], #[route] or #[derive(Settings)] in nothing::declared::here"
            )
            && logged.contains("the app has no routes, so every request is answered 404"),
        "{logged}"
    );
    assert_eq!(
        app.warnings(),
        [
            Warning::DiscoveredNothing {
                modules: Some(vec!["nothing::declared::here".to_owned()])
            },
            Warning::NoRoutes,
        ]
    );
    let text = app.warnings()[0].to_string();
    assert!(text.contains("use my_lib as _;"), "{text}");
    let no_route = app.explain("/todos").unwrap_err();
    assert!(
        no_route
            .to_string()
            .contains("the app has no routes at all"),
        "{no_route}"
    );
    let response = TestClient::new(app.clone()).get("/todos").send().await;
    assert_eq!(response.status(), 404);
    app.close().await.unwrap();
}

#[test]
fn an_app_that_discovers_its_declarations_does_not_warn() {
    let app = App::builder()
        .discover_in(&[module_path!()])
        .build()
        .unwrap();
    assert!(app.warnings().is_empty(), "{:?}", app.warnings());
    assert!(app.explain("/todos").is_ok());
}

/// The page of `code`, as the guide includes it: `docs/errors/<code>.md`, in `src/lib.rs`'s
/// `guide::errors`, and in the codes' table of `docs/errors/README.md`.
fn assert_has_a_page(code: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let page = std::fs::read_to_string(format!("{root}/docs/errors/{code}.md"))
        .unwrap_or_else(|e| panic!("docs/errors/{code}.md: {e}"));
    assert!(page.starts_with(&format!("# {code}: ")), "{code}'s page");
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    assert!(
        lib.contains(&format!(
            "#[doc = include_str!(\"../docs/errors/{code}.md\")]\n        pub mod {} {{}}",
            code.to_lowercase()
        )),
        "src/lib.rs includes {code}'s page"
    );
    let readme = std::fs::read_to_string(format!("{root}/docs/errors/README.md")).unwrap();
    assert!(
        readme.contains(&format!(
            "| [{code}](crate::guide::errors::{}) |",
            code.to_lowercase()
        )),
        "docs/errors/README.md lists {code}"
    );
}

/// Its `Display` starts with `error[<code>]: `, as a build problem's does.
fn assert_coded(code: &str, error: &dyn std::error::Error) {
    let text = error.to_string();
    assert!(text.starts_with(&format!("error[{code}]: ")), "{text}");
    assert_has_a_page(code);
}

#[tokio::test]
async fn every_error_a_call_on_the_app_can_meet_has_a_code_and_a_page() {
    let app = App::builder()
        .value("billingApi", 1_u32)
        .worker(green_tea::workers::WorkerFn::new("sweeper", |_, _| async {
            Ok(())
        }))
        .module(Module::new("orders").value("db", 2_u32))
        .provider(
            green_tea::ProviderFn::new("greeting", |needs| async move {
                Ok(format!("hello, {}", needs.get::<u32>(1)?))
            })
            .needs::<u32>("billingApi"),
        )
        .build()
        .unwrap();

    let unknown = app.get::<u32>("billing_api").await.unwrap_err();
    assert_eq!(unknown.code(), Some("GT0101"));
    assert_coded("GT0101", &unknown);
    let wrong = app.get::<String>("billingApi").await.unwrap_err();
    assert_eq!(wrong.code(), Some("GT0102"));
    assert_coded("GT0102", &wrong);

    // A need read past the declared ones: the provider fails (no code of its own), and its
    // cause is the need's error, with its code.
    let failed = app.get::<String>("greeting").await.unwrap_err();
    assert_eq!(failed.code(), None);
    let ProvideError::Failed {
        cause: green_tea::error::FailureCause::Error(cause),
        ..
    } = &failed
    else {
        panic!("{failed}");
    };
    let need = cause
        .downcast_ref::<green_tea::NeedError>()
        .expect("the need's error");
    assert_eq!(need.code(), "GT0105");
    assert_coded("GT0105", need);
    assert!(
        failed.to_string().starts_with(
            "provider `greeting` failed: error[GT0105]: need #1 was asked for, but only 1 needs \
             are declared"
        ),
        "{failed}"
    );

    let worker = app.explain_worker("sweper").unwrap_err();
    assert_eq!(worker.code(), "GT0104");
    assert_coded("GT0104", &worker);
    let module = app.explain_module("order").unwrap_err();
    assert_eq!(module.code(), "GT0104");
    assert_coded("GT0104", &module);
    let path = app.explain("/orders").unwrap_err();
    assert_eq!(path.code(), "GT0104");
    assert_coded("GT0104", &path);

    app.close().await.unwrap();
    let closed = app.get::<u32>("billingApi").await.unwrap_err();
    assert_eq!(closed.code(), Some("GT0103"));
    assert_coded("GT0103", &closed);
}

#[test]
fn every_page_of_docs_errors_is_listed_and_included() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors");
    let mut codes: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter_map(|name| name.strip_suffix(".md").map(str::to_owned))
        .filter(|name| name.starts_with("GT"))
        .collect();
    codes.sort();
    assert!(codes.len() > 25, "{codes:?}");
    for code in &codes {
        assert_has_a_page(code);
    }
}
