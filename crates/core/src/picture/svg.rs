//! Drawing a laid-out picture as SVG: module boxes under everything, labelled with their paths;
//! boxes in their kind's style, dashed when not built, curved edges with their keys; every text
//! escaped for XML.

use std::fmt::Write as _;

use super::Picture;
use super::layout::{self, LINE_HEIGHT, MARGIN, PAD, Placed};

/// `text` safe inside an XML element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The font of every text; each text gives its own size (once: an attribute given twice is
/// not XML).
const FONT_FAMILY: &str =
    "font-family=\"ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace\"";

impl Picture {
    /// As a standalone SVG document, drawn in process: its caption, then its boxes laid out in
    /// layers left to right, each in its kind's colours (dashed while not built) with its
    /// lines, a labelled box per module around its boxes, a curved arrow per need labelled
    /// with the key (dashed for an optional need). Every text is escaped.
    pub fn to_svg(&self) -> String {
        render_stack(std::slice::from_ref(self))
    }
}

/// Several pictures, one under the other, as one SVG document.
pub fn render_stack(pictures: &[Picture]) -> String {
    let mut body = String::new();
    let (mut width, mut top) = (2.0 * MARGIN, 0.0);
    for picture in pictures {
        let mut start = top + MARGIN;
        if let Some(caption) = &picture.caption {
            let _ = write!(
                body,
                "<text x=\"{MARGIN}\" y=\"{:.1}\" {FONT_FAMILY} font-size=\"12\" font-weight=\"bold\" fill=\"#333\">{}</text>",
                start + 12.0,
                escape(caption)
            );
            start += LINE_HEIGHT + 8.0;
            width = f64::max(width, layout::text_width(caption) + 2.0 * MARGIN);
        }
        let placed = layout::place(picture, start);
        draw(&mut body, picture, &placed);
        width = f64::max(width, placed.width);
        top = placed.height;
    }
    let height = top.max(2.0 * MARGIN);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\">{body}</svg>"
    )
}

fn draw(out: &mut String, picture: &Picture, placed: &Placed) {
    // Modules first, a parent under its sub-modules, then edges, under the boxes.
    for (path, (x, y, w, h)) in &placed.modules {
        let label = escape(&layout::module_label(path));
        let _ = write!(
            out,
            "<g class=\"module\" data-module=\"{}\"><title>{label}</title>\
             <rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"8\" \
             fill=\"#eceff1\" fill-opacity=\"0.45\" stroke=\"#607d8b\" stroke-width=\"1.2\" \
             stroke-dasharray=\"6 3\"/><text x=\"{:.1}\" y=\"{:.1}\" {FONT_FAMILY} font-size=\"12\" \
             font-weight=\"bold\" fill=\"#455a64\">{label}</text></g>",
            escape(path),
            x + PAD,
            y + 16.0,
        );
    }
    for edge in &picture.edges {
        let (Some(&(fx, fy, fw, fh)), Some(&(tx, ty, _, th))) =
            (placed.boxes.get(edge.from), placed.boxes.get(edge.to))
        else {
            continue;
        };
        let (x1, y1) = (fx + fw, fy + fh / 2.0);
        let (x2, y2) = (tx - 1.0, ty + th / 2.0);
        let bend = ((x2 - x1) / 2.0).max(30.0);
        let (class, dash) = if edge.optional {
            ("edge optional", " stroke-dasharray=\"4 3\"")
        } else {
            ("edge", "")
        };
        let _ = write!(
            out,
            "<g class=\"{class}\"><path d=\"M{x1:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {:.1},{y2:.1}\" \
             fill=\"none\" stroke=\"#78909c\" stroke-width=\"1.4\"{dash}/>\
             <polygon points=\"{x2:.1},{y2:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#78909c\"/>",
            x1 + bend,
            x2 - bend,
            x2 - 7.0,
            x2 - 7.0,
            y2 - 4.0,
            x2 - 7.0,
            y2 + 4.0,
        );
        if !edge.label.is_empty() {
            // Just past the box it leaves, above the line: arrows converge on their consumer,
            // so labels there would overlap, while one box's arrows mostly carry one key.
            let (lx, ly) = (x1 + 4.0, y1 - 4.0);
            let w = layout::text_width(&edge.label) * 0.88 + 4.0;
            let _ = write!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"13\" rx=\"2\" fill=\"#ffffff\" fill-opacity=\"0.8\"/>\
                 <text x=\"{:.1}\" y=\"{ly:.1}\" {FONT_FAMILY} font-size=\"10.5\" fill=\"#455a64\">{}</text>",
                lx,
                ly - 10.0,
                lx + 2.0,
                escape(&edge.label)
            );
        }
        out.push_str("</g>");
    }
    for (node, &(x, y, w, h)) in picture.nodes.iter().zip(&placed.boxes) {
        let style = node.kind.style();
        let dash = match (style.dotted, node.built) {
            (true, _) => " stroke-dasharray=\"2 2\"",
            (false, true) => "",
            (false, false) => " stroke-dasharray=\"5 3\"",
        };
        let title = node.lines.join("\n");
        let module = node
            .module
            .as_deref()
            .map(|m| format!(" data-module=\"{}\"", escape(m)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<g class=\"node {}\"{module}><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
             rx=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"{dash}/>",
            style.name,
            escape(&title),
            style.radius,
            style.fill,
            style.stroke
        );
        for (i, line) in node.lines.iter().enumerate() {
            let weight = if i == 0 { " font-weight=\"bold\"" } else { "" };
            let colour = if i == 0 { "#212121" } else { "#546e7a" };
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT_FAMILY} font-size=\"12\"{weight} fill=\"{colour}\">{}</text>",
                x + PAD,
                y + PAD + 10.0 + i as f64 * LINE_HEIGHT,
                escape(line)
            );
        }
        out.push_str("</g>");
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Edge, Kind, Node};
    use super::*;

    #[test]
    fn escapes_every_text() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let picture = Picture {
            name: "GET /<script>".to_owned(),
            caption: Some("GET /<script>".to_owned()),
            nodes: vec![
                Node {
                    id: "n0".to_owned(),
                    kind: Kind::Provider,
                    built: false,
                    module: Some("a<b".to_owned()),
                    label: Vec::new(),
                    lines: vec!["k: Vec<&str>".to_owned(), "provider `a\"b`".to_owned()],
                },
                Node {
                    id: "h".to_owned(),
                    kind: Kind::Handler,
                    built: true,
                    module: None,
                    label: Vec::new(),
                    lines: vec!["GET /x".to_owned()],
                },
            ],
            edges: vec![Edge {
                from: 0,
                to: 1,
                label: "<k>".to_owned(),
                optional: false,
            }],
        };
        let svg = picture.to_svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("k: Vec&lt;&amp;str&gt;"));
        assert!(svg.contains("GET /&lt;script&gt;"));
        assert!(svg.contains("&lt;k&gt;"));
        assert!(svg.contains("data-module=\"a&lt;b\""));
        assert!(svg.contains("module `a&lt;b`"));
        assert!(!svg.contains("<script>") && !svg.contains("<k>"));
        assert!(
            svg.contains("stroke-dasharray"),
            "a box not built is dashed"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{fffd}b");
        for tag in svg.split('<').skip(1) {
            let attributes: Vec<&str> = tag
                .split_whitespace()
                .filter_map(|a| a.split_once("=\"").map(|(name, _)| name))
                .collect();
            let mut unique = attributes.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(
                attributes.len(),
                unique.len(),
                "an attribute twice in <{tag}"
            );
        }
    }
}
