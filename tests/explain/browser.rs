//! The explain page in a real browser: Debian's headless `chromium` loads the page an app
//! serves on 127.0.0.1 (`AppBuilder::explain_page`); the DOM it builds has one picture per
//! route with the chain's labels and one per worker, the filter hides what does not match, the
//! module filter dims the boxes of other modules, hides the routes and workers without one and
//! shows the chosen one's summary, and the screenshot is not blank.
//!
//! Skipped where `chromium` is missing, unless `GREEN_TEA_REQUIRE_TOOLS=1` (as CI sets): then
//! a missing browser fails the test. (The guide's picture of the page, `docs/explain-page.png`,
//! is the shop example's page: `PORT=3000 cargo run --example shop`, two orders, then
//! `chromium --headless --hide-scrollbars --window-size=1280,1600 --screenshot=docs/explain-page.png
//! http://127.0.0.1:3000/_green-tea`.)

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use green_tea::ProviderFn;
use green_tea::extract::RequestContext;
use green_tea::prelude::{Module, ModuleExt};
use green_tea::routing::Route;
use green_tea::steps::{Guard, StepFn};
use green_tea::workers::WorkerFn;
use green_tea::{App, HttpError};
use support::http::{Server, get, http1_client, within};

struct BillingApi;
struct GuardedBilling;
struct Db;

/// An orders service: a provider chain for billing, a database, an auth step and a guard, an
/// overridden clock, and routes that use some of it.
fn orders_app() -> App {
    App::builder()
        .value("billingUrl", String::from("http://127.0.0.1:3001"))
        .provider(
            ProviderFn::new("billingApi", |_| async { Ok(BillingApi) })
                .needs::<String>("billingUrl"),
        )
        .provider(
            ProviderFn::new("billing", |_| async { Ok(GuardedBilling) })
                .needs::<BillingApi>("billingApi"),
        )
        .provider(ProviderFn::new("db", |_| async { Ok(Db) }))
        .value("clock", 0_u64)
        .override_value("clock", 1_700_000_000_u64)
        .step(StepFn::new("user", |parts, _| {
            parts
                .headers
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| HttpError::unauthorized("who are you?"))
        }))
        .step(
            Guard::new("require_admin", |_, needs| match needs.get::<String>(0) {
                Ok(user) if *user == "admin" => Ok(()),
                _ => Err(HttpError::forbidden("admins only")),
            })
            .needs::<String>("user"),
        )
        .route(
            Route::post("/orders", |_: RequestContext| async { "created" })
                .needs::<GuardedBilling>("billing")
                .needs::<Db>("db")
                .needs::<String>("user")
                .named("Orders::create"),
        )
        .route(
            Route::get("/orders/{id}", |_: RequestContext| async { "an order" })
                .needs::<Db>("db")
                .named("Orders::show"),
        )
        .route(
            Route::delete("/orders/{id}", |_: RequestContext| async { "deleted" })
                .needs::<Db>("db")
                .step("require_admin")
                .named("Orders::cancel"),
        )
        .route(Route::get("/time", |_: RequestContext| async { "now" }).needs::<u64>("clock"))
        .explain_page("/_green-tea")
        .build()
        .unwrap()
}

const ROUTES: usize = 4;

/// The browser, or `None` (with a note) when the test should skip.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|path| path.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("GREEN_TEA_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "chromium is not installed and GREEN_TEA_REQUIRE_TOOLS=1 (apt-get install -y chromium)"
        );
        eprintln!("skipped: chromium is not installed (apt-get install -y chromium)");
    }
    found
}

/// Runs headless chromium with `args` on `url`, in a profile directory of its own; its stdout.
async fn run_chromium(browser: &Path, args: &[String], url: &str) -> String {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let profile = std::env::temp_dir().join(format!(
        "green-tea-chromium-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::SeqCst)
    ));
    let mut command = tokio::process::Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(45), command.output())
        .await
        .expect("chromium did not finish within 45 s")
        .expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the DOM is UTF-8")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explain_page_renders_in_chromium() {
    let Some(browser) = chromium() else { return };
    let app = orders_app();
    let server = Server::start(&app).await;
    // Build part of the graph, so that the page shows built and unbuilt boxes.
    let shown = within(
        "GET /orders/1",
        get(&http1_client(), &server.url("/orders/1")),
    )
    .await
    .unwrap();
    assert_eq!(shown.text(), "an order");

    let page = server.url("/_green-tea");
    let dom = run_chromium(&browser, &["--dump-dom".to_owned()], &page).await;
    assert_eq!(
        dom.matches("<section class=\"route\"").count(),
        ROUTES,
        "{dom}"
    );
    assert_eq!(dom.matches("<svg").count(), ROUTES, "one picture per route");
    for label in [
        "POST /orders",
        "Orders::create",
        "billingApi: BillingApi",
        "billing: GuardedBilling",
        "db: Db",
        "step `user`",
        "step `require_admin`",
        "guard",
        "built in",
        "not built",
        "override",
        "request scope, every request",
        "4 of 4 routes",
    ] {
        assert!(dom.contains(label), "no `{label}` in the page's DOM");
    }

    // The filter, filled in from the address: only the routes that mention `billing`.
    let filtered = run_chromium(
        &browser,
        &["--dump-dom".to_owned()],
        &format!("{page}?q=billing"),
    )
    .await;
    assert!(filtered.contains("1 of 4 routes"), "{filtered}");
    assert_eq!(filtered.matches("class=\"route\" id=").count(), ROUTES);
    assert_eq!(filtered.matches("hidden=\"\"").count(), ROUTES - 1 + 1); // and "no match" hidden

    let shot = std::env::temp_dir().join(format!("green-tea-explain-{}.png", std::process::id()));
    run_chromium(
        &browser,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1400".to_owned(),
        ],
        &page,
    )
    .await;
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    let _ = std::fs::remove_file(&shot);
    assert_not_blank(&png);

    app.close().await.unwrap();
    server.finished().await.unwrap();
}

/// `billing` (its route under `/billing`), `shop` with the sub-module `shop::orders` (a route
/// over `shop`'s catalog and `billing`'s export, and the worker `relay` over the catalog), and a
/// route and a worker (`sweeper`, over `db`) of the app's own.
fn modules_app() -> App {
    App::builder()
        .value("db", String::from("db"))
        .module(
            Module::new("billing")
                .value("client", String::from("client"))
                .provider(
                    ProviderFn::new("billing", |_| async { Ok(GuardedBilling) })
                        .needs::<String>("client"),
                )
                .route(
                    Route::post("/pay", |_: RequestContext| async { "paid" })
                        .needs::<GuardedBilling>("billing")
                        .named("Billing::pay"),
                )
                .prefix("/billing")
                .export("billing"),
        )
        .module(
            Module::new("shop")
                .provider(ProviderFn::new("catalog", |_| async { Ok(Db) }).needs::<String>("db"))
                .module(
                    Module::new("orders")
                        .route(
                            Route::get("/{id}", |_: RequestContext| async { "an order" })
                                .needs::<Db>("catalog")
                                .needs::<GuardedBilling>("billing::billing")
                                .named("Orders::show"),
                        )
                        .worker(
                            WorkerFn::new("relay", |_, shutdown| async move {
                                shutdown.requested().await;
                                Ok(())
                            })
                            .needs::<Db>("catalog"),
                        )
                        .prefix("/orders"),
                ),
        )
        .route(Route::get("/db", |_: RequestContext| async { "db" }).needs::<String>("db"))
        .worker(
            WorkerFn::new("sweeper", |_, shutdown| async move {
                shutdown.requested().await;
                Ok(())
            })
            .needs::<String>("db"),
        )
        .explain_page("/_green-tea")
        .build()
        .unwrap()
}

/// A box (`g.node`) of a dumped page: its module, and whether it is dimmed.
type DumpedBox = (Option<String>, bool);

/// Each route's section of a dumped page (`class` `route`), or each worker's (`worker`): its
/// template or name, whether it is hidden, and each box.
fn sections(dom: &str, class: &str) -> Vec<(String, bool, Vec<DumpedBox>)> {
    dom.split(&format!("<section class=\"{class}\""))
        .skip(1)
        .map(|section| {
            let section = &section[..section.find("</section>").unwrap()];
            let head = &section[..section.find('>').unwrap()];
            let template = section
                .split_once("<code>")
                .and_then(|(_, rest)| rest.split_once("</code>"))
                .map(|(t, _)| t.to_owned())
                .unwrap();
            let boxes = section
                .split("<g class=\"node ")
                .skip(1)
                .map(|g| {
                    let head = &g[..g.find('>').unwrap()];
                    let class = &head[..head.find('"').unwrap()];
                    let module = head
                        .split_once("data-module=\"")
                        .map(|(_, m)| m[..m.find('"').unwrap()].to_owned());
                    (module, class.split(' ').any(|c| c == "dim"))
                })
                .collect();
            (template, head.contains("hidden"), boxes)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explain_pages_module_filter_dims_other_modules_in_chromium() {
    let Some(browser) = chromium() else { return };
    let app = modules_app();
    let server = Server::start(&app).await;
    let page = server.url("/_green-tea");
    let dump = ["--dump-dom".to_owned()];

    // All modules by default: nothing dimmed or hidden, no summary shown.
    let dom = run_chromium(&browser, &dump, &page).await;
    assert!(dom.contains("<select id=\"module\""), "{dom}");
    assert!(dom.contains("3 of 3 routes, 2 of 2 workers"), "{dom}");
    let all = sections(&dom, "route");
    assert_eq!(all.len(), 3);
    assert!(
        all.iter()
            .all(|(_, hidden, boxes)| !hidden && boxes.iter().all(|b| !b.1))
    );
    assert_eq!(dom.matches("<section class=\"module-summary\"").count(), 3);
    assert_eq!(
        dom.matches("class=\"module-summary\" data-module=\"shop\" hidden=\"\"")
            .count(),
        1
    );
    // A section per worker, in registration order (the modules' first), none hidden, each
    // running (serving started them).
    let workers = sections(&dom, "worker");
    let names: Vec<&str> = workers.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(names, ["shop::orders::relay", "sweeper"], "{dom}");
    assert!(workers.iter().all(|(_, hidden, _)| !hidden));
    for label in [
        "worker `shop::orders::relay`",
        "worker `sweeper`",
        "restart: never",
        "state: running",
        "shop::catalog: Db",
    ] {
        assert!(dom.contains(label), "no `{label}` in the page's DOM");
    }

    // `shop`: its boxes and its sub-module's shown, the others dimmed; the routes without one
    // hidden; its summary shown.
    let dom = run_chromium(&browser, &dump, &format!("{page}?module=shop")).await;
    assert!(dom.contains("1 of 3 routes, 1 of 2 workers"), "{dom}");
    for (template, hidden, boxes) in sections(&dom, "route") {
        assert_eq!(hidden, template != "/orders/{id}", "{template}");
        if template == "/orders/{id}" {
            for (module, dim) in &boxes {
                let mine = module
                    .as_deref()
                    .is_some_and(|m| m == "shop" || m == "shop::orders");
                assert_eq!(*dim, !mine, "{module:?} in {template}");
            }
            assert!(boxes.iter().any(|(m, _)| m.as_deref() == Some("billing")));
            assert!(
                boxes
                    .iter()
                    .any(|(m, _)| m.as_deref() == Some("shop::orders"))
            );
        }
    }
    // The relay is `shop::orders`' and needs `shop`'s catalog: shown, the app's `db` under the
    // catalog dimmed; the sweeper, over the app's `db` alone, hidden.
    let workers = sections(&dom, "worker");
    assert_eq!(workers[0].0, "shop::orders::relay");
    assert!(!workers[0].1);
    let worker_box = (Some("shop::orders".to_owned()), false);
    assert!(workers[0].2.contains(&worker_box), "{:?}", workers[0].2);
    for (module, dim) in &workers[0].2 {
        assert_eq!(*dim, module.is_none(), "{module:?} in the relay's picture");
    }
    assert!(workers[1].1, "the sweeper has no box of `shop`");
    assert!(
        dom.contains("<section class=\"module-summary\" data-module=\"shop\"><h2>"),
        "{dom}"
    );
    assert!(dom.contains("sub-modules: shop::orders"));
    assert!(
        dom.contains("db, from the app, needed by provider `catalog`"),
        "{dom}"
    );

    // `billing`: its own route and the one that needs its export.
    let dom = run_chromium(&browser, &dump, &format!("{page}?module=billing")).await;
    assert!(dom.contains("2 of 3 routes, 0 of 2 workers"), "{dom}");
    let shown: Vec<String> = sections(&dom, "route")
        .into_iter()
        .filter(|(_, hidden, _)| !hidden)
        .map(|(template, _, _)| template)
        .collect();
    assert_eq!(shown, ["/billing/pay", "/orders/{id}"]);

    // The text filter finds a worker by its name, and only it.
    let dom = run_chromium(&browser, &dump, &format!("{page}?q=sweeper")).await;
    assert!(dom.contains("0 of 3 routes, 1 of 2 workers"), "{dom}");
    let shown: Vec<String> = sections(&dom, "worker")
        .into_iter()
        .filter(|(_, hidden, _)| !hidden)
        .map(|(name, _, _)| name)
        .collect();
    assert_eq!(shown, ["sweeper"]);
    assert!(
        dom.contains("<p id=\"none\" hidden=\"\">"),
        "a worker matches: {dom}"
    );

    app.close().await.unwrap();
    server.finished().await.unwrap();
}

/// Decodes the PNG and checks that it shows something: many colours, and much of it not the
/// background.
fn assert_not_blank(png: &[u8]) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!((frame.width, frame.height), (1280, 1400));
    let channels = frame.color_type.samples();
    let pixels = &pixels[..frame.buffer_size()];
    let rgb: Vec<&[u8]> = pixels
        .chunks(channels)
        .map(|p| &p[..3.min(channels)])
        .collect();
    let background = rgb[rgb.len() - 1];
    let other = rgb.iter().filter(|p| **p != background).count();
    let mut colours: Vec<&[u8]> = rgb.clone();
    colours.sort();
    colours.dedup();
    assert!(colours.len() > 50, "only {} colours", colours.len());
    assert!(
        other * 20 > rgb.len(),
        "mostly blank: {other} of {} pixels differ",
        rgb.len()
    );
}
