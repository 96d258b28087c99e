//! `explain_all().to_html()`: one self-contained page (inline CSS and script, nothing fetched)
//! with every route's chain and every worker's needs as a picture, a filter box, and, for an
//! app with modules, a module filter that shows one module's boxes (the others dimmed, routes
//! and workers without one hidden) and what `explain_module` says of it.

use std::fmt::Write as _;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::explain::{Picture, PictureKind, xml_escape as escape};
use green_tea_core::{Explain, ExplainWorker};

use super::{ExplainApp, ExplainRoute};

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #212121; background: #fafafa; }
header { position: sticky; top: 0; background: #1b5e20; color: #fff; padding: 10px 20px; z-index: 1;
  display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; font-weight: 600; }
#filter { font: inherit; padding: 5px 9px; width: min(420px, 90vw); border-radius: 4px; border: 0; }
#count { opacity: .85; }
.legend { display: flex; gap: 10px; font-size: 12px; flex-wrap: wrap; }
.legend span { padding: 1px 7px; border: 1.5px solid; color: #212121; }
main { padding: 8px 20px 40px; }
section.route, section.worker { background: #fff; border: 1px solid #e0e0e0; border-radius: 6px; margin: 14px 0; padding: 10px 14px; }
section.route h2, section.worker h2 { font-size: 15px; margin: 0 0 4px; font-weight: 600; }
section.worker .method { background: #5d4037; }
.method { font: 600 12px ui-monospace, monospace; padding: 1px 6px; border-radius: 3px; background: #37474f; color: #fff; }
.where { margin: 0 0 6px; color: #607d8b; font-size: 12px; }
.picture { overflow-x: auto; }
details pre { background: #f5f5f5; padding: 8px; overflow-x: auto; font-size: 12px; }
#none { color: #607d8b; }
#module { font: inherit; padding: 4px 6px; border-radius: 4px; border: 0; }
.dim { opacity: .18; }
section.module-summary { background: #eceff1; border: 1px dashed #607d8b; border-radius: 6px; margin: 14px 0; padding: 10px 14px; }
section.module-summary h2 { font-size: 15px; margin: 0 0 4px; font-weight: 600; }
section.module-summary pre { margin: 0; font-size: 12px; overflow-x: auto; }
"#;

const SCRIPT: &str = r#"
(function () {
  var all = function (root, selector) {
    return Array.prototype.slice.call(root.querySelectorAll(selector));
  };
  var input = document.getElementById('filter');
  var select = document.getElementById('module');
  var routes = all(document, 'section.route');
  var workers = all(document, 'section.worker');
  var summaries = all(document, 'section.module-summary');
  var count = document.getElementById('count');
  var none = document.getElementById('none');
  // A module's own boxes and its sub-modules'.
  function inside(module, chosen) {
    return module === chosen || module.indexOf(chosen + '::') === 0;
  }
  // Shows a route's or a worker's section if its text has every term and, with a module
  // chosen, one of its boxes is the module's; dims its other boxes. Whether it is shown.
  function filter(section, terms, chosen) {
    var text = section.getAttribute('data-search');
    var match = terms.every(function (t) { return text.indexOf(t) !== -1; });
    var mine = 0;
    all(section, 'g.node, g.module').forEach(function (box) {
      var module = box.getAttribute('data-module');
      var keep = !chosen || (module !== null && inside(module, chosen));
      box.classList.toggle('dim', !keep);
      if (keep && module !== null && box.classList.contains('node')) { mine += 1; }
    });
    if (chosen && mine === 0) { match = false; }
    section.hidden = !match;
    return match;
  }
  function apply() {
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var chosen = select ? select.value : '';
    var shown = routes.filter(function (r) { return filter(r, terms, chosen); }).length;
    var working = workers.filter(function (w) { return filter(w, terms, chosen); }).length;
    summaries.forEach(function (summary) {
      summary.hidden = summary.getAttribute('data-module') !== chosen;
    });
    count.textContent = shown + ' of ' + routes.length + ' routes' +
      (workers.length ? ', ' + working + ' of ' + workers.length + ' workers' : '');
    none.hidden = shown + working !== 0;
  }
  var params = new URLSearchParams(window.location.search);
  var q = params.get('q');
  if (q) { input.value = q; }
  var module = params.get('module');
  if (select && module) { select.value = module; }
  input.addEventListener('input', apply);
  if (select) { select.addEventListener('change', apply); }
  apply();
})();
"#;

impl ExplainApp {
    /// A self-contained HTML page of the whole app: every route with its chain as an SVG
    /// picture (see [`ExplainRoute::to_svg`]) and as text, then every worker with its needs
    /// the same way (see [`ExplainWorker::to_svg`]), and a filter box that keeps the routes
    /// whose method, path, handler, steps, providers, keys, types or modules contain every
    /// word typed, and the workers whose name, restart policy, state, needs, providers or
    /// module do (`?q=words` in the page's address fills it in). An app with modules also gets
    /// a module filter (`?module=shop` fills it in): choosing a module dims every box that is
    /// not its own or a sub-module's, hides the routes and workers that have none, and shows
    /// what [`App::explain_module`](crate::App::explain_module) says of it. Inline CSS and
    /// script; it fetches nothing. [`AppBuilder::explain_page`](crate::AppBuilder::explain_page) serves
    /// it.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// let app = App::builder()
    ///     .route(Route::get("/a", |_: RequestContext| async { "a" }))
    ///     .route(Route::post("/b", |_: RequestContext| async { "b" }))
    ///     .build()
    ///     .unwrap();
    /// let html = app.explain_all().to_html();
    /// assert!(html.starts_with("<!doctype html>"));
    /// assert_eq!(html.matches("<svg").count(), 2);
    /// ```
    pub fn to_html(&self) -> String {
        let routes: Vec<&ExplainRoute> = self.paths.iter().flat_map(|p| &p.routes).collect();
        let built = routes
            .iter()
            .flat_map(|r| &r.providers.nodes)
            .filter(|n| n.built)
            .count();
        let mut out = String::with_capacity(4096 + (routes.len() + self.workers.len()) * 4096);
        let workers = match self.workers.len() {
            0 => String::new(),
            1 => ", 1 worker".to_owned(),
            n => format!(", {n} workers"),
        };
        let _ = write!(
            out,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>green-tea: explain</title><style>{STYLE}{legend}</style></head><body>\
             <header><h1>green-tea explain</h1>\
             <input id=\"filter\" type=\"search\" placeholder=\"Filter: path, method, handler, key, type\" \
             aria-label=\"Filter the routes\" autofocus>\
             {modules}<span id=\"count\">{n} routes{workers}</span>\
             <div class=\"legend\"><span class=\"provider\">provider, built</span>\
             <span class=\"unbuilt\">not built</span><span class=\"override\">override</span>\
             <span class=\"collection\">collection</span><span class=\"decorator\">decorator</span><span class=\"settings\">settings</span>\
             <span class=\"absent\">absent (optional)</span>\
             <span class=\"step\">step</span><span class=\"handler\">handler</span>\
             <span class=\"worker\">worker</span></div></header>\
             <main><p class=\"where\">{n} routes{workers}; provider boxes along all the chains built now: {built}. \
             Arrows point from what provides a key to what needs it; a dashed arrow is an optional need.</p>",
            n = routes.len(),
            legend = legend_style(),
            modules = self.module_choice(),
        );
        if !self.switches.switches.is_empty() {
            let _ = write!(
                out,
                "<section class=\"switches\"><h2>switches</h2><pre>{}</pre></section>",
                escape(&self.switches.to_string()),
            );
        }
        if let Some(startup) = &self.startup {
            let _ = write!(
                out,
                "<section class=\"startup\"><h2>start</h2><pre>{}</pre></section>",
                escape(&startup.to_string()),
            );
        }
        if !self.settings.settings.is_empty() {
            let _ = write!(
                out,
                "<section class=\"settings-report\"><h2>settings</h2><pre>{}</pre></section>",
                escape(&self.settings.to_string()),
            );
        }
        if !self.reload.is_empty() {
            let _ = write!(
                out,
                "<section class=\"reload\"><h2>reload</h2><pre>{}</pre></section>",
                escape(&self.reload.to_string()),
            );
        }
        for module in &self.modules {
            let _ = write!(
                out,
                "<section class=\"module-summary\" data-module=\"{path}\" hidden>\
                 <h2>module <code>{path}</code></h2><pre>{}</pre></section>",
                escape(&module.to_string()),
                path = escape(&module.path),
            );
        }
        for (i, route) in routes.iter().enumerate() {
            let mut place = route.location.clone();
            if !route.layers.is_empty() {
                let _ = write!(
                    place,
                    " · layers, outermost first: {}",
                    route.layers.join(", ")
                );
            }
            let _ = write!(
                out,
                "<section class=\"route\" id=\"route-{i}\" data-search=\"{}\">\
                 <h2><span class=\"method\">{}</span> <code>{}</code>{}</h2>\
                 <p class=\"where\">{}</p><div class=\"picture\">{}</div>\
                 <details><summary>As text</summary><pre>{}</pre></details></section>",
                escape(&search_text(route)),
                escape(&route.method),
                escape(&route.template),
                if route.handler == format!("{} {}", route.method, route.template) {
                    String::new()
                } else {
                    format!(" → {}", escape(&route.handler))
                },
                escape(&place),
                // The section's heading says what the picture's caption would.
                Picture {
                    caption: None,
                    ..route.picture(i)
                }
                .to_svg(),
                escape(&route.to_string()),
            );
        }
        for (i, worker) in self.workers.iter().enumerate() {
            let mut place = format!("{} · restart: {}", worker.location, worker.restart);
            if worker.critical {
                place.push_str(" · critical");
            }
            if worker.overridden {
                place.push_str(" · override");
            }
            let _ = write!(
                out,
                "<section class=\"worker\" id=\"worker-{i}\" data-search=\"{}\">\
                 <h2><span class=\"method\">worker</span> <code>{}</code></h2>\
                 <p class=\"where\">{}</p><div class=\"picture\">{}</div>\
                 <details><summary>As text</summary><pre>{}</pre></details></section>",
                escape(&worker_search_text(worker)),
                escape(&worker.name),
                escape(&place),
                Picture {
                    caption: None,
                    ..layer::explain::worker_picture(worker)
                }
                .to_svg(),
                escape(&worker.to_string()),
            );
        }
        let _ = writeln!(
            out,
            "<p id=\"none\" hidden>Nothing matches the filter.</p></main><script>{SCRIPT}</script></body></html>"
        );
        out
    }
}

/// The legend's colours, each kind's as its boxes are drawn (and a provider's, dashed, for one
/// not built), from the pictures' style of each kind.
fn legend_style() -> String {
    let unbuilt = (
        "unbuilt",
        PictureKind::Provider.style(),
        " border-style: dashed;",
    );
    let kinds = PictureKind::ALL.map(|kind| {
        let style = kind.style();
        let border = if style.dotted {
            " border-style: dotted;"
        } else {
            ""
        };
        (style.name, style, border)
    });
    let mut css = String::new();
    for (name, style, border) in kinds.into_iter().chain([unbuilt]) {
        let _ = writeln!(
            css,
            ".legend .{name} {{ background: {}; border-color: {}; border-radius: {}px;{border} }}",
            style.fill, style.stroke, style.radius
        );
    }
    css
}

impl ExplainApp {
    /// The module filter: a choice of every module, or nothing for an app without modules.
    fn module_choice(&self) -> String {
        if self.modules.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "<select id=\"module\" aria-label=\"Show one module\">\
             <option value=\"\">all modules</option>",
        );
        for module in &self.modules {
            let path = escape(&module.path);
            let _ = write!(out, "<option value=\"{path}\">module {path}</option>");
        }
        out.push_str("</select>");
        out
    }
}

/// Everything the filter matches on, lowercased.
fn search_text(route: &ExplainRoute) -> String {
    let mut text = format!(
        "{} {} {} {} {}",
        route.method,
        route.template,
        route.handler,
        route.location,
        route.layers.join(" ")
    );
    // The providers' modules are with the providers, below.
    let modules = route
        .module
        .iter()
        .chain(route.steps.iter().filter_map(|s| s.module.as_ref()));
    for module in modules {
        let _ = write!(text, " {module}");
    }
    for step in &route.steps {
        let _ = write!(text, " {} {}", step.name, step.provides.join(" "));
        if step.finishes {
            text.push_str(" finishes");
        }
    }
    if route.steps.iter().any(|s| !s.absent.is_empty()) || !route.absent.is_empty() {
        text.push_str(" absent");
    }
    providers_search_text(&mut text, &route.providers);
    text.to_lowercase()
}

/// Everything the filter matches on in a worker's section, lowercased.
fn worker_search_text(worker: &ExplainWorker) -> String {
    let mut text = format!(
        "worker {} {} restart {} {}",
        worker.name, worker.location, worker.restart, worker.state
    );
    if let Some(module) = &worker.module {
        let _ = write!(text, " {module}");
    }
    if worker.critical {
        text.push_str(" critical");
    }
    if worker.overridden {
        text.push_str(" override");
    }
    for need in &worker.needs {
        let _ = write!(text, " {}: {}", need.key, need.type_name);
        if need.from.is_none() {
            text.push_str(" absent");
        }
    }
    providers_search_text(&mut text, &worker.providers);
    text.to_lowercase()
}

/// Each provider's kind, name, module, what it decorates, and its keys and types.
fn providers_search_text(text: &mut String, providers: &Explain) {
    for node in &providers.nodes {
        let _ = write!(text, " {} {}", node.kind, node.name);
        if let Some(module) = &node.module {
            let _ = write!(text, " {module}");
        }
        if let Some(key) = &node.decorates {
            let _ = write!(text, " decorates {key}");
        }
        for key in &node.provides {
            let _ = write!(text, " {}: {}", key.key, key.type_name);
        }
    }
}
