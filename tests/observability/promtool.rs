//! The orders example's `/metrics`, as Prometheus's own linter reads it: after traffic and a
//! trip of billing's breaker, `promtool check metrics` (Debian's `prometheus` package) finds
//! nothing to say: counters end in `_total`, histograms carry their unit (`_seconds`), every
//! metric has its help text.
//!
//! Skipped where `promtool` is missing, unless `GREEN_TEA_REQUIRE_TOOLS=1` (as CI sets): then
//! missing is a failure.
#![cfg(unix)]

use crate::support;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use support::examples::orders_after_a_trip;
use support::http::{get, http1_client};

/// Prometheus's linter, or `None` (with a note) when the test should skip.
fn promtool() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("promtool"))
            .find(|path| path.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("GREEN_TEA_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "promtool is not installed and GREEN_TEA_REQUIRE_TOOLS=1 (apt-get install -y prometheus)"
        );
        eprintln!("skipped: promtool is not installed (apt-get install -y prometheus)");
    }
    found
}

/// `promtool check metrics` on `text`: its exit status and everything it printed.
fn check_metrics(promtool: &PathBuf, text: &str) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(text.as_bytes()).expect("promtool reads");
    drop(stdin);
    let output = child.wait_with_output().expect("promtool exits");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status, printed)
}

#[tokio::test]
async fn the_orders_scrape_after_a_breaker_trip_passes_promtool() {
    let Some(promtool) = promtool() else { return };
    // The linter speaks up on a name that breaks the conventions: it is listening.
    let (status, printed) = check_metrics(&promtool, "# TYPE calls counter\ncalls 1\n");
    assert!(!status.success(), "{printed}");
    assert!(
        printed.contains(r#"should have "_total" suffix"#),
        "{printed}"
    );

    let (_upstream, orders) = orders_after_a_trip().await;
    let client = http1_client();
    let unknown = get(&client, &format!("{}/nowhere", orders.base()))
        .await
        .expect("a response");
    assert_eq!(unknown.status, 404);
    let page = get(&client, &format!("{}/metrics", orders.base()))
        .await
        .expect("a response");
    assert_eq!(page.status, 200);
    let text = page.text();
    // Every kind of metric is in it (promtool passes an empty page too).
    for name in [
        "# TYPE http_server_request_duration_seconds histogram",
        "# TYPE http_server_active_requests gauge",
        "# TYPE green_tea_provider_build_duration_seconds histogram",
        "# TYPE green_tea_provider_built gauge",
        "# TYPE green_tea_breaker_calls_total counter",
        "# TYPE green_tea_breaker_state gauge",
        "# TYPE green_tea_breaker_transitions_total counter",
    ] {
        assert!(text.contains(name), "no `{name}` in\n{text}");
    }
    assert!(
        text.contains(
            r#"green_tea_breaker_transitions_total{breaker="billing",from="closed",to="open"} 1"#
        ),
        "{text}"
    );

    let (status, printed) = check_metrics(&promtool, &text);
    assert!(
        status.success() && printed.is_empty(),
        "promtool check metrics ({status}):\n{printed}\non\n{text}"
    );
    assert!(orders.stop().success());
}

/// Every metric green-tea describes, one series each, under the Prometheus name
/// docs/observability.md gives it, and promtool has nothing to say about any of them (the
/// orders example's scrape has no shared store, so no `store` metrics).
#[cfg(feature = "metrics")]
#[tokio::test]
async fn every_metric_has_its_documented_prometheus_name_and_passes_promtool() {
    use green_tea::metric;

    let Some(promtool) = promtool() else { return };
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new()
        .with_recommended_naming(true)
        .set_buckets(&[0.01, 0.1, 1.0])
        .expect("buckets are not empty")
        .build_recorder();
    let _installed = metrics::set_default_local_recorder(&recorder);
    metric::describe();
    let histograms = [
        (
            metric::HTTP_SERVER_REQUEST_DURATION,
            "http_server_request_duration_seconds",
        ),
        (
            metric::PROVIDER_BUILD_DURATION,
            "green_tea_provider_build_duration_seconds",
        ),
        (
            metric::PROVIDER_DISPOSE_DURATION,
            "green_tea_provider_dispose_duration_seconds",
        ),
    ];
    let gauges = [
        (
            metric::HTTP_SERVER_ACTIVE_REQUESTS,
            "http_server_active_requests",
        ),
        (metric::PROVIDER_BUILT, "green_tea_provider_built"),
        (metric::GENERATION, "green_tea_generation"),
        (metric::BREAKER_STATE, "green_tea_breaker_state"),
        (
            metric::BREAKER_STORE_DEGRADED,
            "green_tea_breaker_store_degraded",
        ),
    ];
    let counters = [
        (metric::RELOADS, "green_tea_reloads_total"),
        (metric::BREAKER_CALLS, "green_tea_breaker_calls_total"),
        (
            metric::BREAKER_TRANSITIONS,
            "green_tea_breaker_transitions_total",
        ),
        (
            metric::BREAKER_STORE_ERRORS,
            "green_tea_breaker_store_errors_total",
        ),
    ];
    for (name, _) in histograms {
        metrics::histogram!(name).record(0.05);
    }
    for (name, _) in gauges {
        metrics::gauge!(name).set(1.0);
    }
    for (name, _) in counters {
        metrics::counter!(name).increment(1);
    }
    let text = recorder.handle().render();
    let expected = histograms
        .iter()
        .map(|(_, prometheus)| (*prometheus, "histogram"))
        .chain(gauges.iter().map(|(_, prometheus)| (*prometheus, "gauge")))
        .chain(
            counters
                .iter()
                .map(|(_, prometheus)| (*prometheus, "counter")),
        );
    for (prometheus, kind) in expected {
        assert!(
            text.contains(&format!("# TYPE {prometheus} {kind}\n")),
            "no {kind} {prometheus} in\n{text}"
        );
        assert!(
            text.contains(&format!("# HELP {prometheus} ")),
            "no help for {prometheus} in\n{text}"
        );
    }
    let (status, printed) = check_metrics(&promtool, &text);
    assert!(
        status.success() && printed.is_empty(),
        "promtool check metrics ({status}):\n{printed}\non\n{text}"
    );
}
