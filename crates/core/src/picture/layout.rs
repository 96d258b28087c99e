//! A layered layout, left to right: each box's column is the longest path of needs to it,
//! boxes in a column are ordered by the mean row of what they need (a few sweeps), then
//! placed; sizes come from the text, in a monospace font of known width.

use super::Picture;

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

/// Where each box is, and how large the picture is.
pub(super) struct Placed {
    /// (x, y, width, height) of each box, in the picture's order.
    pub(super) boxes: Vec<(f64, f64, f64, f64)>,
    pub(super) width: f64,
    pub(super) height: f64,
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
            let mut keyed: Vec<(f64, usize)> = layer
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
                    (mean, i)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            *layer = keyed.into_iter().map(|(_, i)| i).collect();
        }
        number(&layers, &mut row);
    }

    // Columns left to right, each centred on the tallest.
    let heights: Vec<f64> = layers
        .iter()
        .map(|layer| {
            layer.iter().map(|&i| sizes[i].1).sum::<f64>()
                + ROW_GAP * layer.len().saturating_sub(1) as f64
        })
        .collect();
    let tallest = heights.iter().copied().fold(0.0, f64::max);
    let mut boxes = vec![(0.0, 0.0, 0.0, 0.0); n];
    let mut x = MARGIN;
    for (layer, height) in layers.iter().zip(&heights) {
        let width = layer.iter().map(|&i| sizes[i].0).fold(0.0, f64::max);
        let mut y = top + (tallest - height) / 2.0;
        for &i in layer {
            let (w, h) = sizes[i];
            boxes[i] = (x, y, w, h);
            y += h + ROW_GAP;
        }
        x += width + COLUMN_GAP;
    }
    let width = if columns == 0 {
        2.0 * MARGIN
    } else {
        x - COLUMN_GAP + MARGIN
    };
    Placed {
        boxes,
        width,
        height: top + tallest + MARGIN,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Edge, Node, Shape};
    use super::*;

    fn node(text: &str) -> Node {
        Node {
            lines: vec![text.to_owned()],
            shape: Shape::Provider,
            built: true,
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
            caption: None,
            nodes: ["a", "b", "c", "d"].map(node).to_vec(),
            edges: vec![edge(0, 1), edge(0, 2), edge(1, 3), edge(2, 3)],
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

    #[test]
    fn an_empty_picture_has_a_size() {
        let placed = place(&Picture::default(), MARGIN);
        assert!(placed.boxes.is_empty() && placed.width > 0.0);
    }
}
