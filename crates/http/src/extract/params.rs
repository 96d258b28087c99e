//! `PathParams`: what the router matched in the path, as the app hands it to extractors.

/// The parameters the router matched in the path, in template order, still percent-encoded.
/// The app puts them in the request's extensions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathParams(pub(crate) Vec<(String, String)>);

impl PathParams {
    /// The raw (still percent-encoded) value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every parameter, in template order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}
