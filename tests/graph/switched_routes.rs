//! Steps and routes under conditions: a route is served only in the shapes where its
//! conditions hold (elsewhere its path answers as if it were never registered), two routes of
//! one method and path are alternatives when no shape serves both, a step provides only where
//! it is on, a guard must be on wherever its route is served, and a module that is off serves
//! nothing and runs no shutdown hook. Every shape is checked whatever today's is.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use green_tea::extract::RequestContext;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::settings::Sources;
use green_tea::steps::{Guard, StepFn};
use green_tea::test::TestClient;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

#[derive(Settings)]
#[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
struct ShopSettings {
    #[settings(default = "false")]
    debug: bool,
}

fn shop(debug: bool) -> AppBuilder {
    let debug = if debug { "true" } else { "false" };
    App::builder()
        .settings(Sources::from_env_map([("SHOP_DEBUG", debug)]))
        .provider(ShopSettings::provider())
        .switch(Switch::new("debugOn", |s: &ShopSettings| s.debug).reads("debug"))
}

fn text(body: &'static str) -> impl Fn(RequestContext) -> std::future::Ready<&'static str> {
    move |_| std::future::ready(body)
}

/// The text a route that needs `viewer` (a `String` a step provides) answers with.
fn whoami() -> Route {
    Route::get("/whoami", |ctx: RequestContext| async move {
        ctx.need::<String>(0).map(|v| v.to_string())
    })
    .needs::<String>("viewer")
}

#[tokio::test]
async fn a_route_under_a_condition_is_served_only_where_it_holds() {
    for debug in [true, false] {
        let app = shop(debug)
            .route(Route::get("/", text("shop")))
            .route(Route::get("/debug", text("state")).when("debugOn"))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let response = client.get("/debug").send().await;
        match debug {
            true => assert_eq!(response.text(), "state"),
            // As if it were never registered: the JSON 404, not a 405.
            false => {
                assert_eq!(response.status(), 404);
                assert_eq!(
                    response.json::<serde_json::Value>()["error"],
                    "no route for GET /debug"
                );
            }
        }
        assert_eq!(client.get("/").send().await.text(), "shop");
        // explain: a route that is off is not among the routes, and is in the off list.
        let explain = app.explain_all();
        let served: Vec<String> = (explain.paths.iter())
            .flat_map(|p| &p.routes)
            .map(|r| format!("{} {}", r.method, r.template))
            .collect();
        assert_eq!(
            served.contains(&"GET /debug".to_owned()),
            debug,
            "{served:?}"
        );
        assert_eq!(app.explain("/debug").is_ok(), debug);
        let switches = explain.switches;
        let off: Vec<String> = switches.off.iter().map(|o| o.name.clone()).collect();
        match debug {
            true => assert!(off.is_empty(), "{off:?}"),
            false => assert_eq!(off, ["route `GET /debug`"]),
        }
        if !debug {
            assert_eq!(switches.off[0].on, "when `debugOn` = true");
            let text = switches.to_string();
            assert!(
                text.contains("route `GET /debug`: on when `debugOn` = true"),
                "{text}"
            );
        }
        app.close().await.unwrap();
    }
}

#[tokio::test]
async fn two_routes_of_one_method_and_path_under_exclusive_outcomes_are_alternatives() {
    for (debug, body) in [(true, "with traces"), (false, "plain")] {
        let app = shop(debug)
            .when("debugOn", |on| {
                on.route(Route::get("/orders", text("with traces")))
            })
            .when("!debugOn", |off| {
                off.route(Route::get("/orders", text("plain")))
            })
            // Templates the router cannot tell apart, in shapes that exclude each other.
            .route(Route::get("/items/{id}", text("by id")).when("debugOn"))
            .route(Route::get("/items/{name}", text("by name")).when("!debugOn"))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        assert_eq!(client.get("/orders").send().await.text(), body);
        let item = client.get("/items/7").send().await.text();
        assert_eq!(item, if debug { "by id" } else { "by name" });
        app.close().await.unwrap();
    }
}

#[test]
fn two_routes_of_one_method_and_path_that_one_shape_serves_together_conflict_there() {
    // Whatever today's shape is, the conflict of the other one is reported.
    for debug in [true, false] {
        let err = shop(debug)
            .route(Route::get("/orders", text("always")))
            .route(Route::get("/orders", text("debug")).when("debugOn"))
            .build()
            .unwrap_err();
        assert_eq!(err.problems().len(), 1, "{err}");
        assert_eq!(err.problems()[0].code(), "GT0008");
        let text = err.to_string();
        assert!(
            text.starts_with("error[GT0008]: when `debugOn` = true: "),
            "{text}"
        );
        assert!(text.contains("GET /orders is already routed to"), "{text}");
    }
    // Templates the router cannot tell apart, where both are served.
    let err = shop(false)
        .route(Route::get("/items/{id}", text("by id")))
        .route(Route::get("/items/{name}", text("by name")).when("debugOn"))
        .build()
        .unwrap_err();
    assert_eq!(err.problems()[0].code(), "GT0008");
    assert!(
        err.to_string()
            .starts_with("error[GT0008]: when `debugOn` = true: "),
        "{err}"
    );
    // Three of one path: the third is checked against both before it.
    let err = shop(true)
        .route(Route::get("/orders", text("a")).when("debugOn"))
        .route(Route::get("/orders", text("b")).when("!debugOn"))
        .route(Route::get("/orders", text("c")).when("!debugOn"))
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 1, "{err}");
    assert!(
        err.to_string()
            .starts_with("error[GT0008]: when `debugOn` = false: "),
        "{err}"
    );
}

#[tokio::test]
async fn a_step_under_a_condition_provides_only_where_it_is_on() {
    for (debug, body) in [(true, "a debugger"), (false, "a shopper")] {
        let app = shop(debug)
            .when("debugOn", |on| {
                on.step(StepFn::new("viewer", |_, _| Ok(String::from("a debugger"))))
            })
            .step(StepFn::new("viewer", |_, _| Ok(String::from("a shopper"))).when("!debugOn"))
            .route(whoami())
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        assert_eq!(client.get("/whoami").send().await.text(), body);
        // The route's chain shows today's step only.
        let explain = app.explain("/whoami").unwrap();
        let steps: Vec<&str> = explain.routes[0]
            .steps
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(steps, ["viewer"]);
        app.close().await.unwrap();
    }
}

#[test]
fn a_route_that_needs_what_a_step_provides_only_in_some_shapes_is_reported_whatever_today_is() {
    for debug in [true, false] {
        let err = shop(debug)
            .step(StepFn::new("viewer", |_, _| Ok(String::from("a debugger"))).when("debugOn"))
            .route(whoami())
            .build()
            .unwrap_err();
        assert_eq!(err.problems().len(), 1, "{err}");
        assert_eq!(err.problems()[0].code(), "GT0001");
        let text = err.to_string();
        assert!(
            text.starts_with("error[GT0001]: when `debugOn` = false, route GET /whoami"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn an_optional_need_of_a_step_that_is_off_reads_none() {
    for (debug, body) in [(true, "traced"), (false, "untraced")] {
        let app = shop(debug)
            .step(StepFn::new("trace", |_, _| Ok(String::from("traced"))).when("debugOn"))
            .route(
                Route::get("/", |ctx: RequestContext| async move {
                    match ctx.need_optional::<String>(0) {
                        Ok(Some(trace)) => trace.to_string(),
                        _ => "untraced".to_owned(),
                    }
                })
                .needs::<String>("trace?"),
            )
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        assert_eq!(client.get("/").send().await.text(), body);
        if !debug {
            // explain says why the need is absent.
            let explain = app.explain("/").unwrap();
            assert_eq!(
                explain.routes[0].off,
                [("trace?".to_owned(), "when `debugOn` = true".to_owned())]
            );
        }
        app.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_guard_must_be_on_wherever_its_route_is_served() {
    let admin_only = || {
        Guard::new("adminOnly", |parts, _| match parts.headers.get("x-role") {
            Some(role) if role == "admin" => Ok(()),
            _ => Err(HttpError::forbidden("admins only")),
        })
    };
    let admin = || Route::get("/admin", text("the back office")).step("adminOnly");
    for debug in [true, false] {
        let err = shop(debug)
            .step(admin_only().when("debugOn"))
            .route(admin())
            .build()
            .unwrap_err();
        assert_eq!(err.problems().len(), 1, "{err}");
        assert_eq!(err.problems()[0].code(), "GT0007");
        let text = err.to_string();
        assert!(
            text.starts_with("error[GT0007]: when `debugOn` = false, route GET /admin ("),
            "{text}"
        );
        assert!(
            text.contains(
                ") runs step `adminOnly`, which is off there\n  help: put the route under the \
                 step's condition too"
            ),
            "{text}"
        );
    }
    // Both under the condition: served, and guarded, only there.
    for debug in [true, false] {
        let app = shop(debug)
            .when("debugOn", |on| on.step(admin_only()).route(admin()))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let status = client.get("/admin").send().await.status();
        assert_eq!(status, if debug { 403 } else { 404 });
        app.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_module_s_steps_and_routes_follow_its_conditions_and_an_off_module_runs_no_hook() {
    for debug in [true, false] {
        let hook_ran = Arc::new(AtomicBool::new(false));
        let ran = Arc::clone(&hook_ran);
        let tools = Module::new("tools")
            .prefix("/tools")
            .route(Route::get("/", text("tools")))
            .on_shutdown(move || async move {
                ran.store(true, Ordering::SeqCst);
                Ok(())
            });
        let orders = Module::new("orders")
            .prefix("/orders")
            .route(Route::get("/", text("orders")))
            .when("debugOn", |m| {
                m.step(StepFn::new("viewer", |_, _| Ok(String::from("a debugger"))))
                    .route(whoami())
            });
        let app = shop(debug)
            .when("debugOn", |on| on.module(tools))
            .module(orders)
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let expect = |status: u16| if debug { status } else { 404 };
        assert_eq!(client.get("/tools").send().await.status(), expect(200));
        assert_eq!(client.get("/orders").send().await.status(), 200);
        assert_eq!(
            client.get("/orders/whoami").send().await.status(),
            expect(200)
        );
        // explain_module lists what of it is off, with where it is on.
        let orders = app.explain_module("orders").unwrap();
        let off: Vec<&str> = orders
            .switched_off
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        match debug {
            true => assert!(off.is_empty(), "{off:?}"),
            false => assert_eq!(off, ["step `orders::viewer`", "route `GET /orders/whoami`"]),
        }
        app.close().await.unwrap();
        assert_eq!(hook_ran.load(Ordering::SeqCst), debug);
    }
}

#[tokio::test]
async fn a_fallback_under_a_condition_answers_only_where_it_holds() {
    for debug in [true, false] {
        let app = shop(debug)
            .route(Route::get("/", text("shop")))
            .when("debugOn", |on| {
                on.fallback(Route::fallback(|ctx: RequestContext| async move {
                    format!("nothing at {}", ctx.parts().uri.path())
                }))
            })
            .build()
            .unwrap();
        let response = TestClient::new(app.clone()).get("/nowhere").send().await;
        match debug {
            true => assert_eq!(response.text(), "nothing at /nowhere"),
            false => assert_eq!(response.status(), 404),
        }
        app.close().await.unwrap();
    }
}

#[test]
fn a_mounted_service_or_an_app_layer_under_a_condition_is_refused() {
    let err = shop(true)
        .when("debugOn", |on| {
            on.nest_service("/static", ServeDir::new("public")).layer(
                SetResponseHeaderLayer::overriding(
                    http::header::SERVER,
                    http::HeaderValue::from_static("green-tea"),
                ),
            )
        })
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(|p| p.code()).collect();
    assert_eq!(codes, ["GT0023", "GT0023"], "{err}");
    let text = err.to_string();
    assert!(
        text.contains("the condition `debugOn` (tests/graph/switched_routes.rs:"),
        "{text}"
    );
    assert!(
        text.contains(
            "covers a mounted service: mounted services and app layers are the app's in every \
             shape; put the routes they are for under the condition instead"
        ),
        "{text}"
    );
    assert!(text.contains("covers an app layer: "), "{text}");
}
