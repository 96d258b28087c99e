//! Workers in `explain`, as every other node kind is: a worker's text, JSON, DOT, Mermaid and
//! SVG (its needs, the provider each resolves to, the slice they build, its restart policy,
//! whether it is critical, its state now), inside its module's box; the app's explain, its
//! page and `explain_module` list workers; an unknown name gets a "did you mean".

use green_tea::explain::ExplainWorker;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use green_tea::workers::{Restart, Shutdown, WorkerFn, WorkerFuture, WorkerState};
use green_tea::{Container, ProviderFn};

struct Broker;
struct Cache;

/// A worker named `name` that waits for its shutdown, declared where this is called.
#[track_caller]
fn waiting(name: &'static str) -> WorkerFn<fn(Needs<'static>, Shutdown) -> WorkerFuture> {
    let run: fn(Needs<'static>, Shutdown) -> WorkerFuture = |_, shutdown| {
        Box::pin(async move {
            shutdown.requested().await;
            Ok(())
        })
    };
    WorkerFn::new(name, run)
}

/// `orders`: a private `outbox` and the worker `relay`, which needs it, the app's `broker`
/// (over `brokerUrl`) and an optional `cache` nothing provides; it restarts on failure and is
/// critical. The app also has a worker of its own, `sweeper`, and a route.
fn orders() -> Module {
    Module::new("orders")
        .value("outbox", String::from("the outbox"))
        .worker(
            waiting("relay")
                .needs::<String>("outbox")
                .needs::<Broker>("broker")
                .needs::<Cache>("cache?")
                .restart(Restart::on_failure())
                .critical(),
        )
}

fn app() -> App {
    App::builder()
        .value("brokerUrl", String::from("amqp://127.0.0.1"))
        .provider(ProviderFn::new("broker", |_| async { Ok(Broker) }).needs::<String>("brokerUrl"))
        .module(orders())
        .worker(waiting("sweeper"))
        .route(Route::get("/ping", |_: RequestContext| async { "pong" }))
        .explain_page("/_green-tea")
        .build()
        .unwrap()
}

fn relay(app: &App) -> ExplainWorker {
    app.explain_worker("orders::relay").unwrap()
}

/// The position in the worker's providers of the node that provides `key`.
fn node_of(worker: &ExplainWorker, key: &str) -> usize {
    worker
        .providers
        .nodes
        .iter()
        .position(|n| n.provides.iter().any(|k| k.key == key))
        .unwrap_or_else(|| panic!("no {key} among {:?}", worker.providers.nodes))
}

#[test]
fn the_model_has_its_name_module_policy_needs_and_their_providers() {
    let app = app();
    let relay = relay(&app);
    assert_eq!(relay.name, "orders::relay");
    assert_eq!(relay.module.as_deref(), Some("orders"));
    assert!(relay.location.starts_with("tests/explain/workers.rs:"));
    assert_eq!(relay.restart, "on failure, 100ms doubling to 30s");
    assert!(relay.critical);
    assert_eq!(relay.state, WorkerState::NotStarted);
    assert_eq!(relay.last_error, None);

    let needs: Vec<(&str, &str, bool, Option<&str>)> = relay
        .needs
        .iter()
        .map(|n| {
            (
                n.key.as_str(),
                n.type_name.as_str(),
                n.optional,
                n.resolved.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        needs,
        [
            ("outbox", "String", false, Some("orders::outbox")),
            ("broker", "Broker", false, Some("broker")),
            ("cache?", "Cache", true, None),
        ]
    );
    assert_eq!(relay.needs[0].from, Some(node_of(&relay, "orders::outbox")));
    assert_eq!(relay.needs[1].from, Some(node_of(&relay, "broker")));
    assert_eq!(relay.needs[2].from, None);
    // The slice in build order: `brokerUrl` before `broker`; nothing built yet.
    assert_eq!(relay.providers.nodes.len(), 3);
    assert!(node_of(&relay, "brokerUrl") < node_of(&relay, "broker"));
    assert!(relay.providers.nodes.iter().all(|n| !n.built));
    assert_eq!(relay.providers.target, "orders::relay");

    let sweeper = app.explain_worker("sweeper").unwrap();
    assert_eq!((sweeper.module, sweeper.restart.as_str()), (None, "never"));
    assert!(!sweeper.critical && sweeper.needs.is_empty());
}

#[test]
fn the_text_reads_like_a_routes_block() {
    let app = app();
    let relay = relay(&app);
    let text = relay.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "worker orders::relay ({}) in module `orders`",
            relay.location
        )
    );
    assert_eq!(
        &lines[1..8],
        [
            "  restart: on failure, 100ms doubling to 30s",
            "  critical: the app is not ready while it is not running",
            "  state: not started",
            "  needs:",
            "    outbox: String <- value `outbox` in module `orders`",
            "    broker: Broker <- provider `broker`",
            "    cache?: Cache (absent: nothing provides `cache`)",
        ],
        "{text}"
    );
    assert_eq!(
        lines[8],
        "  providers, in build order (app scope, built once):"
    );
    assert!(
        text.contains("broker: Broker  <- needs brokerUrl"),
        "{text}"
    );
    assert!(
        text.contains("value `outbox` in module `orders` at "),
        "{text}"
    );

    let sweeper = app.explain_worker("sweeper").unwrap().to_string();
    assert!(
        sweeper.ends_with(
            "  restart: never\n  state: not started\n  needs: nothing\n  providers: none"
        ),
        "{sweeper}"
    );
}

#[test]
fn the_json_has_every_field() {
    let app = app();
    let relay = relay(&app);
    let json = relay.to_json();
    assert_eq!(json["name"], "orders::relay");
    assert_eq!(json["module"], "orders");
    assert_eq!(json["restart"], "on failure, 100ms doubling to 30s");
    assert_eq!(json["critical"], true);
    assert_eq!(json["state"], "not_started");
    assert_eq!(json["last_error"], serde_json::Value::Null);
    assert_eq!(json["needs"][0]["key"], "outbox");
    assert_eq!(json["needs"][0]["type"], "String");
    assert_eq!(json["needs"][0]["optional"], false);
    assert_eq!(json["needs"][0]["resolved"], "orders::outbox");
    assert_eq!(json["needs"][0]["from"], node_of(&relay, "orders::outbox"));
    assert_eq!(json["needs"][2]["optional"], true);
    assert_eq!(json["needs"][2]["from"], serde_json::Value::Null);
    assert_eq!(json["providers"]["nodes"].as_array().unwrap().len(), 3);
    assert!(
        json["location"]
            .as_str()
            .unwrap()
            .contains("tests/explain/workers.rs")
    );
}

#[test]
fn dot_draws_the_worker_as_a_cds_in_its_modules_cluster_with_an_edge_per_need() {
    let app = app();
    let relay = relay(&app);
    let dot = relay.to_dot();
    assert!(dot.starts_with("digraph \"orders::relay\" {\n"), "{dot}");
    let worker = "w [label=\"worker `orders::relay`\\nrestart: on failure, 100ms doubling to \
                  30s\\ncritical\" shape=cds style=dashed];";
    // Inside `orders`' cluster, with the module's `outbox`.
    let cluster = dot
        .split_once("subgraph \"cluster_orders\" {")
        .map(|(_, rest)| &rest[..rest.find("  }").unwrap()])
        .unwrap_or_else(|| panic!("no cluster in {dot}"));
    assert!(cluster.contains(worker), "{dot}");
    let outbox = node_of(&relay, "orders::outbox");
    assert!(cluster.contains(&format!("n{outbox} [label=")), "{dot}");
    let broker = node_of(&relay, "broker");
    assert!(!cluster.contains(&format!("n{broker} [")), "{dot}");
    assert!(
        dot.contains(&format!("  n{outbox} -> w [label=\"outbox\"];")),
        "{dot}"
    );
    assert!(
        dot.contains(&format!("  n{broker} -> w [label=\"broker\"];")),
        "{dot}"
    );
    assert!(
        dot.contains("  wa2 -> w [label=\"cache?\" style=dashed];"),
        "{dot}"
    );
    assert!(
        dot.contains("wa2 [label=\"cache?\\nabsent: nothing provides `cache`\" style=dotted];")
    );
    // The providers' own edges are there too.
    let url = node_of(&relay, "brokerUrl");
    assert!(dot.contains(&format!("  n{url} -> n{broker} [label=\"brokerUrl\"];")));
    assert!(dot.ends_with("}\n"));

    // A worker of the app's own is outside every cluster.
    let sweeper = app.explain_worker("sweeper").unwrap().to_dot();
    assert!(!sweeper.contains("subgraph"), "{sweeper}");
    assert!(sweeper.contains("  w [label=\"worker `sweeper`\\nrestart: never\" shape=cds"));
}

#[test]
fn mermaid_draws_the_worker_as_an_asymmetric_box_in_its_modules_subgraph() {
    let app = app();
    let relay = relay(&app);
    let mermaid = relay.to_mermaid();
    assert!(mermaid.starts_with("flowchart LR\n"), "{mermaid}");
    let subgraph = mermaid
        .split_once("subgraph module0[\"orders\"]")
        .map(|(_, rest)| &rest[..rest.find("  end").unwrap()])
        .unwrap_or_else(|| panic!("no subgraph in {mermaid}"));
    assert!(
        subgraph.contains(
            "w>\"worker `orders::relay`<br/>restart: on failure, 100ms doubling to 30s<br/>critical\"]"
        ),
        "{mermaid}"
    );
    let outbox = node_of(&relay, "orders::outbox");
    let broker = node_of(&relay, "broker");
    assert!(
        mermaid.contains(&format!("  n{outbox} -->|\"outbox\"| w")),
        "{mermaid}"
    );
    assert!(
        mermaid.contains(&format!("  n{broker} -->|\"broker\"| w")),
        "{mermaid}"
    );
    assert!(mermaid.contains("  wa2 -.->|\"cache?\"| w"), "{mermaid}");
    assert!(
        mermaid.contains("style wa2 stroke-dasharray: 3 3"),
        "{mermaid}"
    );
}

#[test]
fn svg_draws_the_workers_box_inside_its_module() {
    let app = app();
    let svg = relay(&app).to_svg();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("worker `orders::relay`"), "{svg}");
    assert!(
        svg.contains("<g class=\"node worker\" data-module=\"orders\">"),
        "{svg}"
    );
    assert!(
        svg.contains("<g class=\"module\" data-module=\"orders\">"),
        "{svg}"
    );
    assert!(svg.contains("restart: on failure, 100ms doubling to 30s"));
    assert!(svg.contains(">not started</text>"), "{svg}");
    assert!(svg.contains("absent: nothing provides `cache`"));
    assert!(svg.contains("broker: Broker"));
    // Three needs and the providers' own: `brokerUrl` into `broker`.
    assert_eq!(svg.matches("<g class=\"edge").count(), 4, "{svg}");
}

#[tokio::test]
async fn explain_shows_the_state_after_start_and_after_close() {
    let app = app();
    app.start().await.unwrap();
    let relay = relay(&app);
    assert_eq!(relay.state, WorkerState::Running);
    assert!(relay.providers.nodes.iter().all(|n| n.built), "{relay}");
    assert!(relay.to_string().contains("\n  state: running\n"));
    assert!(relay.to_dot().contains("shape=cds style=bold];"));
    assert!(relay.to_svg().contains(">running</text>"));
    app.close().await.unwrap();
    assert_eq!(
        app.explain_worker("orders::relay").unwrap().state,
        WorkerState::Stopped
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_run_shows_with_its_error() {
    let app = App::builder()
        .worker(WorkerFn::new("importer", |_, _| async {
            Err("the feed is gone".into())
        }))
        .build()
        .unwrap();
    app.start().await.unwrap();
    while app.explain_worker("importer").unwrap().state != WorkerState::Failed {
        tokio::task::yield_now().await;
    }
    let importer = app.explain_worker("importer").unwrap();
    assert_eq!(importer.last_error.as_deref(), Some("the feed is gone"));
    assert!(
        importer
            .to_string()
            .contains("\n  state: failed; last failure: the feed is gone\n"),
        "{importer}"
    );
    assert!(app.close().await.is_err());
}

#[test]
fn an_unknown_name_gets_the_closest_one() {
    let app = app();
    let err = app.explain_worker("orders::rely").unwrap_err();
    assert_eq!(err.name, "orders::rely");
    assert_eq!(err.suggestion.as_deref(), Some("orders::relay"));
    assert_eq!(err.workers, ["orders::relay", "sweeper"]);
    assert_eq!(
        err.to_string(),
        "error[GT0104]: no worker `orders::rely`; did you mean `orders::relay`? workers: orders::relay, sweeper"
    );
    // A module's worker by its own name: the qualified one.
    let err = app.explain_worker("relay").unwrap_err();
    assert_eq!(err.suggestion.as_deref(), Some("orders::relay"));
    // Nothing close.
    let err = app.explain_worker("billing").unwrap_err();
    assert_eq!(err.suggestion, None);
    assert_eq!(
        format!("{err:?}"),
        "error[GT0104]: no worker `billing`; workers: orders::relay, sweeper"
    );

    let none = Container::builder().build().unwrap();
    assert_eq!(
        none.explain_worker("relay").unwrap_err().to_string(),
        "error[GT0104]: no worker `relay`: nothing registers a worker (`.worker(..)`)"
    );
    assert!(none.explain_workers().is_empty());
}

#[test]
fn explain_all_lists_the_workers_after_the_paths() {
    let app = app();
    let all = app.explain_all();
    let names: Vec<&str> = all.workers.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["orders::relay", "sweeper"]);
    let text = all.to_string();
    let ping = text.find("GET /ping").unwrap();
    let relay = text.find("worker orders::relay (").unwrap();
    let sweeper = text.find("worker sweeper (").unwrap();
    let module = text.find("module `orders` (").unwrap();
    assert!(
        ping < relay && relay < sweeper && sweeper < module,
        "{text}"
    );
    assert_eq!(all.to_json()["workers"][0]["name"], "orders::relay");
    let svg = all.to_svg();
    assert_eq!(svg.matches("<g class=\"node worker\"").count(), 2, "{svg}");
    assert!(svg.contains(">worker `sweeper`</text>"), "{svg}");
}

#[test]
fn explain_module_lists_the_modules_workers_among_its_members() {
    let app = app();
    let orders = app.explain_module("orders").unwrap();
    assert_eq!(orders.workers.len(), 1);
    assert_eq!(orders.workers[0].who(), "worker `relay`");
    assert_eq!(orders.workers[0].kind, green_tea::error::NodeKind::Worker);
    assert!(orders.declarations.iter().all(|d| d.name != "relay"));
    assert_eq!(orders.private, ["orders::outbox"]);
    // What it needs from outside the module is among the module's imports.
    let broker = orders.imports.iter().find(|i| i.key == "broker").unwrap();
    assert_eq!(broker.from, None);
    assert_eq!(broker.needed_by, ["worker `relay`"]);
    assert!(orders.imports.iter().all(|i| i.key != "orders::outbox"));
    let text = orders.to_string();
    assert!(
        text.contains("\n  workers:\n    worker `relay` at tests/explain/workers.rs:"),
        "{text}"
    );
    assert!(
        text.contains("broker, from the app, needed by worker `relay`"),
        "{text}"
    );
    assert_eq!(orders.to_json()["workers"][0]["kind"], "worker");

    // A container's module lists them too.
    let container = Container::builder()
        .module(
            Module::new("jobs")
                .value("queue", 1_u32)
                .worker(waiting("consumer").needs::<u32>("queue")),
        )
        .build()
        .unwrap();
    let jobs = container.explain_module("jobs").unwrap();
    assert_eq!(jobs.workers[0].who(), "worker `consumer`");
    let consumer = container.explain_worker("jobs::consumer").unwrap();
    assert_eq!(consumer.providers.nodes[0].name, "value `queue`");
}

#[tokio::test]
async fn the_page_has_a_section_per_worker_with_its_module_for_the_filter() {
    let app = app();
    let html = app.explain_all().to_html();
    assert_eq!(html.matches("<section class=\"worker\"").count(), 2);
    assert!(
        html.contains("<span id=\"count\">1 routes, 2 workers</span>"),
        "{html}"
    );
    assert!(html.contains("<span class=\"worker\">worker</span>"));
    let relay = &html[html
        .find("<section class=\"worker\" id=\"worker-0\"")
        .unwrap()..];
    let relay = &relay[..relay.find("</section>").unwrap()];
    assert!(relay.contains("<code>orders::relay</code>"), "{relay}");
    assert!(relay.contains(" · restart: on failure, 100ms doubling to 30s · critical"));
    // The module filter keeps a section whose boxes are the module's: the worker's box is.
    assert!(
        relay.contains("<g class=\"node worker\" data-module=\"orders\">"),
        "{relay}"
    );
    assert!(html.contains("<option value=\"orders\">module orders</option>"));
    // The text filter reads its name, needs, providers and module.
    let search = relay
        .split_once("data-search=\"")
        .map(|(_, rest)| &rest[..rest.find('"').unwrap()])
        .unwrap();
    for word in [
        "worker",
        "orders::relay",
        "critical",
        "outbox: string",
        "broker",
        "orders",
    ] {
        assert!(search.contains(word), "no {word} in {search}");
    }
    assert!(relay.contains("<summary>As text</summary><pre>worker orders::relay ("));

    // And it is what the app serves.
    let client = TestClient::new(app);
    let page = client.get("/_green-tea").send().await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.text().matches("<section class=\"worker\"").count(), 2);
}

#[test]
fn a_tests_override_of_a_worker_says_so() {
    let app = App::builder()
        .value("brokerUrl", String::from("amqp://127.0.0.1"))
        .provider(ProviderFn::new("broker", |_| async { Ok(Broker) }).needs::<String>("brokerUrl"))
        .module(orders())
        .override_worker("orders::relay", waiting("fake").needs::<String>("outbox"))
        .build()
        .unwrap();
    let relay = relay(&app);
    assert!(relay.overridden);
    assert_eq!(relay.module.as_deref(), Some("orders"));
    assert_eq!(relay.needs.len(), 1);
    assert_eq!(relay.needs[0].resolved.as_deref(), Some("orders::outbox"));
    assert_eq!(relay.restart, "never", "the fake's own policy");
    let heading = relay.to_string();
    let heading = heading.lines().next().unwrap();
    assert!(
        heading.ends_with(" in module `orders` (override)"),
        "{heading}"
    );
    assert_eq!(relay.to_json()["overridden"], true);
    assert!(
        relay
            .to_dot()
            .contains("restart: never\\noverride\" shape=cds")
    );
    assert!(relay.to_svg().contains(">override</text>"));
    assert!(app.explain_all().to_html().contains(" · override"));
    assert!(
        !registered_relay().overridden,
        "the registered one is no override"
    );
}

fn registered_relay() -> ExplainWorker {
    relay(&app())
}
