//! A route's chain as an SVG picture: its providers (from the core's picture of its slice),
//! its steps and its handler, an arrow per need (from a box of its own for an absent one).

use green_tea_core::__private::sibling::{self, Picture, PictureEdge, PictureNode, PictureShape};

use super::{ExplainApp, ExplainPath, ExplainRoute, NeedSource, absent_lines, is_optional};

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
        sibling::render_svg(&self.picture())
    }

    pub(crate) fn picture(&self) -> Picture {
        let mut picture = sibling::explain_picture(&self.providers);
        picture.caption = Some(self.title());
        let first_step = picture.nodes.len();
        for step in &self.steps {
            let provides = if step.provides.is_empty() {
                "guard".to_owned()
            } else {
                step.provides.join(", ")
            };
            let mut lines = vec![
                provides,
                format!("step `{}`", step.name),
                "request scope, every request".to_owned(),
            ];
            if step.finishes {
                lines.push("finishes with the request's outcome".to_owned());
            }
            picture.nodes.push(PictureNode {
                lines,
                shape: PictureShape::Step,
                built: true,
                module: step.module.clone(),
            });
        }
        let handler = picture.nodes.len();
        let mut lines = vec![format!("{} {}", self.method, self.template)];
        if self.handler != lines[0] {
            lines.push(self.handler.clone());
        }
        lines.push("handler".to_owned());
        picture.nodes.push(PictureNode {
            lines,
            shape: PictureShape::Handler,
            built: true,
            module: self.module.clone(),
        });
        // Each need from where the plan reads it; an absent one from a dotted box of its own.
        let consumers = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (first_step + i, &s.needs, &s.from))
            .chain([(handler, &self.needs, &self.from)]);
        for (to, needs, from) in consumers {
            for (key, source) in needs.iter().zip(from) {
                let from = match *source {
                    NeedSource::Provider(i) => i,
                    NeedSource::Step(i) => first_step + i,
                    NeedSource::Absent => {
                        picture.nodes.push(PictureNode {
                            lines: absent_lines(key),
                            shape: PictureShape::Absent,
                            built: true,
                            module: None,
                        });
                        picture.nodes.len() - 1
                    }
                };
                picture.edges.push(PictureEdge {
                    from,
                    to,
                    label: key.clone(),
                    optional: is_optional(key),
                });
            }
        }
        // A guard provides nothing: an arrow says it runs before the handler.
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

impl ExplainPath {
    /// Every route at the path as one SVG picture, one chain under the other; see
    /// [`ExplainRoute::to_svg`].
    pub fn to_svg(&self) -> String {
        let pictures: Vec<Picture> = self.routes.iter().map(ExplainRoute::picture).collect();
        sibling::render_svg_stack(&pictures)
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
            .flat_map(|p| p.routes.iter().map(ExplainRoute::picture))
            .chain(self.workers.iter().map(|w| {
                let mut picture = sibling::worker_picture(w);
                picture.caption = Some(w.who());
                picture
            }))
            .collect();
        sibling::render_svg_stack(&pictures)
    }
}
