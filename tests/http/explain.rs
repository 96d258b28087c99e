//! `explain(path)` and `explain_all()`: each method's handler, steps in run order, providers in
//! build order, as data, text, JSON, DOT and Mermaid.

use crate::support;

use green_tea::Scope;
use green_tea::error::NodeKind;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::{Guard, StepFn};
use green_tea::test::TestClient;
use green_tea::{App, HttpError, Json};
use serde_json::json;
use support::{Log, Probe, Service};

const FILE: &str = "tests/http/explain.rs";

/// Orders behind `auth` -> `account` (which needs the `accounts` provider) and the
/// `require_admin` guard; `billingApi` overridden by a fake that logs to `fake`. The steps are
/// registered in reverse run order on purpose.
fn app(log: &Log, fake: &Log) -> App {
    App::builder()
        .provider(Probe::new("billingApi", &[], log))
        .provider(Probe::new("billing", &["billingApi"], log))
        .provider(Probe::new("accounts", &[], log))
        .override_provider(Probe::new("billingApi", &[], fake))
        .step(
            Guard::new("require_admin", |_, needs| match needs.get::<String>(0) {
                Ok(user) if *user == "admin" => Ok(()),
                _ => Err(HttpError::forbidden("admins only")),
            })
            .needs::<String>("user"),
        )
        .step(
            StepFn::new("account", |_, needs| {
                let user = needs.get::<String>(0).map_err(|_| HttpError::internal())?;
                Ok(format!("account of {user}"))
            })
            .needs::<String>("user")
            .needs::<Service>("accounts"),
        )
        .step(
            StepFn::new("user", |parts, _| {
                parts
                    .headers
                    .get("x-user")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
                    .ok_or_else(|| HttpError::unauthorized("who are you?"))
            })
            .named("auth"),
        )
        .route(
            Route::get("/orders/{id}", |request: RequestContext| async move {
                let billing = request.need::<Service>(0)?;
                let account = request.need::<String>(1)?;
                Ok::<_, HttpError>(Json(json!({ "via": billing.name, "account": *account })))
            })
            .needs::<Service>("billing")
            .needs::<String>("account")
            .step("require_admin")
            .named("Orders::show"),
        )
        .route(
            Route::delete("/orders/{id}", |_: RequestContext| async { "cancelled" })
                .named("Orders::cancel"),
        )
        .route(Route::get("/orders", |_: RequestContext| async { "[]" }).named("Orders::list"))
        .route(Route::get("/health", |_: RequestContext| async { "ok" }))
        .build()
        .expect("a valid graph")
}

fn fixture() -> (App, Log, Log) {
    let (log, fake) = (Log::default(), Log::default());
    (app(&log, &fake), log, fake)
}

fn position(names: &[&str], name: &str) -> usize {
    names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("`{name}` is not in {names:?}"))
}

#[tokio::test]
async fn a_concrete_path_shows_every_method_with_its_chain() {
    let (app, _, _) = fixture();
    let explain = app.explain("/orders/42").expect("routed");
    assert_eq!(
        (explain.path.as_str(), explain.template.as_str()),
        ("/orders/42", "/orders/{id}")
    );
    let methods: Vec<&str> = explain.routes.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(methods, ["GET", "DELETE"]);

    let show = &explain.routes[0];
    assert_eq!(show.handler, "Orders::show");
    assert!(show.location.starts_with(FILE), "{}", show.location);
    assert_eq!(show.needs, ["billing", "account"]);

    let steps: Vec<&str> = show.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    let (auth, account, guard) = (
        position(&steps, "auth"),
        position(&steps, "account"),
        position(&steps, "require_admin"),
    );
    assert!(
        auth < account,
        "`account` needs `user` from `auth`: {steps:?}"
    );
    assert!(
        auth < guard,
        "the guard needs `user` from `auth`: {steps:?}"
    );
    assert_eq!(show.steps[auth].provides, ["user: String"]);
    assert!(show.steps[auth].needs.is_empty());
    assert_eq!(show.steps[account].needs, ["user", "accounts"]);
    assert!(
        show.steps[guard].provides.is_empty(),
        "a guard provides nothing"
    );
    assert!(show.steps.iter().all(|s| s.location.starts_with(FILE)));

    // Build order is any order with dependencies first; `accounts` is independent.
    let providers: Vec<&str> = show
        .providers
        .nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    let mut sorted = providers.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["accounts", "billing", "billingApi"],
        "with what the steps need"
    );
    let (api, billing) = (
        position(&providers, "billingApi"),
        position(&providers, "billing"),
    );
    assert!(api < billing, "billing needs billingApi: {providers:?}");
    let nodes = &show.providers.nodes;
    assert_eq!(
        (nodes[api].kind, nodes[api].overridden),
        (NodeKind::Override, true)
    );
    assert_eq!(
        (nodes[billing].kind, nodes[billing].overridden),
        (NodeKind::Provider, false)
    );
    assert!(nodes.iter().all(|n| n.scope == Scope::App));
    assert_eq!(nodes[billing].needs[0].key, "billingApi");
    assert_eq!(
        nodes[billing].needs[0].from,
        Some(api),
        "billing's need points at billingApi's node"
    );

    let cancel = &explain.routes[1];
    assert_eq!(cancel.handler, "Orders::cancel");
    assert!(cancel.steps.is_empty() && cancel.providers.nodes.is_empty());
}

#[tokio::test]
async fn built_flags_and_build_times_follow_requests() {
    let (app, log, fake) = fixture();
    let nodes = |app: &App| {
        app.explain("/orders/42").unwrap().routes[0]
            .providers
            .nodes
            .clone()
    };
    assert!(
        nodes(&app)
            .iter()
            .all(|n| !n.built && n.build_micros.is_none())
    );

    let client = TestClient::new(app.clone());
    assert_eq!(
        client.get("/orders").send().await.status(),
        200,
        "another route"
    );
    assert!(
        nodes(&app).iter().all(|n| !n.built),
        "GET /orders built nothing of this chain"
    );

    let shown = client
        .get("/orders/42")
        .header("x-user", "admin")
        .send()
        .await;
    assert_eq!(shown.status(), 200, "{}", shown.text());
    assert!(
        nodes(&app)
            .iter()
            .all(|n| n.built && n.build_micros.is_some())
    );
    assert_eq!(
        fake.names("provide"),
        ["billingApi"],
        "the override was built"
    );
    let mut built = log.names("provide");
    built.sort_unstable();
    assert_eq!(
        built,
        ["accounts", "billing"],
        "the replaced billingApi never was"
    );

    app.close().await.unwrap();
    assert!(
        nodes(&app).iter().all(|n| !n.built),
        "disposed is not built"
    );
}

#[tokio::test]
async fn the_text_names_the_handler_its_file_steps_and_providers() {
    let (app, _, _) = fixture();
    let text = app.explain("/orders/42").unwrap().to_string();
    for expected in [
        "/orders/42 (route /orders/{id})",
        "GET /orders/{id} -> Orders::show (tests/http/explain.rs:",
        "needs: billing, account",
        "steps, in run order",
        "1. auth -> user: String",
        "require_admin -> guard  <- needs user",
        "providers, in build order",
        "billingApi: Service",
        "(override)",
        "not built",
        "DELETE /orders/{id} -> Orders::cancel (tests/http/explain.rs:",
        "steps: none",
        "providers: none",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[tokio::test]
async fn the_json_has_every_field() {
    let (app, _, _) = fixture();
    let json = app.explain("/orders/42").unwrap().to_json();
    assert_eq!(json["path"], "/orders/42");
    assert_eq!(json["template"], "/orders/{id}");
    let show = &json["routes"][0];
    assert_eq!(show["method"], "GET");
    assert_eq!(show["template"], "/orders/{id}");
    assert_eq!(show["handler"], "Orders::show");
    assert!(show["location"].as_str().unwrap().starts_with(FILE));
    assert_eq!(show["needs"], json!(["billing", "account"]));
    assert_eq!(show["steps"][0]["name"], "auth");
    assert_eq!(show["steps"][0]["provides"], json!(["user: String"]));
    let nodes = show["providers"]["nodes"].as_array().unwrap();
    let node = |name: &str| {
        nodes
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let api = &nodes[node("billingApi")];
    assert_eq!(api["name"], "billingApi");
    assert_eq!(api["kind"], "override");
    assert_eq!(api["scope"], "app");
    assert_eq!(api["overridden"], true);
    assert_eq!(api["built"], false);
    assert_eq!(api["build_micros"], json!(null));
    assert_eq!(
        api["provides"],
        json!([{ "key": "billingApi", "type": "Service" }])
    );
    assert_eq!(
        nodes[node("billing")]["needs"],
        json!([{ "key": "billingApi", "from": node("billingApi"), "optional": false }])
    );
    assert_eq!(json["routes"][1]["method"], "DELETE");
}

#[tokio::test]
async fn dot_and_mermaid_draw_every_edge() {
    let (app, _, _) = fixture();
    let explain = app.explain("/orders/42").unwrap();
    let steps: Vec<&str> = explain.routes[0]
        .steps
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let providers: Vec<&str> = explain.routes[0]
        .providers
        .nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    let step = |name: &str| format!("r0s{}", position(&steps, name));
    let provider = |name: &str| format!("r0p{}", position(&providers, name));
    // (from, to, key): provider -> provider, provider -> handler, provider -> step,
    // step -> step, step -> handler.
    let edges = [
        (provider("billingApi"), provider("billing"), "billingApi"),
        (provider("billing"), "r0h".to_owned(), "billing"),
        (provider("accounts"), step("account"), "accounts"),
        (step("auth"), step("account"), "user"),
        (step("auth"), step("require_admin"), "user"),
        (step("account"), "r0h".to_owned(), "account"),
    ];

    let dot = explain.to_dot();
    assert!(dot.starts_with("digraph \"/orders/42\" {"), "{dot}");
    assert!(dot.contains("r0h [label=\"GET Orders::show\""), "{dot}");
    assert!(
        dot.contains("r1h [label=\"DELETE Orders::cancel\""),
        "{dot}"
    );
    for (from, to, key) in &edges {
        let edge = format!("{from} -> {to} [label=\"{key}\"];");
        assert!(dot.contains(&edge), "missing {edge} in:\n{dot}");
    }

    let mermaid = explain.to_mermaid();
    assert!(mermaid.starts_with("flowchart LR\n"), "{mermaid}");
    assert!(mermaid.contains("r0h[\"GET Orders::show\"]"), "{mermaid}");
    for (from, to, key) in &edges {
        let edge = format!("{from} -->|\"{key}\"| {to}");
        assert!(mermaid.contains(&edge), "missing {edge} in:\n{mermaid}");
    }
}

#[tokio::test]
async fn an_unrouted_path_lists_the_closest_template_first() {
    let (app, _, _) = fixture();
    let near = app.explain("/order").expect_err("not routed");
    assert_eq!(near.path, "/order");
    assert_eq!(near.routes, ["/orders", "/health", "/orders/{id}"]);
    assert_eq!(
        near.to_string(),
        "error[GT0104]: no route matches `/order`; routes: /orders, /health, /orders/{id}"
    );

    let health = app.explain("/helth").expect_err("not routed");
    assert_eq!(health.routes[0], "/health");

    let far = app.explain("/nope").expect_err("not routed");
    assert_eq!(
        far.routes,
        ["/health", "/orders", "/orders/{id}"],
        "nothing close: sorted"
    );
}

#[tokio::test]
async fn explain_all_lists_every_path_sorted() {
    let (app, _, _) = fixture();
    let all = app.explain_all();
    let templates: Vec<&str> = all.paths.iter().map(|p| p.template.as_str()).collect();
    assert_eq!(templates, ["/health", "/orders", "/orders/{id}"]);
    assert!(all.paths.iter().all(|p| p.path == p.template));
    let handlers: Vec<Vec<&str>> = all
        .paths
        .iter()
        .map(|p| p.routes.iter().map(|r| r.handler.as_str()).collect())
        .collect();
    assert_eq!(
        handlers,
        [
            vec!["GET /health"],
            vec!["Orders::list"],
            vec!["Orders::show", "Orders::cancel"]
        ]
    );
    let text = all.to_string();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {text}"))
    };
    assert!(
        at("GET /health (") < at("GET /orders -> Orders::list"),
        "an unnamed route is shown once"
    );
    assert!(at("GET /orders -> Orders::list") < at("GET /orders/{id} -> Orders::show"));
}
