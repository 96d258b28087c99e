//! Modules in `explain` and health: each rendering draws a module's declarations, steps and
//! routes inside a box of the module (nested for a sub-module), `explain_module` says what a
//! module exports, keeps private and needs from outside, and health reports by module.

use std::sync::atomic::{AtomicBool, Ordering};

use green_tea::health::{Check, CheckStatus, HealthCheck, ProviderState};
use green_tea::prelude::*;
use green_tea::steps::StepFn;
use green_tea::test::TestClient;
use green_tea::{BoxError, Container, Provider, ProviderFn};

/// A provider of `name` whose value is its name and its needs' values, each a `String`.
fn concat(name: &'static str, needs: &[&'static str]) -> impl Provider {
    let count = needs.len();
    let mut provider = ProviderFn::new(name, move |values| async move {
        let mut out = String::from(name);
        for i in 0..count {
            out.push_str(&format!(" {}", values.get::<String>(i)?));
        }
        Ok(out)
    });
    for key in needs {
        provider = provider.needs::<String>(*key);
    }
    provider
}

/// `billing` (a private client under an exported service), and `shop` with its own `name`, an
/// exported `catalog` over the app's `db`, and the sub-module `shop::orders`: a provider over
/// the parent's `catalog` and `billing`'s export, a step, and a route under `/orders`.
fn billing() -> Module {
    Module::new("billing")
        .value("client", String::from("client"))
        .provider(concat("billing", &["client"]))
        .export("billing")
}

fn shop() -> Module {
    Module::new("shop")
        .value("name", String::from("shop"))
        .provider(concat("catalog", &["name", "db"]))
        .module(
            Module::new("orders")
                .provider(concat("orders", &["catalog", "billing::billing"]))
                .step(StepFn::new("user", |parts, _| {
                    Ok::<_, HttpError>(
                        parts
                            .headers
                            .get("x-user")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("nobody")
                            .to_owned(),
                    )
                }))
                .route(
                    Route::get("/{id}", |request: RequestContext| async move {
                        Ok::<_, HttpError>(format!(
                            "{} for {}",
                            request.need::<String>(0)?,
                            request.need::<String>(1)?
                        ))
                    })
                    .needs::<String>("orders")
                    .needs::<String>("user")
                    .named("Orders::show"),
                )
                .prefix("/orders")
                .export("orders"),
        )
        .export("catalog")
        .export("orders::orders")
}

fn shop_app() -> App {
    App::builder()
        .value("db", String::from("db"))
        .module(billing())
        .module(shop())
        .route(Route::get("/db", |_: RequestContext| async { "db" }).needs::<String>("db"))
        .build()
        .unwrap()
}

fn shop_container() -> Container {
    Container::builder()
        .value("db", String::from("db"))
        .module(billing())
        .module(
            Module::new("shop")
                .value("name", String::from("shop"))
                .provider(concat("catalog", &["name", "db"]))
                .module(
                    Module::new("orders")
                        .provider(concat("orders", &["catalog", "billing::billing"]))
                        .export("orders"),
                )
                .export("catalog")
                .export("orders::orders"),
        )
        .build()
        .unwrap()
}

/// For each node id of a DOT or Mermaid text, the modules' boxes around it, outermost first.
fn boxes_of(
    text: &str,
    open: impl Fn(&str) -> Option<String>,
    close: &str,
) -> Vec<(String, Vec<String>)> {
    let mut stack: Vec<String> = Vec::new();
    let mut nodes = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(module) = open(line) {
            stack.push(module);
        } else if line == close {
            stack.pop().expect("a box closed that was not open");
        } else if let Some(id) = line
            .split(['[', '(', '{', ' '])
            .next()
            .filter(|id| {
                !id.is_empty()
                    && !line.contains("->")
                    && !line.contains("-->")
                    && !line.contains("-.->")
            })
            .filter(|id| id.starts_with('n') || id.starts_with('r'))
        {
            nodes.push((id.to_owned(), stack.clone()));
        }
    }
    assert!(stack.is_empty(), "a box left open in:\n{text}");
    nodes
}

fn dot_boxes(dot: &str) -> Vec<(String, Vec<String>)> {
    let open = |line: &str| {
        let name = line
            .strip_prefix("subgraph \"cluster_")?
            .strip_suffix("\" {")?;
        Some(name.to_owned())
    };
    // Inside the `digraph ... {` and its `}`.
    let lines: Vec<&str> = dot.lines().collect();
    assert!(lines[0].starts_with("digraph ") && lines[lines.len() - 1] == "}");
    boxes_of(&lines[1..lines.len() - 1].join("\n"), open, "}")
}

fn mermaid_boxes(mermaid: &str) -> Vec<(String, Vec<String>)> {
    let open = |line: &str| {
        let rest = line.strip_prefix("subgraph module")?;
        let (_, label) = rest.split_once("[\"")?;
        Some(label.strip_suffix("\"]")?.to_owned())
    };
    boxes_of(mermaid, open, "end")
}

fn around<'a>(boxes: &'a [(String, Vec<String>)], id: &str) -> Vec<&'a str> {
    boxes
        .iter()
        .find(|(n, _)| n == id)
        .unwrap_or_else(|| panic!("no node {id} in {boxes:?}"))
        .1
        .iter()
        .map(String::as_str)
        .collect()
}

#[test]
fn dot_draws_a_cluster_per_module_nested_for_a_sub_module() {
    let container = shop_container();
    let explain = container.explain_key("shop::orders::orders").unwrap();
    let position = |key: &str| {
        explain
            .nodes
            .iter()
            .position(|n| n.provides.iter().any(|k| k.key == key))
            .unwrap_or_else(|| panic!("no {key}"))
    };
    let dot = explain.to_dot();
    assert!(
        dot.contains("  subgraph \"cluster_shop\" {\n    label=\"shop\";"),
        "{dot}"
    );
    assert!(
        dot.contains("    subgraph \"cluster_shop::orders\" {\n      label=\"shop::orders\";"),
        "{dot}"
    );
    assert!(dot.contains("subgraph \"cluster_billing\" {"), "{dot}");
    let boxes = dot_boxes(&dot);
    let id = |key: &str| format!("n{}", position(key));
    assert_eq!(around(&boxes, &id("db")), Vec::<&str>::new());
    assert_eq!(around(&boxes, &id("shop::name")), ["shop"]);
    assert_eq!(around(&boxes, &id("shop::catalog")), ["shop"]);
    assert_eq!(
        around(&boxes, &id("shop::orders::orders")),
        ["shop", "shop::orders"]
    );
    assert_eq!(around(&boxes, &id("billing::billing")), ["billing"]);
    assert_eq!(around(&boxes, &id("billing::client")), ["billing"]);
    // Edges cross boxes at the top level, as before.
    assert!(dot.contains(&format!(
        "  {} -> {} [label=\"db\"];",
        id("db"),
        id("shop::catalog")
    )));
    assert_eq!(dot.matches("subgraph").count(), 3);
}

#[test]
fn mermaid_draws_a_subgraph_per_module_nested_for_a_sub_module() {
    let container = shop_container();
    let explain = container.explain_key("shop::orders::orders").unwrap();
    let mermaid = explain.to_mermaid();
    let boxes = mermaid_boxes(&mermaid);
    let id = |key: &str| {
        let i = explain
            .nodes
            .iter()
            .position(|n| n.provides.iter().any(|k| k.key == key))
            .unwrap();
        format!("n{i}")
    };
    assert_eq!(around(&boxes, &id("db")), Vec::<&str>::new());
    assert_eq!(around(&boxes, &id("shop::catalog")), ["shop"]);
    assert_eq!(
        around(&boxes, &id("shop::orders::orders")),
        ["shop", "shop::orders"]
    );
    assert_eq!(around(&boxes, &id("billing::client")), ["billing"]);
    assert_eq!(mermaid.matches("subgraph module").count(), 3);
    assert_eq!(
        mermaid.matches("\n  end\n").count(),
        2,
        "two top-level boxes:\n{mermaid}"
    );
    assert_eq!(
        mermaid.matches("\n    end\n").count(),
        1,
        "one nested box:\n{mermaid}"
    );
}

#[test]
fn a_routes_dot_and_mermaid_put_its_steps_and_handler_in_their_module() {
    let app = shop_app();
    let explain = app.explain("/orders/1").unwrap();
    let route = &explain.routes[0];
    assert_eq!(route.module.as_deref(), Some("shop::orders"));
    assert_eq!(route.steps[0].module.as_deref(), Some("shop::orders"));
    let dot = dot_boxes(&explain.to_dot());
    assert_eq!(around(&dot, "r0h"), ["shop", "shop::orders"]);
    assert_eq!(around(&dot, "r0s0"), ["shop", "shop::orders"]);
    let mermaid = mermaid_boxes(&explain.to_mermaid());
    assert_eq!(around(&mermaid, "r0h"), ["shop", "shop::orders"]);
    assert_eq!(around(&mermaid, "r0s0"), ["shop", "shop::orders"]);
    let db = route
        .providers
        .nodes
        .iter()
        .position(|n| n.name == "value `db`")
        .unwrap();
    assert_eq!(around(&dot, &format!("r0p{db}")), Vec::<&str>::new());

    // A route of the app itself draws no box.
    let root = app.explain("/db").unwrap();
    assert!(!root.to_dot().contains("subgraph"));
    assert!(!root.to_mermaid().contains("subgraph"));
    assert_eq!(root.routes[0].module, None);
}

#[test]
fn the_text_says_each_declarations_step_s_and_route_s_module() {
    let app = shop_app();
    let text = app.explain("/orders/1").unwrap().to_string();
    assert!(
        text.starts_with("/orders/1 (route /orders/{id})\n\nGET /orders/{id} -> Orders::show ("),
        "{text}"
    );
    assert!(
        text.lines().next_back().is_some() && text.contains(") in module `shop::orders`\n"),
        "{text}"
    );
    assert!(
        text.contains("1. user -> shop::orders::user: String\n       in module `shop::orders` at "),
        "{text}"
    );
    assert!(
        text.contains("provider `orders` in module `shop::orders` at "),
        "{text}"
    );
    assert!(
        text.contains("provider `catalog` in module `shop` at "),
        "{text}"
    );
    assert!(
        text.contains("value `client` in module `billing` at "),
        "{text}"
    );
    // The app's own declarations say nothing more.
    assert!(text.contains("\n       value `db` at "), "{text}");
}

#[test]
fn the_json_has_a_module_for_every_node_step_and_route() {
    let app = shop_app();
    let json = app.explain("/orders/1").unwrap().to_json();
    let route = &json["routes"][0];
    assert_eq!(route["module"], "shop::orders");
    assert_eq!(route["steps"][0]["module"], "shop::orders");
    let nodes = route["providers"]["nodes"].as_array().unwrap();
    let module_of = |name: &str| {
        nodes
            .iter()
            .find(|n| n["name"] == name)
            .map(|n| n["module"].clone())
            .unwrap()
    };
    assert_eq!(module_of("value `db`"), serde_json::Value::Null);
    assert_eq!(module_of("catalog"), "shop");
    assert_eq!(module_of("orders"), "shop::orders");
    assert_eq!(module_of("billing"), "billing");

    let all = app.explain_all().to_json();
    let modules: Vec<&str> = all["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(modules, ["billing", "shop", "shop::orders"]);
    assert_eq!(
        all["paths"][0]["routes"][0]["module"],
        serde_json::Value::Null
    );
}

/// A rectangle: x, y, width, height.
type Rect = (f64, f64, f64, f64);

/// The `<rect>` after `<g class="{class}"{module}>`, for each such group of `svg`.
fn rects(svg: &str, class: &str) -> Vec<(Option<String>, Rect)> {
    let mut out = Vec::new();
    for group in svg.split("<g class=\"").skip(1) {
        let Some(rest) = group.strip_prefix(class) else {
            continue;
        };
        if !rest.starts_with('"') {
            continue; // `node provider` when asked for `node`
        }
        let head = &rest[..rest.find('>').unwrap()];
        let module = head
            .split_once("data-module=\"")
            .map(|(_, m)| m[..m.find('"').unwrap()].to_owned());
        let rect = &group[group.find("<rect ").unwrap()..];
        let attribute = |name: &str| -> f64 {
            let (_, value) = rect.split_once(&format!(" {name}=\"")).unwrap();
            value[..value.find('"').unwrap()].parse().unwrap()
        };
        out.push((
            module,
            (
                attribute("x"),
                attribute("y"),
                attribute("width"),
                attribute("height"),
            ),
        ));
    }
    out
}

fn inside(inner: (f64, f64, f64, f64), outer: (f64, f64, f64, f64)) -> bool {
    inner.0 > outer.0
        && inner.1 > outer.1
        && inner.0 + inner.2 < outer.0 + outer.2
        && inner.1 + inner.3 < outer.1 + outer.3
}

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

#[test]
fn the_svg_draws_a_labelled_box_around_each_modules_boxes_and_no_other() {
    let app = shop_app();
    let svg = app.explain("/orders/1").unwrap().routes[0].to_svg();
    for path in ["billing", "shop", "shop::orders"] {
        assert!(
            svg.contains(&format!(
                "<g class=\"module\" data-module=\"{path}\"><title>module `{path}`</title>"
            )),
            "{svg}"
        );
        assert!(
            svg.contains(&format!(">module `{path}`</text>")),
            "no label for {path}"
        );
    }
    let modules: Vec<(String, (f64, f64, f64, f64))> = rects(&svg, "module")
        .into_iter()
        .map(|(m, r)| (m.unwrap(), r))
        .collect();
    assert_eq!(modules.len(), 3);
    let module = |path: &str| modules.iter().find(|(p, _)| p == path).unwrap().1;
    assert!(inside(module("shop::orders"), module("shop")), "nested");
    assert!(!overlap(module("billing"), module("shop")));

    let mut boxes = Vec::new();
    for kind in ["provider", "step", "handler"] {
        boxes.extend(rects(&svg, &format!("node {kind}")));
    }
    assert!(boxes.len() >= 8, "{boxes:?}");
    for (module_of_box, rect) in &boxes {
        for (path, around) in &modules {
            let mine = module_of_box
                .as_deref()
                .is_some_and(|m| m == path || m.starts_with(&format!("{path}::")));
            if mine {
                assert!(inside(*rect, *around), "{module_of_box:?} outside `{path}`");
            } else {
                assert!(
                    !overlap(*rect, *around),
                    "{module_of_box:?} inside `{path}`"
                );
            }
        }
    }
    let handler = rects(&svg, "node handler");
    assert_eq!(handler[0].0.as_deref(), Some("shop::orders"));

    // Every picture form draws them: a key's slice, a path's, the app's.
    let container = shop_container();
    let key_svg = container
        .explain_key("shop::orders::orders")
        .unwrap()
        .to_svg();
    assert_eq!(key_svg.matches("<g class=\"module\"").count(), 3);
    assert_eq!(
        app.explain_all()
            .to_svg()
            .matches("<g class=\"module\"")
            .count(),
        3
    );
    assert!(
        !app.explain("/db")
            .unwrap()
            .to_svg()
            .contains("class=\"module\"")
    );
}

#[test]
fn the_html_page_offers_a_module_filter_and_each_modules_summary() {
    let app = shop_app();
    let html = app.explain_all().to_html();
    assert!(html.contains("<select id=\"module\""), "{html}");
    assert!(html.contains("<option value=\"\">all modules</option>"));
    for path in ["billing", "shop", "shop::orders"] {
        assert!(html.contains(&format!("<option value=\"{path}\">module {path}</option>")));
        assert!(html.contains(&format!(
            "<section class=\"module-summary\" data-module=\"{path}\" hidden>"
        )));
    }
    assert!(
        html.contains("exports: shop::catalog, shop::orders::orders"),
        "{html}"
    );
    assert!(html.contains("data-module=\"shop::orders\""));

    // Without modules, no filter.
    let plain = App::builder()
        .route(Route::get("/", |_: RequestContext| async { "hi" }))
        .build()
        .unwrap();
    let html = plain.explain_all().to_html();
    assert!(!html.contains("<select") && !html.contains("<section class=\"module-summary\""));
}

#[test]
fn explain_module_says_exports_private_keys_imports_and_sub_modules() {
    let container = shop_container();
    let shop = container.explain_module("shop").unwrap();
    assert_eq!(shop.path, "shop");
    assert_eq!(shop.parent, None);
    assert_eq!(shop.modules, ["shop::orders"]);
    assert_eq!(shop.exports, ["shop::catalog", "shop::orders::orders"]);
    assert_eq!(shop.private, ["shop::name"]);
    assert_eq!(shop.imports.len(), 1, "{shop}");
    assert_eq!(shop.imports[0].key, "db");
    assert_eq!(shop.imports[0].from, None);
    assert_eq!(shop.imports[0].needed_by, ["provider `catalog`"]);
    let names: Vec<&str> = shop.declarations.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["value `name`", "catalog"]);
    assert!(
        shop.location.contains("tests/explain/modules.rs"),
        "{}",
        shop.location
    );
    assert!(shop.steps.is_empty() && shop.routes.is_empty());

    let orders = container.explain_module("shop::orders").unwrap();
    assert_eq!(orders.parent.as_deref(), Some("shop"));
    assert_eq!(orders.exports, ["shop::orders::orders"]);
    assert!(orders.private.is_empty());
    let imports: Vec<(&str, Option<&str>)> = orders
        .imports
        .iter()
        .map(|i| (i.key.as_str(), i.from.as_deref()))
        .collect();
    assert_eq!(
        imports,
        [
            ("billing::billing", Some("billing")),
            ("shop::catalog", Some("shop"))
        ]
    );

    let text = orders.to_string();
    assert!(text.starts_with("module `shop::orders` ("), "{text}");
    assert!(text.contains("), inside `shop`\n"), "{text}");
    assert!(
        text.contains("\n  exports: shop::orders::orders\n  private: none\n"),
        "{text}"
    );
    assert!(
        text.contains("\n    billing::billing, from module `billing`, needed by provider `orders`"),
        "{text}"
    );
    assert!(
        text.contains("\n    provider `orders` -> shop::orders::orders at "),
        "{text}"
    );
    let shop_text = shop.to_string();
    assert!(
        shop_text.contains("\n    db, from the app, needed by provider `catalog`"),
        "{shop_text}"
    );
    assert!(
        shop_text.ends_with("\n  sub-modules: shop::orders"),
        "{shop_text}"
    );

    let json = orders.to_json();
    assert_eq!(json["path"], "shop::orders");
    assert_eq!(json["parent"], "shop");
    assert_eq!(json["imports"][0]["from"], "billing");
    assert_eq!(json["declarations"][0]["kind"], "provider");
    assert_eq!(
        json["declarations"][0]["provides"][0],
        "shop::orders::orders"
    );
}

#[test]
fn an_apps_explain_module_has_its_steps_and_routes_and_their_imports() {
    let app = shop_app();
    let orders = app.explain_module("shop::orders").unwrap();
    assert_eq!(orders.steps.len(), 1);
    assert_eq!(orders.steps[0].name, "user");
    assert_eq!(orders.steps[0].provides, ["shop::orders::user"]);
    assert!(!orders.steps[0].finishes, "its value does not finish");
    assert_eq!(orders.routes.len(), 1);
    assert_eq!(orders.routes[0].name, "GET /orders/{id} -> Orders::show");
    assert_eq!(
        orders.private,
        ["shop::orders::user"],
        "a step's key is the module's"
    );
    // The route needs the module's own `orders` and `user`: no import. The provider needs
    // its parent's `catalog` and `billing`'s export.
    let keys: Vec<&str> = orders.imports.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["billing::billing", "shop::catalog"]);
    let text = orders.to_string();
    assert!(
        text.contains("\n  steps:\n    step `user` -> shop::orders::user at "),
        "{text}"
    );
    assert!(
        text.contains("\n  routes:\n    GET /orders/{id} -> Orders::show at "),
        "{text}"
    );

    let app = App::builder()
        .value("db", String::from("db"))
        .module(
            Module::new("audit")
                .step(
                    StepFn::new("who", |_, needs| {
                        Ok::<_, HttpError>(format!(
                            "who over {}",
                            needs
                                .get::<String>(0)
                                .map_or(String::new(), |db| db.to_string())
                        ))
                    })
                    .needs::<String>("db"),
                )
                .route(
                    Route::get("/", |_: RequestContext| async { "audit" })
                        .needs::<String>("who")
                        .needs::<String>("db")
                        .named("Audit::index"),
                )
                .prefix("/audit"),
        )
        .build()
        .unwrap();
    let audit = app.explain_module("audit").unwrap();
    assert_eq!(audit.imports.len(), 1);
    assert_eq!(audit.imports[0].key, "db");
    assert_eq!(
        audit.imports[0].needed_by,
        ["step `who`", "GET /audit -> Audit::index"]
    );
}

#[test]
fn an_unknown_module_is_an_error_with_the_closest_path() {
    let container = shop_container();
    let err = container.explain_module("shop::ordrs").unwrap_err();
    assert_eq!(err.path, "shop::ordrs");
    assert_eq!(err.suggestion.as_deref(), Some("shop::orders"));
    assert_eq!(err.modules, ["billing", "shop", "shop::orders"]);
    assert_eq!(
        err.to_string(),
        "error[GT0104]: no module `shop::ordrs`; did you mean `shop::orders`? modules: billing, shop, shop::orders"
    );
    assert_eq!(format!("{err:?}"), err.to_string());

    let far = shop_app().explain_module("inventory").unwrap_err();
    assert_eq!(far.suggestion, None);
    assert_eq!(
        far.to_string(),
        "error[GT0104]: no module `inventory`; modules: billing, shop, shop::orders"
    );

    let none = Container::builder().value("a", 1_u8).build().unwrap();
    let err = none.explain_module("shop").unwrap_err();
    assert!(err.modules.is_empty());
    assert_eq!(
        err.to_string(),
        "error[GT0104]: no module `shop`: nothing registers a module (`.module(..)`)"
    );
}

struct Breaker {
    open: AtomicBool,
}

impl HealthCheck for Breaker {
    fn check(&self) -> Check {
        if self.open.load(Ordering::SeqCst) {
            Check::down("open")
        } else {
            Check::degraded("half-open")
        }
    }
}

fn health_app() -> App {
    App::builder()
        .value("db", String::from("db"))
        .module(
            Module::new("billing")
                .provider(ProviderFn::new("client", |_| async {
                    Err::<String, BoxError>("connection refused".into())
                }))
                .value(
                    "breaker",
                    Breaker {
                        open: AtomicBool::new(false),
                    },
                )
                .export("client")
                .export("breaker"),
        )
        .module(
            Module::new("shop")
                .value("name", String::from("shop"))
                .module(Module::new("orders").value("count", 3_u32)),
        )
        .health_check::<Breaker>("billing::breaker")
        .health_routes("/healthz", "/readyz")
        .route(
            Route::get("/pay", |_: RequestContext| async { "paid" })
                .needs::<String>("billing::client"),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn health_names_each_providers_and_checks_module_and_reports_per_module() {
    let app = health_app();
    let health = app.health().await;
    let paths: Vec<&str> = health.modules.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["billing", "shop", "shop::orders"]);
    assert!(
        health
            .modules
            .iter()
            .all(|m| m.status == CheckStatus::Up && m.built == 0)
    );
    let module_of = |key: &str| {
        health
            .providers
            .iter()
            .find(|p| p.keys.iter().any(|k| k == key))
            .unwrap()
            .module
            .clone()
    };
    assert_eq!(module_of("db"), None);
    assert_eq!(module_of("billing::client").as_deref(), Some("billing"));
    assert_eq!(
        module_of("shop::orders::count").as_deref(),
        Some("shop::orders")
    );
    assert_eq!(health.checks[0].module.as_deref(), Some("billing"));
    assert_eq!(health.checks[0].check, None);
    assert_eq!(health.modules[0].providers, 2);
    assert_eq!(
        health.modules[1].providers, 1,
        "a sub-module's providers are its own"
    );

    // A failed build makes its module down; a degraded check, degraded.
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/pay").send().await.status(), 500);
    let breaker = app.get::<Breaker>("billing::breaker").await.unwrap();
    let health = app.health().await;
    let billing = &health.modules[0];
    assert_eq!(billing.status, CheckStatus::Down);
    assert_eq!(billing.built, 1);
    assert_eq!(billing.reasons.len(), 2, "{:?}", billing.reasons);
    assert!(
        billing.reasons[0].contains("connection refused"),
        "{:?}",
        billing.reasons
    );
    assert_eq!(
        billing.reasons[1],
        "check `billing::breaker` degraded: half-open"
    );
    assert_eq!(health.modules[1].status, CheckStatus::Up);
    let client_health = health
        .providers
        .iter()
        .find(|p| p.name == "client")
        .unwrap();
    assert_eq!(client_health.state, ProviderState::Failed);

    // Served at the readiness route, as JSON.
    let ready = client.get("/readyz").send().await;
    let json: serde_json::Value = ready.json();
    assert_eq!(json["modules"][0]["path"], "billing");
    assert_eq!(json["modules"][0]["status"], "down");
    assert_eq!(json["modules"][2]["path"], "shop::orders");
    assert_eq!(json["modules"][2]["status"], "up");
    assert_eq!(json["checks"][0]["module"], "billing");
    let db = json["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "value `db`")
        .unwrap();
    assert_eq!(db["module"], serde_json::Value::Null);

    breaker.open.store(true, Ordering::SeqCst);
    let health = app.health().await;
    assert_eq!(
        health.modules[0].reasons[1],
        "check `billing::breaker` down: open"
    );
    drop(breaker);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_degraded_check_alone_makes_its_module_degraded_and_an_override_is_the_modules() {
    let app = App::builder()
        .module(
            Module::new("billing")
                .value(
                    "breaker",
                    Breaker {
                        open: AtomicBool::new(false),
                    },
                )
                .value("client", String::from("real"))
                .export("breaker"),
        )
        .override_value("billing::client", String::from("fake"))
        .health_check::<Breaker>("billing::breaker")
        .build()
        .unwrap();
    app.get::<Breaker>("billing::breaker").await.unwrap();
    let health = app.health().await;
    assert_eq!(health.modules[0].status, CheckStatus::Degraded);
    let overrides: Vec<&green_tea::health::ProviderHealth> = health
        .providers
        .iter()
        .filter(|p| p.keys == ["billing::client"])
        .collect();
    assert!(overrides.len() >= 2, "{overrides:?}");
    assert!(
        overrides
            .iter()
            .all(|p| p.module.as_deref() == Some("billing"))
    );
    let container = app.container().health();
    assert_eq!(container.modules[0].path, "billing");
    assert_eq!(
        container.modules[0].status,
        CheckStatus::Up,
        "the container has no checks"
    );
    app.close().await.unwrap();
}
