//! How a condition on a switch is spelled: `cacheOn` (on when the switch is `true`), `!cacheOn`
//! (when it is `false`), `gateway = stripe` and `gateway = stripe | paypal` (when it is one of
//! those outcomes). A declaration active for some outcomes says so with one or more of these.

/// One condition as written: the switch it reads and the outcomes it is on for.
///
/// ```
/// use green_tea_key::{When, when};
/// assert_eq!(when("cacheOn"), Ok(When { switch: "cacheOn", outcomes: vec!["true"] }));
/// assert_eq!(when("!cacheOn"), Ok(When { switch: "cacheOn", outcomes: vec!["false"] }));
/// assert_eq!(
///     when("gateway = stripe | paypal"),
///     Ok(When { switch: "gateway", outcomes: vec!["stripe", "paypal"] })
/// );
/// assert_eq!(
///     when("payments::gateway=fake"),
///     Ok(When { switch: "payments::gateway", outcomes: vec!["fake"] })
/// );
/// assert!(when("gateway =").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct When<'a> {
    /// The switch's name, as written (`gateway`, or `payments::gateway` for a module's).
    pub switch: &'a str,
    /// The outcomes the condition is on for, as written, in order, at least one: `true` for
    /// `cacheOn`, `false` for `!cacheOn`.
    pub outcomes: Vec<&'a str>,
}

/// Why a condition does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhenError {
    /// The condition as written.
    pub written: String,
    /// What is wrong with it, as a sentence's end (`names no switch`).
    pub reason: &'static str,
}

impl std::fmt::Display for WhenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the condition `{}` {}: write `cacheOn`, `!cacheOn`, `gateway = stripe` or \
             `gateway = stripe | paypal`",
            self.written, self.reason
        )
    }
}

impl std::error::Error for WhenError {}

/// Parses a condition: `switch`, `!switch`, `switch = outcome` or `switch = a | b`. Spaces
/// around `!`, `=` and `|` are free; a switch's name is spelled as a key's (it may be
/// qualified, `payments::gateway`); an outcome is a name of letters, digits, `_` and `-`.
///
/// ```
/// use green_tea_key::when;
/// assert_eq!(when("cacheOn").unwrap().outcomes, ["true"]);
/// assert_eq!(
///     when("cache?").unwrap_err().to_string(),
///     "the condition `cache?` names a switch with `?`, `[`, `]`, `{` or `}` in it: write \
///      `cacheOn`, `!cacheOn`, `gateway = stripe` or `gateway = stripe | paypal`"
/// );
/// ```
pub fn when(written: &str) -> Result<When<'_>, WhenError> {
    let fail = |reason| WhenError {
        written: written.to_owned(),
        reason,
    };
    let text = written.trim();
    let (switch, outcomes) = match text.split_once('=') {
        Some((switch, outcomes)) => {
            let outcomes: Vec<&str> = outcomes.split('|').map(str::trim).collect();
            if outcomes.iter().any(|o| o.is_empty()) {
                return Err(fail("has an empty outcome"));
            }
            if !outcomes.iter().all(|o| is_outcome(o)) {
                return Err(fail(
                    "has an outcome that is not a name (letters, digits, `_` and `-`)",
                ));
            }
            for (i, outcome) in outcomes.iter().enumerate() {
                if outcomes[..i].contains(outcome) {
                    return Err(fail("names one outcome twice"));
                }
            }
            let switch = switch.trim();
            if switch.starts_with('!') {
                return Err(fail("negates a switch and names its outcomes"));
            }
            (switch, outcomes)
        }
        None => match text.strip_prefix('!') {
            Some(switch) => (switch.trim(), vec!["false"]),
            None => (text, vec!["true"]),
        },
    };
    check_switch_name(switch).map_err(fail)?;
    Ok(When { switch, outcomes })
}

/// Whether `name` may name a switch: what a key may be named (a plain name, possibly
/// qualified by a module's path), or why not.
pub fn check_switch_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("names no switch");
    }
    if name.contains(crate::RESERVED) {
        return Err("names a switch with `?`, `[`, `]`, `{` or `}` in it");
    }
    if name
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '!' | '=' | '|'))
    {
        return Err("names a switch with a space, `!`, `=` or `|` in it");
    }
    if !matches!(crate::spelling(name), Ok(crate::Spelling::One(_))) {
        return Err("names a switch whose module path has an empty segment");
    }
    Ok(())
}

/// Whether `outcome` may name an outcome: letters, digits, `_` and `-`.
pub fn is_outcome(outcome: &str) -> bool {
    !outcome.is_empty()
        && outcome
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses() {
        let parsed = |s| when(s).map(|w| (w.switch, w.outcomes));
        assert_eq!(parsed("  cacheOn "), Ok(("cacheOn", vec!["true"])));
        assert_eq!(parsed("! cacheOn"), Ok(("cacheOn", vec!["false"])));
        assert_eq!(parsed("cacheOn = false"), Ok(("cacheOn", vec!["false"])));
        assert_eq!(
            parsed("gateway=stripe|pay-pal|v_2"),
            Ok(("gateway", vec!["stripe", "pay-pal", "v_2"]))
        );
        assert_eq!(parsed("a::b::c = x"), Ok(("a::b::c", vec!["x"])));
    }

    #[test]
    fn what_is_wrong_is_said() {
        let reason = |s| when(s).unwrap_err().reason;
        assert_eq!(reason(""), "names no switch");
        assert_eq!(reason("!"), "names no switch");
        assert_eq!(reason(" = stripe"), "names no switch");
        assert_eq!(reason("gateway ="), "has an empty outcome");
        assert_eq!(reason("gateway = a ||b"), "has an empty outcome");
        assert_eq!(
            reason("gateway = a b"),
            "has an outcome that is not a name (letters, digits, `_` and `-`)"
        );
        assert_eq!(reason("gateway = a | a"), "names one outcome twice");
        assert_eq!(
            reason("!gateway = a"),
            "negates a switch and names its outcomes"
        );
        assert_eq!(
            reason("cache?"),
            "names a switch with `?`, `[`, `]`, `{` or `}` in it"
        );
        assert_eq!(
            reason("cache on"),
            "names a switch with a space, `!`, `=` or `|` in it"
        );
        assert_eq!(
            reason("a|b"),
            "names a switch with a space, `!`, `=` or `|` in it"
        );
        assert_eq!(
            reason("::cache"),
            "names a switch whose module path has an empty segment"
        );
        assert_eq!(
            reason("a::::b"),
            "names a switch whose module path has an empty segment"
        );
    }
}
