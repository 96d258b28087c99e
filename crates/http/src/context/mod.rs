//! A request as its handler sees it: [`RequestContext`], its head, needs and extractors
//! (`request.rs`), and its body, read once within the route's limit (`body.rs`).

mod body;
mod request;

pub use request::RequestContext;
