//! The graph lockfile: the same bytes in every process and whatever the settings say, no
//! secret in it or in its diff, a check that fails with sentences when a need is added, and the
//! Markdown diff of two files read back alone.

use std::path::PathBuf;
use std::process::Command;

use green_tea::ProviderFn;
use green_tea::extract::RequestContext;
use green_tea::lock::GraphLock;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::settings::{Secret, Sources};
use green_tea::steps::StepFn;
use green_tea::test::assert_graph_lock;
use green_tea::workers::WorkerFn;

#[derive(Settings)]
#[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
struct ShopSettings {
    #[settings(default = "false")]
    cache: bool,
    /// Read by no one here: the lock records it, never its value or its default.
    #[settings(default = "hunter2")]
    #[allow(dead_code)]
    token: Secret<String>,
}

/// A shop with a switch, a secret, a module, a decorator, a step, a worker and two routes.
fn shop(sources: Sources) -> AppBuilder {
    let payments = Module::new("payments")
        .value("client", String::from("stripe"))
        .export("client");
    App::builder()
        .settings(sources)
        .provider(ShopSettings::provider())
        .switch(Switch::new("cacheOn", |s: &ShopSettings| s.cache).reads("cache"))
        .when("cacheOn", |on| on.value("cache", String::from("memory")))
        .module(payments)
        .provider(
            ProviderFn::new("prices", |needs| async move {
                Ok(format!("prices over {}", needs.get::<String>(0)?))
            })
            .needs::<String>("payments::client"),
        )
        .decorator(
            ProviderFn::new("prices", |needs| async move {
                Ok(format!("counted {}", needs.get::<String>(0)?))
            })
            .named("counting")
            .needs::<String>("prices"),
        )
        .step(StepFn::new("viewer", |_, _| Ok(String::from("a shopper"))))
        .route(
            Route::get("/prices", |ctx: RequestContext| async move {
                ctx.need::<String>(0).map(|p| p.to_string())
            })
            .needs::<String>("prices")
            .needs::<String>("viewer")
            .needs::<String>("cache?"),
        )
        .route(Route::get("/health", |_: RequestContext| async { "ok" }))
        .worker(
            WorkerFn::new("warmer", |_needs, shutdown| async move {
                shutdown.requested().await;
                Ok(())
            })
            .needs::<String>("prices"),
        )
}

/// A directory of one test's own under the temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("green-tea-lock-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a child process prints: the shop's lock, its settings read from its own environment.
/// Run alone, it prints nothing.
#[test]
fn print_the_lock_for_a_child_process() {
    if std::env::var_os("GREEN_TEA_LOCK_CHILD").is_none() {
        return;
    }
    let app = shop(Sources::from_env()).build().unwrap();
    print!("<<<{}>>>", app.graph_lock().to_text());
}

/// What a child process does with `GREEN_TEA_LOCK` set: checks (or writes) the shop's lock at
/// the path `GREEN_TEA_LOCK_PATH`. Run alone, nothing.
#[test]
fn check_the_lock_for_a_child_process() {
    let Some(path) = std::env::var_os("GREEN_TEA_LOCK_PATH") else {
        return;
    };
    let app = shop(Sources::from_env_map([("SHOP_CACHE", "false")]))
        .build()
        .unwrap();
    assert_graph_lock(&app, PathBuf::from(path));
}

#[test]
fn overwrite_writes_the_file_and_ci_never_does() {
    let scratch = Scratch::new("overwrite");
    let path = scratch.file("shop.lock");
    let run = |vars: &[(&str, &str)]| {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "lock::check_the_lock_for_a_child_process",
                "--nocapture",
            ])
            .env_remove("CI")
            .env("GREEN_TEA_LOCK_PATH", &path)
            .envs(vars.iter().copied())
            .output()
            .unwrap()
    };
    // Under CI, overwrite is refused and nothing is written.
    let refused = run(&[("GREEN_TEA_LOCK", "overwrite"), ("CI", "true")]);
    assert!(!refused.status.success(), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("GREEN_TEA_LOCK=overwrite is ignored under CI (`CI` is set)"),
        "{stderr}"
    );
    assert!(!path.exists());
    // Elsewhere it writes the file, which the check then passes.
    let written = run(&[("GREEN_TEA_LOCK", "overwrite")]);
    assert!(written.status.success(), "{written:?}");
    let app = shop(Sources::from_env_map([("SHOP_CACHE", "false")]))
        .build()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        app.graph_lock().to_text()
    );
    let checked = run(&[]);
    assert!(checked.status.success(), "{checked:?}");
}

#[test]
fn the_lock_is_the_same_bytes_in_every_process_whatever_the_settings_say() {
    let run = |vars: &[(&str, &str)]| {
        let output = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "lock::print_the_lock_for_a_child_process",
                "--nocapture",
            ])
            .env("GREEN_TEA_LOCK_CHILD", "1")
            .envs(vars.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        let start = text.find("<<<").expect("the lock") + 3;
        let end = text.find(">>>").expect("its end");
        text[start..end].to_owned()
    };
    let first = run(&[("SHOP_CACHE", "false")]);
    let second = run(&[("SHOP_CACHE", "true"), ("SHOP_TOKEN", "s3cr3t")]);
    assert_eq!(first, second);
    // And the same as this process's, from a map.
    let here = shop(Sources::from_env_map([("SHOP_CACHE", "true")]))
        .build()
        .unwrap()
        .graph_lock()
        .to_text();
    assert_eq!(first, here);
    // What it records: each kind once.
    for part in [
        "\nroute GET /prices\n  needs prices\n  needs viewer\n  needs cache?\n  steps viewer\n",
        "  builds cache\n  builds payments::client\n  builds prices\n",
        "\nsetting SHOP_TOKEN\n  field shopSettings.token\n  type String\n  secret\n",
        "\nsetting SHOP_CACHE\n  field shopSettings.cache\n  type bool\n  default false\n",
        "\nswitch cacheOn\n  outcomes false | true\n  settings shopSettings\n  reads cache\n  \
         turns-on true: provider cache\n",
        "\nmodule payments\n  exports client\n",
        "\nprovider payments::client\n  kind value\n  type String\n  module payments\n  exported\n",
        "\nprovider prices\n  kind provider\n  name prices\n  type String\n  needs \
         payments::client\n  decorated-by counting\n",
        "\ndecorator prices by counting\n",
        "\nstep viewer\n  provides viewer: String\n",
        "\nworker warmer\n  needs prices\n",
    ] {
        assert!(first.contains(part), "{part} in\n{first}");
    }
    assert_eq!(GraphLock::parse(&first).unwrap().to_text(), first);
}

#[test]
fn no_secret_is_in_the_lock_or_its_diff() {
    let sources = || Sources::from_env_map([("SHOP_TOKEN", "s3cr3t")]);
    let old = shop(sources()).build().unwrap().graph_lock();
    let new = shop(sources())
        .route(
            Route::get("/token", |_: RequestContext| async { "no" })
                .needs::<ShopSettings>("shopSettings"),
        )
        .build()
        .unwrap()
        .graph_lock();
    let diff = old.diff(&new);
    for shown in [
        old.to_text(),
        new.to_text(),
        diff.to_string(),
        diff.to_markdown(),
    ] {
        assert!(
            !shown.contains("s3cr3t") && !shown.contains("hunter2"),
            "{shown}"
        );
    }
}

#[test]
fn the_check_fails_with_sentences_when_a_need_is_added() {
    let scratch = Scratch::new("check");
    let temp = |name: &str| scratch.file(name);
    let path = temp("shop.lock");
    let app = shop(Sources::from_env_map([("SHOP_CACHE", "false")]))
        .build()
        .unwrap();
    std::fs::write(&path, app.graph_lock().to_text()).unwrap();
    assert_graph_lock(&app, &path);
    let grown = shop(Sources::from_env_map([("SHOP_CACHE", "false")]))
        .value("fraudApi", 7_u32)
        .route(
            Route::post("/checkout", |_: RequestContext| async { "charged" })
                .needs::<String>("prices")
                .needs::<u32>("fraudApi"),
        )
        .build()
        .unwrap();
    let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_graph_lock(&grown, &path)
    }))
    .unwrap_err();
    let message = failure.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with(&format!(
            "the app's shape is not the one {} records:\n\n",
            path.display()
        )),
        "{message}"
    );
    for sentence in [
        "routes:\n  - new route `POST /checkout`\n",
        "declarations:\n  - new value `fraudApi`: `u32`\n",
        "to accept it, run the test again with GREEN_TEA_LOCK=overwrite and commit",
    ] {
        assert!(message.contains(sentence), "{sentence} in\n{message}");
    }
    // No file yet: how to write one.
    let none = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_graph_lock(&app, temp("none.lock"))
    }))
    .unwrap_err();
    let message = none.downcast_ref::<String>().unwrap();
    assert!(message.contains("there is no lockfile at"), "{message}");
    assert!(
        message.contains("run the test with GREEN_TEA_LOCK=overwrite to write it"),
        "{message}"
    );
    // A file that does not read says so.
    let broken = temp("broken.lock");
    std::fs::write(&broken, "version 1\n  builds x\n").unwrap();
    let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_graph_lock(&app, &broken)
    }))
    .unwrap_err();
    let message = failure.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("does not read: line 2 of the lockfile"),
        "{message}"
    );
}

#[test]
fn the_markdown_diff_is_made_from_two_files_alone() {
    let scratch = Scratch::new("markdown");
    let temp = |name: &str| scratch.file(name);
    let base = temp("base.lock");
    let head = temp("head.lock");
    let app = |extra: bool| {
        let builder = shop(Sources::from_env_map([("SHOP_CACHE", "false")]));
        let builder = match extra {
            true => builder.route(
                Route::get("/cached", |_: RequestContext| async { "c" }).needs::<String>("cache?"),
            ),
            false => builder,
        };
        builder.build().unwrap()
    };
    std::fs::write(&base, app(false).graph_lock().to_text()).unwrap();
    std::fs::write(&head, app(true).graph_lock().to_text()).unwrap();
    // What a CI job has: the two files.
    let read = |path: &PathBuf| GraphLock::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let markdown = read(&base).diff(&read(&head)).to_markdown();
    assert!(
        markdown.starts_with("## Graph changes\n\n### Routes\n\n- new route `GET /cached`\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("```mermaid\nflowchart LR\n"),
        "{markdown}"
    );
}

/// A field marked `reload` (on itself, or held by a nested field that is) says so in the lock,
/// so that making a setting reloadable shows in review.
#[test]
fn the_lock_records_which_settings_may_reload() {
    #[derive(Settings)]
    #[allow(dead_code)]
    struct Breaker {
        #[settings(default = "5")]
        threshold: u32,
    }

    #[derive(Settings)]
    #[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
    #[allow(dead_code)]
    struct BillingSettings {
        #[settings(default = "http://billing")]
        url: String,
        #[settings(default = "2s", reload)]
        timeout: std::time::Duration,
        #[settings(nested, reload)]
        breaker: Breaker,
    }

    let app = App::builder()
        .settings(Sources::from_env_map([("X", "y")]))
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let text = app.graph_lock().to_text();
    for block in [
        "setting BILLING_TIMEOUT\n  field billingSettings.timeout\n  type Duration\n  default 2s\n  reload\n",
        "setting BILLING_BREAKER_THRESHOLD\n  field billingSettings.breaker.threshold\n  type u32\n  default 5\n  reload\n",
        "setting BILLING_URL\n  field billingSettings.url\n  type String\n  default http://billing\n\n",
    ] {
        assert!(text.contains(block), "{block} in\n{text}");
    }
}
