//! `explain_key`: the slice in build order, as text, JSON, DOT and Mermaid.

use crate::support;

use green_tea::error::NodeKind;
use green_tea::{Container, ProvideError, Scope};
use support::{Log, Probe, Service};

fn app(log: &Log) -> Container {
    Container::builder()
        .provider(Probe::new("top", &["left", "right"], log))
        .provider(Probe::new("left", &["base"], log))
        .provider(Probe::new("right", &["base"], log))
        .provider(Probe::new("base", &[], log))
        .provider(Probe::new("elsewhere", &[], log))
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_slice_is_in_build_order_with_what_is_built() {
    let log = Log::default();
    let container = app(&log);
    let before = container.explain_key("top").unwrap();
    let names: Vec<&str> = before.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names.len(), 4, "`elsewhere` is not in the slice");
    assert_eq!((names[0], names[3]), ("base", "top"));
    assert!(
        before
            .nodes
            .iter()
            .all(|n| !n.built && n.build_micros.is_none())
    );

    container.get::<Service>("left").await.unwrap();
    let after = container.explain_key("top").unwrap();
    let built: Vec<(&str, bool)> = after
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.built))
        .collect();
    assert!(
        built.contains(&("left", true)) && built.contains(&("right", false)),
        "{built:?}"
    );
    let base = &after.nodes[0];
    assert!(base.build_micros.is_some());
    assert_eq!((base.kind, base.scope), (NodeKind::Provider, Scope::App));
    assert!(base.location.starts_with(&format!("{}:", support::FILE)));
    assert_eq!(base.provides[0].type_name, "Service");
    let top = &after.nodes[3];
    let from: Vec<&str> = top
        .needs
        .iter()
        .map(|n| after.nodes[n.from.unwrap()].name.as_str())
        .collect();
    assert_eq!(from, ["left", "right"]);

    container.close().await.unwrap();
    assert!(
        container
            .explain_key("top")
            .unwrap()
            .nodes
            .iter()
            .all(|n| !n.built),
        "disposed is not built"
    );
}

#[tokio::test]
async fn it_renders_as_text_json_dot_and_mermaid() {
    let log = Log::default();
    let container = app(&log);
    let explain = container.explain_key("left").unwrap();
    let text = explain.to_string();
    assert!(
        text.starts_with("`left` builds 2 declarations in this order:\n  1. base: Service\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  2. left: Service  <- needs base\n     provider `left` at {}:",
            support::FILE
        )),
        "{text}"
    );
    assert!(text.contains("app scope, not built"), "{text}");

    let json = explain.to_json();
    assert_eq!(json["target"], "left");
    assert_eq!(json["nodes"][0]["provides"][0]["type"], "Service");
    assert_eq!(json["nodes"][1]["needs"][0]["from"], 0);
    assert_eq!(json["nodes"][1]["needs"][0]["optional"], false);
    assert_eq!(json["nodes"][1]["decorates"], serde_json::Value::Null);
    assert_eq!(
        json["roots"],
        serde_json::json!([1]),
        "what was asked for: `left`"
    );
    assert_eq!(json["nodes"][1]["kind"], "provider");
    assert_eq!(json["nodes"][1]["scope"], "app");

    let dot = explain.to_dot();
    assert!(dot.starts_with("digraph \"left\" {"), "{dot}");
    assert!(dot.contains("n0 -> n1 [label=\"base\"];"), "{dot}");
    let mermaid = explain.to_mermaid();
    assert!(mermaid.starts_with("flowchart LR\n"), "{mermaid}");
    assert!(mermaid.contains("n0 -->|\"base\"| n1"), "{mermaid}");
    container.close().await.unwrap();
}

#[test]
fn an_unknown_key_suggests_the_closest() {
    let log = Log::default();
    let err = app(&log).explain_key("Left").unwrap_err();
    assert!(
        matches!(err, ProvideError::UnknownKey { suggestion: Some(ref s), .. } if s.as_str() == "left")
    );
}

/// A settings type, read at `build()` (never needed here: only explained).
#[derive(green_tea::settings::Settings, Debug)]
#[allow(dead_code)]
#[settings(provides = "pollSettings", prefix = "POLL")]
struct PollSettings {
    #[settings(default = "5")]
    every: u32,
}

#[test]
fn a_settings_node_is_read_at_build_never_not_built() {
    use green_tea::App;
    use green_tea::settings::{Settings, Sources};
    let app = App::builder()
        .settings(Sources::from_env_map([("POLL_EVERY", "7")]))
        .provider(PollSettings::provider())
        .build()
        .unwrap();
    let explain = app.container().explain_key("pollSettings").unwrap();
    let node = &explain.nodes[0];
    assert_eq!(node.kind, NodeKind::Settings);
    // Its slot is not filled until something needs it, but its value is there.
    assert!(!node.built && node.is_ready());
    let text = explain.to_string();
    assert!(text.contains("read at build()"), "{text}");
    assert!(!text.contains("not built"), "{text}");
    let dot = explain.to_dot();
    assert!(
        dot.contains("style=solid") && !dot.contains("dashed"),
        "{dot}"
    );
    assert!(!explain.to_svg().contains("not built"));
}
