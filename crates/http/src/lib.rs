//! green-tea's HTTP layer (not built yet): `App`, routes, request-scoped steps, per-route slices
//! compiled into a dispatch table, `explain(path)`, `HttpError`, serving on hyper with graceful
//! close, the `tower::Service` impl and `TestClient`.
