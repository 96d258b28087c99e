//! Switches: declarations on for some outcomes of a named function of settings, today's shape
//! built, every shape checked (GT0001, GT0002, GT0003 in the shapes that have them), and every
//! mistake in a switch or a condition a build error of its own (GT0023).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::error::Problem;
use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea::workers::WorkerFn;
use green_tea::{ContainerBuilder, ProviderFn};

#[derive(Settings, Debug)]
#[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
struct ShopSettings {
    #[settings(default = "false")]
    cache: bool,
    #[settings(default = "fake")]
    gateway: String,
    #[settings(default = "hunter2")]
    token: green_tea::settings::Secret<String>,
}

fn codes(err: &BuildError) -> Vec<&'static str> {
    err.problems().iter().map(Problem::code).collect()
}

/// The shop's settings from `vars`, with the switches `cacheOn` and `gateway`.
fn shop(vars: &[(&str, &str)]) -> ContainerBuilder {
    Container::builder()
        .settings(Sources::from_env_map(vars.iter().copied()))
        .provider(ShopSettings::provider())
        .switch(Switch::new("cacheOn", |s: &ShopSettings| s.cache).reads("cache"))
        .switch(
            Switch::one_of(
                "gateway",
                ["stripe", "paypal", "fake"],
                |s: &ShopSettings| s.gateway.as_str(),
            )
            .reads("gateway"),
        )
}

fn needing(name: &'static str, key: &'static str) -> impl Provider {
    ProviderFn::new(name, |needs| async move {
        Ok(format!("over {}", needs.get::<String>(0)?))
    })
    .needs::<String>(key)
}

#[tokio::test]
async fn today_s_shape_is_built_and_the_other_is_left_out() {
    for (cache, expected) in [("true", Some("memory")), ("false", None)] {
        let container = shop(&[("SHOP_CACHE", cache)])
            .when("cacheOn", |on| on.value("cache", String::from("memory")))
            .provider(
                ProviderFn::new("prices", |needs| async move {
                    Ok(needs.optional::<String>(0)?.map(|c| c.to_string()))
                })
                .needs::<String>("cache?"),
            )
            .build()
            .unwrap();
        let prices = container.get::<Option<String>>("prices").await.unwrap();
        assert_eq!(prices.as_deref(), expected, "SHOP_CACHE={cache}");
        container.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_need_only_the_other_shape_leaves_unmet_is_reported_whatever_today_is() {
    for cache in ["true", "false"] {
        let err = shop(&[("SHOP_CACHE", cache)])
            .when("cacheOn", |on| on.value("cache", String::from("memory")))
            .provider(needing("report", "cache"))
            .build()
            .unwrap_err();
        assert_eq!(codes(&err), ["GT0001"], "SHOP_CACHE={cache}");
        let text = err.to_string();
        assert!(
            text.starts_with("error[GT0001]: when `cacheOn` = false, provider `report` ("),
            "{text}"
        );
        assert!(
            text.contains(
                "needs `cache`, which is provided only when `cacheOn` = true\n  help: provide \
                 `cache` in those shapes too, register `report` under the same condition, or \
                 make the need optional (`cache?`)"
            ),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_consumer_under_the_same_condition_is_met() {
    let container = shop(&[("SHOP_CACHE", "false")])
        .when("cacheOn", |on| {
            on.value("cache", String::from("memory"))
                .provider(needing("report", "cache"))
        })
        .build()
        .unwrap();
    assert_eq!(
        container.get::<String>("report").await.unwrap_err().code(),
        Some("GT0106")
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn alternatives_of_one_key_are_not_duplicates_and_each_shape_gets_its_own() {
    for (gateway, expected) in [("stripe", "stripe"), ("paypal", "paypal"), ("fake", "fake")] {
        let container = shop(&[("SHOP_GATEWAY", gateway)])
            .when("gateway = stripe | paypal", |real| {
                real.provider(
                    ProviderFn::new("payments", |needs| async move {
                        Ok(needs.get::<ShopSettings>(0)?.gateway.clone())
                    })
                    .named("real")
                    .needs::<ShopSettings>("shopSettings"),
                )
            })
            .when("gateway = fake", |fake| {
                fake.value("payments", String::from("fake"))
            })
            .provider(needing("checkout", "payments"))
            .build()
            .unwrap();
        assert_eq!(
            *container.get::<String>("checkout").await.unwrap(),
            format!("over {expected}")
        );
        container.close().await.unwrap();
    }
}

#[test]
fn alternatives_that_do_not_cover_every_outcome_leave_a_shape_unmet() {
    let err = shop(&[])
        .when("gateway = stripe", |b| {
            b.value("payments", String::from("s"))
        })
        .when("gateway = fake", |b| b.value("payments", String::from("f")))
        .provider(needing("checkout", "payments"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"]);
    assert!(
        err.to_string()
            .starts_with("error[GT0001]: when `gateway` = paypal, provider `checkout` ("),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "needs `payments`, which is provided only when `gateway` = stripe or when \
             `gateway` = fake"
        ),
        "{err}"
    );
}

#[test]
fn two_providers_on_together_in_some_shape_are_a_duplicate_there() {
    let err = shop(&[])
        .when("gateway = stripe | paypal", |b| {
            b.value("payments", String::from("real"))
        })
        .when("!cacheOn", |b| b.value("payments", String::from("plain")))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0003"]);
    let text = err.to_string();
    assert!(
        text.starts_with(
            "error[GT0003]: when `cacheOn` = false and `gateway` = stripe or paypal, \
             `payments` is provided twice\n  by value `payments` ("
        ),
        "{text}"
    );
    assert!(
        text.contains("help: two providers of one key are alternatives"),
        "{text}"
    );
}

#[test]
fn a_ring_in_one_shape_is_a_cycle_there_and_a_ring_in_none_is_not() {
    let a_needs = |key: &'static str| {
        ProviderFn::new("a", |needs| async move {
            Ok(format!("a {}", needs.get::<String>(0)?))
        })
        .needs::<String>(key)
    };
    let b_needs_a = ProviderFn::new("b", |needs| async move {
        Ok(format!("b {}", needs.get::<String>(0)?))
    })
    .needs::<String>("a");
    // `a` needs `b` only when the cache is on, and `b` needs `a`: a ring in that shape.
    let err = shop(&[])
        .when("cacheOn", |on| on.provider(a_needs("b")))
        .when("!cacheOn", |off| off.value("a", String::from("plain a")))
        .provider(b_needs_a)
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0002"]);
    assert!(
        err.to_string()
            .starts_with("error[GT0002]: when `cacheOn` = true: "),
        "{err}"
    );
    // `a` needs `b` when the cache is on, and `b` needs `a` when it is off: every shape has
    // half of the ring, none has all of it.
    let b_needs_a = ProviderFn::new("b", |needs| async move {
        Ok(format!("b {}", needs.get::<String>(0)?))
    })
    .needs::<String>("a");
    let container = shop(&[])
        .when("cacheOn", |on| {
            on.provider(a_needs("b"))
                .value("b", String::from("plain b"))
        })
        .when("!cacheOn", |off| {
            off.value("a", String::from("plain a")).provider(b_needs_a)
        })
        .build();
    // Each shape's `a` and `b` are alternatives: the ring `a` -> `b` -> `a` needs both
    // conditions at once.
    assert!(container.is_ok(), "{:?}", container.err());
}

#[test]
fn a_problem_in_a_switch_or_a_condition_is_gt0023_with_what_to_write() {
    let reasons = |builder: ContainerBuilder| -> Vec<String> {
        builder
            .build()
            .unwrap_err()
            .problems()
            .iter()
            .map(|p| {
                assert_eq!(p.code(), "GT0023", "{p}");
                p.to_string()
            })
            .collect()
    };
    let unknown = reasons(shop(&[]).when("cachOn", |b| b.value("x", 1_u32)));
    assert!(
        unknown[0].contains("the condition `cachOn` (crates/core/tests/graph/switches.rs:")
            && unknown[0].ends_with(
                "names the switch `cachOn`, which is not registered; did you mean `cacheOn`?"
            ),
        "{unknown:?}"
    );
    let outcome = reasons(shop(&[]).when("gateway = adyen", |b| b.value("x", 1_u32)));
    assert!(
        outcome[0].ends_with(
            "names the outcome `adyen` of `gateway`, whose outcomes are `stripe`, `paypal`, `fake`"
        ),
        "{outcome:?}"
    );
    let spelling = reasons(shop(&[]).when("gateway =", |b| b.value("x", 1_u32)));
    assert!(spelling[0].contains("has an empty outcome"), "{spelling:?}");
    let unlisted = reasons(shop(&[("SHOP_GATEWAY", "adyen")]));
    assert!(
        unlisted[0].ends_with(
            "read `adyen` from `shopSettings`: gateway = adyen (env SHOP_GATEWAY), which is \
             none of its outcomes (`stripe`, `paypal`, `fake`)"
        ),
        "{unlisted:?}"
    );
    let twice = reasons(shop(&[]).switch(Switch::new("cacheOn", |s: &ShopSettings| s.cache)));
    assert!(
        twice[0].contains("is registered twice (first at "),
        "{twice:?}"
    );
    let unregistered =
        reasons(Container::builder().switch(Switch::new("cacheOn", |s: &ShopSettings| s.cache)));
    assert!(
        unregistered[0].ends_with(
            "reads the settings `shopSettings` (ShopSettings), which are not registered: \
             register `ShopSettings::provider()` where the switch is"
        ),
        "{unregistered:?}"
    );
    let field =
        reasons(shop(&[]).switch(Switch::new("c", |s: &ShopSettings| s.cache).reads("cahce")));
    assert!(
        field[0].ends_with(
            "reads the field `cahce`, which `shopSettings` (ShopSettings) does not have; did \
             you mean `cache`?"
        ),
        "{field:?}"
    );
    let never =
        reasons(shop(&[]).when("cacheOn", |on| on.when("!cacheOn", |b| b.value("x", 1_u32))));
    assert!(
        never[0].contains("is on under conditions that no shape meets together"),
        "{never:?}"
    );
    let override_unknown = reasons(shop(&[]).override_switch("gateway = adyen"));
    assert!(
        override_unknown[0].ends_with(
            "overrides `gateway` with `adyen`, which is none of its outcomes (`stripe`, \
             `paypal`, `fake`)"
        ),
        "{override_unknown:?}"
    );
    let override_several = reasons(shop(&[]).override_switch("gateway = stripe | fake"));
    assert!(
        override_several[0].ends_with("names several outcomes: an override decides one"),
        "{override_several:?}"
    );
}

#[test]
fn a_switch_that_reads_a_secret_is_refused_and_never_shows_it() {
    let err = shop(&[("SHOP_TOKEN", "s3cr3t")])
        .switch(
            Switch::new("tokenSet", |s: &ShopSettings| !s.token.expose().is_empty()).reads("token"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0023"]);
    let text = err.to_string();
    assert!(
        text.contains("reads the secret field `token` of `shopSettings`"),
        "{text}"
    );
    assert!(
        !text.contains("s3cr3t") && !text.contains("hunter2"),
        "{text}"
    );
}

/// Where the breaker shares its state: a secret, optional.
#[derive(Settings, Debug)]
#[settings(provides = "sharing", prefix = "BREAKER", discover = false)]
struct Sharing {
    redis_url: Option<green_tea::settings::Secret<String>>,
    #[settings(default = "billing")]
    name: String,
    #[settings(default = "250ms")]
    refresh: std::time::Duration,
}

fn sharing(vars: &[(&str, &str)]) -> ContainerBuilder {
    Container::builder()
        .settings(Sources::from_env_map(vars.iter().copied()))
        .provider(Sharing::provider())
}

#[test]
fn a_switch_may_read_whether_an_optional_secret_is_set_and_never_shows_it() {
    let shared = |s: &Sharing| s.redis_url.is_some();
    let switch = || Switch::new("breakerShared", shared).reads_whether_set("redis_url");
    let url = "redis://:s3cr3t@127.0.0.1:6379/";
    let set = sharing(&[("BREAKER_REDIS_URL", url)])
        .switch(switch())
        .build()
        .unwrap();
    let explained = set.explain_switches();
    assert_eq!(explained.switches[0].outcome.as_deref(), Some("true"));
    assert_eq!(
        explained.switches[0].from,
        "`sharing`: `redis_url` is set (env BREAKER_REDIS_URL)"
    );
    assert_eq!(explained.switches[0].reads, ["redis_url"]);
    let everything = format!(
        "{explained}\n{}\n{}",
        set.settings_report(),
        serde_json::to_string(&explained).unwrap()
    );
    assert!(!everything.contains("s3cr3t"), "{everything}");
    // The settings report names the switch beside the field.
    assert!(
        everything.contains("decides `breakerShared` (redis_url)"),
        "{everything}"
    );
    let unset = sharing(&[]).switch(switch()).build().unwrap();
    let explained = unset.explain_switches();
    assert_eq!(explained.switches[0].outcome.as_deref(), Some("false"));
    assert_eq!(
        explained.switches[0].from,
        "`sharing`: `redis_url` is unset"
    );
}

#[test]
fn settings_a_switch_reads_are_read_whole_though_only_what_is_off_needs_them() {
    let err = sharing(&[("BREAKER_REFRESH", "often")])
        .switch(
            Switch::new("breakerShared", |s: &Sharing| s.redis_url.is_some())
                .reads_whether_set("redis_url"),
        )
        .when("breakerShared", |on| {
            on.provider(
                ProviderFn::new("fleet", |needs| async move {
                    Ok(needs.get::<Sharing>(0)?.refresh)
                })
                .needs::<Sharing>("sharing"),
            )
        })
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0017"], "{err}");
    assert!(
        err.to_string()
            .contains("the setting `refresh` of `sharing` does not read as `Duration`"),
        "{err}"
    );
}

#[test]
fn reading_whether_a_field_is_set_needs_an_optional_field_that_exists() {
    let err = sharing(&[])
        .switch(Switch::new("named", |s: &Sharing| !s.name.is_empty()).reads_whether_set("name"))
        .switch(
            Switch::new("shared", |s: &Sharing| s.redis_url.is_some())
                .reads_whether_set("redis_ur"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0023", "GT0023"]);
    let text = err.to_string();
    assert!(
        text.contains(
            "reads whether the field `name` of `sharing` is set, and it always is (it is not an \
             `Option`): name it with `.reads` instead"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "reads the field `redis_ur`, which `sharing` (Sharing) does not have; did you \
                       mean `redis_url`?"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn override_switch_decides_the_shape_whatever_the_settings_say() {
    let container = shop(&[("SHOP_CACHE", "true")])
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .when("!cacheOn", |off| off.value("cache", String::from("none")))
        .override_switch("!cacheOn")
        .build()
        .unwrap();
    assert_eq!(*container.get::<String>("cache").await.unwrap(), "none");
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_switch_reads_an_override_of_its_settings() {
    let container = shop(&[])
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .override_value(
            "shopSettings",
            ShopSettings {
                cache: true,
                gateway: "fake".to_owned(),
                token: green_tea::settings::Secret::new(String::new()),
            },
        )
        .build()
        .unwrap();
    assert_eq!(*container.get::<String>("cache").await.unwrap(), "memory");
    container.close().await.unwrap();
}

#[tokio::test]
async fn an_override_of_a_key_that_is_off_is_off_too() {
    let container = shop(&[("SHOP_CACHE", "false")])
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .override_value("cache", String::from("test cache"))
        .build()
        .unwrap();
    let err = container.get::<String>("cache").await.unwrap_err();
    assert_eq!(err.code(), Some("GT0106"));
    container.close().await.unwrap();
}

#[derive(Settings, Debug)]
#[settings(provides = "mailSettings", prefix = "MAIL", discover = false)]
struct MailSettings {
    host: String,
}

#[tokio::test]
async fn settings_that_are_off_are_not_read_as_a_problem() {
    // `MAIL_HOST` is not set: a problem (GT0016) only where the mail settings are on.
    let off = shop(&[("SHOP_CACHE", "false")])
        .when("cacheOn", |on| on.provider(MailSettings::provider()))
        .build()
        .unwrap();
    off.close().await.unwrap();
    let on = shop(&[("SHOP_CACHE", "true")])
        .when("cacheOn", |on| on.provider(MailSettings::provider()))
        .build()
        .unwrap_err();
    assert_eq!(codes(&on), ["GT0016"]);
    let set = shop(&[("SHOP_CACHE", "true"), ("MAIL_HOST", "127.0.0.1")])
        .when("cacheOn", |on| on.provider(MailSettings::provider()))
        .build()
        .unwrap();
    let mail = set.get::<MailSettings>("mailSettings").await.unwrap();
    assert_eq!(mail.host, "127.0.0.1");
    set.close().await.unwrap();
}

#[tokio::test]
async fn a_worker_that_is_off_does_not_start() {
    for (cache, runs) in [("true", 1), ("false", 0)] {
        let started = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&started);
        let container = shop(&[("SHOP_CACHE", cache)])
            .when("cacheOn", |on| {
                on.worker(WorkerFn::new("warmer", move |_, _| {
                    let counter = Arc::clone(&counter);
                    async move {
                        counter.fetch_add(1, Ordering::SeqCst);
                        Ok(())
                    }
                }))
            })
            .build()
            .unwrap();
        container.start_workers().await.unwrap();
        container.close().await.unwrap();
        assert_eq!(started.load(Ordering::SeqCst), runs, "SHOP_CACHE={cache}");
    }
}

#[derive(Settings, Debug)]
#[settings(provides = "regionSettings", discover = false)]
struct RegionSettings {
    #[settings(default = "false")]
    cached: bool,
}

fn region() -> Module {
    Module::new("region")
        .provider(RegionSettings::provider())
        .switch(Switch::new("cached", |r: &RegionSettings| r.cached))
        .when("cached", |m| m.value("store", String::from("cached")))
        .when("!cached", |m| m.value("store", String::from("direct")))
        .export("store")
}

#[tokio::test]
async fn a_module_registered_twice_decides_its_switches_from_each_prefix() {
    let container = Container::builder()
        .settings(Sources::from_env_map([("EU_CACHED", "true")]))
        .module(region().named("eu"))
        .module(region().named("us"))
        .override_switch("us::cached = false")
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("eu::store").await.unwrap(),
        "cached"
    );
    assert_eq!(
        *container.get::<String>("us::store").await.unwrap(),
        "direct"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_module_under_a_condition_is_on_or_off_whole() {
    let payments = || {
        Module::new("payments")
            .value("client", String::from("stripe client"))
            .provider(needing("gateway", "client"))
            .export("gateway")
    };
    let on = shop(&[("SHOP_GATEWAY", "stripe")])
        .when("gateway = stripe", |b| b.module(payments()))
        .build()
        .unwrap();
    assert_eq!(
        *on.get::<String>("payments::gateway").await.unwrap(),
        "over stripe client"
    );
    on.close().await.unwrap();
    let off = shop(&[("SHOP_GATEWAY", "fake")])
        .when("gateway = stripe", |b| b.module(payments()))
        .build()
        .unwrap();
    assert_eq!(
        off.get::<String>("payments::gateway")
            .await
            .unwrap_err()
            .code(),
        Some("GT0106")
    );
    off.close().await.unwrap();
    // What needs its export outside the condition is unmet in the other shapes.
    let err = shop(&[("SHOP_GATEWAY", "stripe")])
        .when("gateway = stripe", |b| b.module(payments()))
        .provider(needing("checkout", "payments::gateway"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"]);
    assert!(
        err.to_string()
            .starts_with("error[GT0001]: when `gateway` = paypal or fake, provider `checkout` ("),
        "{err}"
    );
}

#[test]
fn alternatives_of_two_types_are_each_held_to_the_need() {
    let err = shop(&[])
        .when("cacheOn", |b| b.value("cache", String::from("memory")))
        .when("!cacheOn", |b| b.value("cache", 0_u32))
        .provider(needing("report", "cache"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0004"]);
}

#[tokio::test]
async fn explain_health_and_the_settings_report_show_the_switches_and_what_is_off() {
    let container = shop(&[("SHOP_CACHE", "false")])
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .provider(
            ProviderFn::new("prices", |needs| async move {
                Ok(needs.optional::<String>(0)?.is_some())
            })
            .needs::<String>("cache?"),
        )
        .build()
        .unwrap();
    let switches = container.explain_switches();
    assert_eq!(
        switches.to_string(),
        format!(
            "2 switches:\n  `cacheOn` = false (of false, true), from `shopSettings`: cache = \
             false (env SHOP_CACHE)\n  `gateway` = fake (of stripe, paypal, fake), from \
             `shopSettings`: gateway = fake (default)\noff in this shape (1):\n  value `cache`: \
             on when `cacheOn` = true ({})",
            switches.off[0].location
        )
    );
    assert_eq!(switches.off[0].provides, ["cache"]);
    let json = serde_json::to_value(&switches).unwrap();
    assert_eq!(json["switches"][0]["outcome"], "false");
    assert_eq!(json["off"][0]["on"], "when `cacheOn` = true");

    // The consumer's optional need is absent because the cache is off, and says so.
    let explain = container.explain_key("prices").unwrap();
    let need = &explain.nodes.last().unwrap().needs[0];
    assert_eq!(need.from, None);
    assert_eq!(need.off.as_deref(), Some("when `cacheOn` = true"));
    assert!(
        explain
            .to_string()
            .contains("cache? (off: on when `cacheOn` = true)"),
        "{explain}"
    );
    assert!(
        explain
            .to_dot()
            .contains("absent: off, on when `cacheOn` = true"),
        "{}",
        explain.to_dot()
    );

    let health = container.health();
    let outcomes: Vec<(&str, &str)> = health
        .switches
        .iter()
        .map(|s| (s.name.as_str(), s.outcome.as_str()))
        .collect();
    assert_eq!(outcomes, [("cacheOn", "false"), ("gateway", "fake")]);

    let report = container.settings_report().to_string();
    assert!(
        report.contains("  decides `cacheOn` (cache)\n  decides `gateway` (gateway)\n"),
        "{report}"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn an_app_without_switches_shows_none() {
    let container = Container::builder().value("a", 1_u32).build().unwrap();
    assert!(container.explain_switches().is_empty());
    assert!(container.health().switches.is_empty());
    let health = serde_json::to_value(container.health()).unwrap();
    assert!(health.get("switches").is_none(), "{health}");
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_decorator_and_a_contribution_under_a_condition_are_there_only_in_their_shape() {
    let retrying = || {
        ProviderFn::new("billing", |needs| async move {
            Ok(format!("retrying({})", needs.get::<String>(0)?))
        })
        .needs::<String>("billing")
        .named("retrying")
    };
    let sms = || ProviderFn::new("notifiers[]", |_| async { Ok(String::from("sms")) }).named("sms");
    let all = || {
        ProviderFn::new("all", |needs| async move {
            Ok(needs
                .all::<String>(0)?
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join("+"))
        })
        .needs::<String>("notifiers[]")
    };
    for (cache, billing, notifiers) in [
        // In registration order: `sms` is registered first, under the condition.
        ("true", "retrying(client)", "sms+email"),
        ("false", "client", "email"),
    ] {
        let container = shop(&[("SHOP_CACHE", cache)])
            .value("billing", String::from("client"))
            .when("cacheOn", |on| on.decorator(retrying()).provider(sms()))
            .provider(
                ProviderFn::new("notifiers[]", |_| async { Ok(String::from("email")) })
                    .named("email"),
            )
            .provider(all())
            .build()
            .unwrap();
        assert_eq!(*container.get::<String>("billing").await.unwrap(), billing);
        assert_eq!(*container.get::<String>("all").await.unwrap(), notifiers);
        // Health and explain list today's declarations only.
        let names: Vec<String> = container
            .health()
            .providers
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            names.contains(&"sms".to_owned()),
            cache == "true",
            "{names:?}"
        );
        container.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_ring_no_shape_has_builds_in_each_shape() {
    let a_needs_b = || {
        ProviderFn::new("a", |needs| async move {
            Ok(format!("a({})", needs.get::<String>(0)?))
        })
        .needs::<String>("b")
    };
    let b_needs_a = || {
        ProviderFn::new("b", |needs| async move {
            Ok(format!("b({})", needs.get::<String>(0)?))
        })
        .needs::<String>("a")
    };
    for (cache, a, b) in [("true", "a(b)", "b"), ("false", "a", "b(a)")] {
        let container = shop(&[("SHOP_CACHE", cache)])
            .when("cacheOn", |on| {
                on.provider(a_needs_b()).value("b", String::from("b"))
            })
            .when("!cacheOn", |off| {
                off.value("a", String::from("a")).provider(b_needs_a())
            })
            .build()
            .unwrap();
        assert_eq!(
            *container.get::<String>("a").await.unwrap(),
            a,
            "SHOP_CACHE={cache}"
        );
        assert_eq!(
            *container.get::<String>("b").await.unwrap(),
            b,
            "SHOP_CACHE={cache}"
        );
        container.build_all().await.unwrap();
        container.close().await.unwrap();
    }
}

#[tokio::test]
async fn an_override_replaces_every_alternative_of_a_key() {
    for gateway in ["stripe", "fake"] {
        let container = shop(&[("SHOP_GATEWAY", gateway)])
            .when("gateway = stripe | paypal", |b| {
                b.value("payments", String::from("real"))
            })
            .when("gateway = fake", |b| {
                b.value("payments", String::from("fake"))
            })
            .override_value("payments", String::from("test double"))
            .build()
            .unwrap();
        assert_eq!(
            *container.get::<String>("payments").await.unwrap(),
            "test double"
        );
        container.close().await.unwrap();
    }
}

#[test]
fn a_module_s_own_key_that_is_off_is_still_the_one_its_declarations_mean() {
    let orders = Module::new("orders")
        .when("cacheOn", |m| {
            m.value("cache", String::from("the module's"))
        })
        .provider(needing("report", "cache"));
    let err = shop(&[("SHOP_CACHE", "true")])
        .value("cache", String::from("the app's"))
        .module(orders)
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"]);
    assert!(
        err.to_string()
            .starts_with("error[GT0001]: when `cacheOn` = false, provider `orders::report` ("),
        "{err}"
    );
}

#[tokio::test]
async fn settings_only_what_is_off_needs_are_not_a_problem_today() {
    let mailer = || {
        ProviderFn::new("mailer", |needs| async move {
            Ok(format!("mail via {}", needs.get::<MailSettings>(0)?.host))
        })
        .needs::<MailSettings>("mailSettings")
    };
    // `MAIL_HOST` is not set, and the settings are registered in every shape; only the mailer,
    // under the cache's switch, needs them.
    let off = shop(&[("SHOP_CACHE", "false")])
        .provider(MailSettings::provider())
        .when("cacheOn", |on| on.provider(mailer()))
        .build()
        .unwrap();
    off.close().await.unwrap();
    let on = shop(&[("SHOP_CACHE", "true")])
        .provider(MailSettings::provider())
        .when("cacheOn", |on| on.provider(mailer()))
        .build()
        .unwrap_err();
    assert_eq!(codes(&on), ["GT0016"]);
    // Settings nothing needs are read and reported as ever.
    let unneeded = shop(&[("SHOP_CACHE", "false")])
        .provider(MailSettings::provider())
        .build()
        .unwrap_err();
    assert_eq!(codes(&unneeded), ["GT0016"]);
}

#[tokio::test]
async fn explain_module_says_what_of_it_is_off_and_whether_it_is() {
    let orders = Module::new("orders")
        .value("db", String::from("orders db"))
        .when("cacheOn", |m| {
            m.value("cache", String::from("orders cache"))
        });
    let payments = Module::new("payments").value("client", String::from("stripe"));
    let container = shop(&[("SHOP_CACHE", "false"), ("SHOP_GATEWAY", "fake")])
        .module(orders)
        .when("gateway = stripe", |b| b.module(payments))
        .build()
        .unwrap();
    let orders = container.explain_module("orders").unwrap();
    assert_eq!(orders.off, None);
    assert_eq!(orders.declarations.len(), 1, "{orders}");
    assert_eq!(orders.switched_off.len(), 1);
    assert!(
        orders.to_string().contains(
            "\n  off in this shape:\n    value `orders::cache`: on when `cacheOn` = true"
        ),
        "{orders}"
    );
    let payments = container.explain_module("payments").unwrap();
    assert_eq!(payments.off.as_deref(), Some("when `gateway` = stripe"));
    assert!(
        payments
            .to_string()
            .contains("\n  off in this shape: on when `gateway` = stripe"),
        "{payments}"
    );
    let json = serde_json::to_value(&payments).unwrap();
    assert_eq!(json["off"], "when `gateway` = stripe");
    container.close().await.unwrap();
}
