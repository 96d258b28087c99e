//! Attribute arguments every macro shares: lists of names (`"billing"` or `["a", "b"]`), the
//! path literal of a route, and "did you mean" for unknown argument names.

use std::collections::HashSet;

use syn::{Expr, ExprLit, Lit, LitStr, Path};

use crate::errors::Errors;

/// The argument names one attribute takes, and the words people reach for instead.
pub(crate) struct Known {
    /// The names it takes.
    pub(crate) names: &'static [&'static str],
    /// `(written, meant)` pairs that edit distance would not find.
    pub(crate) synonyms: &'static [(&'static str, &'static str)],
}

impl Known {
    /// The name `path` spells, if it is one of ours.
    pub(crate) fn find(&self, path: &Path) -> Option<&'static str> {
        let ident = path.get_ident()?;
        self.names.iter().copied().find(|name| ident == name)
    }

    /// The error for an unknown argument name, and the known name it probably meant.
    pub(crate) fn unknown(&self, path: &Path) -> (String, Option<&'static str>) {
        let written = path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_else(|| quote::quote!(#path).to_string().replace(' ', ""));
        let meant = self.suggestion(&written);
        let message = match meant {
            Some(known) => format!("unknown argument `{written}`; did you mean `{known}`?"),
            None => format!("unknown argument `{written}`; expected {}", self.listed()),
        };
        (message, meant)
    }

    /// `` `a`, `b` or `c` ``.
    fn listed(&self) -> String {
        let quoted: Vec<String> = self.names.iter().map(|n| format!("`{n}`")).collect();
        match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The known name `written` most likely meant, if any.
    pub(crate) fn suggestion(&self, written: &str) -> Option<&'static str> {
        let lower = written.to_ascii_lowercase();
        if let Some((_, known)) = self.synonyms.iter().find(|(alias, _)| *alias == lower) {
            return Some(known);
        }
        self.names
            .iter()
            .map(|known| (edit_distance(&lower, known), *known))
            .filter(|(distance, _)| *distance <= 2)
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, known)| known)
    }
}

/// How a list of names is described in errors: `key` and `"billing"` for `provides`,
/// `step name` and `"require_admin"` for `steps`.
pub(crate) struct NameKind {
    /// What one entry is.
    pub(crate) noun: &'static str,
    /// An example entry, quoted.
    pub(crate) example: &'static str,
    /// A second example entry, quoted, for the list form.
    pub(crate) second: &'static str,
    /// The error for an empty entry.
    pub(crate) empty: &'static str,
}

/// Graph keys (`provides`, `needs`).
pub(crate) const KEYS: NameKind = NameKind {
    noun: "key",
    example: "\"billing\"",
    second: "\"billingApi\"",
    empty: "a key cannot be empty",
};

/// `"name"` or `["a", "b"]`: every entry a non-empty string literal, none twice.
pub(crate) fn names(value: &Expr, what: &str, kind: &NameKind) -> syn::Result<Vec<LitStr>> {
    let NameKind {
        noun,
        example,
        second,
        empty,
    } = kind;
    let elements: Vec<&Expr> = match unwrap_expr(value) {
        Expr::Array(array) => array.elems.iter().collect(),
        single @ Expr::Lit(ExprLit {
            lit: Lit::Str(_), ..
        }) => vec![single],
        other => {
            return Err(syn::Error::new_spanned(
                other,
                format!(
                    "expected a {noun} as a string literal, like `{what} = {example}`, \
                     or a list of them, like `{what} = [{example}, {second}]`"
                ),
            ));
        }
    };
    let mut errors = Errors::default();
    let mut found = Vec::new();
    let mut unique = HashSet::new();
    for element in elements {
        match unwrap_expr(element) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(name),
                ..
            }) => {
                let text = name.value();
                if text.is_empty() {
                    errors.spanned(name, empty);
                } else if !unique.insert(text.clone()) {
                    errors.spanned(name, format!("`{text}` is listed twice in `{what}`"));
                } else {
                    found.push(name.clone());
                }
            }
            other => errors.spanned(
                other,
                format!("expected a {noun} as a string literal, like `{example}`, in `{what}`"),
            ),
        }
    }
    errors.finish()?;
    Ok(found)
}

/// `expr` without the invisible groups and parentheses around it (a `macro_rules!` fragment
/// arrives grouped).
pub(crate) fn unwrap_expr(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => unwrap_expr(&group.expr),
        Expr::Paren(paren) => unwrap_expr(&paren.expr),
        other => other,
    }
}

/// Levenshtein distance; the names are tiny, so the plain table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: Known = Known {
        names: &["provides", "needs"],
        synonyms: &[("requires", "needs")],
    };

    #[test]
    fn near_misses_and_synonyms_are_suggested() {
        assert_eq!(SAMPLE.suggestion("provide"), Some("provides"));
        assert_eq!(SAMPLE.suggestion("Needs"), Some("needs"));
        assert_eq!(SAMPLE.suggestion("requires"), Some("needs"));
        assert_eq!(SAMPLE.suggestion("scope"), None);
    }

    #[test]
    fn unknown_names_list_what_is_known() {
        let path: Path = syn::parse_quote!(scope);
        assert_eq!(
            SAMPLE.unknown(&path).0,
            "unknown argument `scope`; expected `provides` or `needs`"
        );
    }
}
