//! Serving one request: answer a built-in route, or enter flight, route, and start the
//! route's run on the request (its steps and handler run in `route::entry`, on the app's
//! [`Runtime`]). No key is looked up by name here; every value is read by the id compiled at
//! `build()`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum_core::body::Body as AxumBody;
use axum_core::response::Response;
use futures_util::future::BoxFuture;

use http::header::ALLOW;
use http::request::Parts;
use http::{Method, Request, StatusCode};

use green_tea_core::__private::layer::values::RouteId;

use super::AppInner;
use super::RunFuture;
use super::built_in::BuiltInAnswer;
use super::future::{DispatchFuture, Finish};
use super::metered::{Matched, Measure};
use crate::client_addr::ClientAddr;
use crate::error::HttpError;
use crate::extract::PathParams;
use crate::in_flight::InFlight;
use crate::layer::Dispatch;
use crate::response::{IntoReply, Reply};
use crate::runtime::{RequestBody, RequestState, Runtime};

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
        self: &Arc<Self>,
        request: Request<B>,
        peer: Option<SocketAddr>,
        finish: M,
    ) -> DispatchFuture<RunFuture, M>
    where
        B: Into<RequestBody>,
        M: Finish + Send + 'static,
    {
        let (parts, body) = request.into_parts();
        self.answer(parts, body.into(), peer, finish)
    }

    /// The request, split. Enters flight and routes at once, then starts the route's run (see
    /// [`DispatchFuture`] for why the future is written out).
    fn answer<M>(
        self: &Arc<Self>,
        mut parts: Parts,
        body: RequestBody,
        peer: Option<SocketAddr>,
        finish: M,
    ) -> DispatchFuture<RunFuture, M>
    where
        M: Finish,
    {
        // Before entering flight: the health routes are answered during the drain too.
        if !self.built_in.is_empty()
            && let Some(route) = self.built_in.at(parts.uri.path())
        {
            return match self.answer_built_in(route, &parts) {
                BuiltInAnswer::Now(reply) => DispatchFuture::answered(reply, finish),
                BuiltInAnswer::Later(answer) => DispatchFuture::outside_flight(answer, finish),
            };
        }
        let mut measure = Measure::start(&self.metrics, self.layered.is_some(), &parts.method);
        // The generation that serves: the request runs on it to its end, whatever a reload
        // swaps in meanwhile.
        let mut runtime = self.runtime.load_full();
        let in_flight = loop {
            match InFlight::enter(&runtime.in_flight) {
                Some(in_flight) => break in_flight,
                // A reload replaced it between the load and the entry (it is draining): the
                // next one serves.
                None if !*runtime.shutdown.borrow() => runtime = self.runtime.load_full(),
                None => {
                    let closing = HttpError::unavailable("the app is shutting down").into_reply();
                    measure.matched(Matched::Unmatched);
                    measure.answered(closing.status());
                    return DispatchFuture::answered(closing, finish);
                }
            }
        };
        let id = match self.route_of(&mut parts) {
            Ok(id) => id,
            Err((response, matched)) => {
                measure.matched(matched);
                measure.answered(response.status());
                return DispatchFuture::answered(response, finish);
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
        let held = RequestState::new(parts, body, runtime, id, peer);
        let meter = measure.into_meter();
        DispatchFuture::running(|| Runtime::start(held), span, in_flight, meter, finish)
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

    /// What a request for `method` and `path` matches, for the metrics around the app's global
    /// layers: a built-in route, or what [`find`](Self::find) finds.
    pub(crate) fn matched(&self, method: &Method, path: &str) -> Matched {
        match self.built_in.at(path) {
            Some(route) => Matched::BuiltIn(route),
            None => match self.find(method, path) {
                Ok((id, _)) => Matched::Route(id),
                Err(matched) => matched,
            },
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
}

/// The innermost service of the app's global layers: the app answers, and the reply's body
/// holds the request's place in flight through every layer, to whoever writes the body.
impl Dispatch for AppInner {
    fn dispatch_layered(
        self: Arc<Self>,
        request: Request<AxumBody>,
    ) -> BoxFuture<'static, Result<Response, Infallible>> {
        let peer = ClientAddr::of_extensions(request.extensions());
        Box::pin(self.dispatch(request, peer, |reply: Reply, entered| {
            Ok(reply.map(|body| AxumBody::new(body.in_flight(entered))))
        }))
    }
}
