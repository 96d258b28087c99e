//! A fake HTTP client of an upstream service: the users' and the orders' private `http`.

/// A client of the service at one base URL. Fake: it only says where it would call.
#[derive(Debug)]
pub(crate) struct HttpClient {
    base: String,
}

impl HttpClient {
    pub(crate) fn new(base: &str) -> Self {
        HttpClient {
            base: base.to_owned(),
        }
    }

    /// The URL of `path` at the service.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}
