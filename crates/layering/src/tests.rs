//! The checks themselves, over the sources of green-tea-core, green-tea-http and
//! green-tea-recipes, and the reader, on small crates written for it.

use std::path::{Path, PathBuf};

use super::*;

fn src_of(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

fn assert_no_circle(krate: &str) {
    let read = Crate::read(&src_of(krate)).unwrap_or_else(|error| panic!("{error}"));
    let circles: Vec<String> = read.circles().iter().map(|c| describe(c)).collect();
    assert!(
        circles.is_empty(),
        "import circles in {krate} (files that need each other are one concept, or a folder \
         with a one-way seam; docs/architecture.md):\n{}",
        circles.join("\n")
    );
}

fn assert_layers(krate: &str, layers: &[(&str, u8)]) {
    let read = Crate::read(&src_of(krate)).unwrap_or_else(|error| panic!("{error}"));
    let upward = read.upward(layers).unwrap_or_else(|unknown| {
        panic!("{krate}'s layer table is stale:\n{}", unknown.join("\n"))
    });
    assert!(
        upward.is_empty(),
        "uses of a higher layer in {krate} (docs/architecture.md draws the layers):\n{}",
        upward.join("\n")
    );
}

/// green-tea-core's modules, from the bottom (docs/architecture.md, "The core's rooms").
const CORE: &[(&str, u8)] = &[
    // 1. The words everything else is said in: keys, typed ids, errors, and where a setting's
    //    value came from (which errors name).
    ("key", 1),
    ("ids", 1),
    ("error", 1),
    ("settings::source", 1),
    // 2. Values: what a declaration provides and how the container holds and hands them out;
    //    a declaration's descriptor; the declared keys' registry; metric names; the drawing;
    //    the lockfile's text and its diff; the startup report.
    ("value", 2),
    ("descriptor", 2),
    ("registry", 2),
    ("metric", 2),
    ("picture", 2),
    ("lock", 2),
    ("budget", 2),
    ("startup", 2),
    ("reload", 2),
    // 3. Declarations: providers, settings types, workers, modules, the switches and the
    //    conditions declarations are under.
    ("provider", 3),
    ("provider_fn", 3),
    ("settings", 3),
    ("worker", 3),
    ("module", 3),
    ("switch", 3),
    // 4. The graph's analysis: every need resolved, every problem found.
    ("graph", 4),
    // 5. The container: building, single-flight builds, workers started, close.
    ("container", 5),
    // 6. What reads a built container: explain, health, async checks, a request's declarations.
    ("explain", 6),
    ("health", 6),
    ("async_check", 6),
    ("request_decls", 6),
    // 7. What the macros and green-tea-http use of the core.
    ("__private", 7),
];

#[test]
fn core_has_no_import_circle() {
    assert_no_circle("core");
}

#[test]
fn core_modules_only_use_their_layer_and_those_below() {
    assert_layers("core", CORE);
}

/// green-tea-http's modules, from the bottom (docs/architecture.md, "The HTTP crate's layers").
const HTTP: &[(&str, u8)] = &[
    // 1. What a response and a request's body are made of, and the drain's count.
    ("error", 1),
    ("json", 1),
    ("limits", 1),
    ("response", 1),
    ("in_flight", 1),
    ("extract", 1),
    ("warning", 1),
    // 2. Steps and what they return.
    ("future", 2),
    ("step", 2),
    ("finish", 2),
    ("client_addr", 2),
    // 3. A request being served, and the runtime it reads (values, limits, plans).
    ("context", 3),
    ("runtime", 3),
    // 4. Routes: handlers, their entries and their layers.
    ("route", 4),
    ("layer", 4),
    // 5. The app: building, dispatching, health, explain, closing.
    ("app", 5),
    ("module", 5),
    ("health", 5),
    ("explain", 5),
    // 6. The app as a tower service, and driven in process.
    ("service", 6),
    ("test_client", 6),
    // 7. Serving it on sockets.
    ("serve", 7),
];

#[test]
fn http_has_no_import_circle() {
    assert_no_circle("http");
}

#[test]
fn http_modules_only_use_their_layer_and_those_below() {
    assert_layers("http", HTTP);
}

/// green-tea-recipes' modules, from the bottom (docs/architecture.md, "The recipes crate's
/// layers"): the circuit breaker's files in their own order, below the breaker's `mod.rs`;
/// the database beside it; billing, which guards its client with a breaker, above both.
const RECIPES: &[(&str, u8)] = &[
    // 1. The breaker's small words: a call's outcome and ticket, its states and transitions,
    //    the state word's bits, the clock, its error, the locks and atomics.
    ("circuit_breaker::call", 1),
    ("circuit_breaker::state", 1),
    ("circuit_breaker::word", 1),
    ("circuit_breaker::clock", 1),
    ("circuit_breaker::error", 1),
    ("circuit_breaker::sync", 1),
    // 2. Its settings; its metric handles.
    ("circuit_breaker::config", 2),
    ("circuit_breaker::metrics", 2),
    // 3. Each counter an atomic, and its metric.
    ("circuit_breaker::counters", 3),
    // 4. The closed breaker's fast path; the seam a shared store is reached through.
    ("circuit_breaker::fast_path", 4),
    ("circuit_breaker::fleet", 4),
    // 5. The state machine.
    ("circuit_breaker::machine", 5),
    // 6. The breaker: a call admitted, run and settled; its side of the fleet seam.
    ("circuit_breaker::breaker", 6),
    // 7. The breaker in the app's health; the store shared through Redis.
    ("circuit_breaker::health", 7),
    ("circuit_breaker::shared", 7),
    // 8. The breaker's face (mod.rs); the database's pool, migrations, step and outbox.
    ("circuit_breaker", 8),
    ("database", 8),
    // 9. The billing client, guarded by a breaker.
    ("billing", 9),
];

#[test]
fn recipes_have_no_import_circle() {
    assert_no_circle("recipes");
}

#[test]
fn recipes_modules_only_use_their_layer_and_those_below() {
    assert_layers("recipes", RECIPES);
}

/// A throwaway crate of `files` (path, text) under the system's temporary folder.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let root =
            std::env::temp_dir().join(format!("green-tea-layering-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Scratch(root)
    }

    fn read(&self) -> Crate {
        Crate::read(&self.0).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn arrows_of(krate: &Crate) -> Vec<String> {
    krate
        .arrows()
        .iter()
        .map(|a| {
            format!(
                "{} -> {}: {}",
                a.from.display(),
                a.to.display(),
                names(&a.names)
            )
        })
        .collect()
}

#[test]
fn a_name_is_followed_through_re_exports_to_the_file_that_defines_it() {
    let scratch = Scratch::new(
        "re-export",
        &[
            ("lib.rs", "mod store;\nmod user;\npub use store::Store;\n"),
            ("store/mod.rs", "mod disk;\npub use disk::Store;\n"),
            ("store/disk.rs", "pub struct Store;\n"),
            (
                "user.rs",
                "use crate::Store;\npub fn open() -> Store { crate::store::Store }\n",
            ),
        ],
    );
    // The re-exports hand the name on and are no arrows; the user's arrow is to disk.rs.
    assert_eq!(
        arrows_of(&scratch.read()),
        ["user.rs -> store/disk.rs: `Store`"]
    );
}

#[test]
fn super_self_child_modules_groups_renames_and_macro_arguments_are_read() {
    let scratch = Scratch::new(
        "paths",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "a.rs",
                "pub struct A;\npub fn f() {}\npub const N: u8 = 1;\n",
            ),
            ("b.rs", "pub struct B;\n"),
            (
                "c/mod.rs",
                "mod inner;\nuse crate::{a::{A, f as g}, b};\n\
                 pub fn h() -> inner::I { g(); let _ = A; let _ = b::B; inner::I }\n",
            ),
            (
                "c/inner.rs",
                "pub struct I;\npub fn k() { println!(\"{}\", super::super::a::N); }\n",
            ),
        ],
    );
    assert_eq!(
        arrows_of(&scratch.read()),
        [
            "c/mod.rs -> a.rs: `A`, `f`",
            "c/mod.rs -> b.rs: `B`",
            "c/mod.rs -> c/inner.rs: `I`",
            "c/inner.rs -> a.rs: `N`",
        ]
    );
}

#[test]
fn a_files_tests_and_paths_that_leave_the_crate_are_no_arrows() {
    let scratch = Scratch::new(
        "tests",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a.rs",
                "pub struct A;\n#[cfg(test)]\nmod tests { use crate::b::B; }\n",
            ),
            (
                "b.rs",
                "use std::sync::Arc;\npub struct B(Arc<u8>);\n#[cfg(test)]\nmod tests;\n",
            ),
            ("b/tests.rs", "use crate::a::A;\n"),
        ],
    );
    assert_eq!(arrows_of(&scratch.read()), Vec::<String>::new());
}

#[test]
fn a_circle_is_found_with_the_names_that_close_it() {
    let scratch = Scratch::new(
        "circle",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "pub struct A(crate::b::B);\n"),
            ("b.rs", "pub struct B(Box<crate::a::A>);\n"),
            ("c.rs", "pub struct C(crate::a::A);\n"),
        ],
    );
    let circles = scratch.read().circles();
    assert_eq!(circles.len(), 1);
    assert_eq!(
        describe(&circles[0]),
        "a circle of 2 files:\n  a.rs -> b.rs: `B`\n  b.rs -> a.rs: `A`"
    );
}

#[test]
fn a_use_of_a_higher_layer_is_named_and_a_stale_table_is_refused() {
    let scratch = Scratch::new(
        "layers",
        &[
            ("lib.rs", "mod low;\nmod high;\n"),
            (
                "low/mod.rs",
                "mod words;\npub fn f() { crate::high::g(); }\n",
            ),
            ("low/words.rs", "pub struct W;\n"),
            (
                "high.rs",
                "pub fn g() {}\npub fn h() -> crate::low::words::W { crate::low::words::W }\n",
            ),
        ],
    );
    let krate = scratch.read();
    assert_eq!(
        krate.upward(&[("low", 1), ("high", 2)]).unwrap(),
        ["low/mod.rs (`low`, layer 1) uses `g` of high.rs (`high`, layer 2)"]
    );
    // A module inside another may stand apart from it: `low::words` below `high` is fine.
    assert_eq!(
        krate
            .upward(&[("low", 3), ("low::words", 1), ("high", 2)])
            .unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(
        krate.upward(&[("low", 1), ("gone", 2)]).unwrap_err(),
        [
            "the layers list `gone`, which the crate does not have",
            "high.rs (module `high`) has no layer",
        ]
    );
}
