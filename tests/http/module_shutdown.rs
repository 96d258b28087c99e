//! Modules in an app and their `on_shutdown` hooks: what a module registers joins the graph
//! (its routes under its prefix); its hooks run after requests drain, last registered first (a
//! sub-module's before its parent's), before providers are disposed; failures stop nothing
//! else; and a module an app must serve is refused by a bare `Container` (GT0015).

use crate::support;

use std::time::Duration;

use green_tea::error::{ClosePart, FailureCause, Problem};
use green_tea::extract::RequestContext;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use support::http::{Gate, until, within};
use support::{Log, Probe, Service};

/// Brings the `greeter` provider (exported) and `GET /greet`, which needs it, and logs
/// `shutdown greeter` on close.
fn greeter(log: &Log) -> Module {
    let hook_log = log.clone();
    Module::new("greeter")
        .provider(Probe::new("greeter", &[], log))
        .route(
            Route::get("/greet", |request: RequestContext| async move {
                let greeter = request.need::<Service>(0)?;
                Ok::<_, HttpError>(format!("hello from {}", greeter.name))
            })
            .needs::<Service>("greeter"),
        )
        .on_shutdown(move || async move {
            hook_log.push("shutdown greeter");
            Ok(())
        })
        .export("greeter")
}

#[derive(Clone, Copy)]
enum OnShutdown {
    Succeed,
    Fail,
    Panic,
    Hang,
}

/// A module that brings nothing but a hook, which logs `shutdown <name>` when it starts.
fn hook(name: &'static str, log: &Log, on_shutdown: OnShutdown) -> Module {
    let log = log.clone();
    Module::new(name).on_shutdown(move || async move {
        log.push(format!("shutdown {name}"));
        match on_shutdown {
            OnShutdown::Succeed => Ok(()),
            OnShutdown::Fail => Err(format!("{name} could not flush").into()),
            OnShutdown::Panic => panic!("{name} panicked in on_shutdown"),
            OnShutdown::Hang => std::future::pending().await,
        }
    })
}

#[tokio::test]
async fn a_module_adds_a_provider_and_a_route_to_the_graph() {
    let log = Log::default();
    let app = App::builder()
        .module(greeter(&log))
        // The app's own route may need what the module exports: it is one graph.
        .route(
            Route::get("/also", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<Service>(0)?.name.clone())
            })
            .needs::<Service>("greeter::greeter"),
        )
        .build()
        .expect("a valid graph");
    let providers: Vec<(String, Option<String>)> = app.explain("/greet").unwrap().routes[0]
        .providers
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.module.clone()))
        .collect();
    assert_eq!(
        providers,
        [("greeter".to_owned(), Some("greeter".to_owned()))]
    );

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
async fn a_route_needing_what_nobody_provides_fails_the_build() {
    let error = App::builder()
        .module(greeter(&Log::default()))
        .route(
            Route::get("/x", |_: RequestContext| async { "x" }).needs::<Service>("greeter::greter"),
        )
        .build()
        .expect_err("`greter` is a typo");
    assert!(
        error
            .to_string()
            .contains("did you mean `greeter::greeter`?"),
        "{error}"
    );
}

#[tokio::test]
async fn a_modules_routes_are_served_under_its_prefix() {
    let orders = Module::new("orders")
        .route(Route::get("/", |_: RequestContext| async { "all orders" }))
        .route(Route::get("/{id}", |request: RequestContext| async move {
            format!("one order at {}", request.parts().uri.path())
        }))
        .prefix("/orders");
    let client = TestClient::new(App::builder().module(orders).build().unwrap());
    let all = client.get("/orders").send().await;
    assert_eq!(
        (all.status().as_u16(), all.text()),
        (200, "all orders".to_owned())
    );
    assert_eq!(
        client.get("/orders/7").send().await.text(),
        "one order at /orders/7"
    );
    assert_eq!(client.get("/").send().await.status(), 404);
    assert_eq!(client.get("/7").send().await.status(), 404);
}

#[tokio::test]
async fn hooks_run_after_the_drain_last_first_and_before_dispose() {
    let (log, gate) = (Log::default(), Gate::new());
    let handler_gate = gate.clone();
    let handler_log = log.clone();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .module(hook("first", &log, OnShutdown::Succeed))
        .module(hook("second", &log, OnShutdown::Succeed))
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
async fn a_sub_modules_hook_runs_before_its_parents() {
    let log = Log::default();
    let parent_log = log.clone();
    // The parent's own hook is added after its sub-module, and still runs after it.
    let shop = Module::new("shop")
        .module(hook("orders", &log, OnShutdown::Succeed))
        .module(hook("billing", &log, OnShutdown::Succeed))
        .on_shutdown(move || async move {
            parent_log.push("shutdown shop");
            Ok(())
        });
    let app = App::builder()
        .module(hook("first", &log, OnShutdown::Succeed))
        .module(shop)
        .build()
        .unwrap();
    app.close().await.unwrap();
    assert_eq!(
        log.names("shutdown"),
        ["billing", "orders", "shop", "first"],
        "last registered first, each sub-module before its parent"
    );
}

#[tokio::test]
async fn failing_panicking_and_hanging_hooks_are_reported_and_stop_nothing() {
    let log = Log::default();
    let timeout = Duration::from_millis(100);
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .dispose_timeout(timeout)
        .module(hook("fine-first", &log, OnShutdown::Succeed))
        .module(hook("errs", &log, OnShutdown::Fail))
        .module(Module::new("outer").module(hook("panics", &log, OnShutdown::Panic)))
        .module(hook("hangs", &log, OnShutdown::Hang))
        .module(hook("fine-last", &log, OnShutdown::Succeed))
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
            (ClosePart::Module { module }, cause) => (module.clone(), cause.to_string()),
            (part, _) => panic!("only modules' hooks failed, not {part}"),
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
                "outer::panics".to_owned(),
                "panicked: panics panicked in on_shutdown".to_owned()
            ),
            ("errs".to_owned(), "errs could not flush".to_owned()),
        ],
        "in the order they ran, last registered first, each named by its module's path"
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
        text.contains("module `errs` on_shutdown: errs could not flush"),
        "{text}"
    );

    let again = app.close().await.expect_err("the same outcome");
    assert_eq!(again.failures.len(), 3);
}

#[test]
fn a_module_an_app_must_serve_is_refused_by_a_bare_container() {
    let shop = Module::new("shop").module(
        Module::new("orders")
            .route(Route::get("/", |_: RequestContext| async { "all orders" }))
            .prefix("/orders"),
    );
    let hooked = hook("flusher", &Log::default(), OnShutdown::Succeed);
    let err = Container::builder()
        .module(shop)
        .module(hooked)
        .build()
        .unwrap_err();
    let refused: Vec<(&str, &str, &str)> = err
        .problems()
        .iter()
        .map(|p| match p {
            Problem::ModuleShape { module, reason, .. } => {
                (p.code(), module.as_str(), reason.as_str())
            }
            other => panic!("only the modules are refused, not {other:?}"),
        })
        .collect();
    let holds = |what: &str| {
        format!(
            "holds {what}, which only an app serves: register it with `App::builder().module(..)`, \
             not on a `Container`"
        )
    };
    assert_eq!(
        refused,
        [
            ("GT0015", "flusher", holds("1 shutdown hook").as_str()),
            ("GT0015", "shop::orders", holds("1 route").as_str()),
        ],
        "{err}"
    );
}
