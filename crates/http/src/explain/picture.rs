//! A route's chain as a picture: its providers (the core's picture of its slice), its steps and
//! its handler, an arrow per need (from a box of its own for an absent one), in core's one
//! picture model, which DOT, Mermaid and SVG render; a path's routes side by side (DOT,
//! Mermaid) or one under the other (SVG).

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::explain::{
    Picture, PictureEdge, PictureKind, PictureNode, render_svg_stack,
};
use green_tea_core::{Key, Spelling};

use super::{ExplainApp, ExplainPath, ExplainRoute, NeedSource, finishes_mark};

impl ExplainRoute {
    /// The route's chain as an SVG picture, drawn in process (no external program): its
    /// providers in build order (keys and types, kind and name, scope, built or not and the
    /// build time, overrides, what a collection holds and a decorator wraps; dashed while not
    /// built), its steps (rounded, request scope), its handler, and an arrow per need labelled
    /// with the key, from where the route's plan reads it (dashed for an optional need, from a
    /// dotted box for an absent one; a step whose values finish says so on a line of its own).
    /// What a module registered is inside a labelled box of the module, nested for a
    /// sub-module. Every text is escaped for XML.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// let app = App::builder()
    ///     .value("greeting", String::from("hello"))
    ///     .route(Route::get("/hello", |_: RequestContext| async { "hi" }).needs::<String>("greeting"))
    ///     .build()
    ///     .unwrap();
    /// let svg = app.explain("/hello").unwrap().routes[0].to_svg();
    /// assert!(svg.starts_with("<svg") && svg.contains("greeting: String"));
    /// ```
    pub fn to_svg(&self) -> String {
        self.picture(0).to_svg()
    }

    /// The chain of route number `r` at its path, captioned with its title: its slice's
    /// picture (providers `r{r}p{i}`), then its steps (`r{r}s{i}`), its handler (`r{r}h`), and
    /// a box per absent need; a guard, which provides nothing, with an arrow to the handler
    /// that says it runs first.
    pub(crate) fn picture(&self, r: usize) -> Picture {
        let mut picture = layer::explain::explain_picture(&self.providers, &format!("r{r}p"));
        picture.name = self.title();
        picture.caption = Some(self.title());
        let first_step = picture.nodes.len();
        for (i, step) in self.steps.iter().enumerate() {
            let provides = step.provides.join(", ");
            let mut label = vec![format!("step {}{}", step.name, finishes_mark(step))];
            let mut lines = vec![
                if provides.is_empty() {
                    "guard".to_owned()
                } else {
                    provides.clone()
                },
                format!("step `{}`", step.name),
                "request scope, every request".to_owned(),
            ];
            if !provides.is_empty() {
                label.push(provides);
            }
            if step.finishes {
                lines.push("finishes with the request's outcome".to_owned());
            }
            picture.push(PictureNode {
                id: format!("r{r}s{i}"),
                kind: PictureKind::Step,
                built: true,
                module: step.module.clone(),
                label,
                lines,
            });
        }
        let head = format!("{} {}", self.method, self.template);
        // An unnamed handler's name is already `GET /path`.
        let (label, mut lines) = if self.handler == head {
            (self.handler.clone(), vec![head])
        } else {
            let label = format!("{} {}", self.method, self.handler);
            (label, vec![head, self.handler.clone()])
        };
        lines.push("handler".to_owned());
        let handler = picture.push(PictureNode {
            id: format!("r{r}h"),
            kind: PictureKind::Handler,
            built: true,
            module: self.module.clone(),
            label: vec![label],
            lines,
        });
        // Each need from where the plan reads it; an absent one from a dotted box of its own.
        let consumers = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (first_step + i, &s.needs, &s.from, &s.off))
            .chain([(handler, &self.needs, &self.from, &self.off)]);
        for (to, needs, from, off) in consumers {
            for (j, (key, source)) in needs.iter().zip(from).enumerate() {
                let from = match *source {
                    NeedSource::Provider(i) => Some(i),
                    NeedSource::Step(i) => Some(first_step + i),
                    NeedSource::Absent => None,
                };
                let off = off
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, on)| on.as_str());
                let from = picture.source(from, (to, j), key, off);
                picture.edges.push(PictureEdge {
                    from,
                    to,
                    label: key.clone(),
                    optional: is_optional(key),
                });
            }
        }
        for (i, step) in self.steps.iter().enumerate() {
            if step.provides.is_empty() {
                picture.edges.push(PictureEdge {
                    from: first_step + i,
                    to: handler,
                    label: "then".to_owned(),
                    optional: false,
                });
            }
        }
        picture
    }

    /// `POST /orders -> Orders::create`, or `POST /orders` for an unnamed handler.
    pub(crate) fn title(&self) -> String {
        let head = format!("{} {}", self.method, self.template);
        if self.handler == head {
            head
        } else {
            format!("{head} -> {}", self.handler)
        }
    }
}

/// Whether `key` is spelled as an optional need (`cache?`).
fn is_optional(key: &str) -> bool {
    matches!(
        Key::from(key.to_owned()).spelling(),
        Ok(Spelling::Optional(_))
    )
}

impl ExplainPath {
    /// As a Graphviz `digraph`: each route's chain as [`ExplainRoute::to_svg`] draws it, side
    /// by side: providers (a collection as a folder, a decorator as a component), then steps
    /// (a step whose values finish is labelled `step tx (finishes)`), then each handler; an
    /// edge per need, dashed for an optional need, from a dotted box for an absent one, and
    /// one from each guard to its handler, labelled `then`. What a module registered is in a
    /// `subgraph "cluster_<path>"` labelled with its path (one per module, for every route at
    /// the path), a sub-module's inside its parent's.
    pub fn to_dot(&self) -> String {
        self.picture().to_dot()
    }

    /// As a Mermaid `flowchart`: the same boxes and needs as [`to_dot`](Self::to_dot), a
    /// collection as a hexagon and a decorator as a subroutine, an optional need's link
    /// dotted; every label quoted, with the characters Mermaid would read as entity codes.
    /// What a module registered is in a `subgraph module<i>["<path>"]`, nested for a
    /// sub-module.
    pub fn to_mermaid(&self) -> String {
        self.picture().to_mermaid()
    }

    /// Every route at the path as one SVG picture, one chain under the other; see
    /// [`ExplainRoute::to_svg`].
    pub fn to_svg(&self) -> String {
        render_svg_stack(&self.pictures())
    }

    /// Each route's picture, its boxes' ids numbered by the route (`r0`, `r1`...).
    fn pictures(&self) -> Vec<Picture> {
        let routes = self.routes.iter().enumerate();
        routes.map(|(r, route)| route.picture(r)).collect()
    }

    /// Every route's picture side by side, in one picture of the path.
    fn picture(&self) -> Picture {
        Picture::join(&self.path, self.pictures())
    }
}

impl ExplainApp {
    /// Every route of the app, then every worker, as one SVG picture, one chain under the
    /// other; see [`ExplainRoute::to_svg`] and
    /// [`ExplainWorker::to_svg`](green_tea_core::ExplainWorker::to_svg), and
    /// [`to_html`](Self::to_html) for a page with one picture per route and worker and a
    /// search box.
    pub fn to_svg(&self) -> String {
        let pictures: Vec<Picture> = self
            .paths
            .iter()
            .flat_map(ExplainPath::pictures)
            .chain(self.workers.iter().map(layer::explain::worker_picture))
            .collect();
        render_svg_stack(&pictures)
    }
}
