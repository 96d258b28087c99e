//! Extractors of green-tea's own routing (path parameters) and of the query string. Both
//! implement axum-core's `FromRequestParts`, like every other extractor a handler may take.

pub(crate) mod body;
mod params;
mod path;
mod query;

pub use params::PathParams;
pub use path::Path;
pub use query::Query;
