//! Serving one request: route, make sure the route's providers are built, run its plan's
//! steps, call the handler. No key is looked up by name here; every value is read by the id
//! compiled at `build()`.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use http::header::ALLOW;
use http::request::Parts;
use http::{Method, Request, StatusCode};
use tracing::Instrument;

use green_tea_core::__private::sibling;
use green_tea_core::__private::sibling::{RouteId, Source};

use super::AppInner;
use super::RunFuture;
use super::answer::{Answer, Finish};
use super::layers;
use super::metered::{Matched, Measure};
use crate::client_addr::ClientAddr;
use crate::context::{Held, RequestBody};
use crate::error::HttpError;
use crate::extract::PathParams;
use crate::in_flight::InFlight;
use crate::response::{IntoReply, Reply, reply_of};

impl AppInner {
    /// Answers one request: its future's output is `finish` of the reply and the request's
    /// place in flight, which whoever sends the response body must hold until the body is done
    /// (see [`InFlightBody`]).
    ///
    /// Owns the app, and takes `finish` rather than being mapped, so that the server hands
    /// hyper this future itself: each layer around it would move it once more.
    ///
    /// [`InFlightBody`]: crate::serve::InFlightBody
    pub(crate) fn dispatch<B, M>(
        self: Arc<Self>,
        request: Request<B>,
        peer: Option<SocketAddr>,
        finish: M,
    ) -> Answer<RunFuture, M>
    where
        B: Into<RequestBody>,
        M: Finish + Send + 'static,
    {
        let (parts, body) = request.into_parts();
        self.answer(parts, body.into(), peer, finish)
    }

    /// The request, split. Enters flight and routes at once, then starts the route's run (see
    /// [`Answer`] for why the future is written out).
    fn answer<M>(
        self: Arc<Self>,
        mut parts: Parts,
        body: RequestBody,
        peer: Option<SocketAddr>,
        finish: M,
    ) -> Answer<RunFuture, M>
    where
        M: Finish,
    {
        // Before entering flight: the health routes are answered during the drain too.
        if !self.built_in.is_empty()
            && let Some(route) = self.built_in.at(parts.uri.path())
        {
            return Answer::answered(self.answer_built_in(route, &parts), finish);
        }
        let mut measure = Measure::start(&self, &parts);
        let Some(in_flight) = InFlight::enter(&self.in_flight) else {
            let closing = HttpError::unavailable("the app is shutting down").into_reply();
            measure.matched(Matched::Unmatched);
            measure.answered(closing.status());
            return Answer::answered(closing, finish);
        };
        let id = match self.route_of(&mut parts) {
            Ok(id) => id,
            Err((response, matched)) => {
                measure.matched(matched);
                measure.answered(response.status());
                return Answer::answered(response, finish);
            }
        };
        measure.matched(Matched::Route(id));
        // DEBUG, as tower-http's TraceLayer: at the usual INFO level a request costs no span.
        // The fields are OpenTelemetry's attribute names.
        // Named `route`, not `request`: it opens once the request is routed, and tower-http's
        // `TraceLayer` around the app names its own span `request`.
        let span = tracing::debug_span!(
            "route",
            http.request.method = %parts.method,
            http.route = %self.routes[id].template,
            http.response.status_code = tracing::field::Empty,
            micros = tracing::field::Empty,
        );
        let held = Held::new(parts, body, self, id, peer);
        let meter = measure.into_meter();
        Answer::running(|| Self::start(held), span, in_flight, meter, finish)
    }

    /// The route for `method` and `path`, with the parameters the router matched (none for
    /// the fallback); or, when no route answers, what matched: a path without a route for the
    /// method (a 405) or nothing (a 404). The one routing of a request: the dispatch's, and
    /// the metrics' around the app's global layers.
    pub(crate) fn find<'a>(
        &'a self,
        method: &Method,
        path: &'a str,
    ) -> Result<(RouteId, Option<matchit::Params<'a, 'a>>), Matched> {
        let Ok(found) = self.router.at(path) else {
            return self.fallback.map(|id| (id, None)).ok_or(Matched::Unmatched);
        };
        let index = *found.value;
        match self.paths[index].route_for(method) {
            Some(id) => Ok((id, Some(found.params))),
            None => Err(Matched::Path(
                u32::try_from(index).expect("fewer than 2^32 paths"),
            )),
        }
    }

    /// The route for the request's path and method, its path parameters put in the request's
    /// extensions; or the 404 or 405 that answers it, with what it matched (for the metrics'
    /// `http.route`).
    // The error is the response: large, and made once per request at most.
    #[allow(clippy::result_large_err)]
    fn route_of(&self, parts: &mut Parts) -> Result<RouteId, (Reply, Matched)> {
        let (id, params) = match self.find(&parts.method, parts.uri.path()) {
            Ok(found) => found,
            Err(Matched::Path(index)) => {
                let path = &self.paths[index as usize];
                let mut response = HttpError::with_status(
                    StatusCode::METHOD_NOT_ALLOWED,
                    format!("{} is not allowed on {}", parts.method, path.template),
                )
                .into_reply();
                response.headers_mut().insert(ALLOW, path.allow.clone());
                return Err((response, Matched::Path(index)));
            }
            Err(unmatched) => {
                let unknown = format!("no route for {} {}", parts.method, parts.uri.path());
                return Err((HttpError::not_found(unknown).into_reply(), unmatched));
            }
        };
        if let Some(params) = params.filter(|params| !params.is_empty()) {
            let params = params.iter().map(|(k, v)| (k.to_owned(), v.to_owned()));
            parts.extensions.insert(PathParams(params.collect()));
        }
        Ok(id)
    }

    /// The routed request's run: through the route's layers, if it has any (their innermost
    /// service comes back to [`run_unlayered`](Self::run_unlayered)), else its steps and
    /// handler.
    #[inline]
    pub(crate) fn start(held: Box<Held>) -> RunFuture {
        let app = Arc::clone(&held.app);
        let route = &app.routes[held.route];
        match &route.layered {
            Some(layered) => layers::through_route(layered.clone(), held),
            None => route.entry.run(held),
        }
    }

    /// The routed request's steps and handler, its route's layers already passed.
    pub(crate) fn run_unlayered(held: Box<Held>) -> RunFuture {
        let app = Arc::clone(&held.app);
        app.routes[held.route].entry.run(held)
    }
    /// Builds the providers of `needs` that are not built yet (single-flight). Boxed: only
    /// the first requests of a route pay for it, and every other request's future keeps no
    /// room for it.
    fn build_providers<'a>(
        &'a self,
        needs: &'a [Source],
    ) -> Pin<Box<dyn Future<Output = Result<(), Reply>> + Send + 'a>> {
        Box::pin(async move {
            for need in needs {
                let Source::App(at) = *need else { continue };
                match sibling::try_value(&self.container, at) {
                    Ok(Some(_)) => continue,
                    Ok(None) => sibling::build(&self.container, at).await,
                    Err(closed) => Err(closed),
                }
                .map_err(|error| HttpError::from(error).into_reply())?;
            }
            Ok(())
        })
    }
}

impl Held {
    /// The route's steps, in its plan's order, each value kept for those after it and for
    /// the handler: the request, for its handler; or the response of the first step that
    /// rejects it (boxed: the common answer, the request, is then one word rather than a
    /// response's size, and is not copied whole out of the future).
    ///
    /// `H` is the route's handler type, unused: being generic, this future is compiled in the
    /// crate that makes the route, beside the run it is awaited in, so the two can be inlined
    /// into one (a build without LTO cannot inline across crates otherwise; `#[inline]` does
    /// not reach an `async fn`'s body).
    #[allow(clippy::extra_unused_type_parameters)]
    pub(crate) async fn run_steps<H>(mut held: Box<Held>) -> Result<Box<Held>, Box<Reply>> {
        let Held {
            parts,
            locals,
            app,
            route: id,
            peer,
            ..
        } = &mut *held;
        let route = &app.routes[*id];
        // Once every provider the route reads is built, a request checks only that the
        // container is still open (`close()` on the container alone; the app's own close
        // stops requests before they get here). Until then each step, and the handler,
        // builds what it needs just before it runs: a request rejected by a step builds
        // nothing its handler needs.
        let ready = route.ready.load(Ordering::Acquire) && !app.container.is_closed();
        for planned in route.plan.steps.iter() {
            if !ready {
                app.build_providers(&planned.needs)
                    .await
                    .map_err(Box::new)?;
            }
            let step = &app.steps[planned.step];
            if step.from_connection {
                locals.push(Arc::new(ClientAddr(*peer)));
                continue;
            }
            let needs = sibling::needs(
                &app.container,
                &step.descriptor.needs,
                &planned.needs,
                locals,
            );
            let span = tracing::debug_span!("step", step = %step.descriptor.name);
            // Entered only when enabled: the usual request, at INFO, has no step span.
            let run = if span.is_disabled() {
                step.step.run(parts, needs)
            } else {
                span.in_scope(|| step.step.run(parts, needs))
            }
            .0;
            let outcome = match run.now_or_later() {
                Ok(outcome) => outcome,
                Err(waiting) => waiting.instrument(span.clone()).await,
            };
            match outcome {
                Ok(provided) => {
                    if let Err(wrong) =
                        sibling::check_provided(&provided, &step.descriptor.provides)
                    {
                        span.in_scope(|| tracing::error!(returned = %wrong, "the step returned values unlike its descriptor"));
                        return Err(Box::new(HttpError::internal().into_reply()));
                    }
                    sibling::append_provided(provided, |value| locals.push(value));
                }
                Err(rejection) => {
                    span.in_scope(|| {
                        tracing::debug!(status = rejection.status().as_u16(), "rejected")
                    });
                    return Err(Box::new(reply_of(rejection)));
                }
            }
        }
        if !ready {
            app.build_providers(&route.plan.needs)
                .await
                .map_err(Box::new)?;
            route.ready.store(true, Ordering::Release);
        }
        Ok(held)
    }
}
