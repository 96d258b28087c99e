//! The workspace's import rules, read from the sources and checked by this crate's tests:
//!
//! - **no import circle**: no file of a crate names, through however many other files, something
//!   defined in a file that names something of its own. Two files that need each other are one
//!   concept (one file) or a folder with a one-way seam;
//! - **layers that only look down**: each crate's top-level modules have a layer, and a module
//!   uses its own layer's modules and the layers below, never one above (docs/architecture.md
//!   draws them).
//!
//! A crate is read from its `lib.rs` down its `mod` declarations, with `syn`. An *arrow* from
//! file A to file B means A names an item that B defines: by a `use` (a re-export too: a folder's
//! `mod.rs` that hands on a child's name points at the child), or by a path in its code
//! (`crate::…`, `super::…`, `self::…`, a child module's name or a module brought in by a `use`),
//! macro arguments included. A path is followed through the `use`s that hand a name on, to the
//! file that defines it: naming `crate::Container`, which `lib.rs` re-exports from
//! `container/mod.rs`, is an arrow to `container/mod.rs`, not to `lib.rs`. Code under
//! `#[cfg(test)]` is left out (a file's tests may use anything), and so is declaring a child
//! module (`mod builder;`), which is containment, not use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use petgraph::graphmap::DiGraphMap;
use syn::visit::Visit;

/// A module's path from the crate root: `["container", "builder"]`; the root is empty.
type ModulePath = Vec<String>;

/// One crate's sources, read.
#[derive(Debug)]
pub struct Crate {
    /// Each file, relative to `src/`, in the order read.
    files: Vec<PathBuf>,
    /// The module each file is (the first one read from it, for a file two `cfg`s share).
    file_modules: Vec<ModulePath>,
    /// Each module and the files it is written in (two where a `cfg` picks one of two files).
    modules: BTreeMap<ModulePath, Vec<usize>>,
    /// What each module defines and brings in.
    scopes: BTreeMap<ModulePath, Scope>,
    /// The paths each file's code names, relative to the module they are written in.
    uses: Vec<Vec<(ModulePath, Vec<String>)>>,
}

/// What one module defines (items by name) and brings in by `use`.
#[derive(Debug, Default)]
struct Scope {
    /// The file of each item the module defines.
    defines: BTreeMap<String, usize>,
    /// Each name a `use` brings in, with the path it was brought from (as written).
    imports: BTreeMap<String, Vec<String>>,
    /// The paths of its glob imports (`use x::*`), as written.
    globs: Vec<Vec<String>>,
}

/// An arrow between two files of a crate: `from` names what `to` defines.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arrow {
    /// The file that names, relative to `src/`.
    pub from: PathBuf,
    /// The file that defines, relative to `src/`.
    pub to: PathBuf,
    /// The names `from` takes from `to`.
    pub names: BTreeSet<String>,
}

/// Where a `use` stands, and whether it hands its names on (`pub use`, any `pub(…)`).
#[derive(Debug, Clone, Copy)]
struct Leaf {
    file: usize,
    handed_on: bool,
}

/// Where a path leads: a file, and whether the path names a module or an item in it.
#[derive(Debug)]
struct Target {
    files: Vec<usize>,
    item: Option<String>,
}

impl Crate {
    /// Reads the crate whose sources are under `src` (its `lib.rs` and every module it declares).
    ///
    /// # Errors
    ///
    /// A file that cannot be read or parsed, or a module declared without a file.
    pub fn read(src: &Path) -> Result<Self, String> {
        let mut krate = Self {
            files: Vec::new(),
            file_modules: Vec::new(),
            modules: BTreeMap::new(),
            scopes: BTreeMap::new(),
            uses: Vec::new(),
        };
        krate.read_file(src, Path::new("lib.rs"), Vec::new())?;
        Ok(krate)
    }

    fn read_file(&mut self, src: &Path, file: &Path, module: ModulePath) -> Result<(), String> {
        let text = std::fs::read_to_string(src.join(file))
            .map_err(|error| format!("{}: {error}", file.display()))?;
        let parsed =
            syn::parse_file(&text).map_err(|error| format!("{}: {error}", file.display()))?;
        let index = self.files.len();
        self.files.push(file.to_owned());
        self.file_modules.push(module.clone());
        self.uses.push(Vec::new());
        let stem = file
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("");
        let dir = file.parent().unwrap_or(Path::new(""));
        let children_dir = if matches!(stem, "mod" | "lib") {
            dir.to_owned()
        } else {
            dir.join(stem)
        };
        let places = Places {
            declaring_dir: dir.to_owned(),
            children_dir,
        };
        self.read_items(src, index, &places, &module, &parsed.items)
    }

    fn read_items(
        &mut self,
        src: &Path,
        file: usize,
        places: &Places,
        module: &ModulePath,
        items: &[syn::Item],
    ) -> Result<(), String> {
        let files = self.modules.entry(module.clone()).or_default();
        if !files.contains(&file) {
            files.push(file);
        }
        self.scopes.entry(module.clone()).or_default();
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Mod(declared) => {
                    let name = declared.ident.to_string();
                    let mut child = module.clone();
                    child.push(name.clone());
                    if let Some((_, inline)) = &declared.content {
                        let inner = Places {
                            declaring_dir: places.declaring_dir.clone(),
                            children_dir: places.children_dir.join(&name),
                        };
                        self.read_items(src, file, &inner, &child, inline)?;
                    } else {
                        let path = child_file(src, places, &name, &declared.attrs)?;
                        self.read_file(src, &path, child)?;
                    }
                }
                syn::Item::Use(used) => {
                    let mut prefix = Vec::new();
                    let handed_on = !matches!(used.vis, syn::Visibility::Inherited);
                    let leaf = Leaf { file, handed_on };
                    self.read_use_tree(leaf, module, &used.tree, &mut prefix);
                }
                item => {
                    if let Some(name) = item_name(item) {
                        self.scope(module).defines.insert(name, file);
                    }
                    let mut paths = Paths::default();
                    paths.visit_item(item);
                    let uses = &mut self.uses[file];
                    uses.extend(paths.found.into_iter().map(|path| (module.clone(), path)));
                }
            }
        }
        Ok(())
    }

    fn scope(&mut self, module: &ModulePath) -> &mut Scope {
        self.scopes.entry(module.clone()).or_default()
    }

    /// A `use` tree's leaves: each an import, and a use of the file unless it only hands the
    /// name on (`pub use`: the face of a folder is not its code; the file's own code naming
    /// the name is counted where it does).
    fn read_use_tree(
        &mut self,
        leaf: Leaf,
        module: &ModulePath,
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
    ) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.read_use_tree(leaf, module, &path.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.read_use_tree(leaf, module, tree, prefix);
                }
            }
            syn::UseTree::Name(name) => {
                let name = name.ident.to_string();
                let mut path = prefix.clone();
                // `use a::{self}` names `a` itself.
                if name != "self" {
                    path.push(name);
                }
                let Some(local) = path.last().cloned() else {
                    return;
                };
                self.use_leaf(leaf, module, &path);
                self.scope(module).imports.insert(local, path);
            }
            syn::UseTree::Rename(rename) => {
                let mut path = prefix.clone();
                if rename.ident != "self" {
                    path.push(rename.ident.to_string());
                }
                self.use_leaf(leaf, module, &path);
                let local = rename.rename.to_string();
                if local != "_" {
                    self.scope(module).imports.insert(local, path);
                }
            }
            syn::UseTree::Glob(_) => {
                self.use_leaf(leaf, module, prefix);
                self.scope(module).globs.push(prefix.clone());
            }
        }
    }

    fn use_leaf(&mut self, leaf: Leaf, module: &ModulePath, path: &[String]) {
        if !leaf.handed_on {
            self.uses[leaf.file].push((module.clone(), path.to_vec()));
        }
    }

    /// `path`, written in `module`, from the crate root; `None` for a path that leaves the crate
    /// (a dependency, the standard library) or names something local to a body.
    fn absolute(&self, module: &ModulePath, path: &[String], depth: usize) -> Option<ModulePath> {
        let (first, rest) = path.split_first()?;
        if depth > 32 {
            return None;
        }
        let base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.clone(),
            "super" => {
                let mut parent = module.clone();
                parent.pop()?;
                return Self::absolute_from(&parent, rest);
            }
            name => {
                let mut child = module.clone();
                child.push(name.to_owned());
                if self.modules.contains_key(&child) {
                    child.extend(rest.iter().cloned());
                    return Some(child);
                }
                let imported = self.scopes.get(module)?.imports.get(name)?;
                // A `use` of a name that is a `use` itself is read from where it stands.
                if imported.len() == 1 && imported[0] == *name {
                    return None;
                }
                let mut base = self.absolute(module, imported, depth + 1)?;
                base.extend(rest.iter().cloned());
                return Some(base);
            }
        };
        let mut absolute = base;
        absolute.extend(rest.iter().cloned());
        Some(absolute)
    }

    /// `super::super::x`: the rest of a path after one `super`, from the parent.
    fn absolute_from(parent: &ModulePath, rest: &[String]) -> Option<ModulePath> {
        match rest.first().map(String::as_str) {
            Some("super") => {
                let mut grandparent = parent.clone();
                grandparent.pop()?;
                Self::absolute_from(&grandparent, &rest[1..])
            }
            _ => {
                let mut absolute = parent.clone();
                absolute.extend(rest.iter().cloned());
                Some(absolute)
            }
        }
    }

    /// The file(s) an absolute path leads to, through the `use`s that hand a name on.
    fn resolve(&self, path: &[String], depth: usize) -> Option<Target> {
        if depth > 32 {
            return None;
        }
        let mut module: ModulePath = Vec::new();
        for (at, segment) in path.iter().enumerate() {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.modules.contains_key(&child) {
                module = child;
                continue;
            }
            let scope = self.scopes.get(&module)?;
            if let Some(&file) = scope.defines.get(segment) {
                return Some(Target {
                    files: vec![file],
                    item: Some(segment.clone()),
                });
            }
            if let Some(imported) = scope.imports.get(segment) {
                let mut onward = self.absolute(&module, imported, depth + 1)?;
                onward.extend(path[at + 1..].iter().cloned());
                return self.resolve(&onward, depth + 1);
            }
            for glob in &scope.globs {
                let Some(mut onward) = self.absolute(&module, glob, depth + 1) else {
                    continue;
                };
                onward.extend(path[at..].iter().cloned());
                if let Some(target) = self.resolve(&onward, depth + 1)
                    && target.item.is_some()
                {
                    return Some(target);
                }
            }
            // Not seen (a macro's item, an enum's variant under its type): the module's files.
            return Some(Target {
                files: self.modules.get(&module)?.clone(),
                item: Some(segment.clone()),
            });
        }
        Some(Target {
            files: self.modules.get(&module)?.clone(),
            item: None,
        })
    }

    /// Every arrow between two different files, with the names that make it.
    #[must_use]
    pub fn arrows(&self) -> Vec<Arrow> {
        let mut arrows: BTreeMap<(usize, usize), BTreeSet<String>> = BTreeMap::new();
        for (from, uses) in self.uses.iter().enumerate() {
            for (module, path) in uses {
                let Some(absolute) = self.absolute(module, path, 0) else {
                    continue;
                };
                let Some(target) = self.resolve(&absolute, 0) else {
                    continue;
                };
                // A module named only to reach into it (`use crate::graph;`) is counted where
                // its items are named.
                let Some(item) = target.item else {
                    continue;
                };
                for to in target.files {
                    if to != from {
                        arrows.entry((from, to)).or_default().insert(item.clone());
                    }
                }
            }
        }
        arrows
            .into_iter()
            .map(|((from, to), names)| Arrow {
                from: self.files[from].clone(),
                to: self.files[to].clone(),
                names,
            })
            .collect()
    }

    /// The import circles: each a set of files that reach one another through arrows, with the
    /// arrows between them. None, in a crate laid out in rooms whose arrows run one way.
    #[must_use]
    pub fn circles(&self) -> Vec<Vec<Arrow>> {
        let arrows = self.arrows();
        let mut graph: DiGraphMap<&Path, ()> = DiGraphMap::new();
        for arrow in &arrows {
            graph.add_edge(&arrow.from, &arrow.to, ());
        }
        let mut circles: Vec<Vec<Arrow>> = petgraph::algo::tarjan_scc(&graph)
            .into_iter()
            .filter(|files| files.len() > 1)
            .map(|files| {
                let files: BTreeSet<&Path> = files.into_iter().collect();
                arrows
                    .iter()
                    .filter(|arrow| files.contains(&*arrow.from) && files.contains(&*arrow.to))
                    .cloned()
                    .collect()
            })
            .collect();
        circles.sort();
        circles
    }

    /// The arrows from a module to one of a higher layer, as sentences. `layers` gives modules
    /// their layers, from 1 at the bottom: a top-level module (`"graph"`) and all it holds, or
    /// a module inside one (`"settings::source"`), which then stands apart from its parent. A
    /// file's layer is its nearest listed module's; `lib.rs` stands above them all.
    ///
    /// # Errors
    ///
    /// A file whose module `layers` does not cover, or a module `layers` lists that the crate
    /// does not have (a stale table).
    pub fn upward(&self, layers: &[(&str, u8)]) -> Result<Vec<String>, Vec<String>> {
        let listed: Vec<(ModulePath, &str, u8)> = layers
            .iter()
            .map(|&(name, layer)| (name.split("::").map(str::to_owned).collect(), name, layer))
            .collect();
        let mut unknown = Vec::new();
        for (path, name, _) in &listed {
            if !self.modules.contains_key(path) {
                unknown.push(format!(
                    "the layers list `{name}`, which the crate does not have"
                ));
            }
        }
        // Each file's nearest listed module, by the module it is (lib.rs has none).
        let layer_of = |file: usize| -> Option<(&str, u8)> {
            let module = &self.file_modules[file];
            listed
                .iter()
                .filter(|(path, _, _)| module.starts_with(path))
                .max_by_key(|(path, _, _)| path.len())
                .map(|(_, name, layer)| (*name, *layer))
        };
        for (file, module) in self.file_modules.iter().enumerate() {
            if !module.is_empty() && layer_of(file).is_none() {
                unknown.push(format!(
                    "{} (module `{}`) has no layer",
                    self.files[file].display(),
                    module.join("::")
                ));
            }
        }
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let index: BTreeMap<&Path, usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(at, file)| (file.as_path(), at))
            .collect();
        let mut upward = Vec::new();
        for arrow in self.arrows() {
            let (Some((from, from_layer)), Some((to, to_layer))) =
                (layer_of(index[&*arrow.from]), layer_of(index[&*arrow.to]))
            else {
                continue;
            };
            if to_layer > from_layer {
                upward.push(format!(
                    "{} (`{from}`, layer {from_layer}) uses {} of {} (`{to}`, layer {to_layer})",
                    arrow.from.display(),
                    names(&arrow.names),
                    arrow.to.display(),
                ));
            }
        }
        Ok(upward)
    }
}

/// A circle as the sentences a failing check prints.
#[must_use]
pub fn describe(circle: &[Arrow]) -> String {
    let files: BTreeSet<&Path> = circle.iter().map(|arrow| &*arrow.from).collect();
    let mut text = format!("a circle of {} files:", files.len());
    for arrow in circle {
        text.push_str(&format!(
            "\n  {} -> {}: {}",
            arrow.from.display(),
            arrow.to.display(),
            names(&arrow.names)
        ));
    }
    text
}

fn names(names: &BTreeSet<String>) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a file's modules are: `#[path]` is read from the file's own folder, and a child
/// declared as `mod x;` in `a.rs` lives in `a/x.rs`, in `mod.rs` or `lib.rs` beside it.
#[derive(Debug)]
struct Places {
    declaring_dir: PathBuf,
    children_dir: PathBuf,
}

/// The file of a module declared `mod name;`: `#[path]`'s, or `name.rs` or `name/mod.rs`.
fn child_file(
    src: &Path,
    places: &Places,
    name: &str,
    attrs: &[syn::Attribute],
) -> Result<PathBuf, String> {
    for attr in attrs {
        if let syn::Meta::NameValue(pair) = &attr.meta
            && pair.path.is_ident("path")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(path),
                ..
            }) = &pair.value
        {
            return Ok(normalise(&places.declaring_dir.join(path.value())));
        }
    }
    let children_dir = &places.children_dir;
    for candidate in [
        children_dir.join(format!("{name}.rs")),
        children_dir.join(name).join("mod.rs"),
    ] {
        if src.join(&candidate).is_file() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "module `{name}` is declared, but neither {0}/{name}.rs nor {0}/{name}/mod.rs exists",
        children_dir.display()
    ))
}

/// `a/../b/c.rs` as `b/c.rs`.
fn normalise(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str()),
        }
    }
    parts.iter().collect()
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(item) => &item.attrs,
        syn::Item::Enum(item) => &item.attrs,
        syn::Item::ExternCrate(item) => &item.attrs,
        syn::Item::Fn(item) => &item.attrs,
        syn::Item::ForeignMod(item) => &item.attrs,
        syn::Item::Impl(item) => &item.attrs,
        syn::Item::Macro(item) => &item.attrs,
        syn::Item::Mod(item) => &item.attrs,
        syn::Item::Static(item) => &item.attrs,
        syn::Item::Struct(item) => &item.attrs,
        syn::Item::Trait(item) => &item.attrs,
        syn::Item::TraitAlias(item) => &item.attrs,
        syn::Item::Type(item) => &item.attrs,
        syn::Item::Union(item) => &item.attrs,
        syn::Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

/// `#[cfg(test)]`, alone (`cfg(all(test, …))` and the like are read as code).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(item) => &item.ident,
        syn::Item::Enum(item) => &item.ident,
        syn::Item::Fn(item) => &item.sig.ident,
        syn::Item::Static(item) => &item.ident,
        syn::Item::Struct(item) => &item.ident,
        syn::Item::Trait(item) => &item.ident,
        syn::Item::TraitAlias(item) => &item.ident,
        syn::Item::Type(item) => &item.ident,
        syn::Item::Union(item) => &item.ident,
        syn::Item::Macro(item) => item.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Every path an item's code names that may lead into the crate: anything of two or more
/// segments, and one-segment paths (a name brought in by a `use` is resolved later; the rest
/// lead nowhere). Macro arguments are read as tokens: `crate :: a :: b` and the like.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.found.push(
                path.segments
                    .iter()
                    .map(|segment| segment.ident.to_string())
                    .collect(),
            );
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // Read apart, as a module of its own (`Crate::read_items`).
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // `#[cfg(test)]` blocks inside an item are left out with the attribute's item below.
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        macro_paths(mac.tokens.clone(), &mut self.found);
    }
}

/// The `crate::…`, `super::…` and `self::…` paths in a macro's tokens.
fn macro_paths(tokens: proc_macro2::TokenStream, found: &mut Vec<Vec<String>>) {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    while at < tokens.len() {
        match &tokens[at] {
            TokenTree::Group(group) => macro_paths(group.stream(), found),
            TokenTree::Ident(ident)
                if ["crate", "super", "self"].contains(&&*ident.to_string()) =>
            {
                let mut path = vec![ident.to_string()];
                let mut next = at + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(segment)),
                ) = (tokens.get(next), tokens.get(next + 1), tokens.get(next + 2))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    path.push(segment.to_string());
                    next += 3;
                }
                if path.len() > 1 {
                    found.push(path);
                }
                at = next;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests;
