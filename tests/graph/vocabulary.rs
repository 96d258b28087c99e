//! The graph's vocabulary, by hand: optional needs (`cache?`), collections (`notifiers[]`,
//! `stores{}` and their entries `stores{eu}`) and decorators, each checked at `build()` with
//! every problem at once, built once, and closed in reverse.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::error::{NodeKind, Problem};
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{
    App, BoxError, BuildError, Container, ContainerBuilder, Descriptor, Key, Needs, ProvideError,
    Provided, Provider, Spelling,
};
use support::Log;

/// What every part provides: its name, wrapping what it was made of.
#[derive(Debug)]
struct Part(String);

/// A provider of `provides` (each a [`Part`]) needing `needs`, which records what it saw of
/// each need (`cache?=none`, `notifiers[]=[email,sms]`, `stores{}={eu:a}`, `db=db`) and its
/// disposes. Named after its first key unless told.
struct Maker {
    name: &'static str,
    provides: Vec<&'static str>,
    needs: Vec<&'static str>,
    log: Log,
    builds: Arc<AtomicUsize>,
    fail: bool,
    after: Vec<&'static str>,
}

impl Maker {
    fn new(
        name: &'static str,
        provides: &[&'static str],
        needs: &[&'static str],
        log: &Log,
    ) -> Self {
        Maker {
            name,
            provides: provides.to_vec(),
            needs: needs.to_vec(),
            log: log.clone(),
            builds: Arc::default(),
            fail: false,
            after: Vec::new(),
        }
    }

    fn after(mut self, name: &'static str) -> Self {
        self.after.push(name);
        self
    }

    fn failing(mut self) -> Self {
        self.fail = true;
        self
    }
}

impl Provider for Maker {
    fn descriptor(&self) -> Descriptor {
        let d = self
            .provides
            .iter()
            .fold(Descriptor::new(self.name), |d, k| d.provides::<Part>(*k));
        let d = self.after.iter().fold(d, |d, name| d.after(*name));
        self.needs.iter().fold(d, |d, k| d.needs::<Part>(*k))
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        self.builds.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            return Err(format!("{} is down", self.name).into());
        }
        let mut seen = Vec::new();
        let mut made_of = Vec::new();
        for (i, key) in self.needs.iter().enumerate() {
            let shown = match Key::from(*key).spelling()? {
                Spelling::Optional(_) => match needs.optional::<Part>(i)? {
                    Some(part) => part.0.clone(),
                    None => "none".to_owned(),
                },
                Spelling::List(_) => {
                    let all: Vec<&str> = needs.all::<Part>(i)?.iter().map(|p| &*p.0).collect();
                    format!("[{}]", all.join(","))
                }
                Spelling::Map(_) => {
                    let entries: Vec<String> = needs
                        .by_name::<Part>(i)?
                        .iter()
                        .map(|(name, p)| format!("{name}:{}", p.0))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }
                _ => needs.get::<Part>(i)?.0.clone(),
            };
            seen.push(format!("{key}={shown}"));
            made_of.push(shown);
        }
        self.log.push(
            format!("provide {} {}", self.name, seen.join(" "))
                .trim_end()
                .to_owned(),
        );
        // A decorator's value shows what it wraps: `retry(base)`.
        let value = if made_of.is_empty() {
            self.name.to_owned()
        } else {
            format!("{}({})", self.name, made_of[0])
        };
        Ok(self
            .provides
            .iter()
            .fold(Provided::new(), |p, _| p.with(Part(value.clone()))))
    }

    async fn dispose(&self, _provided: &Provided) -> Result<(), BoxError> {
        self.log.push(format!("dispose {}", self.name));
        Ok(())
    }
}

fn problems(err: &BuildError) -> Vec<&'static str> {
    err.problems().iter().map(Problem::code).collect()
}

async fn part(container: &Container, key: &str) -> String {
    container.get::<Part>(key).await.unwrap().0.clone()
}

// ---- optional needs ------------------------------------------------------------------------

#[tokio::test]
async fn an_absent_optional_need_is_none_and_build_says_nothing() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .build()
        .unwrap();
    assert_eq!(part(&container, "report").await, "report(none)");
    assert_eq!(log.events(), ["provide report cache?=none"]);
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_present_optional_need_is_built_first_and_given() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .provider(Maker::new("cache", &["cache"], &[], &log))
        .build()
        .unwrap();
    assert_eq!(part(&container, "report").await, "report(cache)");
    container.close().await.unwrap();
    assert_eq!(
        log.events(),
        [
            "provide cache",
            "provide report cache?=cache",
            "dispose report",
            "dispose cache"
        ],
        "built before its consumer and disposed after it"
    );
}

#[test]
fn a_present_optional_need_of_another_type_is_gt0004() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .value("cache", 7_u32)
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0004"]);
    assert!(
        matches!(&err.problems()[0], Problem::TypeMismatch { key, .. } if key.as_str() == "cache?")
    );
}

#[test]
fn a_present_optional_need_whose_provider_cannot_build_is_gt0011_not_none() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .provider(Maker::new("cache", &["cache"], &["redisUrl"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0011"], "{err}");
    let Problem::OptionalNeedBroken {
        optional,
        consumer,
        missing,
        chain,
    } = &err.problems()[0]
    else {
        panic!("{err}")
    };
    assert_eq!(
        (optional.as_str(), missing.as_str()),
        ("cache?", "redisUrl")
    );
    assert_eq!(consumer.name, "report");
    assert_eq!(
        chain.iter().map(|o| &*o.name).collect::<Vec<_>>(),
        ["cache"]
    );
    let text = err.to_string();
    assert!(
        text.starts_with(
            "error[GT0011]: provider `report` (tests/graph/vocabulary.rs:"
        ) && text.contains(") needs `cache?`, which is present but cannot be built: nothing provides `redisUrl`\n  `redisUrl` is needed by provider `cache` ("),
        "{text}"
    );
    assert!(
        text.contains("help: an optional need is `None` only when nothing provides `cache`"),
        "{text}"
    );
}

#[test]
fn a_missing_key_needed_both_ways_is_reported_both_ways() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .provider(Maker::new("cache", &["cache"], &["redisUrl"], &log))
        .provider(Maker::new("sessions", &["sessions"], &["redisUrl"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0001", "GT0011"], "{err}");
    let Problem::MissingKey { needed_by, .. } = &err.problems()[0] else {
        panic!("{err}")
    };
    assert_eq!(
        needed_by.len(),
        1,
        "the chain through the optional need is GT0011's"
    );
    assert_eq!(needed_by[0][0].name, "sessions");
}

#[tokio::test]
async fn a_present_optional_need_that_fails_to_build_is_an_error_not_none() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("report", &["report"], &["cache?"], &log))
        .provider(Maker::new("cache", &["cache"], &[], &log).failing())
        .build()
        .unwrap();
    let err = container.get::<Part>("report").await.unwrap_err();
    assert!(
        matches!(&err, ProvideError::Failed { provider, needed_by, .. }
            if provider == "cache" && needed_by == &["report"]),
        "{err}"
    );
    container.close().await.unwrap();
}

#[test]
fn an_optional_need_of_a_request_value_in_a_provider_is_still_captive_gt0006() {
    let app = App::builder()
        .provider(Maker::new(
            "report",
            &["report"],
            &["user?"],
            &Log::default(),
        ))
        .step(green_tea::steps::StepFn::new("user", |_parts, _needs| {
            Ok(Part("ada".into()))
        }))
        .build();
    let err = app.unwrap_err();
    assert_eq!(problems(&err), ["GT0006"], "{err}");
}

// ---- collections ---------------------------------------------------------------------------

#[tokio::test]
async fn a_list_holds_every_contribution_in_registration_order() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        // A contributor may provide ordinary keys too.
        .provider(Maker::new("email", &["email", "notifiers[]"], &[], &log))
        .value("notifiers[]", Part("push".into()))
        .build()
        .unwrap();
    assert_eq!(part(&container, "digest").await, "digest([sms,email,push])");
    assert_eq!(
        part(&container, "email").await,
        "email",
        "its own key, built once"
    );
    container.close().await.unwrap();
    let events = log.events();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.starts_with("provide email"))
            .count(),
        1,
        "{events:?}"
    );
    let mut disposed = log.names("dispose");
    assert_eq!(
        disposed[0], "digest",
        "the consumer before its contributors"
    );
    disposed.sort();
    assert_eq!(
        disposed,
        ["digest", "email", "sms"],
        "each contributor disposed"
    );
}

#[tokio::test]
async fn a_list_nobody_contributes_to_is_empty_and_builds_nothing() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .build()
        .unwrap();
    assert_eq!(part(&container, "digest").await, "digest([])");
    assert!(
        container.keys().iter().any(|k| k.as_str() == "notifiers[]"),
        "visible"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_map_holds_its_entries_by_name_and_one_entry_is_a_key() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("us", &["stores{us}"], &[], &log))
        .provider(Maker::new("eu", &["stores{eu}"], &[], &log))
        .provider(Maker::new("router", &["router"], &["stores{}"], &log))
        .provider(Maker::new("eu_only", &["euOnly"], &["stores{eu}"], &log))
        .build()
        .unwrap();
    assert_eq!(part(&container, "router").await, "router({eu:eu,us:us})");
    assert_eq!(part(&container, "euOnly").await, "eu_only(eu)");
    container.close().await.unwrap();
}

#[test]
fn two_entries_of_one_name_are_gt0003() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("a", &["stores{eu}"], &[], &log))
        .provider(Maker::new("b", &["stores{eu}"], &[], &log))
        .provider(Maker::new("router", &["router"], &["stores{}"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0003"], "{err}");
}

#[test]
fn a_contribution_of_another_type_is_gt0004_naming_the_contributor() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log))
        .value("notifiers[]", "pager")
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0004"], "{err}");
    let Problem::CollectionType {
        key,
        by,
        found,
        expected,
        collection,
    } = &err.problems()[0]
    else {
        panic!("{err}")
    };
    assert_eq!(key.as_str(), "notifiers[]");
    assert_eq!(
        (by.kind, &*by.name),
        (NodeKind::Value, "value `notifiers[]`")
    );
    assert_eq!(
        (found.short_name(), expected.short_name()),
        ("&str".into(), "Part".into())
    );
    assert_eq!(collection.kind, NodeKind::Collection);
    assert!(
        err.to_string()
            .contains("contributes a `&str` to `notifiers[]`, which holds `Part`"),
        "{err}"
    );
}

#[test]
fn consumers_of_a_list_agree_on_its_type() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .provider(
            green_tea::ProviderFn::new(
                "count",
                |needs| async move { Ok(needs.all::<u32>(0)?.len()) },
            )
            .needs::<u32>("notifiers[]"),
        )
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0004"], "{err}");
    assert!(
        matches!(&err.problems()[0], Problem::TypeMismatch { consumer, .. } if consumer.name == "count"),
        "the first consumer gives the type: {err}"
    );
}

#[tokio::test]
async fn an_override_of_a_list_replaces_every_contribution() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log))
        .provider(Maker::new("email", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .override_value("notifiers[]", Part("fake".into()))
        .override_value("notifiers[]", Part("fake2".into()))
        .override_value("stores{eu}", Part("never".into()))
        .build()
        .unwrap_err();
    // An entry that nobody contributes is not there to override.
    assert_eq!(problems(&container), ["GT0005"], "{container}");

    let container = ContainerBuilder::new()
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .provider(Maker::new("eu", &["stores{eu}"], &[], &log))
        .provider(Maker::new("router", &["router"], &["stores{}"], &log))
        .override_value("notifiers[]", Part("fake".into()))
        .override_value("notifiers[]", Part("fake2".into()))
        .override_value("stores{eu}", Part("eu_fake".into()))
        .build()
        .unwrap();
    assert_eq!(part(&container, "digest").await, "digest([fake,fake2])");
    assert_eq!(part(&container, "router").await, "router({eu:eu_fake})");
    container.close().await.unwrap();
    assert!(
        !log.events().iter().any(|e| e.contains("provide sms")),
        "replaced, not built"
    );
}

#[test]
fn a_collection_is_app_scoped_so_a_step_cannot_contribute() {
    let err = App::builder()
        .step(green_tea::steps::StepFn::new(
            "users[]",
            |_parts, _needs| Ok(Part("ada".into())),
        ))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0010"], "{err}");
    assert!(
        err.to_string()
            .contains("only providers and values contribute to collections"),
        "{err}"
    );
}

#[test]
fn a_contributor_that_needs_its_own_list_is_a_cycle_through_the_collection() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("sms", &["notifiers[]"], &["notifiers[]"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0002"], "{err}");
    let text = err.to_string();
    assert!(
        text.contains("collection `notifiers[]`") && text.contains("provider `sms`"),
        "{text}"
    );
}

#[tokio::test]
async fn a_route_that_needs_a_list_builds_its_contributors_and_one_that_does_not_builds_none() {
    let log = Log::default();
    let sms = Maker::new("sms", &["notifiers[]"], &[], &log);
    let builds = Arc::clone(&sms.builds);
    let app = App::builder()
        .provider(sms)
        .route(Route::get(
            "/plain",
            |_ctx: green_tea::extract::RequestContext| async { "plain" },
        ))
        .route(
            Route::get(
                "/notify",
                |ctx: green_tea::extract::RequestContext| async move {
                    let all = ctx.need_all::<Part>(0).unwrap();
                    all.iter()
                        .map(|p| p.0.clone())
                        .collect::<Vec<_>>()
                        .join(",")
                },
            )
            .needs::<Part>("notifiers[]"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/plain").send().await.text(), "plain");
    assert_eq!(
        builds.load(Ordering::SeqCst),
        0,
        "a route that does not need it builds none"
    );
    assert_eq!(client.get("/notify").send().await.text(), "sms");
    assert_eq!(client.get("/notify").send().await.text(), "sms");
    assert_eq!(builds.load(Ordering::SeqCst), 1, "built once");
    app.close().await.unwrap();
    assert_eq!(log.names("dispose"), ["sms"]);
}

// ---- decorators ----------------------------------------------------------------------------

#[tokio::test]
async fn decorators_wrap_in_registration_order_each_once() {
    let log = Log::default();
    let retry = Maker::new("retry", &["payment"], &["payment", "clock"], &log);
    let metrics = Maker::new("metrics", &["payment"], &["payment"], &log);
    let (retry_builds, metrics_builds) = (Arc::clone(&retry.builds), Arc::clone(&metrics.builds));
    let container = Container::builder()
        .decorator(retry)
        .provider(Maker::new("payment", &["payment"], &[], &log))
        .provider(Maker::new("checkout", &["checkout"], &["payment"], &log))
        .decorator(metrics)
        .provider(Maker::new("clock", &["clock"], &[], &log))
        .build()
        .unwrap();
    assert_eq!(
        part(&container, "checkout").await,
        "checkout(metrics(retry(payment)))"
    );
    assert_eq!(part(&container, "payment").await, "metrics(retry(payment))");
    assert_eq!(
        (
            retry_builds.load(Ordering::SeqCst),
            metrics_builds.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
    container.close().await.unwrap();
    let disposed = log.names("dispose");
    let at = |name: &str| disposed.iter().position(|n| n == name).unwrap();
    assert!(
        at("checkout") < at("metrics") && at("metrics") < at("retry"),
        "{disposed:?}"
    );
    assert!(
        at("retry") < at("payment"),
        "a decorator before what it wraps: {disposed:?}"
    );
}

#[tokio::test]
async fn an_override_replaces_the_base_and_the_decorators_still_wrap_it() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("payment", &["payment"], &[], &log))
        .decorator(Maker::new("retry", &["payment"], &["payment"], &log))
        .override_value("payment", Part("fake".into()))
        .build()
        .unwrap();
    assert_eq!(part(&container, "payment").await, "retry(fake)");
    container.close().await.unwrap();

    // Replacing the decorated value itself: the override, without the decorators.
    let container = Container::builder()
        .provider(Maker::new("payment", &["payment"], &[], &log))
        .decorator(Maker::new("retry", &["payment"], &["payment"], &log))
        .override_value("payment", Part("fake".into()))
        .without_decorators("payment")
        .build()
        .unwrap();
    assert_eq!(part(&container, "payment").await, "fake");
    container.close().await.unwrap();
}

#[test]
fn a_decorator_of_nothing_is_gt0012_with_did_you_mean() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("payment", &["payment"], &[], &log))
        .decorator(Maker::new("retry", &["paymnet"], &["paymnet"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0012"], "{err}");
    assert!(
        matches!(&err.problems()[0], Problem::DecoratesNothing { key, suggestion: Some(s), .. }
            if key.as_str() == "paymnet" && s.key.as_str() == "payment"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("decorates `paymnet`, but nothing provides `paymnet`"),
        "{err}"
    );
}

#[test]
fn a_decorator_not_shaped_as_one_is_gt0012() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("payment", &["payment", "refunds"], &[], &log))
        .decorator(Maker::new(
            "both",
            &["payment", "refunds"],
            &["payment"],
            &log,
        ))
        .decorator(Maker::new("blind", &["payment"], &[], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0012", "GT0012"], "{err}");
    let text = err.to_string();
    assert!(
        text.contains("provides 2 keys: a decorator provides exactly the key it decorates"),
        "{text}"
    );
    assert!(
        text.contains("decorates `payment` but does not take it"),
        "{text}"
    );
}

#[test]
fn a_decorator_of_a_request_value_is_gt0012() {
    let err = App::builder()
        .step(green_tea::steps::StepFn::new("user", |_parts, _needs| {
            Ok(Part("ada".into()))
        }))
        .decorator(Maker::new("audit", &["user"], &["user"], &Log::default()))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0012"], "{err}");
    assert!(
        err.to_string()
            .contains("decorators wrap app-scoped values"),
        "{err}"
    );
}

#[test]
fn a_decorator_of_another_type_is_gt0004() {
    let err = Container::builder()
        .value("payment", 7_u32)
        .decorator(Maker::new(
            "retry",
            &["payment"],
            &["payment"],
            &Log::default(),
        ))
        .build()
        .unwrap_err();
    // The decorator declares `payment` as a `Part`: both its need and what it provides.
    assert!(problems(&err).iter().all(|c| *c == "GT0004"), "{err}");
    assert!(
        err.problems().iter().any(|p| matches!(p, Problem::TypeMismatch { consumer, .. } if consumer.kind == NodeKind::Decorator)),
        "{err}"
    );
}

#[test]
fn without_decorators_of_a_key_none_decorates_is_gt0012() {
    let err = Container::builder()
        .provider(Maker::new("payment", &["payment"], &[], &Log::default()))
        .decorator(Maker::new(
            "retry",
            &["payment"],
            &["payment"],
            &Log::default(),
        ))
        .without_decorators("paymnet")
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0012"], "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "error[GT0012]: `without_decorators(\"paymnet\")` (tests/graph/vocabulary.rs:"
        ) && text.contains("help: did you mean `payment`?"),
        "{text}"
    );
}

// ---- spelling ------------------------------------------------------------------------------

#[test]
fn reserved_characters_and_misplaced_forms_are_gt0010_all_at_once() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("a", &["billing::client"], &[], &log))
        .provider(Maker::new("b", &["cache?"], &[], &log))
        .provider(Maker::new("c", &["stores{}"], &[], &log))
        .provider(Maker::new("d", &["d"], &["we[ird"], &log))
        .provider(Maker::new("e", &["e"], &["stores{}?"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0010"; 5], "{err}");
    let text = err.to_string();
    for expected in [
        "spells a key `billing::client`: a declaration provides a name of its own, without a module",
        "spells a key `cache?`: `?` marks an optional need, and a provided key is there",
        "spells a key `stores{}`: `{}` is a whole map, which its entries make",
        "spells a key `we[ird`: a key's name `we[ird` holds `[`, which is reserved",
        "spells a key `stores{}?`: a key's name `stores{}` holds `{`",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
}

// ---- fixes found on the way ----------------------------------------------------------------

#[test]
fn a_key_overridden_twice_is_gt0003_whose_help_does_not_recommend_an_override() {
    let err = Container::builder()
        .value("port", 1_u16)
        .override_value("port", 2_u16)
        .override_value("port", 3_u16)
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0003"]);
    let text = err.to_string();
    assert!(
        text.contains("help: a key is replaced by one override: keep one of the two"),
        "{text}"
    );
    assert!(!text.contains(".override_value"), "{text}");
}

#[test]
fn a_value_reads_once_in_explain_text() {
    let container = Container::builder()
        .value("port", 3000_u16)
        .build()
        .unwrap();
    let text = container.explain_key("port").unwrap().to_string();
    assert!(text.contains("\n     value `port` at "), "{text}");
    assert!(!text.contains("value `value"), "{text}");
}

#[tokio::test]
async fn a_failed_start_names_the_key_of_the_provider_that_failed() {
    struct DbProvider;
    impl Provider for DbProvider {
        fn descriptor(&self) -> Descriptor {
            Descriptor::new("DbProvider").provides::<u32>("db")
        }
        async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
            Err("connection refused".into())
        }
    }
    let app = App::builder()
        .provider(DbProvider)
        .route(
            Route::get("/", |ctx: green_tea::extract::RequestContext| async move {
                ctx.need::<u32>(0).map(|db| db.to_string())
            })
            .needs::<u32>("db"),
        )
        .build()
        .unwrap();
    let err = app.start().await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("provider `DbProvider` (of `db`) failed: connection refused"),
        "{err}"
    );
}

#[test]
fn did_you_mean_ignores_a_shared_dotted_prefix() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("email", &["notifications.email"], &[], &log))
        .provider(Maker::new(
            "send",
            &["send"],
            &["notifications.settings"],
            &log,
        ))
        .build()
        .unwrap_err();
    let Problem::MissingKey { suggestion, .. } = &err.problems()[0] else {
        panic!("{err}")
    };
    assert!(suggestion.is_none(), "{err}");
}

#[tokio::test]
async fn a_request_value_is_optional_too_present_when_its_step_is_registered() {
    let app = |with_step: bool| {
        let builder = App::builder().route(
            Route::get("/", |ctx: green_tea::extract::RequestContext| async move {
                match ctx.need_optional_ref::<Part>(0).unwrap() {
                    Some(user) => format!("hello, {}", user.0),
                    None => "hello, stranger".to_owned(),
                }
            })
            .needs::<Part>("user?"),
        );
        let builder = if with_step {
            builder.step(green_tea::steps::StepFn::new("user", |_parts, _needs| {
                Ok(Part("ada".into()))
            }))
        } else {
            builder
        };
        builder.build().unwrap()
    };
    for (with_step, expected) in [(true, "hello, ada"), (false, "hello, stranger")] {
        let app = app(with_step);
        let client = TestClient::new(app.clone());
        assert_eq!(client.get("/").send().await.text(), expected);
        app.close().await.unwrap();
    }
}

#[test]
fn every_new_problem_comes_in_one_error_with_the_old_ones() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new(
            "report",
            &["report"],
            &["cache?", "missing"],
            &log,
        ))
        .provider(Maker::new("cache", &["cache"], &["redisUrl"], &log))
        .decorator(Maker::new("retry", &["nothing"], &["nothing"], &log))
        .provider(Maker::new("odd", &["odd?"], &[], &log))
        .value("notifiers[]", 1_u8)
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        ["GT0001", "GT0004", "GT0010", "GT0011", "GT0012"],
        "{err}"
    );
    assert!(log.events().is_empty(), "nothing was built");
}

// ---- explicit order ------------------------------------------------------------------------

#[tokio::test]
async fn after_moves_a_contribution_behind_the_ones_it_names_and_keeps_the_rest() {
    let log = Log::default();
    let container = Container::builder()
        .provider(
            Maker::new("audit", &["notifiers[]"], &[], &log)
                .after("sms")
                .after("email"),
        )
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log))
        .provider(Maker::new("push", &["notifiers[]"], &[], &log))
        .provider(Maker::new("email", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .build()
        .unwrap();
    assert_eq!(
        part(&container, "digest").await,
        "digest([sms,push,email,audit])"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn after_orders_decorators_too() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Maker::new("payment", &["payment"], &[], &log))
        .decorator(Maker::new("metrics", &["payment"], &["payment"], &log).after("retry"))
        .decorator(Maker::new("retry", &["payment"], &["payment"], &log))
        .build()
        .unwrap();
    assert_eq!(part(&container, "payment").await, "metrics(retry(payment))");
    container.close().await.unwrap();
}

#[test]
fn an_after_naming_no_member_and_a_ring_of_afters_are_gt0013() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Maker::new("sms", &["notifiers[]"], &[], &log).after("emial"))
        .provider(Maker::new("email", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0013"], "{err}");
    assert!(
        err.to_string().contains(
            "provider `sms` (tests/graph/vocabulary.rs:"
        ) && err.to_string().contains(") comes after `emial`, but nothing named `emial` contributes to `notifiers[]`\n  help: did you mean `email`?"),
        "{err}"
    );

    let err = Container::builder()
        .provider(Maker::new("a", &["notifiers[]"], &[], &log).after("c"))
        .provider(Maker::new("b", &["notifiers[]"], &[], &log).after("a"))
        .provider(Maker::new("c", &["notifiers[]"], &[], &log).after("b"))
        .provider(Maker::new("d", &["notifiers[]"], &[], &log))
        .provider(Maker::new("digest", &["digest"], &["notifiers[]"], &log))
        .build()
        .unwrap_err();
    assert_eq!(problems(&err), ["GT0013"], "{err}");
    let Problem::OrderCycle { key, ring } = &err.problems()[0] else {
        panic!("{err}")
    };
    assert_eq!(key.as_str(), "notifiers[]");
    assert_eq!(
        ring.iter().map(|o| &*o.name).collect::<Vec<_>>(),
        ["a", "c", "b"]
    );
    assert!(
        err.to_string().starts_with(
            "error[GT0013]: the order of `notifiers[]` is a ring: `a` after `c` after `b` after `a`"
        ),
        "{err}"
    );
}

#[test]
fn a_routes_json_says_where_each_need_comes_from() {
    let app = App::builder()
        .value("db", Part("db".into()))
        .step(green_tea::steps::StepFn::new("user", |_parts, _needs| {
            Ok(Part("ada".into()))
        }))
        .route(
            Route::get("/", |_ctx: green_tea::extract::RequestContext| async {
                "ok"
            })
            .needs::<Part>("db")
            .needs::<Part>("user")
            .needs::<Part>("cache?"),
        )
        .build()
        .unwrap();
    let json = app.explain("/").unwrap().to_json();
    let route = &json["routes"][0];
    assert_eq!(route["needs"], serde_json::json!(["db", "user", "cache?"]));
    assert_eq!(
        route["from"],
        serde_json::json!([{ "provider": 0 }, { "step": 0 }, "absent"]),
        "{route}"
    );
    assert_eq!(route["providers"]["nodes"][0]["name"], "value `db`");
    assert_eq!(route["steps"][0]["name"], "user");
}
