//! How each kind of box looks in every rendering, one row per kind: DOT's shape and line,
//! Mermaid's brackets, the SVG's colours and corners (which the HTTP layer's page legend
//! reads too).

use super::Kind;

/// The look of one [`Kind`] of box.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Style {
    /// Its name: the SVG box's class (`node collection`) and the page legend's.
    pub name: &'static str,
    /// The DOT attributes after its label, built and not built.
    pub dot: [&'static str; 2],
    /// The Mermaid brackets around its label.
    pub mermaid: [&'static str; 2],
    /// The SVG box's fill.
    pub fill: &'static str,
    /// The SVG box's line.
    pub stroke: &'static str,
    /// The SVG box's corner radius.
    pub radius: u32,
    /// Drawn dotted whether built or not (an absent need's box); any other box is dashed
    /// while not built.
    pub dotted: bool,
}

// DOT's attributes, built and not built.
const SOLID: [&str; 2] = ["style=solid", "style=dashed"];
const FOLDER: [&str; 2] = ["style=solid shape=folder", "style=dashed shape=folder"];
const COMPONENT: [&str; 2] = [
    "style=solid shape=component",
    "style=dashed shape=component",
];
const NOTE: [&str; 2] = ["style=solid shape=note", "style=dashed shape=note"];
const DOTTED: [&str; 2] = ["style=dotted"; 2];
const ROUNDED: [&str; 2] = ["style=rounded"; 2];
const BOLD: [&str; 2] = ["style=bold"; 2];
const CDS: [&str; 2] = ["shape=cds style=bold", "shape=cds style=dashed"];

// Mermaid's brackets.
const BOX: [&str; 2] = ["[", "]"];
const HEXAGON: [&str; 2] = ["{{", "}}"];
const SUBROUTINE: [&str; 2] = ["[[", "]]"];
const PARALLELOGRAM: [&str; 2] = ["[/", "/]"];
const ROUND: [&str; 2] = ["(", ")"];
const ASYMMETRIC: [&str; 2] = [">", "]"];

impl Kind {
    /// Every kind, in the order the page's legend shows them.
    pub const ALL: [Kind; 9] = [
        Kind::Provider,
        Kind::Override,
        Kind::Collection,
        Kind::Decorator,
        Kind::Settings,
        Kind::Absent,
        Kind::Step,
        Kind::Handler,
        Kind::Worker,
    ];

    /// Its look.
    pub fn style(self) -> Style {
        let (name, dot, mermaid, fill, stroke, radius) = match self {
            Kind::Provider => ("provider", SOLID, BOX, "#e8f5e9", "#2e7d32", 2),
            Kind::Override => ("override", SOLID, BOX, "#fce4ec", "#c2185b", 2),
            Kind::Collection => ("collection", FOLDER, HEXAGON, "#f3e5f5", "#6a1b9a", 2),
            Kind::Decorator => ("decorator", COMPONENT, SUBROUTINE, "#fffde7", "#f9a825", 2),
            Kind::Settings => ("settings", NOTE, PARALLELOGRAM, "#e0f2f1", "#00695c", 2),
            Kind::Absent => ("absent", DOTTED, BOX, "#fafafa", "#9e9e9e", 2),
            Kind::Step => ("step", ROUNDED, ROUND, "#e3f2fd", "#1565c0", 12),
            Kind::Handler => ("handler", BOLD, BOX, "#fff3e0", "#e65100", 6),
            Kind::Worker => ("worker", CDS, ASYMMETRIC, "#efebe9", "#5d4037", 0),
        };
        Style {
            name,
            dot,
            mermaid,
            fill,
            stroke,
            radius,
            dotted: self == Kind::Absent,
        }
    }
}
