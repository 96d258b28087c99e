//! `to_svg()` on every explain result and `explain_all().to_html()`: what the pictures show,
//! that every text is escaped, that a route's drawings start from its slice's, and the page
//! served by `AppBuilder::explain_page`.

use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::{Guard, StepFn};
use green_tea::test::TestClient;
use green_tea::{App, HttpError};
use green_tea::{Container, ProviderFn};

/// A key, a step name and a handler name full of markup.
fn hostile_app() -> App {
    App::builder()
        .value("a<b>&\"c\"", 1_u32)
        .step(StepFn::new("user'<script>", |_, _| {
            Ok::<_, HttpError>(String::from("u"))
        }))
        .route(
            Route::get("/x", |_: RequestContext| async { "x" })
                .needs::<u32>("a<b>&\"c\"")
                .needs::<String>("user'<script>")
                .named("<img src=x onerror=alert(1)>"),
        )
        .explain_page("/_green-tea")
        .build()
        .unwrap()
}

/// Every tag in `markup` is one of `allowed`.
fn only_tags(markup: &str, allowed: &[&str]) {
    for tag in markup.split('<').skip(1) {
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
            .collect();
        assert!(
            allowed.contains(&name.to_lowercase().as_str()),
            "unexpected tag <{name}> in: …{}…",
            &tag[..tag.len().min(80)]
        );
    }
}

const SVG_TAGS: &[&str] = &["svg", "g", "title", "rect", "text", "path", "polygon"];

#[test]
fn every_text_in_a_picture_is_escaped() {
    let app = hostile_app();
    let svg = app.explain("/x").unwrap().routes[0].to_svg();
    only_tags(&svg, SVG_TAGS);
    assert!(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;: u32"), "{svg}");
    assert!(svg.contains("step `user&#39;&lt;script&gt;`"), "{svg}");
    assert!(svg.contains("&lt;img src=x onerror=alert(1)&gt;"), "{svg}");
}

#[test]
fn a_route_picture_shows_providers_steps_and_the_handler_apart() {
    let app = App::builder()
        .value("billingApi", String::from("client"))
        .provider(
            ProviderFn::new("billing", |_| async { Ok(3_usize) }).needs::<String>("billingApi"),
        )
        .step(StepFn::new("requestId", |_, _| {
            Ok::<_, HttpError>(String::from("r1"))
        }))
        .route(
            Route::post("/orders", |_: RequestContext| async { "ok" })
                .needs::<usize>("billing")
                .needs::<String>("requestId")
                .named("Orders::create"),
        )
        .build()
        .unwrap();
    let explain = app.explain("/orders").unwrap();
    let svg = explain.routes[0].to_svg();
    assert_eq!(svg.matches("class=\"node provider\"").count(), 2);
    assert_eq!(svg.matches("class=\"node step\"").count(), 1);
    assert_eq!(svg.matches("class=\"node handler\"").count(), 1);
    assert_eq!(
        svg.matches("class=\"edge\"").count(),
        3,
        "billingApi, billing, requestId"
    );
    for label in [
        "billingApi: String",
        "value `billingApi`, app scope",
        "billing: usize",
        "provider `billing`, app scope",
        "not built",
        "step `requestId`",
        "request scope, every request",
        "POST /orders",
        "Orders::create",
    ] {
        assert!(svg.contains(label), "no `{label}` in {svg}");
    }
    assert!(svg.contains("stroke-dasharray"), "not built yet: dashed");

    // The path's and the app's pictures stack the routes' chains.
    assert_eq!(
        explain.to_svg().matches("class=\"node handler\"").count(),
        1
    );
    assert_eq!(app.explain_all().to_svg().matches("<svg").count(), 1);
}

/// The lines of a key's DOT or Mermaid between its heading and its end, with its ids `n...`
/// written as route 0's providers' (`r0p...`).
fn as_route_providers(drawing: &str) -> Vec<String> {
    drawing
        .lines()
        .filter(|l| l.starts_with("  ") && !l.contains("rankdir=") && !l.contains("node [shape"))
        .map(|l| {
            l.replacen("  n", "  r0p", 1)
                .replace(" -> n", " -> r0p")
                .replace("| n", "| r0p")
                .replace("style n", "style r0p")
        })
        .collect()
}

/// `part`'s lines are in `whole`'s, in their order.
fn in_order(part: &[String], whole: &str) {
    let mut lines = whole.lines();
    for line in part {
        assert!(
            lines.any(|l| l == line),
            "no `{line}` (in order) in:\n{whole}"
        );
    }
}

#[test]
fn a_route_is_drawn_from_its_slice_s_picture_and_a_guard_runs_before_its_handler() {
    let app = App::builder()
        .provider(
            ProviderFn::new("pricing", |needs| async move {
                Ok(needs.optional::<u32>(0)?.is_some())
            })
            .needs::<u32>("cache?"),
        )
        .step(Guard::new("admin", |_, _| Ok::<(), HttpError>(())))
        .route(
            Route::get("/price", |_: RequestContext| async { "p" })
                .needs::<bool>("pricing")
                .step("admin"),
        )
        .build()
        .unwrap();
    let explain = app.explain("/price").unwrap();
    let slice = &explain.routes[0].providers;
    assert_eq!(slice.nodes.len(), 1);

    // The providers' boxes and needs, the absent `cache?` included, as their own explain draws
    // them, then the guard and the handler, and the guard's arrow to the handler.
    let dot = explain.to_dot();
    in_order(&as_route_providers(&slice.to_dot()), &dot);
    in_order(
        &[
            "  r0p0a0 [label=\"cache?\\nabsent: nothing provides `cache`\" style=dotted];",
            "  r0s0 [label=\"step admin\" style=rounded];",
            "  r0h [label=\"GET /price\" style=bold];",
            "  r0p0 -> r0h [label=\"pricing\"];",
            "  r0s0 -> r0h [label=\"then\"];",
        ]
        .map(str::to_owned),
        &dot,
    );
    let mermaid = explain.to_mermaid();
    in_order(&as_route_providers(&slice.to_mermaid()), &mermaid);
    assert!(mermaid.contains("  r0s0 -->|\"then\"| r0h\n"), "{mermaid}");
    assert!(explain.to_svg().contains(">then</text>"));

    // The page's legend is drawn in the pictures' colours.
    let html = app.explain_all().to_html();
    assert!(html.contains(
        ".legend .step { background: #e3f2fd; border-color: #1565c0; border-radius: 12px; }"
    ));
    assert!(html.contains("rx=\"12\" fill=\"#e3f2fd\" stroke=\"#1565c0\""));
}

#[tokio::test]
async fn built_providers_show_their_build_time_and_overrides_show_as_such() {
    let container = Container::builder()
        .value("clock", 0_u64)
        .override_value("clock", 7_u64)
        .build()
        .unwrap();
    container.get::<u64>("clock").await.unwrap();
    let svg = container.explain_key("clock").unwrap().to_svg();
    assert!(svg.contains("class=\"node override\""), "{svg}");
    assert!(svg.contains("override value `clock`"), "{svg}");
    assert!(svg.contains("built in "), "{svg}");
    assert!(!svg.contains("stroke-dasharray"), "built: solid");
    container.close().await.unwrap();
}

#[test]
fn the_page_has_a_picture_per_route_and_escapes_everything() {
    let app = App::builder()
        .route(Route::get("/a", |_: RequestContext| async { "a" }))
        .route(Route::post("/a", |_: RequestContext| async { "a" }))
        .route(Route::get("/b/{id}", |_: RequestContext| async { "b" }))
        .build()
        .unwrap();
    let html = app.explain_all().to_html();
    assert_eq!(html.matches("<svg").count(), 3);
    assert_eq!(html.matches("<section class=\"route\"").count(), 3);
    assert!(html.contains("id=\"filter\""));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "fetches nothing"
    );

    let hostile = hostile_app().explain_all().to_html();
    // The page's own tags, the pictures', and its one script: nothing from the names.
    let mut allowed = SVG_TAGS.to_vec();
    allowed.extend([
        "!doctype", "html", "head", "meta", "title", "style", "body", "header", "h1", "input",
        "span", "div", "main", "p", "section", "h2", "code", "details", "summary", "pre", "script",
    ]);
    let (before_script, script) = hostile.split_once("<script>").unwrap();
    only_tags(before_script, &allowed);
    assert!(script.starts_with("\n(function ()") && script.ends_with("</script></body></html>\n"));
}

#[tokio::test]
async fn the_explain_page_is_served_only_when_asked_for() {
    let client = TestClient::new(hostile_app());
    let page = client.get("/_green-tea").send().await;
    assert_eq!(page.status(), 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.text().contains("<svg"));
    assert_eq!(client.post("/_green-tea").send().await.status(), 405);

    let without = App::builder()
        .route(Route::get("/x", |_: RequestContext| async { "x" }))
        .build()
        .unwrap();
    let client = TestClient::new(without);
    assert_eq!(client.get("/_green-tea").send().await.status(), 404);
}
