//! Modules in an app: steps and routes in a module, its routes under a prefix, guards and
//! needs resolved inside it first, private step values, one module mounted twice, a module's
//! contributions to the app's collections, and its own discovery.

use green_tea::ProviderFn;
use green_tea::error::Problem;
use green_tea::prelude::*;
use green_tea::steps::{Guard, StepFn};
use green_tea::test::TestClient;

fn codes(err: &BuildError) -> Vec<&'static str> {
    err.problems().iter().map(Problem::code).collect()
}

/// An area with a private client, a step that reads the caller, and a route over both.
fn orders() -> Module {
    Module::new("orders")
        .value("http", String::from("the orders' client"))
        .step(StepFn::new("caller", |parts, _| {
            Ok::<_, HttpError>(
                parts
                    .headers
                    .get("x-caller")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("nobody")
                    .to_owned(),
            )
        }))
        .route(
            Route::get("/{id}", |request: RequestContext| async move {
                let http = request.need::<String>(0)?;
                let caller = request.need::<String>(1)?;
                Ok::<_, HttpError>(format!("order for {caller} over {http}"))
            })
            .needs::<String>("http")
            .needs::<String>("caller"),
        )
        .route(Route::get("/", |_: RequestContext| async { "all orders" }))
        .prefix("/orders")
        .export("caller")
}

#[tokio::test]
async fn a_modules_routes_are_served_under_its_prefix_with_its_own_keys() {
    let app = App::builder()
        .value("http", String::from("the app's client"))
        .module(orders())
        .route(
            Route::get("/client", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("http"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let order = client
        .get("/orders/7")
        .header("x-caller", "ada")
        .send()
        .await;
    assert_eq!(order.text(), "order for ada over the orders' client");
    assert_eq!(client.get("/orders").send().await.text(), "all orders");
    assert_eq!(
        client.get("/client").send().await.text(),
        "the app's client"
    );
    assert_eq!(client.get("/7").send().await.status(), 404);
}

#[tokio::test]
async fn a_route_outside_needs_a_modules_step_value_by_its_qualified_name_if_exported() {
    let app = App::builder()
        .module(orders())
        .route(
            Route::get("/whoami", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("orders::caller"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let whoami = client
        .get("/whoami")
        .header("x-caller", "grace")
        .send()
        .await;
    assert_eq!(whoami.text(), "grace");

    let err = App::builder()
        .module(orders())
        .route(
            Route::get("/client", |_: RequestContext| async { "" }).needs::<String>("orders::http"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0014"]);
    let Problem::PrivateKey { key, module, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    assert_eq!((key.as_str(), module.as_str()), ("orders::http", "orders"));
}

/// A module with a guard step `auth` and a route guarded by it.
fn admin(name: &str, prefix: &str) -> Module {
    let who = format!("{name} only");
    Module::new(name)
        .step(Guard::new("auth", move |parts, _| {
            match parts.headers.contains_key("x-admin") {
                true => Ok(()),
                false => Err(HttpError::forbidden(who.clone())),
            }
        }))
        .route(Route::get("/panel", |_: RequestContext| async { "panel" }).step("auth"))
        .prefix(prefix)
}

#[tokio::test]
async fn guards_resolve_inside_the_routes_module_first_and_by_qualified_name_outside() {
    let app = App::builder()
        .module(admin("staff", "/staff"))
        .module(admin("ops", "/ops"))
        .route(Route::get("/report", |_: RequestContext| async { "report" }).step("ops::auth"))
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let denied = client.get("/staff/panel").send().await;
    assert_eq!(denied.status(), 403);
    assert!(denied.text().contains("staff only"), "{}", denied.text());
    let denied = client.get("/ops/panel").send().await;
    assert!(denied.text().contains("ops only"), "{}", denied.text());
    let report = client.get("/report").send().await;
    assert!(report.text().contains("ops only"), "{}", report.text());
    let allowed = client.get("/report").header("x-admin", "1").send().await;
    assert_eq!(allowed.text(), "report");

    let err = App::builder()
        .module(admin("staff", "/staff"))
        .route(Route::get("/report", |_: RequestContext| async { "" }).step("auth"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0007"], "{err}");
    let Problem::UnknownStep { suggestion, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    assert_eq!(suggestion.as_deref(), Some("staff::auth"));
}

#[tokio::test]
async fn sub_modules_prefixes_follow_their_parents() {
    let app = App::builder()
        .module(
            Module::new("shop").prefix("/shop").module(
                Module::new("cart")
                    .prefix("/cart")
                    .route(Route::get("/items", |_: RequestContext| async { "items" })),
            ),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(client.get("/shop/cart/items").send().await.text(), "items");
}

/// A library-style module with settings of its own: the upstream it calls.
fn billing(upstream: &str) -> Module {
    Module::new("billing")
        .value("upstream", upstream.to_owned())
        .provider(
            ProviderFn::new("client", |needs| async move {
                Ok(format!("client of {}", needs.get::<String>(0)?))
            })
            .needs::<String>("upstream"),
        )
        .route(
            Route::get("/upstream", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("client"),
        )
        .export("client")
}

#[tokio::test]
async fn one_module_mounted_twice_has_two_of_everything() {
    let app = App::builder()
        .module(billing("eu.example").named("billing_eu").prefix("/eu"))
        .module(billing("us.example").named("billing_us").prefix("/us"))
        .route(
            Route::get("/both", |request: RequestContext| async move {
                let eu = request.need::<String>(0)?;
                let us = request.need::<String>(1)?;
                Ok::<_, HttpError>(format!("{eu} + {us}"))
            })
            .needs::<String>("billing_eu::client")
            .needs::<String>("billing_us::client"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(
        client.get("/eu/upstream").send().await.text(),
        "client of eu.example"
    );
    assert_eq!(
        client.get("/us/upstream").send().await.text(),
        "client of us.example"
    );
    assert_eq!(
        client.get("/both").send().await.text(),
        "client of eu.example + client of us.example"
    );

    // The same name twice is GT0015; without a prefix each, the routes conflict too.
    let err = App::builder()
        .module(billing("eu.example"))
        .module(billing("us.example"))
        .build()
        .unwrap_err();
    assert!(codes(&err).contains(&"GT0015"), "{err}");
}

#[tokio::test]
async fn a_module_contributes_to_the_apps_collections() {
    fn channel(name: &'static str) -> Module {
        Module::new(name)
            .value("address", format!("{name}@example.com"))
            .provider(
                ProviderFn::new("notifiers[]", |needs| async move {
                    Ok(format!("notify {}", needs.get::<String>(0)?))
                })
                .needs::<String>("address"),
            )
    }
    let app = App::builder()
        .module(channel("email"))
        .module(channel("sms"))
        .route(
            Route::get("/notifiers", |request: RequestContext| async move {
                let all = request.need_all::<String>(0)?;
                Ok::<_, HttpError>(
                    all.iter()
                        .map(|n| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            })
            .needs::<String>("notifiers[]"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(
        client.get("/notifiers").send().await.text(),
        "notify email@example.com, notify sms@example.com"
    );
}

#[test]
fn a_module_holding_routes_is_refused_by_a_bare_container() {
    let err = Container::builder().module(orders()).build().unwrap_err();
    let holds = err.problems().iter().find_map(|p| match p {
        Problem::ModuleShape { module, reason, .. } if reason.contains("only an app serves") => {
            Some((module.as_str(), reason.as_str()))
        }
        _ => None,
    });
    let (module, reason) = holds.unwrap_or_else(|| panic!("{err}"));
    assert_eq!(module, "orders");
    assert!(reason.contains("holds 2 routes and 1 step"), "{reason}");
}

#[tokio::test]
async fn a_test_replaces_a_whole_module_by_one_with_the_same_exports() {
    let fake = Module::new("orders")
        .step(StepFn::new("caller", |_, _| {
            Ok::<_, HttpError>("a fake caller".to_owned())
        }))
        .route(Route::get("/", |_: RequestContext| async { "no orders" }))
        .prefix("/orders")
        .export("caller");
    let app = App::builder()
        .module(orders())
        .route(
            Route::get("/whoami", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("orders::caller"),
        )
        .override_module(fake)
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(client.get("/whoami").send().await.text(), "a fake caller");
    assert_eq!(client.get("/orders").send().await.text(), "no orders");
    // The original's routes went with it.
    assert_eq!(client.get("/orders/7").send().await.status(), 404);
}

#[test]
fn a_replacement_must_replace_a_module_and_export_what_it_exported() {
    let err = App::builder()
        .module(orders())
        .override_module(Module::new("orderz"))
        .build()
        .unwrap_err();
    let reasons: Vec<String> = err
        .problems()
        .iter()
        .filter_map(|p| match p {
            Problem::ModuleShape { module, reason, .. } => Some(format!("{module}: {reason}")),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 1, "{err}");
    assert!(
        reasons[0].starts_with("orderz: is overridden, but no module of that name"),
        "{err}"
    );
    assert!(reasons[0].contains("did you mean `orders`?"), "{err}");

    let err = App::builder()
        .module(orders())
        .override_module(Module::new("orders").value("http", String::new()))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0015"], "{err}");
    assert!(
        err.to_string()
            .contains("is overridden by a module that does not export `caller`"),
        "{err}"
    );
}

#[tokio::test]
async fn an_override_reaches_a_modules_private_key() {
    let app = App::builder()
        .module(orders())
        .override_value("orders::http", String::from("a fake client"))
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let order = client.get("/orders/1").send().await;
    assert_eq!(order.text(), "order for nobody over a fake client");

    let err = App::builder()
        .module(orders())
        .override_value("orders::http", 7_u32)
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0004"], "{err}");
}

/// What a library's `module()` finds by itself: its own macro declarations.
mod greeter {
    use green_tea::prelude::*;

    #[provider(provides = "greeting")]
    fn greeting() -> String {
        "hello".to_owned()
    }

    pub(crate) struct Greet;

    #[route("/")]
    impl Greet {
        #[get("/greet")]
        async fn greet(#[needs("greeting")] greeting: &String) -> String {
            greeting.clone()
        }
    }

    /// The module, as a library ships it.
    pub(crate) fn module() -> Module {
        Module::new("greeter")
            .discover_in(&[module_path!()])
            .export("greeting")
    }
}

#[tokio::test]
async fn a_module_discovers_its_own_declarations_and_the_app_leaves_them_out() {
    // The app's own discovery would find the greeter's declarations too: the module claims
    // them, before or after, so there is one of each, the module's.
    for discover_first in [true, false] {
        let app = match discover_first {
            true => App::builder()
                .discover_in(&[module_path!()])
                .module(greeter::module()),
            false => App::builder()
                .module(greeter::module())
                .discover_in(&[module_path!()]),
        };
        let app = app.build().unwrap();
        let keys: Vec<String> = app
            .container()
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        assert_eq!(
            keys,
            ["greeter::greeting"],
            "discover first: {discover_first}"
        );
        let client = TestClient::new(app);
        assert_eq!(client.get("/greet").send().await.text(), "hello");
    }

    // Mounted twice, two of each.
    let app = App::builder()
        .module(greeter::module().named("left").prefix("/left"))
        .module(greeter::module().named("right").prefix("/right"))
        .build()
        .unwrap();
    let keys: Vec<String> = app
        .container()
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert_eq!(keys, ["left::greeting", "right::greeting"]);
    let client = TestClient::new(app);
    assert_eq!(client.get("/right/greet").send().await.text(), "hello");
}

#[test]
fn a_module_that_discovers_nothing_is_a_build_error() {
    let err = App::builder()
        .module(Module::new("empty").discover_in(&["no_such_crate"]))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0015"], "{err}");
    assert!(
        err.to_string()
            .contains("discovers in `no_such_crate`, where the macros declared nothing"),
        "{err}"
    );
}

#[test]
fn an_override_of_a_private_key_does_not_make_it_visible() {
    let err = App::builder()
        .module(orders())
        .override_value("orders::http", String::from("a fake client"))
        .route(Route::get("/spy", |_: RequestContext| async { "" }).needs::<String>("orders::http"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0014"], "{err}");
}

#[tokio::test]
async fn a_parent_needs_its_sub_modules_export_and_runs_its_guard_by_relative_names() {
    let app = App::builder()
        .module(
            Module::new("shop")
                .module(
                    Module::new("sms")
                        .value("gateway", String::from("the sms gateway"))
                        .step(Guard::new("auth", |parts, _| {
                            match parts.headers.contains_key("x-admin") {
                                true => Ok(()),
                                false => Err(HttpError::forbidden("sms only")),
                            }
                        }))
                        .export("gateway"),
                )
                .route(
                    Route::get("/gateway", |request: RequestContext| async move {
                        Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
                    })
                    .needs::<String>("sms::gateway")
                    .step("sms::auth"),
                ),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(client.get("/gateway").send().await.status(), 403);
    let gateway = client.get("/gateway").header("x-admin", "1").send().await;
    assert_eq!(gateway.text(), "the sms gateway");
}

#[tokio::test]
async fn a_replaced_module_keeps_its_claims_and_is_gone_from_explain() {
    let fake = || {
        Module::new("greeter")
            .value("greeting", String::from("hi"))
            .export("greeting")
    };
    for discover_first in [true, false] {
        let app = match discover_first {
            true => App::builder()
                .discover_in(&[module_path!()])
                .module(greeter::module())
                .override_module(fake()),
            false => App::builder()
                .module(greeter::module())
                .override_module(fake())
                .discover_in(&[module_path!()]),
        };
        let app = app.build().unwrap();
        let keys: Vec<String> = app
            .container()
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        assert_eq!(
            keys,
            ["greeter::greeting"],
            "discover first: {discover_first}"
        );
        assert_eq!(*app.get::<String>("greeter::greeting").await.unwrap(), "hi");
        let module = app.explain_module("greeter").unwrap();
        assert_eq!(module.exports, ["greeter::greeting"]);
        let paths: Vec<String> = app
            .explain_all()
            .modules
            .iter()
            .map(|m| m.path.clone())
            .collect();
        assert_eq!(paths, ["greeter"]);
    }
}

#[test]
fn a_replacement_replaced_again_answers_to_the_originals_exports() {
    let err = App::builder()
        .module(orders())
        .override_module(
            Module::new("orders")
                .value("caller", String::new())
                .value("extra", 1_u8)
                .export("caller")
                .export("extra"),
        )
        .override_module(
            Module::new("orders")
                .value("caller", String::new())
                .export("caller"),
        )
        .build();
    assert!(err.is_ok(), "{:?}", err.err());
}

#[test]
fn a_modules_name_and_prefix_are_checked() {
    let err = App::builder()
        .module(Module::new("a::b"))
        .module(
            Module::new("c")
                .prefix("orders")
                .route(Route::get("/", |_: RequestContext| async { "" })),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0015", "GT0015"], "{err}");
    let text = err.to_string();
    assert!(text.contains("is named `a::b`"), "{text}");
    assert!(
        text.contains("serves its routes under `orders`: a prefix starts with `/`"),
        "{text}"
    );
}

#[test]
fn two_modules_made_apart_cannot_claim_one_rust_module() {
    let err = App::builder()
        .module(greeter::module())
        .module(Module::new("copycat").discover_in(&[module_path!()]))
        .build()
        .unwrap_err();
    assert!(codes(&err).contains(&"GT0015"), "{err}");
    assert!(
        err.to_string().contains("which the module `greeter`"),
        "{err}"
    );
}

#[test]
fn discovery_counts_what_is_linked_whether_a_module_claims_it_or_not() {
    for discover_first in [true, false] {
        let app = match discover_first {
            true => App::builder()
                .discover_in(&[&format!("{}::greeter", module_path!())])
                .module(greeter::module()),
            false => App::builder()
                .module(greeter::module())
                .discover_in(&[&format!("{}::greeter", module_path!())]),
        };
        let app = app.build().unwrap();
        assert!(
            !app.warnings()
                .iter()
                .any(|w| matches!(w, green_tea::Warning::DiscoveredNothing { .. })),
            "discover first: {discover_first}: {:?}",
            app.warnings()
        );
    }
}

#[tokio::test]
async fn a_modules_step_of_the_name_clientaddr_leaves_the_apps_alone() {
    let app = App::builder()
        .module(Module::new("edge").step(StepFn::new("clientAddr", |_, _| {
            Ok::<_, HttpError>(String::from("the edge's own"))
        })))
        .route(
            Route::get("/", |request: RequestContext| async move {
                Ok::<_, HttpError>(
                    request
                        .need::<green_tea::extract::ClientAddr>(0)?
                        .to_string(),
                )
            })
            .needs::<green_tea::extract::ClientAddr>("clientAddr"),
        )
        .build();
    assert!(app.is_ok(), "{:?}", app.err());
}
