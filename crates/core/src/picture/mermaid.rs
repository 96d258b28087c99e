//! A picture as a Mermaid `flowchart`, left to right: a box per node in its kind's brackets,
//! a module's boxes in a `subgraph module<i>["<path>"]` (a sub-module's inside its parent's),
//! then a link per need. Every label is quoted, with what Mermaid would read as entity codes.

use std::fmt::Write as _;

use super::Picture;

impl Picture {
    /// As a Mermaid `flowchart`: each box (`n0["..."]`, in its kind's brackets: a collection's
    /// a hexagon, a decorator's a subroutine, a step's rounded, a worker's asymmetric; an
    /// absent need's dashed), a module's boxes in a `subgraph module<i>["<path>"]`, then a link
    /// per need, labelled with the key, dotted for an optional need.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        let boxes: Vec<(Option<&str>, String)> = self
            .nodes
            .iter()
            .map(|node| {
                let style = node.kind.style();
                let [open, close] = style.mermaid;
                let label: Vec<String> = node.label.iter().map(|l| text(l)).collect();
                let mut statement = format!("{}{open}\"{}\"{close}", node.id, label.join("<br/>"));
                if style.dotted {
                    let _ = write!(statement, "\nstyle {} stroke-dasharray: 3 3", node.id);
                }
                (node.module.as_deref(), statement)
            })
            .collect();
        let open = |i: usize, path: &str| vec![format!("subgraph module{i}[\"{}\"]", text(path))];
        self.modules().write(&mut out, &boxes, &open, "end");
        for edge in &self.edges {
            let arrow = if edge.optional { "-.->" } else { "-->" };
            let _ = writeln!(
                out,
                "  {} {arrow}|\"{}\"| {}",
                self.nodes[edge.from].id,
                text(&edge.label),
                self.nodes[edge.to].id
            );
        }
        out
    }
}

/// `text` inside a quoted Mermaid label (`["..."]`, `|"..."|`): the characters that Mermaid or
/// the HTML it draws labels with would read are written as Mermaid's entity codes (`#quot;`,
/// `#lt;`...), and `#` too, as it starts them. Keys' `[]{}?` are plain text inside quotes.
fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '|' => out.push_str("#124;"),
            '\n' => out.push_str("<br/>"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_mermaid_would_read_as_entity_codes() {
        assert_eq!(
            text("say \"hi\" | #1 & <b>\nnext"),
            "say #quot;hi#quot; #124; #35;1 #amp; #lt;b#gt;<br/>next"
        );
        assert_eq!(
            text("notifiers[] stores{eu} cache?"),
            "notifiers[] stores{eu} cache?"
        );
    }
}
