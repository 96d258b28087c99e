//! The crate's layers, checked: a module may use the modules of its own layer and of the
//! layers below, never one above (docs/architecture.md, "The HTTP crate's layers", draws them).
//!
//! Reads the sources as text: every `crate::` path outside comments, `use crate::{a, b::C}`
//! groups included, names a top-level module, directly or through a name `lib.rs` re-exports
//! (`crate::App` is `app`'s). `super::` is not followed: inside a top-level module it stays in
//! that module (a file's tests, or a submodule reaching its parent).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer, from the bottom.
const LAYERS: &[(&str, u8)] = &[
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

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The file's text without its comments (line comments, doc comments included: an intra-doc
/// link to a higher layer is documentation, not a use).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of each path `crate::` starts in `code`: `crate::app::X` gives `app`,
/// `crate::{a::B, c}` gives `a` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        // Not part of a longer name (`green_tea_crate::`).
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth >= 1 && !(c == ',' && depth == 1) {
                    item.push(c);
                }
            }
            items.push(item);
            for item in items {
                let item = item.split(" as ").next().unwrap_or("");
                let head = item.trim().split("::").next().unwrap_or("").trim();
                if !head.is_empty() {
                    found.push(head.to_owned());
                }
            }
        } else {
            let head: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !head.is_empty() {
                found.push(head);
            }
        }
    }
    found
}

/// What `lib.rs` re-exports at the root from the crate's own modules, by name: `pub use
/// app::{App, AppBuilder}` makes `App` and `AppBuilder` `app`'s. (Names it re-exports from other
/// crates are not the crate's layers.)
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let code = code_of(lib);
    let mut names = BTreeMap::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let words: Vec<&str> = statement.split_whitespace().collect();
        let Some(at) = words.iter().position(|word| *word == "use") else {
            continue;
        };
        let path = words[at + 1..].join(" ");
        let Some((module, rest)) = path.split_once("::") else {
            continue;
        };
        let module = module.trim().to_owned();
        if !LAYERS.iter().any(|(name, _)| *name == module) {
            continue;
        }
        let rest = rest.trim().trim_start_matches('{').trim_end_matches('}');
        for item in rest.split(',') {
            let name = item.split(" as ").last().unwrap_or(item).trim();
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() && name != "self" {
                names.insert(name.to_owned(), module.clone());
            }
        }
    }
    names
}

#[test]
fn no_module_uses_a_module_of_a_higher_layer() {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let src = src();
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let root = root_names(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();

    let mut unknown = BTreeSet::new();
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let Some(first) = relative.components().next() else {
            continue;
        };
        let first = first.as_os_str().to_str().unwrap();
        if first == "lib.rs" {
            continue;
        }
        let module = first.trim_end_matches(".rs");
        let Some(&layer) = layers.get(module) else {
            unknown.insert(format!(
                "module `{module}` ({}) has no layer",
                relative.display()
            ));
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for used in crate_paths(&code) {
            let target = if layers.contains_key(used.as_str()) {
                used.clone()
            } else if let Some(module) = root.get(&used) {
                module.clone()
            } else {
                unknown.insert(format!(
                    "`crate::{used}` in {} is neither a module nor a root re-export",
                    relative.display()
                ));
                continue;
            };
            let Some(&target_layer) = layers.get(target.as_str()) else {
                unknown.insert(format!("module `{target}` has no layer"));
                continue;
            };
            if target_layer > layer {
                upward.push(format!(
                    "{} (`{module}`, layer {layer}) uses `crate::{used}` (`{target}`, layer {target_layer})",
                    relative.display()
                ));
            }
        }
    }
    upward.sort();
    upward.dedup();
    assert!(unknown.is_empty(), "{unknown:#?}");
    assert!(
        upward.is_empty(),
        "uses of a higher layer:\n{}",
        upward.join("\n")
    );
}

/// The reader itself: a group, a nested group, a re-exported name, and what it must not take
/// for a use.
#[test]
fn the_reader_finds_every_crate_path_and_nothing_else() {
    let code = code_of(
        "use crate::app::{App, X};\n\
         use crate::{error::HttpError, response::{Reply, reply_of}, App as Application};\n\
         let x = crate::limits::Limits::default(); // crate::serve in a comment\n\
         /// [link](crate::serve::Server)\n\
         use green_tea_crate::nothing;",
    );
    assert_eq!(
        crate_paths(&code),
        ["app", "error", "response", "App", "limits"]
    );
    let root = root_names("pub use app::{App, AppBuilder};\npub use route::Route;\nmod app;");
    assert_eq!(root["App"], "app");
    assert_eq!(root["Route"], "route");
}
