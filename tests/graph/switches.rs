//! Switches in an app: its providers, workers and modules under conditions like a container's,
//! every shape checked with the routes that need them. (Steps and routes under conditions:
//! `switched_routes`.)

use green_tea::error::Problem;
use green_tea::extract::RequestContext;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::settings::Sources;
use green_tea::test::TestClient;

#[derive(Settings)]
#[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
struct ShopSettings {
    #[settings(default = "false")]
    cache: bool,
}

fn shop(cache: &str) -> AppBuilder {
    App::builder()
        .settings(Sources::from_env_map([("SHOP_CACHE", cache)]))
        .provider(ShopSettings::provider())
        .switch(Switch::new("cacheOn", |s: &ShopSettings| s.cache).reads("cache"))
}

fn prices() -> Route {
    Route::get("/prices", |ctx: RequestContext| async move {
        match ctx.need_optional::<String>(0) {
            Ok(Some(cache)) => format!("through {cache}"),
            _ => "from the database".to_owned(),
        }
    })
    .needs::<String>("cache?")
}

#[tokio::test]
async fn a_route_serves_today_s_shape() {
    for (cache, body) in [("true", "through memory"), ("false", "from the database")] {
        let app = shop(cache)
            .when("cacheOn", |on| on.value("cache", String::from("memory")))
            .route(prices())
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let response = client.get("/prices").send().await;
        assert_eq!(response.text(), body, "SHOP_CACHE={cache}");
        app.close().await.unwrap();
    }
}

#[test]
fn a_route_that_needs_a_key_only_one_shape_has_is_reported_whatever_today_is() {
    let needs_cache = || {
        Route::get("/report", |ctx: RequestContext| async move {
            ctx.need::<String>(0)
                .map(|c| c.to_string())
                .unwrap_or_default()
        })
        .needs::<String>("cache")
    };
    for cache in ["true", "false"] {
        let err = shop(cache)
            .when("cacheOn", |on| on.value("cache", String::from("memory")))
            .route(needs_cache())
            .build()
            .unwrap_err();
        assert_eq!(err.problems()[0].code(), "GT0001", "SHOP_CACHE={cache}");
        assert!(
            err.to_string()
                .starts_with("error[GT0001]: when `cacheOn` = false, route GET /report"),
            "{err}"
        );
    }
}

#[tokio::test]
async fn the_explain_page_and_health_show_the_switches() {
    let app = shop("false")
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .route(prices())
        .build()
        .unwrap();
    let explain = app.explain_all();
    let json = explain.to_json();
    assert_eq!(json["switches"]["switches"][0]["name"], "cacheOn");
    assert_eq!(json["switches"]["off"][0]["name"], "value `cache`");
    let html = explain.to_html();
    assert!(
        html.contains("<section class=\"switches\"><h2>switches</h2>"),
        "{html}"
    );
    assert!(
        html.contains("value `cache`: on when `cacheOn` = true"),
        "{html}"
    );
    let health = serde_json::to_value(app.health().await).unwrap();
    assert_eq!(health["switches"][0]["outcome"], "false");
    // The route's optional need is absent because the cache is off, and says so.
    let route = app.explain("/prices").unwrap();
    assert!(
        route
            .to_string()
            .contains("needs: cache? (off: on when `cacheOn` = true)"),
        "{route}"
    );
    assert!(
        route
            .to_dot()
            .contains("absent: off, on when `cacheOn` = true"),
        "{}",
        route.to_dot()
    );
    assert_eq!(
        route.to_json()["routes"][0]["off"][0],
        serde_json::json!(["cache?", "when `cacheOn` = true"])
    );
    app.close().await.unwrap();
    // Without switches, none of it is there.
    let plain = App::builder().route(prices()).build().unwrap();
    assert!(plain.explain_all().to_json().get("switches").is_none());
    assert!(
        serde_json::to_value(plain.health().await)
            .unwrap()
            .get("switches")
            .is_none()
    );
    plain.close().await.unwrap();
}

/// Declared with a condition, never registered: the cache only where `cacheOn` holds.
#[provider(provides = "priceCache", when = "cacheOn", discover = false)]
fn price_cache() -> String {
    "in-memory".to_owned()
}

#[test]
fn a_missing_key_s_declaration_that_was_not_registered_says_where_it_would_be_on() {
    let err = shop("true")
        .route(
            Route::get("/cached", |ctx: RequestContext| async move {
                ctx.need::<String>(0).map(|c| c.to_string())
            })
            .needs::<String>("priceCache"),
        )
        .build()
        .unwrap_err();
    assert_eq!(err.problems()[0].code(), "GT0001");
    let text = err.to_string();
    assert!(
        text.contains(
            "provides `priceCache`, but it is not registered: register it with \
             `.provider(price_cache::provider())` (it is on only where `cacheOn` holds: the need \
             is then checked in every shape, and met only where it is on)"
        ),
        "{text}"
    );
    let Problem::MissingKey {
        unregistered: Some(unregistered),
        ..
    } = &err.problems()[0]
    else {
        panic!("{err}");
    };
    assert_eq!(unregistered.when, ["cacheOn"]);
    // Registered, the need is checked in every shape: met only where `cacheOn` holds.
    let err = shop("true")
        .provider(price_cache::provider())
        .route(
            Route::get("/cached", |ctx: RequestContext| async move {
                ctx.need::<String>(0).map(|c| c.to_string())
            })
            .needs::<String>("priceCache"),
        )
        .build()
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("error[GT0001]: when `cacheOn` = false, route GET /cached"),
        "{err}"
    );
}
