//! A picture as a Graphviz `digraph`, left to right: a statement per box in its kind's style,
//! a module's boxes in a `subgraph "cluster_<path>"` (a sub-module's inside its parent's),
//! then an edge per need.

use std::fmt::Write as _;

use super::Picture;

impl Picture {
    /// As a Graphviz `digraph` named after it: each box (`n0 [label="..." style=solid];`, its
    /// shape and line from its kind's style, dashed while not built), a module's boxes in a
    /// `subgraph "cluster_<path>"` labelled with its path, then an edge per need from what
    /// provides it to what needs it, labelled with the key, dashed for an optional need.
    pub fn to_dot(&self) -> String {
        let mut out = format!(
            "digraph {} {{\n  rankdir=LR;\n  node [shape=box];\n",
            quote(&self.name)
        );
        let boxes: Vec<(Option<&str>, String)> = self
            .nodes
            .iter()
            .map(|node| {
                let attributes = node.kind.style().dot[usize::from(!node.built)];
                let label = quote(&node.label.join("\n"));
                let statement = format!("{} [label={label} {attributes}];", node.id);
                (node.module.as_deref(), statement)
            })
            .collect();
        let open = |_: usize, path: &str| {
            vec![
                format!("subgraph {} {{", quote(&format!("cluster_{path}"))),
                format!("label={};", quote(path)),
                "style=\"rounded,dashed\";".to_owned(),
                "color=\"#607d8b\";".to_owned(),
            ]
        };
        self.modules().write(&mut out, &boxes, &open, "}");
        for edge in &self.edges {
            let style = if edge.optional { " style=dashed" } else { "" };
            let _ = writeln!(
                out,
                "  {} -> {} [label={}{style}];",
                self.nodes[edge.from].id,
                self.nodes[edge.to].id,
                quote(&edge.label)
            );
        }
        out.push_str("}\n");
        out
    }
}

/// A Graphviz string literal.
fn quote(text: &str) -> String {
    format!(
        "\"{}\"",
        text.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

#[cfg(test)]
mod tests {
    use super::super::{Kind, Node};
    use super::*;

    fn node(id: &str, module: Option<&str>) -> Node {
        Node {
            id: id.to_owned(),
            kind: Kind::Provider,
            built: true,
            module: module.map(str::to_owned),
            label: vec![id.to_owned()],
            lines: Vec::new(),
        }
    }

    #[test]
    fn nests_a_sub_module_s_cluster_in_its_parent_s() {
        let picture = Picture {
            name: "x".to_owned(),
            nodes: vec![
                node("n0", None),
                node("n1", Some("shop::orders")),
                node("n2", Some("shop")),
            ],
            ..Picture::default()
        };
        assert_eq!(
            picture.to_dot(),
            "digraph \"x\" {\n  rankdir=LR;\n  node [shape=box];\n  \
             n0 [label=\"n0\" style=solid];\n  subgraph \"cluster_shop\" {\n    label=\"shop\";\n    \
             style=\"rounded,dashed\";\n    color=\"#607d8b\";\n    n2 [label=\"n2\" style=solid];\n    \
             subgraph \"cluster_shop::orders\" {\n      label=\"shop::orders\";\n      \
             style=\"rounded,dashed\";\n      color=\"#607d8b\";\n      n1 [label=\"n1\" style=solid];\n    \
             }\n  }\n}\n"
        );
    }

    #[test]
    fn quotes_and_newlines_stay_inside_the_string() {
        assert_eq!(
            quote("say \"hi\"\\\nthere"),
            "\"say \\\"hi\\\"\\\\\\nthere\""
        );
    }
}
