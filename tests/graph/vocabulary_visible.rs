//! The graph's shapes — optional needs (`cache?`), collections (`notifiers[]`, `stores{}`) and
//! decorators — show everywhere the graph is visible: in each of explain's five renderings
//! (text, JSON, DOT, Mermaid, SVG) for a key and for a route, in health, and in `close()`'s
//! order (DESIGN.md, promise 12).

use crate::support;

use green_tea::ProviderFn;
use green_tea::error::NodeKind;
use green_tea::extract::RequestContext;
use green_tea::health::ProviderState;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::test::TestClient;
use green_tea::{App, BoxError, Container, Descriptor, HttpError, Needs, Provided, Provider};
use serde_json::json;
use support::Log;

/// Every value here: the text of what built it, wrapping what it was built from.
#[derive(Debug)]
struct Part(String);

/// A provider of one key (`name` is its declaration's name) that needs `needs` (all `Part`s),
/// builds `name(what it needs)` and logs its builds and disposes.
struct Logged {
    name: &'static str,
    key: &'static str,
    needs: &'static [&'static str],
    log: Log,
    /// Where `logged` was called: each declaration's own line.
    location: green_tea::Location,
}

#[track_caller]
fn logged(
    name: &'static str,
    key: &'static str,
    needs: &'static [&'static str],
    log: &Log,
) -> Logged {
    Logged {
        name,
        key,
        needs,
        log: log.clone(),
        location: green_tea::Location::caller(),
    }
}

impl Provider for Logged {
    fn descriptor(&self) -> Descriptor {
        self.needs.iter().fold(
            Descriptor::new(self.name)
                .at(self.location)
                .provides::<Part>(self.key),
            |d, need| d.needs::<Part>(*need),
        )
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        let mut inner = Vec::new();
        for (i, key) in self.needs.iter().enumerate() {
            if key.ends_with('?') {
                inner.push(
                    needs
                        .optional::<Part>(i)?
                        .map_or("-".to_owned(), |p| p.0.clone()),
                );
            } else if key.ends_with("[]") {
                let all: Vec<String> = needs.all::<Part>(i)?.iter().map(|p| p.0.clone()).collect();
                inner.push(format!("[{}]", all.join(",")));
            } else if key.ends_with("{}") {
                let by_name: Vec<String> = needs
                    .by_name::<Part>(i)?
                    .iter()
                    .map(|(name, p)| format!("{name}={}", p.0))
                    .collect();
                inner.push(format!("{{{}}}", by_name.join(",")));
            } else {
                inner.push(needs.get::<Part>(i)?.0.clone());
            }
        }
        self.log.push(format!("provide {}", self.name));
        Ok(Provided::one(Part(format!(
            "{}({})",
            self.name,
            inner.join(",")
        ))))
    }

    async fn dispose(&self, _: &Provided) -> Result<(), BoxError> {
        self.log.push(format!("dispose {}", self.name));
        Ok(())
    }
}

/// One of each shape:
/// - `pricing` needs `cache?` (nothing provides `cache`) and `rates?` (provided);
/// - `alerts` needs the list `notifiers[]`, to which `email` then `sms` contribute;
/// - `routing` needs the map `stores{}`, to which `us` then `eu` contribute (a map is by name);
/// - `checkout` needs `billing`, which `retrying` then `metered` decorate.
fn container(log: &Log) -> Container {
    Container::builder()
        .provider(logged("rates", "rates", &[], log))
        .provider(logged("pricing", "pricing", &["cache?", "rates?"], log))
        .provider(logged("email", "notifiers[]", &[], log))
        .provider(logged("sms", "notifiers[]", &[], log))
        .provider(logged("alerts", "alerts", &["notifiers[]"], log))
        .provider(logged("us", "stores{us}", &[], log))
        .provider(logged("eu", "stores{eu}", &[], log))
        .provider(logged("routing", "routing", &["stores{}"], log))
        .provider(logged("billing", "billing", &[], log))
        .decorator(logged("retrying", "billing", &["billing"], log))
        .decorator(logged("metered", "billing", &["billing"], log))
        .provider(logged("checkout", "checkout", &["billing"], log))
        .build()
        .expect("a valid graph")
}

fn index_of(explain: &green_tea::explain::Explain, name: &str) -> usize {
    explain
        .nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("`{name}` is not in the slice of `{}`", explain.target))
}

fn assert_contains(rendering: &str, expected: &[&str]) {
    for expected in expected {
        assert!(
            rendering.contains(expected),
            "missing {expected:?} in:\n{rendering}"
        );
    }
}

#[tokio::test]
async fn an_optional_need_is_dashed_and_an_absent_one_says_so_in_every_rendering() {
    let log = Log::default();
    let container = container(&log);
    let pricing = container.get::<Part>("pricing").await.unwrap();
    assert_eq!(
        pricing.0, "pricing(-,rates())",
        "cache? is None, rates? is there"
    );

    let explain = container.explain_key("pricing").unwrap();
    assert_eq!(
        (index_of(&explain, "rates"), index_of(&explain, "pricing")),
        (0, 1)
    );
    assert_eq!(explain.roots, [1], "what was asked for");
    assert_contains(
        &explain.to_string(),
        &["  2. pricing: Part  <- needs cache? (absent), rates?\n     provider `pricing` at "],
    );

    let json = explain.to_json();
    assert_eq!(
        json["nodes"][1]["needs"],
        json!([
            { "key": "cache?", "from": null, "optional": true },
            { "key": "rates?", "from": 0, "optional": true },
        ])
    );
    assert!(explain.nodes[1].needs[0].is_optional());

    assert_contains(
        &explain.to_dot(),
        &[
            "  n1a0 [label=\"cache?\\nabsent: nothing provides `cache`\" style=dotted];\n",
            "  n1a0 -> n1 [label=\"cache?\" style=dashed];\n",
            "  n0 -> n1 [label=\"rates?\" style=dashed];\n",
        ],
    );
    assert_contains(
        &explain.to_mermaid(),
        &[
            "  n1a0[\"cache?<br/>absent: nothing provides `cache`\"]\n",
            "  style n1a0 stroke-dasharray: 3 3\n",
            "  n1a0 -.->|\"cache?\"| n1\n",
            "  n0 -.->|\"rates?\"| n1\n",
        ],
    );
    let svg = explain.to_svg();
    assert_eq!(svg.matches("<g class=\"node absent\">").count(), 1, "{svg}");
    assert_eq!(
        svg.matches("<g class=\"edge optional\">").count(),
        2,
        "{svg}"
    );
    assert_contains(
        &svg,
        &["absent: nothing provides `cache`</text>", ">rates?</text>"],
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_list_shows_its_contributors_in_order_in_every_rendering() {
    let log = Log::default();
    let container = container(&log);
    let alerts = container.get::<Part>("alerts").await.unwrap();
    assert_eq!(alerts.0, "alerts([email(),sms()])");

    let explain = container.explain_key("alerts").unwrap();
    let (email, sms, list, alerts) = (
        index_of(&explain, "email"),
        index_of(&explain, "sms"),
        index_of(&explain, "notifiers[]"),
        index_of(&explain, "alerts"),
    );
    let collection = &explain.nodes[list];
    assert_eq!(collection.kind, NodeKind::Collection);
    let from: Vec<Option<usize>> = collection.needs.iter().map(|n| n.from).collect();
    assert_eq!(from, [Some(email), Some(sms)], "registration order");
    assert_contains(
        &explain.to_string(),
        &[
            &format!(
                "  {}. notifiers[]: Part  <- holds provider `email`, provider `sms`\n     \
                 collection `notifiers[]` contributed at ",
                list + 1
            ),
            &format!("  {}. alerts: Part  <- needs notifiers[]\n", alerts + 1),
        ],
    );

    // Placed where its contributions are declared, in their order, not at its consumer.
    let contributed = format!(
        "collection `notifiers[]` contributed at {}, {}, app scope",
        explain.nodes[email].location, explain.nodes[sms].location
    );
    assert_contains(&explain.to_string(), &[&contributed]);
    assert_ne!(
        explain.nodes[email].location, explain.nodes[sms].location,
        "two places to name"
    );

    let json = explain.to_json();
    assert_eq!(json["nodes"][list]["kind"], "collection");
    assert_eq!(json["nodes"][list]["provides"][0]["key"], "notifiers[]");
    assert_eq!(json["nodes"][list]["needs"][0]["from"], email);
    assert_eq!(json["nodes"][list]["needs"][1]["from"], sms);
    assert_eq!(json["nodes"][alerts]["needs"][0]["from"], list);

    assert_contains(
        &explain.to_dot(),
        &[
            &format!(
                "  n{list} [label=\"notifiers[]: Part\\ncollection `notifiers[]`\\nholds 2 \
                 contributions, in order\" style=solid shape=folder];\n"
            ),
            &format!("  n{email} -> n{list} [label=\"notifiers[] (1 of 2)\"];\n"),
            &format!("  n{sms} -> n{list} [label=\"notifiers[] (2 of 2)\"];\n"),
            &format!("  n{list} -> n{alerts} [label=\"notifiers[]\"];\n"),
        ],
    );
    assert_contains(
        &explain.to_mermaid(),
        &[
            &format!(
                "  n{list}{{{{\"notifiers[]: Part<br/>collection `notifiers[]`<br/>holds 2 \
                 contributions, in order\"}}}}\n"
            ),
            &format!("  n{email} -->|\"notifiers[] (1 of 2)\"| n{list}\n"),
            &format!("  n{sms} -->|\"notifiers[] (2 of 2)\"| n{list}\n"),
            &format!("  n{list} -->|\"notifiers[]\"| n{alerts}\n"),
        ],
    );
    let svg = explain.to_svg();
    assert_eq!(svg.matches("<g class=\"node collection\">").count(), 1);
    assert_contains(
        &svg,
        &[
            ">collection `notifiers[]`, app scope</text>",
            ">holds 2 contributions, in order</text>",
            ">notifiers[] (1 of 2)</text>",
            ">notifiers[] (2 of 2)</text>",
        ],
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_map_shows_its_entries_by_name_in_every_rendering() {
    let log = Log::default();
    let container = container(&log);
    let routing = container.get::<Part>("routing").await.unwrap();
    assert_eq!(routing.0, "routing({eu=eu(),us=us()})", "by name");

    let explain = container.explain_key("routing").unwrap();
    let (eu, us, map) = (
        index_of(&explain, "eu"),
        index_of(&explain, "us"),
        index_of(&explain, "stores{}"),
    );
    assert_contains(
        &explain.to_string(),
        &[&format!(
            "  {}. stores{{}}: Part  <- holds eu: provider `eu`, us: provider `us`\n",
            map + 1
        )],
    );
    let needs = &explain.to_json()["nodes"][map]["needs"];
    assert_eq!(
        *needs,
        json!([
            { "key": "stores{eu}", "from": eu, "optional": false },
            { "key": "stores{us}", "from": us, "optional": false },
        ])
    );
    assert_contains(
        &explain.to_dot(),
        &[
            &format!("  n{eu} -> n{map} [label=\"stores{{eu}}\"];\n"),
            &format!("  n{us} -> n{map} [label=\"stores{{us}}\"];\n"),
            "holds 2 entries, by name",
        ],
    );
    assert_contains(
        &explain.to_mermaid(),
        &[
            &format!("  n{eu} -->|\"stores{{eu}}\"| n{map}\n"),
            &format!(
                "  n{map}{{{{\"stores{{}}: Part<br/>collection `stores{{}}`<br/>holds 2 entries, by name\"}}}}\n"
            ),
        ],
    );
    assert_contains(
        &explain.to_svg(),
        &[">stores{eu}</text>", ">holds 2 entries, by name</text>"],
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_decorated_key_reads_base_then_decorators_then_consumers_in_every_rendering() {
    let log = Log::default();
    let container = container(&log);
    let checkout = container.get::<Part>("checkout").await.unwrap();
    assert_eq!(checkout.0, "checkout(metered(retrying(billing())))");

    let explain = container.explain_key("checkout").unwrap();
    let names: Vec<&str> = explain.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["billing", "retrying", "metered", "checkout"]);
    assert_contains(
        &explain.to_string(),
        &[
            "  1. billing: Part\n     provider `billing` at ",
            "  2. billing: Part  <- wraps provider `billing`\n     decorator `retrying` at ",
            "  3. billing: Part  <- wraps decorator `retrying`\n     decorator `metered` at ",
            "  4. checkout: Part  <- needs billing\n     provider `checkout` at ",
        ],
    );

    let json = explain.to_json();
    assert_eq!(json["nodes"][0]["decorates"], json!(null));
    for (i, wrapped) in [(1, 0), (2, 1)] {
        assert_eq!(json["nodes"][i]["kind"], "decorator");
        assert_eq!(json["nodes"][i]["decorates"], "billing");
        assert_eq!(json["nodes"][i]["needs"][0]["from"], wrapped);
    }
    assert_eq!(
        json["nodes"][3]["needs"][0]["from"], 2,
        "the consumer gets the last decorator's value"
    );

    assert_contains(
        &explain.to_dot(),
        &[
            "  n1 [label=\"billing: Part\\ndecorator `retrying`\\nwraps provider `billing`\" \
             style=solid shape=component];\n",
            "  n2 [label=\"billing: Part\\ndecorator `metered`\\nwraps decorator `retrying`\" \
             style=solid shape=component];\n",
            "  n0 -> n1 [label=\"billing\"];\n",
            "  n1 -> n2 [label=\"billing\"];\n",
            "  n2 -> n3 [label=\"billing\"];\n",
        ],
    );
    assert_contains(
        &explain.to_mermaid(),
        &[
            "  n1[[\"billing: Part<br/>decorator `retrying`<br/>wraps provider `billing`\"]]\n",
            "  n2[[\"billing: Part<br/>decorator `metered`<br/>wraps decorator `retrying`\"]]\n",
            "  n0 -->|\"billing\"| n1\n  n1 -->|\"billing\"| n2\n  n2 -->|\"billing\"| n3\n",
        ],
    );
    let svg = explain.to_svg();
    assert_eq!(svg.matches("<g class=\"node decorator\">").count(), 2);
    assert_contains(
        &svg,
        &[
            ">decorator `retrying`, app scope</text>",
            ">wraps provider `billing`</text>",
            ">wraps decorator `retrying`</text>",
        ],
    );
    container.close().await.unwrap();
}

/// The quoted parts of each line of `rendering` (between unescaped `"`).
fn quoted(rendering: &str, escaped_quote: &str) -> Vec<String> {
    rendering
        .lines()
        .flat_map(|line| {
            let line = line.replace(escaped_quote, "");
            assert_eq!(
                line.matches('"').count() % 2,
                0,
                "an open quote in {line:?}"
            );
            line.split('"')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn keys_full_of_mermaid_and_dot_syntax_stay_inside_their_quotes() {
    let container = Container::builder()
        .value("say \"hi\" | #1 & <b>", 1_u8)
        .provider(
            ProviderFn::new("notifiers[]", |needs| async move {
                Ok(vec![needs.optional::<u8>(0)?.map_or(0, |v| *v)])
            })
            .needs::<u8>("say \"hi\" | #1 & <b>?")
            .named("a{b}[c]"),
        )
        .provider(
            ProviderFn::new("count", |needs| async move {
                Ok(needs.all::<Vec<u8>>(0)?.len())
            })
            .needs::<Vec<u8>>("notifiers[]"),
        )
        .build()
        .unwrap();
    let explain = container.explain_key("count").unwrap();

    let mermaid = explain.to_mermaid();
    for label in quoted(&mermaid, "\\\"") {
        let text = label.replace("<br/>", "");
        assert!(
            !text.contains(['<', '>', '|', '&']),
            "{label:?} is read by Mermaid in:\n{mermaid}"
        );
        // `#` only starts an entity code that this escaping wrote.
        for code in text.split('#').skip(1) {
            let name = code.split(';').next().unwrap();
            assert!(
                ["35", "quot", "lt", "gt", "amp", "124"].contains(&name),
                "#{name} in {label:?}"
            );
        }
    }
    assert_contains(
        &mermaid,
        &[
            "value `say #quot;hi#quot; #124; #35;1 #amp; #lt;b#gt;`",
            "|\"say #quot;hi#quot; #124; #35;1 #amp; #lt;b#gt;?\"|",
            "Vec#lt;u8#gt;<br/>provider `a{b}[c]`",
        ],
    );

    let dot = explain.to_dot();
    for label in quoted(&dot, "\\\"") {
        assert!(!label.contains('\n'), "{label:?}");
    }
    assert_contains(
        &dot,
        &[
            "[label=\"say \\\"hi\\\" | #1 & <b>?\" style=dashed];",
            "provider `a{b}[c]`",
        ],
    );
    container.close().await.unwrap();
}

/// A route with one of each: a decorated `billing`, the list `notifiers[]`, an absent
/// `cache?`, a present `rates?`, and a step whose `session?` is absent.
fn app(log: &Log) -> App {
    App::builder()
        .provider(logged("rates", "rates", &[], log))
        .provider(logged("billing", "billing", &[], log))
        .decorator(logged("retrying", "billing", &["billing"], log))
        .provider(logged("email", "notifiers[]", &[], log))
        .provider(logged("sms", "notifiers[]", &[], log))
        .step(
            StepFn::new("user", |_, needs| {
                let session = needs
                    .optional::<String>(0)
                    .map_err(|_| HttpError::internal())?;
                let who = session.as_deref().map_or("nobody", String::as_str);
                Ok::<_, HttpError>(format!("user of {who}"))
            })
            .needs::<String>("session?"),
        )
        .route(
            Route::get("/checkout", |request: RequestContext| async move {
                let billing = request.need_ref::<Part>(0)?;
                let cache = request.need_optional_ref::<Part>(1)?;
                let notifiers = request.need_all::<Part>(2)?;
                let rates = request.need_optional_ref::<Part>(3)?;
                let user = request.need_ref::<String>(4)?;
                Ok::<_, HttpError>(format!(
                    "{} {} {} {} {user}",
                    billing.0,
                    cache.is_some(),
                    notifiers.len(),
                    rates.map_or("-", |r| r.0.as_str()),
                ))
            })
            .needs::<Part>("billing")
            .needs::<Part>("cache?")
            .needs::<Part>("notifiers[]")
            .needs::<Part>("rates?")
            .needs::<String>("user")
            .named("Checkout::show"),
        )
        .health_routes("/live", "/ready")
        .explain_page("/_explain")
        .build()
        .expect("a valid graph")
}

#[tokio::test]
async fn a_route_draws_its_needs_from_the_decorator_the_collection_and_absent_boxes() {
    let log = Log::default();
    let app = app(&log);
    let client = TestClient::new(app.clone());
    let reply = client.get("/checkout").send().await;
    assert_eq!(reply.status(), 200, "{}", reply.text());
    assert_eq!(
        reply.text(),
        "retrying(billing()) false 2 rates() user of nobody"
    );

    let explain = app.explain("/checkout").unwrap();
    let route = &explain.routes[0];
    assert_eq!(route.absent, ["cache?"]);
    assert_eq!(route.steps[0].absent, ["session?"]);
    let providers = &route.providers;
    let (billing, retrying, list, rates) = (
        index_of(providers, "billing"),
        index_of(providers, "retrying"),
        index_of(providers, "notifiers[]"),
        index_of(providers, "rates"),
    );
    let mut roots = providers.roots.clone();
    roots.sort_unstable();
    let mut read = vec![retrying, list, rates];
    read.sort_unstable();
    assert_eq!(
        roots, read,
        "the route reads the decorator, not the provider under it"
    );

    assert_contains(
        &explain.to_string(),
        &[
            "  needs: billing, cache? (absent), notifiers[], rates?, user\n",
            "    1. user -> user: String  <- needs session? (absent)\n",
            &format!(
                "    {}. billing: Part  <- wraps provider `billing`\n       decorator `retrying` at ",
                retrying + 1
            ),
            &format!(
                "    {}. notifiers[]: Part  <- holds provider `email`, provider `sms`\n       \
                 collection `notifiers[]` contributed at ",
                list + 1
            ),
        ],
    );

    let json = explain.to_json();
    let show = &json["routes"][0];
    assert_eq!(
        show["needs"],
        json!(["billing", "cache?", "notifiers[]", "rates?", "user"])
    );
    assert_eq!(show["absent"], json!(["cache?"]));
    assert_eq!(show["steps"][0]["absent"], json!(["session?"]));
    let nodes = &show["providers"]["nodes"];
    assert_eq!(nodes[retrying]["kind"], "decorator");
    assert_eq!(nodes[retrying]["decorates"], "billing");
    assert_eq!(nodes[list]["kind"], "collection");

    assert_contains(
        &explain.to_dot(),
        &[
            &format!("  r0p{retrying} -> r0h [label=\"billing\"];\n"),
            &format!("  r0p{billing} -> r0p{retrying} [label=\"billing\"];\n"),
            &format!("  r0p{list} -> r0h [label=\"notifiers[]\"];\n"),
            &format!("  r0p{rates} -> r0h [label=\"rates?\" style=dashed];\n"),
            "  r0ha1 [label=\"cache?\\nabsent: nothing provides `cache`\" style=dotted];\n",
            "  r0ha1 -> r0h [label=\"cache?\" style=dashed];\n",
            "  r0s0a0 -> r0s0 [label=\"session?\" style=dashed];\n",
            "  r0s0 -> r0h [label=\"user\"];\n",
            "style=solid shape=component];\n",
            "style=solid shape=folder];\n",
            "  r0h [label=\"GET Checkout::show\" style=bold];\n",
        ],
    );
    let dot = explain.to_dot();
    assert!(
        !dot.contains(&format!("  r0p{billing} -> r0h")),
        "the handler does not read the undecorated billing:\n{dot}"
    );
    assert_contains(
        &explain.to_mermaid(),
        &[
            &format!("  r0p{retrying} -->|\"billing\"| r0h\n"),
            &format!(
                "  r0p{retrying}[[\"billing: Part<br/>decorator `retrying`<br/>wraps provider `billing`\"]]\n"
            ),
            &format!(
                "  r0p{list}{{{{\"notifiers[]: Part<br/>collection `notifiers[]`<br/>holds 2 contributions, in order\"}}}}\n"
            ),
            &format!("  r0p{rates} -.->|\"rates?\"| r0h\n"),
            "  r0ha1 -.->|\"cache?\"| r0h\n",
            "  r0s0a0 -.->|\"session?\"| r0s0\n",
        ],
    );

    let svg = route.to_svg();
    assert_eq!(
        svg.matches("<g class=\"node absent\">").count(),
        2,
        "cache? and session?"
    );
    assert_eq!(svg.matches("<g class=\"node decorator\">").count(), 1);
    assert_eq!(svg.matches("<g class=\"node collection\">").count(), 1);
    assert_eq!(
        svg.matches("<g class=\"edge optional\">").count(),
        3,
        "session?, cache?, rates?"
    );
    assert_contains(
        &svg,
        &[
            ">absent: nothing provides `cache`</text>",
            ">absent: nothing provides `session`</text>",
        ],
    );

    let page = client.get("/_explain").send().await.text();
    assert_contains(
        &page,
        &[
            "<span class=\"collection\">collection</span>",
            "<span class=\"decorator\">decorator</span>",
            "<g class=\"node decorator\">",
            "<g class=\"node absent\">",
            "cache? (absent)",
        ],
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn health_lists_collections_and_decorators_like_every_provider() {
    let log = Log::default();
    let container = container(&log);
    let state = |name: &str| {
        let health = container.health();
        let p = health
            .providers
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("`{name}` is not in the health"));
        (p.kind, p.state)
    };
    for (name, kind) in [
        ("billing", NodeKind::Provider),
        ("retrying", NodeKind::Decorator),
        ("metered", NodeKind::Decorator),
        ("email", NodeKind::Provider),
        ("notifiers[]", NodeKind::Collection),
        ("stores{}", NodeKind::Collection),
    ] {
        assert_eq!(
            state(name),
            (kind, ProviderState::NotBuilt),
            "`{name}` is needed: not built, not replaced"
        );
    }

    container.get::<Part>("checkout").await.unwrap();
    container.get::<Part>("alerts").await.unwrap();
    for name in [
        "billing",
        "retrying",
        "metered",
        "email",
        "sms",
        "notifiers[]",
    ] {
        assert_eq!(state(name).1, ProviderState::Built, "{name}");
    }
    let json = serde_json::to_value(container.health()).unwrap();
    let providers = json["providers"].as_array().unwrap();
    let entry = |name: &str| providers.iter().find(|p| p["name"] == name).unwrap();
    assert_eq!(entry("notifiers[]")["kind"], "collection");
    assert_eq!(entry("notifiers[]")["keys"], json!(["notifiers[]"]));
    assert_eq!(entry("notifiers[]")["state"], "built");
    assert_eq!(entry("metered")["kind"], "decorator");
    assert_eq!(entry("metered")["keys"], json!(["billing"]));
    assert_eq!(entry("billing")["state"], "built");

    container.close().await.unwrap();
    for name in [
        "billing",
        "retrying",
        "metered",
        "email",
        "sms",
        "notifiers[]",
    ] {
        assert_eq!(state(name).1, ProviderState::Disposed, "{name}");
    }
}

#[tokio::test]
async fn what_overrides_take_over_is_replaced_and_the_decorators_stay() {
    let (log, fake) = (Log::default(), Log::default());
    let container = Container::builder()
        .provider(logged("email", "notifiers[]", &[], &log))
        .override_provider(logged("fake_email", "notifiers[]", &[], &fake))
        .provider(logged("billing", "billing", &[], &log))
        .override_provider(logged("fake_billing", "billing", &[], &fake))
        .decorator(logged("retrying", "billing", &["billing"], &log))
        .build()
        .unwrap();
    assert_eq!(
        container.get::<Part>("billing").await.unwrap().0,
        "retrying(fake_billing())"
    );
    container.build_all().await.unwrap();
    let health = container.health();
    let state = |name: &str| {
        health
            .providers
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .state
    };
    assert_eq!(state("email"), ProviderState::Replaced);
    assert_eq!(state("billing"), ProviderState::Replaced);
    for name in ["fake_email", "fake_billing", "retrying", "notifiers[]"] {
        assert_eq!(state(name), ProviderState::Built, "{name}");
    }
    let text = container.explain_key("billing").unwrap().to_string();
    assert_contains(&text, &["<- wraps override `fake_billing`", "(override)"]);
    container.close().await.unwrap();
}

#[tokio::test]
async fn the_health_route_shows_each_node_with_its_kind() {
    let log = Log::default();
    let app = app(&log);
    app.start().await.unwrap();
    let client = TestClient::new(app.clone());
    let ready = client.get("/ready").send().await;
    assert_eq!(ready.status(), 200, "{}", ready.text());
    let body: serde_json::Value = serde_json::from_str(&ready.text()).unwrap();
    let kinds: Vec<(&str, &str, &str)> = body["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["kind"].as_str().unwrap(),
                p["state"].as_str().unwrap(),
            )
        })
        .collect();
    for expected in [
        ("billing", "provider", "built"),
        ("retrying", "decorator", "built"),
        ("email", "provider", "built"),
        ("sms", "provider", "built"),
        ("notifiers[]", "collection", "built"),
    ] {
        assert!(kinds.contains(&expected), "{expected:?} not in {kinds:?}");
    }
    app.close().await.unwrap();
}

#[tokio::test]
async fn close_disposes_every_decorator_and_contribution_dependents_first() {
    let log = Log::default();
    let container = container(&log);
    container.build_all().await.unwrap();
    let built = log.names("provide");
    container.close().await.unwrap();

    let disposed = log.names("dispose");
    let mut once = disposed.clone();
    once.sort_unstable();
    let mut all = built.clone();
    all.sort_unstable();
    assert_eq!(once, all, "every built declaration, once");
    assert_eq!(disposed.len(), 12, "{disposed:?}");

    let at = |name: &str| disposed.iter().position(|n| n == name).unwrap();
    for (first, then) in [
        ("checkout", "metered"),
        ("metered", "retrying"),
        ("retrying", "billing"),
        ("alerts", "email"),
        ("alerts", "sms"),
        ("routing", "eu"),
        ("routing", "us"),
        ("pricing", "rates"),
    ] {
        assert!(at(first) < at(then), "{first} before {then}: {disposed:?}");
    }
    let at = |name: &str| built.iter().position(|n| n == name).unwrap();
    for (first, then) in [
        ("billing", "retrying"),
        ("retrying", "metered"),
        ("email", "alerts"),
        ("sms", "alerts"),
    ] {
        assert!(
            at(first) < at(then),
            "built {first} before {then}: {built:?}"
        );
    }
}
