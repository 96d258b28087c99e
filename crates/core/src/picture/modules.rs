//! The modules of a picture, as a tree of boxes: every module a node is in and the modules
//! around it. The SVG layout gives each a band of rows; DOT and Mermaid nest a `subgraph` per
//! module, labelled with its path.

use std::fmt::Write as _;

use super::Picture;

impl Picture {
    /// The boxes of its modules: every module one of its nodes is in, and the modules around
    /// it.
    pub(super) fn modules(&self) -> ModuleTree {
        ModuleTree::of(self.nodes.iter().filter_map(|n| n.module.as_deref()))
    }
}

/// Every module some node is in, with the modules around it, in tree order: a module, then its
/// sub-modules, each level sorted by name. Groups number the root 0 and `paths[i]` `1 + i`.
#[derive(Debug, Default)]
pub(crate) struct ModuleTree {
    paths: Vec<String>,
    /// Each module's parent group (0: the root).
    parent: Vec<usize>,
}

impl ModuleTree {
    /// The tree of `modules` (paths such as `shop::orders`; repeats are fine).
    pub(crate) fn of<'a>(modules: impl IntoIterator<Item = &'a str>) -> Self {
        let mut segments: Vec<Vec<&str>> = Vec::new();
        for module in modules {
            let parts: Vec<&str> = green_tea_key::segments(module).collect();
            for end in 1..=parts.len() {
                segments.push(parts[..end].to_vec());
            }
        }
        // By segments, so that a module comes right before its sub-modules (`shop`,
        // `shop::orders`, `shop2`), which a sort of the joined paths would not give.
        segments.sort_unstable();
        segments.dedup();
        let parent = segments
            .iter()
            .map(|s| {
                let up = &s[..s.len() - 1];
                segments
                    .binary_search_by(|p| p.as_slice().cmp(up))
                    .map_or(0, |i| i + 1)
            })
            .collect();
        ModuleTree {
            paths: segments
                .iter()
                .map(|s| s.join(green_tea_key::SEP))
                .collect(),
            parent,
        }
    }

    /// Whether no node is in a module.
    pub(crate) fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// How many groups there are: the root and each module.
    pub(crate) fn groups(&self) -> usize {
        self.paths.len() + 1
    }

    /// The group of a node in `module`.
    pub(crate) fn group(&self, module: Option<&str>) -> usize {
        module
            .and_then(|m| self.paths.iter().position(|p| p == m))
            .map_or(0, |i| i + 1)
    }

    /// The path of module group `group` (not the root).
    pub(crate) fn path(&self, group: usize) -> &str {
        &self.paths[group - 1]
    }

    /// The module groups directly inside `group`, in tree order.
    pub(crate) fn children(&self, group: usize) -> impl Iterator<Item = usize> + '_ {
        self.parent
            .iter()
            .enumerate()
            .filter(move |(_, p)| **p == group)
            .map(|(i, _)| i + 1)
    }

    /// Writes `statements` (each with the module of its node; a statement may hold several
    /// lines) nested in boxes: the root's first, then each module's, `open` starting a
    /// module's box (its lines, given the module's position and path) and `close` ending it.
    pub(super) fn write(
        &self,
        out: &mut String,
        statements: &[(Option<&str>, String)],
        open: &dyn Fn(usize, &str) -> Vec<String>,
        close: &str,
    ) {
        let group: Vec<usize> = statements.iter().map(|(m, _)| self.group(*m)).collect();
        self.write_group(out, 0, 1, statements, &group, open, close);
    }

    #[allow(clippy::too_many_arguments)] // one recursive writer, private to this file
    fn write_group(
        &self,
        out: &mut String,
        at: usize,
        depth: usize,
        statements: &[(Option<&str>, String)],
        group: &[usize],
        open: &dyn Fn(usize, &str) -> Vec<String>,
        close: &str,
    ) {
        let indent = "  ".repeat(depth);
        for ((_, statement), _) in statements.iter().zip(group).filter(|(_, g)| **g == at) {
            for line in statement.lines() {
                let _ = writeln!(out, "{indent}{line}");
            }
        }
        for child in self.children(at) {
            let mut lines = open(child - 1, self.path(child)).into_iter();
            if let Some(head) = lines.next() {
                let _ = writeln!(out, "{indent}{head}");
            }
            for line in lines {
                let _ = writeln!(out, "{indent}  {line}");
            }
            self.write_group(out, child, depth + 1, statements, group, open, close);
            let _ = writeln!(out, "{indent}{close}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_comes_before_its_sub_modules_and_after_its_parent() {
        let tree = ModuleTree::of(["shop2", "shop::orders::audit", "billing", "shop::orders"]);
        assert_eq!(
            tree.paths,
            [
                "billing",
                "shop",
                "shop::orders",
                "shop::orders::audit",
                "shop2"
            ]
        );
        assert_eq!(tree.parent, [0, 0, 2, 3, 0]);
        assert_eq!(tree.children(0).collect::<Vec<_>>(), [1, 2, 5]);
        assert_eq!(tree.group(Some("shop::orders")), 3);
        assert_eq!(tree.group(None), 0);
    }
}
