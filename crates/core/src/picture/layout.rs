//! A layered layout, left to right: each box's column is the longest path of needs to it,
//! boxes in a column are ordered by the mean row of what they need (a few sweeps), then
//! placed; sizes come from the text, in a monospace font of known width. With modules, each
//! module's boxes take a band of rows of their own (a sub-module's band inside its parent's),
//! so that a module's box holds its boxes and no other.

use super::Picture;
use super::modules::ModuleTree;

/// Width of one character of the 12px monospace font, rounded up.
pub(super) const CHAR_WIDTH: f64 = 7.4;
/// Height of one line of text.
pub(super) const LINE_HEIGHT: f64 = 16.0;
/// Room inside a box around its text.
pub(super) const PAD: f64 = 8.0;
/// Room between two columns, for the edges and their labels.
const COLUMN_GAP: f64 = 80.0;
/// Room between two boxes of one column.
const ROW_GAP: f64 = 18.0;
/// Room around the whole picture.
pub(super) const MARGIN: f64 = 12.0;
/// Room at the top of a module's box, for its label.
const MODULE_LABEL: f64 = LINE_HEIGHT + 8.0;
/// Room between a module's box and what it holds.
const MODULE_PAD: f64 = 8.0;

/// A box: x, y, width, height.
pub(super) type Rect = (f64, f64, f64, f64);

/// Where each box is, and how large the picture is.
pub(super) struct Placed {
    /// (x, y, width, height) of each box, in the picture's order.
    pub(super) boxes: Vec<Rect>,
    /// Each module's box, with its path, parents before their sub-modules (drawn under them).
    pub(super) modules: Vec<(String, Rect)>,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// The label of a module's box.
pub(super) fn module_label(path: &str) -> String {
    format!("module `{path}`")
}

pub(super) fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_WIDTH
}

pub(super) fn place(picture: &Picture, top: f64) -> Placed {
    let n = picture.nodes.len();
    let sizes: Vec<(f64, f64)> = picture
        .nodes
        .iter()
        .map(|node| {
            let widest = node.lines.iter().map(|l| text_width(l)).fold(0.0, f64::max);
            (
                widest + 2.0 * PAD,
                node.lines.len() as f64 * LINE_HEIGHT + 2.0 * PAD - 4.0,
            )
        })
        .collect();

    // Longest path from a box that needs nothing. At most n rounds: the graph is acyclic, and
    // a cycle (never built by explain) would only stop growing at n.
    let mut column = vec![0_usize; n];
    for _ in 0..n {
        let mut changed = false;
        for edge in &picture.edges {
            if edge.from < n && edge.to < n && column[edge.to] <= column[edge.from] {
                column[edge.to] = column[edge.from] + 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // A box that needs nothing goes just left of its nearest consumer rather than at the far
    // left, so that its arrow does not cross the columns between.
    for i in 0..n {
        let needs_something = picture.edges.iter().any(|e| e.to == i);
        let nearest = picture
            .edges
            .iter()
            .filter(|e| e.from == i && e.to < n)
            .map(|e| column[e.to])
            .min();
        if let (false, Some(nearest)) = (needs_something, nearest) {
            column[i] = nearest.saturating_sub(1);
        }
    }
    let columns = column.iter().max().map_or(0, |c| c + 1);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); columns];
    for (i, &c) in column.iter().enumerate() {
        layers[c].push(i);
    }
    let tree = picture.modules();
    let group: Vec<usize> = picture
        .nodes
        .iter()
        .map(|n| tree.group(n.module.as_deref()))
        .collect();
    // A module's boxes together in each column (its band), in the tree's order.
    for layer in &mut layers {
        layer.sort_by_key(|&i| group[i]);
    }

    // Barycenter sweeps: order each column by the mean row of the boxes it needs.
    let mut row = vec![0.0_f64; n];
    let number = |layers: &Vec<Vec<usize>>, row: &mut Vec<f64>| {
        for layer in layers {
            for (r, &i) in layer.iter().enumerate() {
                row[i] = r as f64;
            }
        }
    };
    number(&layers, &mut row);
    for _ in 0..4 {
        for layer in layers.iter_mut().skip(1) {
            let mut keyed: Vec<(usize, f64, usize)> = layer
                .iter()
                .map(|&i| {
                    let from: Vec<f64> = picture
                        .edges
                        .iter()
                        .filter(|e| e.to == i && e.from < n)
                        .map(|e| row[e.from])
                        .collect();
                    let mean = if from.is_empty() {
                        row[i]
                    } else {
                        from.iter().sum::<f64>() / from.len() as f64
                    };
                    (group[i], mean, i)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            *layer = keyed.into_iter().map(|(_, _, i)| i).collect();
        }
        number(&layers, &mut row);
    }

    // Room on the left for the boxes of the deepest modules.
    let depth = (1..tree.groups())
        .map(|g| green_tea_key::segments(tree.path(g)).count())
        .max()
        .unwrap_or(0);
    let mut xs = Vec::with_capacity(columns);
    let mut x = MARGIN + MODULE_PAD * depth as f64;
    for layer in &layers {
        xs.push(x);
        x += layer.iter().map(|&i| sizes[i].0).fold(0.0, f64::max) + COLUMN_GAP;
    }
    let right = if columns == 0 { MARGIN } else { x - COLUMN_GAP };
    let mut bands = Bands {
        tree: &tree,
        layers: &layers,
        sizes: &sizes,
        group: &group,
        xs: &xs,
        boxes: vec![(0.0, 0.0, 0.0, 0.0); n],
        band: vec![(0.0, 0.0); tree.groups()],
    };
    let bottom = if tree.is_empty() {
        bands.centred(0, top)
    } else {
        bands.place(0, top)
    };
    let Bands { boxes, band, .. } = bands;

    // Each module's box around its boxes and its sub-modules' boxes, sub-modules first.
    let mut rects: Vec<Rect> = vec![(0.0, 0.0, 0.0, 0.0); tree.groups()];
    for g in (1..tree.groups()).rev() {
        let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
        for (i, &(bx, _, bw, _)) in boxes.iter().enumerate() {
            if group[i] == g {
                x0 = x0.min(bx - MODULE_PAD);
                x1 = x1.max(bx + bw + MODULE_PAD);
            }
        }
        for child in tree.children(g) {
            let (cx, _, cw, _) = rects[child];
            x0 = x0.min(cx - MODULE_PAD);
            x1 = x1.max(cx + cw + MODULE_PAD);
        }
        x1 = x1.max(x0 + text_width(&module_label(tree.path(g))) + 2.0 * PAD);
        let (y0, y1) = band[g];
        rects[g] = (x0, y0, x1 - x0, y1 - y0);
    }
    let modules: Vec<(String, Rect)> = (1..tree.groups())
        .map(|g| (tree.path(g).to_owned(), rects[g]))
        .collect();
    let widest = modules
        .iter()
        .map(|(_, (x, _, w, _))| x + w)
        .fold(right, f64::max);
    Placed {
        boxes,
        modules,
        width: widest + MARGIN,
        height: bottom + MARGIN,
    }
}

/// Placing the boxes of each group (the root, a module) in rows.
struct Bands<'a> {
    tree: &'a ModuleTree,
    layers: &'a [Vec<usize>],
    sizes: &'a [(f64, f64)],
    group: &'a [usize],
    /// Each column's left edge.
    xs: &'a [f64],
    boxes: Vec<Rect>,
    /// Each group's band: top and bottom.
    band: Vec<(f64, f64)>,
}

impl Bands<'_> {
    /// Places `group`'s own boxes from `top`, each column centred on the group's tallest;
    /// returns the bottom (`top` if it has none).
    fn centred(&mut self, group: usize, top: f64) -> f64 {
        let heights: Vec<f64> = self
            .layers
            .iter()
            .map(|layer| {
                let own = layer.iter().filter(|&&i| self.group[i] == group);
                let (sum, count) = own.fold((0.0, 0), |(s, c), &i| (s + self.sizes[i].1, c + 1));
                sum + ROW_GAP * (count as f64 - 1.0).max(0.0)
            })
            .collect();
        let tallest = heights.iter().copied().fold(0.0, f64::max);
        for ((layer, height), &x) in self.layers.iter().zip(&heights).zip(self.xs) {
            let mut y = top + (tallest - height) / 2.0;
            for &i in layer.iter().filter(|&&i| self.group[i] == group) {
                let (w, h) = self.sizes[i];
                self.boxes[i] = (x, y, w, h);
                y += h + ROW_GAP;
            }
        }
        top + tallest
    }

    /// Places `group`'s band from `top`: a module's label, its own boxes, then each
    /// sub-module's band; returns the bottom.
    fn place(&mut self, group: usize, top: f64) -> f64 {
        let module = group != 0;
        let mut y = top + if module { MODULE_LABEL } else { 0.0 };
        let own = self.centred(group, y);
        let mut first = own == y;
        y = own;
        let children: Vec<usize> = self.tree.children(group).collect();
        for child in children {
            if !first {
                y += ROW_GAP;
            }
            y = self.place(child, y);
            first = false;
        }
        if module {
            y += MODULE_PAD;
        }
        self.band[group] = (top, y);
        y
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Edge, Kind, Node};
    use super::*;

    fn node(text: &str) -> Node {
        Node {
            id: text.to_owned(),
            kind: Kind::Provider,
            built: true,
            module: None,
            label: Vec::new(),
            lines: vec![text.to_owned()],
        }
    }

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            label: String::new(),
            optional: false,
        }
    }

    #[test]
    fn needs_go_left_to_right_and_boxes_do_not_overlap() {
        // a -> b -> d, a -> c -> d
        let picture = Picture {
            nodes: ["a", "b", "c", "d"].map(node).to_vec(),
            edges: vec![edge(0, 1), edge(0, 2), edge(1, 3), edge(2, 3)],
            ..Picture::default()
        };
        let placed = place(&picture, MARGIN);
        let x = |i: usize| placed.boxes[i].0;
        assert!(x(0) < x(1) && x(1) == x(2) && x(2) < x(3));
        let (b, c) = (placed.boxes[1], placed.boxes[2]);
        assert!(b.1 + b.3 <= c.1 || c.1 + c.3 <= b.1, "b and c overlap");
        for &(bx, by, bw, bh) in &placed.boxes {
            assert!(bx >= 0.0 && by >= 0.0);
            assert!(bx + bw <= placed.width && by + bh <= placed.height);
        }
    }

    fn in_module(text: &str, module: Option<&str>) -> Node {
        Node {
            module: module.map(str::to_owned),
            ..node(text)
        }
    }

    fn inside(inner: Rect, outer: Rect) -> bool {
        inner.0 > outer.0
            && inner.1 > outer.1
            && inner.0 + inner.2 < outer.0 + outer.2
            && inner.1 + inner.3 < outer.1 + outer.3
    }

    fn overlap(a: Rect, b: Rect) -> bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }

    #[test]
    fn a_module_s_box_holds_its_boxes_and_no_other() {
        // root -> shop (0 -> 1), shop -> shop::orders (1 -> 2), billing (3) -> shop::orders,
        // root (4) needs billing, in the same column as shop's box.
        let picture = Picture {
            nodes: vec![
                in_module("db", None),
                in_module("catalog", Some("shop")),
                in_module("orders", Some("shop::orders")),
                in_module("billing", Some("billing")),
                in_module("audit", None),
            ],
            edges: vec![edge(0, 1), edge(1, 2), edge(3, 2), edge(3, 4)],
            ..Picture::default()
        };
        let placed = place(&picture, MARGIN);
        let module = |path: &str| {
            placed
                .modules
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, r)| *r)
                .unwrap()
        };
        let paths: Vec<&str> = placed.modules.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["billing", "shop", "shop::orders"]);
        let (shop, orders, billing) = (module("shop"), module("shop::orders"), module("billing"));
        assert!(inside(placed.boxes[1], shop) && inside(placed.boxes[2], shop));
        assert!(inside(placed.boxes[2], orders) && inside(orders, shop));
        assert!(!overlap(placed.boxes[1], orders));
        assert!(inside(placed.boxes[3], billing));
        assert!(!overlap(billing, shop));
        for i in [0, 4] {
            for rect in [shop, billing] {
                assert!(!overlap(placed.boxes[i], rect), "box {i} in a module's box");
            }
        }
        for &(x, y, w, h) in placed.modules.iter().map(|(_, r)| r) {
            assert!(x >= 0.0 && y >= 0.0 && x + w <= placed.width && y + h <= placed.height);
        }
    }

    #[test]
    fn an_empty_picture_has_a_size() {
        let placed = place(&Picture::default(), MARGIN);
        assert!(placed.boxes.is_empty() && placed.width > 0.0);
    }
}
