//! Serving one request: route, run the plan's steps, call the handler. No key is looked up by
//! name here; every value is read by the index compiled at `build()`.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use axum_core::response::{IntoResponse, Response};
use futures_util::FutureExt;
use http::header::ALLOW;
use http::request::Parts;
use http::{Request, StatusCode};
use tracing::Instrument;

use green_tea_core::{AppValue, Needs};

use super::in_flight::{Entered, InFlight};
use super::{AnyValue, AppInner, ValueSource};
use crate::context::{RequestBody, RequestContext, RequestValues};
use crate::error::HttpError;
use crate::extract::PathParams;

impl AppInner {
    /// Answers one request. The second half is the request's place in flight: whoever sends
    /// the response body must hold it until the body is done (see [`InFlightBody`]).
    ///
    /// Owns the app, so that the server can hand hyper this future itself rather than one
    /// more async block around it (each layer moves the request once more). Not an
    /// `async fn`, for the reason given at [`run`](Self::run): the request is split here and
    /// the block holds its head once.
    pub(crate) fn dispatch<B: Into<RequestBody>>(
        self: Arc<Self>,
        request: Request<B>,
    ) -> impl Future<Output = (Response, Option<Entered>)> + Send + 'static {
        let (parts, body) = request.into_parts();
        let body = body.into();
        self.answer(parts, body)
    }

    /// The request, split: not generic over the body, so compiled once for hyper's and for
    /// any other.
    // Not an `async fn` on purpose: see `run`.
    #[allow(clippy::manual_async_fn)]
    fn answer(
        self: Arc<Self>,
        mut parts: Parts,
        body: RequestBody,
    ) -> impl Future<Output = (Response, Option<Entered>)> + Send + 'static {
        async move {
            let Some(in_flight) = InFlight::enter(&self.in_flight) else {
                let closing = HttpError::unavailable("the app is shutting down");
                return (closing.into_response(), None);
            };
            let index = match self.router.at(parts.uri.path()) {
                Ok(matched) => {
                    let path = &self.paths[*matched.value];
                    let Some(route) = path.route_for(&parts.method) else {
                        let mut response = HttpError::with_status(
                            StatusCode::METHOD_NOT_ALLOWED,
                            format!("{} is not allowed on {}", parts.method, path.template),
                        )
                        .into_response();
                        response.headers_mut().insert(ALLOW, path.allow.clone());
                        return (response, None);
                    };
                    if !matched.params.is_empty() {
                        let params = matched
                            .params
                            .iter()
                            .map(|(k, v)| (k.to_owned(), v.to_owned()));
                        parts.extensions.insert(PathParams(params.collect()));
                    }
                    route
                }
                Err(_) => {
                    let unknown = format!("no route for {} {}", parts.method, parts.uri.path());
                    return (HttpError::not_found(unknown).into_response(), None);
                }
            };
            let route = &self.routes[index];

            // DEBUG, as tower-http's TraceLayer: at the usual INFO level a request costs no span.
            let span = tracing::debug_span!(
                "request",
                method = %parts.method,
                route = %route.template,
                status = tracing::field::Empty,
                micros = tracing::field::Empty,
            );
            // Timing is for the span; without a subscriber that wants it, skip the clock.
            let started = (!span.is_disabled()).then(Instant::now);
            // Pinned where it is built, so the combinators below hold a pointer to it rather than
            // moving the route's future (568 bytes) at each layer.
            let run = std::pin::pin!(self.run(index, parts, body));
            let response = AssertUnwindSafe(run)
                .catch_unwind()
                .instrument(span.clone())
                .await
                .unwrap_or_else(|panic| {
                    let message = green_tea_core::panic_message(&*panic);
                    span.in_scope(|| tracing::error!(panic = %message, "the request panicked"));
                    HttpError::internal().into_response()
                });
            if let Some(started) = started {
                let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                span.record("status", response.status().as_u16());
                span.record("micros", micros);
                span.in_scope(|| tracing::debug!("finished"));
            }
            (response, Some(in_flight))
        }
    }

    /// The route's steps, then its handler. Not an `async fn`: the block holds `parts` and
    /// `body` once, where an `async fn` would also keep a copy of each argument it rebinds.
    #[allow(clippy::manual_async_fn)]
    fn run(
        self: &Arc<Self>,
        index: usize,
        mut parts: Parts,
        body: RequestBody,
    ) -> impl Future<Output = Response> + Send + '_ {
        async move {
            let route = &self.routes[index];
            // One vector per request: the steps' values in run order, then the handler's needs.
            let mut locals = RequestValues::with_capacity(route.local_count + route.needs.len());
            for planned in route.steps.iter() {
                let info = &self.steps[planned.step];
                // A step that needs nothing reads the empty needs made at build: no vector and
                // no `Arc` to count up and down per request (unless it is asynchronous).
                let mut made = None;
                if !planned.needs.is_empty() {
                    let mut values = Vec::with_capacity(planned.needs.len());
                    for source in planned.needs.iter() {
                        let value = match self.ready_value(*source, &locals) {
                            Ok(Ok(value)) => Ok(value),
                            Ok(Err(unbuilt)) => self.build(unbuilt).await,
                            Err(error) => Err(error),
                        };
                        match value {
                            Ok(value) => values.push(value),
                            Err(error) => return error.into_response(),
                        }
                    }
                    made = Some(Needs::new(Arc::clone(&info.need_specs), values));
                }
                let needs = made.as_ref().unwrap_or(&self.no_needs);
                let span = tracing::debug_span!("step", step = %info.name);
                // `if let` (edition 2024) drops the synchronous attempt before the `else` awaits,
                // so the future keeps no room for it.
                let outcome = if let Some(outcome) =
                    span.in_scope(|| info.step.run_now(&mut parts, needs))
                {
                    outcome
                } else {
                    let needs = made
                        .unwrap_or_else(|| Needs::new(Arc::clone(&info.need_specs), Vec::new()));
                    info.step
                        .run(&mut parts, needs)
                        .instrument(span.clone())
                        .await
                };
                match outcome {
                    Ok(provided) => {
                        if info.checked {
                            if let Err(wrong) = provided.check_against(&info.provides) {
                                span.in_scope(|| tracing::error!(returned = %wrong, "the step returned values unlike its descriptor"));
                                return HttpError::internal().into_response();
                            }
                        }
                        provided.append_to(&mut locals);
                    }
                    Err(rejection) => {
                        span.in_scope(|| {
                            tracing::debug!(status = rejection.status().as_u16(), "rejected")
                        });
                        return rejection;
                    }
                }
            }
            let first_need = locals.len();
            // The same read as the steps' needs above, written out rather than shared through
            // an `async fn value_of`: that layer measured 89 instructions more per request.
            for source in route.needs.iter() {
                let value = match self.ready_value(*source, &locals) {
                    Ok(Ok(value)) => Ok(value),
                    Ok(Err(unbuilt)) => self.build(unbuilt).await,
                    Err(error) => Err(error),
                };
                match value {
                    Ok(value) => locals.push(value),
                    Err(error) => return error.into_response(),
                }
            }
            let request =
                RequestContext::new(parts, body, locals, first_need, Arc::clone(self), index);
            route.handler.call(request).await
        }
    }

    /// Builds provider `at`, or waits for the build already under way (single-flight).
    /// Boxed: only a request that finds its provider unbuilt pays for the build's future, and
    /// every other request's future keeps no room for it.
    fn build(&self, at: AppValue) -> impl Future<Output = Result<AnyValue, HttpError>> + Send + '_ {
        Box::pin(self.container.value(at)).map(|built| built.map_err(HttpError::from))
    }

    /// One value, if it is there already: an earlier step's always is, a provider's once it is
    /// built. `Ok(Err(at))`: provider `at` is not built yet; the caller awaits its
    /// [`build`](Self::build). No future for the values already there.
    fn ready_value(
        &self,
        source: ValueSource,
        locals: &[AnyValue],
    ) -> Result<Result<AnyValue, AppValue>, HttpError> {
        Ok(match source {
            ValueSource::Local(index) => Ok(Arc::clone(&locals[index])),
            ValueSource::App(at) => self.container.try_value(at)?.ok_or(at),
        })
    }
}
