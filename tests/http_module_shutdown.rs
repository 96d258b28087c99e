//! Plugins: what they register joins the graph; their `on_shutdown` runs after requests drain,
//! last registered first, before providers are disposed, and failures stop nothing else.

mod support;

use std::borrow::Cow;
use std::time::Duration;

use green_tea::BoxError;
use green_tea::error::{ClosePart, FailureCause};
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, AppBuilder, HttpError, Plugin};
use support::http::{Gate, until, within};
use support::{Log, Probe, Service};

/// Brings the `greeter` provider and `GET /greet`, which needs it.
struct Greeter {
    log: Log,
}

impl Plugin for Greeter {
    fn name(&self) -> Cow<'static, str> {
        "greeter".into()
    }

    fn register(&self, app: AppBuilder) -> AppBuilder {
        app.provider(Probe::new("greeter", &[], &self.log)).route(
            Route::get("/greet", |request: RequestContext| async move {
                let greeter = request.need::<Service>(0)?;
                Ok::<_, HttpError>(format!("hello from {}", greeter.name))
            })
            .needs::<Service>("greeter"),
        )
    }

    async fn on_shutdown(&self) -> Result<(), BoxError> {
        self.log.push("shutdown greeter");
        Ok(())
    }
}

enum OnShutdown {
    Succeed,
    Fail,
    Panic,
    Hang,
}

/// A plugin that brings nothing and logs `shutdown <name>` when its hook starts.
struct Hook {
    name: &'static str,
    log: Log,
    on_shutdown: OnShutdown,
}

impl Hook {
    fn new(name: &'static str, log: &Log, on_shutdown: OnShutdown) -> Self {
        Hook {
            name,
            log: log.clone(),
            on_shutdown,
        }
    }
}

impl Plugin for Hook {
    fn name(&self) -> Cow<'static, str> {
        self.name.into()
    }

    fn register(&self, app: AppBuilder) -> AppBuilder {
        app
    }

    async fn on_shutdown(&self) -> Result<(), BoxError> {
        self.log.push(format!("shutdown {}", self.name));
        match self.on_shutdown {
            OnShutdown::Succeed => Ok(()),
            OnShutdown::Fail => Err(format!("{} could not flush", self.name).into()),
            OnShutdown::Panic => panic!("{} panicked in on_shutdown", self.name),
            OnShutdown::Hang => std::future::pending().await,
        }
    }
}

#[tokio::test]
async fn a_plugin_adds_a_provider_and_a_route_to_the_graph() {
    let log = Log::default();
    let app = App::builder()
        .plugin(Greeter { log: log.clone() })
        // The app's own route may need what the plugin provides: it is one graph.
        .route(
            Route::get("/also", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<Service>(0)?.name.clone())
            })
            .needs::<Service>("greeter"),
        )
        .build()
        .expect("a valid graph");
    let providers: Vec<String> = app.explain("/greet").unwrap().routes[0]
        .providers
        .nodes
        .iter()
        .map(|n| n.name.clone())
        .collect();
    assert_eq!(providers, ["greeter"]);

    let client = TestClient::new(app.clone());
    let greeted = client.get("/greet").send().await;
    assert_eq!(
        (greeted.status().as_u16(), greeted.text()),
        (200, "hello from greeter".to_owned())
    );
    assert_eq!(client.get("/also").send().await.text(), "greeter");
    app.close().await.unwrap();
    assert_eq!(
        log.events(),
        ["provide greeter", "shutdown greeter", "dispose greeter"],
        "built once; on_shutdown before dispose"
    );
}

#[tokio::test]
async fn a_plugin_needing_what_nobody_provides_fails_the_build() {
    let error = App::builder()
        .plugin(Greeter {
            log: Log::default(),
        })
        .route(Route::get("/x", |_: RequestContext| async { "x" }).needs::<Service>("greter"))
        .build()
        .expect_err("`greter` is a typo");
    assert!(
        error.to_string().contains("did you mean `greeter`?"),
        "{error}"
    );
}

#[tokio::test]
async fn hooks_run_after_the_drain_last_first_and_before_dispose() {
    let (log, gate) = (Log::default(), Gate::new());
    let handler_gate = gate.clone();
    let handler_log = log.clone();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .plugin(Hook::new("first", &log, OnShutdown::Succeed))
        .plugin(Hook::new("second", &log, OnShutdown::Succeed))
        .route(
            Route::get("/slow", move |request: RequestContext| {
                let (gate, log) = (handler_gate.clone(), handler_log.clone());
                async move {
                    let _db = request.need::<Service>(0)?;
                    log.push("request entered");
                    gate.pass().await;
                    log.push("request done");
                    Ok::<_, HttpError>("done")
                }
            })
            .needs::<Service>("db"),
        )
        .build()
        .unwrap();

    let slow = tokio::spawn(TestClient::new(app.clone()).get("/slow").send());
    until("the request is in its handler", || {
        log.events().contains(&"request entered".to_owned())
    })
    .await;
    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    until("close() has begun", || app.is_closed()).await;
    assert!(
        log.names("shutdown").is_empty(),
        "no hook runs while a request is in flight: {:?}",
        log.events()
    );

    gate.open();
    assert_eq!(within("GET /slow", slow).await.unwrap().status(), 200);
    within("close()", closing)
        .await
        .unwrap()
        .expect("a clean close");
    assert_eq!(
        log.events(),
        [
            "provide db",
            "request entered",
            "request done",
            "shutdown second",
            "shutdown first",
            "dispose db"
        ]
    );
}

#[tokio::test]
async fn failing_panicking_and_hanging_hooks_are_reported_and_stop_nothing() {
    let log = Log::default();
    let timeout = Duration::from_millis(100);
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .dispose_timeout(timeout)
        .plugin(Hook::new("fine-first", &log, OnShutdown::Succeed))
        .plugin(Hook::new("errs", &log, OnShutdown::Fail))
        .plugin(Hook::new("panics", &log, OnShutdown::Panic))
        .plugin(Hook::new("hangs", &log, OnShutdown::Hang))
        .plugin(Hook::new("fine-last", &log, OnShutdown::Succeed))
        .build()
        .unwrap();
    app.get::<Service>("db").await.unwrap();

    let error = within("close()", app.close())
        .await
        .expect_err("three hooks failed");
    let failures: Vec<(String, String)> = error
        .failures
        .iter()
        .map(|f| match (&f.part, &f.cause) {
            (ClosePart::Plugin { name }, cause) => (name.clone(), cause.to_string()),
            (part, _) => panic!("only plugins failed, not {part}"),
        })
        .collect();
    assert_eq!(
        failures,
        [
            (
                "hangs".to_owned(),
                format!("did not finish within {timeout:?}")
            ),
            (
                "panics".to_owned(),
                "panicked: panics panicked in on_shutdown".to_owned()
            ),
            ("errs".to_owned(), "errs could not flush".to_owned()),
        ],
        "in the order they ran: last registered first"
    );
    assert!(matches!(
        error.failures[0].cause,
        FailureCause::TimedOut(t) if t == timeout
    ));
    assert_eq!(
        log.events(),
        [
            "provide db",
            "shutdown fine-last",
            "shutdown hangs",
            "shutdown panics",
            "shutdown errs",
            "shutdown fine-first",
            "dispose db"
        ],
        "every hook ran and the provider was still disposed"
    );
    let text = error.to_string();
    assert!(
        text.contains("plugin `errs` on_shutdown: errs could not flush"),
        "{text}"
    );

    let again = app.close().await.expect_err("the same outcome");
    assert_eq!(again.failures.len(), 3);
}
