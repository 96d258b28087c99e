//! `timeout = "5s"`: how long one build may take, read at compile time. A duration is one or
//! more parts, each a whole number and its unit (`ms`, `s`, `m` or `h`), separated by optional
//! spaces: `"500ms"`, `"5s"`, `"1m 30s"`, `"1m30s"`, `"2h"`. The total is more than zero and
//! fits in `u64` milliseconds. A duration that does not read is a compile error at its literal.

use syn::{Expr, ExprLit, Lit};

use crate::args;
use crate::errors::Errors;

/// How to write `timeout`, for an argument written without a value.
pub(crate) const USAGE: &str = "write `timeout = \"5s\"` (or `\"500ms\"`, `\"1m 30s\"`, \
     `\"2h\"`): how long one build may take before it fails";

/// The units a part may have, with their length in milliseconds.
const UNITS: [(&str, u64); 4] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)];

/// Spellings people reach for, and the unit each means.
const SPELLINGS: [(&str, &str); 19] = [
    ("msec", "ms"),
    ("msecs", "ms"),
    ("millis", "ms"),
    ("millisecond", "ms"),
    ("milliseconds", "ms"),
    ("sec", "s"),
    ("secs", "s"),
    ("second", "s"),
    ("seconds", "s"),
    ("min", "m"),
    ("mins", "m"),
    ("minute", "m"),
    ("minutes", "m"),
    ("hr", "h"),
    ("hrs", "h"),
    ("hour", "h"),
    ("hours", "h"),
    ("S", "s"),
    ("H", "h"),
];

/// The timeout `value` spells, in milliseconds: a string literal read by [`millis`]. Each
/// problem is recorded in `errors`, at the literal.
pub(crate) fn timeout(value: &Expr, errors: &mut Errors) -> Option<u64> {
    match args::unwrap_expr(value) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => millis(&text.value())
            .map_err(|message| errors.spanned(text, message))
            .ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(number),
            ..
        }) => {
            let (digits, suffix) = (number.base10_digits(), number.suffix());
            let message = match unit(suffix) {
                Some(unit) => {
                    format!("a timeout is written in a string: `timeout = \"{digits}{unit}\"`")
                }
                None => format!(
                    "a timeout is a duration with a unit, in a string: write \
                     `timeout = \"{digits}s\"` or `timeout = \"{digits}ms\"`, not \
                     `timeout = {number}`"
                ),
            };
            errors.spanned(number, message);
            None
        }
        other => {
            errors.spanned(
                other,
                "expected a duration as a string literal, like `timeout = \"5s\"`, \
                 `timeout = \"500ms\"` or `timeout = \"1m 30s\"`",
            );
            None
        }
    }
}

/// The milliseconds `text` spells, or why it spells none, in a sentence.
pub(crate) fn millis(text: &str) -> Result<u64, String> {
    let too_long = || {
        format!(
            "a timeout of `{text}` is longer than any build can wait: the total must fit in \
             `u64` milliseconds (about 584 million years)"
        )
    };
    let mut rest = text;
    let mut total: u64 = 0;
    let mut parts = 0;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let digits = leading(rest, |c| c.is_ascii_digit());
        if digits.is_empty() {
            return Err(no_number(text, rest));
        }
        rest = &rest[digits.len()..];
        let unit = leading(rest, char::is_alphabetic);
        rest = &rest[unit.len()..];
        if unit.is_empty() {
            return Err(no_unit(text, digits, rest));
        }
        let Some((_, factor)) = UNITS.iter().find(|(name, _)| *name == unit) else {
            return Err(not_a_unit(digits, unit));
        };
        let number: u64 = digits.parse().map_err(|_| too_long())?;
        total = number
            .checked_mul(*factor)
            .and_then(|part| part.checked_add(total))
            .ok_or_else(too_long)?;
        parts += 1;
    }
    if parts == 0 {
        return Err(
            "a timeout cannot be empty: write how long one build may take, like `5s`, `500ms` \
             or `1m 30s`"
                .to_owned(),
        );
    }
    if total == 0 {
        return Err("a timeout of zero would fail every build: give it a length".to_owned());
    }
    Ok(total)
}

/// The longest start of `text` whose characters all pass `keep`.
fn leading(text: &str, keep: impl Fn(char) -> bool) -> &str {
    let end = text.find(|c: char| !keep(c)).unwrap_or(text.len());
    &text[..end]
}

/// The error for a part of `text` that starts at `rest` without a number.
fn no_number(text: &str, rest: &str) -> String {
    let word = leading(rest, char::is_alphabetic);
    match rest.chars().next() {
        _ if !word.is_empty() => format!(
            "`{word}` in `{text}` has no number before it: a timeout is a number and a unit, \
             like `5s`, `500ms` or `1m 30s`"
        ),
        Some('-') => format!("a timeout cannot be negative: give `{text}` a length, like `5s`"),
        Some(other) => unexpected(text, other),
        None => unreachable!("`rest` is not empty"),
    }
}

/// The error for the number `digits` of `text`, followed by `rest` instead of its unit.
fn no_unit(text: &str, digits: &str, rest: &str) -> String {
    match rest.chars().next() {
        None => bare(digits),
        Some(space) if space.is_whitespace() => {
            let written = leading(rest.trim_start(), char::is_alphabetic);
            match unit(written) {
                Some(unit) => format!(
                    "write a number and its unit together, like `{digits}{unit}`, not \
                     `{digits} {written}`"
                ),
                None => bare(digits),
            }
        }
        Some('.') => format!(
            "a timeout counts whole units, and `{text}` has a fraction: write it in a smaller \
             unit, like `1500ms` for `1.5s`"
        ),
        Some(other) => unexpected(text, other),
    }
}

/// The unit `written` is, or means (`sec` means `s`).
fn unit(written: &str) -> Option<&'static str> {
    let unit = UNITS
        .iter()
        .map(|(name, _)| *name)
        .find(|name| *name == written);
    unit.or_else(|| {
        SPELLINGS
            .iter()
            .find(|(spelling, _)| *spelling == written)
            .map(|(_, meant)| *meant)
    })
}

/// The error for a number without a unit.
fn bare(digits: &str) -> String {
    format!("a timeout is a duration with a unit: write `5s`, `500ms` or `1m 30s`, not `{digits}`")
}

/// The error for the unit `written` that is not one.
fn not_a_unit(digits: &str, written: &str) -> String {
    match unit(written) {
        Some(meant) => format!(
            "`{digits}{written}` is not a unit of time a timeout takes: write `{digits}{meant}` \
             (units: `ms`, `s`, `m` or `h`)"
        ),
        None => format!("`{digits}{written}` is not a unit of time: use `ms`, `s`, `m` or `h`"),
    }
}

/// The error for a character no duration holds.
fn unexpected(text: &str, found: char) -> String {
    format!(
        "`{text}` holds `{found}`, which no timeout does: write numbers and units separated by \
         spaces, like `5s`, `500ms` or `1m 30s`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up_to_milliseconds() {
        for (text, expected) in [
            ("500ms", 500),
            ("5s", 5_000),
            ("1m", 60_000),
            ("2h", 7_200_000),
            ("1m 30s", 90_000),
            ("1m30s", 90_000),
            ("1h 2m 3s 4ms", 3_723_004),
            ("  5s  ", 5_000),
            ("1s   500ms", 1_500),
            ("0s 1ms", 1),
            ("007s", 7_000),
            ("30s 1m", 90_000),
            ("18446744073709551615ms", u64::MAX),
        ] {
            assert_eq!(millis(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn a_bare_number_needs_a_unit() {
        let message = |n: &str| {
            format!(
                "a timeout is a duration with a unit: write `5s`, `500ms` or `1m 30s`, not `{n}`"
            )
        };
        assert_eq!(millis("5"), Err(message("5")));
        assert_eq!(millis("1m 30"), Err(message("30")));
        assert_eq!(millis("30 "), Err(message("30")));
        assert_eq!(
            millis("5 s"),
            Err("write a number and its unit together, like `5s`, not `5 s`".to_owned())
        );
    }

    #[test]
    fn units_are_ms_s_m_and_h() {
        assert_eq!(
            millis("5x"),
            Err("`5x` is not a unit of time: use `ms`, `s`, `m` or `h`".to_owned())
        );
        assert_eq!(
            millis("1m 5us"),
            Err("`5us` is not a unit of time: use `ms`, `s`, `m` or `h`".to_owned())
        );
        assert_eq!(
            millis("5sec"),
            Err(
                "`5sec` is not a unit of time a timeout takes: write `5s` (units: `ms`, `s`, \
                 `m` or `h`)"
                    .to_owned()
            )
        );
        assert_eq!(
            millis("2 minutes"),
            Err("write a number and its unit together, like `2m`, not `2 minutes`".to_owned())
        );
        assert!(millis("5 x").unwrap_err().ends_with("not `5`"));
        assert!(millis("2minutes").unwrap_err().contains("write `2m`"));
        assert!(millis("1H").unwrap_err().contains("write `1h`"));
    }

    #[test]
    fn zero_and_nothing_are_refused() {
        let zero = Err("a timeout of zero would fail every build: give it a length".to_owned());
        assert_eq!(millis("0s"), zero);
        assert_eq!(millis("0ms 0h"), zero);
        for empty in ["", "   "] {
            assert!(
                millis(empty)
                    .unwrap_err()
                    .starts_with("a timeout cannot be empty"),
                "{empty:?}"
            );
        }
    }

    #[test]
    fn too_long_is_refused() {
        for text in [
            "18446744073709551616ms",
            "18446744073709552s",
            "99999999999999999999999h",
            "18446744073709551615ms 1ms",
        ] {
            assert_eq!(
                millis(text),
                Err(format!(
                    "a timeout of `{text}` is longer than any build can wait: the total must fit \
                     in `u64` milliseconds (about 584 million years)"
                )),
            );
        }
    }

    #[test]
    fn other_shapes_say_what_a_duration_looks_like() {
        assert_eq!(
            millis("s"),
            Err(
                "`s` in `s` has no number before it: a timeout is a number and a unit, like \
                 `5s`, `500ms` or `1m 30s`"
                    .to_owned()
            )
        );
        assert!(
            millis("1m ms")
                .unwrap_err()
                .starts_with("`ms` in `1m ms` has no number")
        );
        assert_eq!(
            millis("-5s"),
            Err("a timeout cannot be negative: give `-5s` a length, like `5s`".to_owned())
        );
        assert_eq!(
            millis("1.5s"),
            Err(
                "a timeout counts whole units, and `1.5s` has a fraction: write it in a \
                 smaller unit, like `1500ms` for `1.5s`"
                    .to_owned()
            )
        );
        assert_eq!(
            millis("1m, 30s"),
            Err(
                "`1m, 30s` holds `,`, which no timeout does: write numbers and units \
                 separated by spaces, like `5s`, `500ms` or `1m 30s`"
                    .to_owned()
            )
        );
    }

    fn read(value: Expr) -> Result<u64, Vec<String>> {
        let mut errors = Errors::default();
        let found = timeout(&value, &mut errors);
        match errors.finish() {
            Ok(()) => Ok(found.unwrap()),
            Err(error) => Err(error.into_iter().map(|e| e.to_string()).collect()),
        }
    }

    #[test]
    fn the_value_is_a_string_literal() {
        assert_eq!(read(syn::parse_quote!("1m 30s")), Ok(90_000));
        assert_eq!(
            read(syn::parse_quote!("0ms")),
            Err(vec![
                "a timeout of zero would fail every build: give it a length".to_owned()
            ])
        );
        assert_eq!(
            read(syn::parse_quote!(5)),
            Err(vec![
                "a timeout is a duration with a unit, in a string: write `timeout = \"5s\"` or \
                 `timeout = \"5ms\"`, not `timeout = 5`"
                    .to_owned()
            ])
        );
        assert_eq!(
            read(syn::parse_quote!(500ms)),
            Err(vec![
                "a timeout is written in a string: `timeout = \"500ms\"`".to_owned()
            ])
        );
        assert_eq!(
            read(syn::parse_quote!(2secs)),
            Err(vec![
                "a timeout is written in a string: `timeout = \"2s\"`".to_owned()
            ])
        );
        assert!(read(syn::parse_quote!(5u64)).unwrap_err()[0].ends_with("not `timeout = 5u64`"));
        assert_eq!(
            read(syn::parse_quote!(Duration::from_secs(5))),
            Err(vec![
                "expected a duration as a string literal, like `timeout = \"5s\"`, \
                 `timeout = \"500ms\"` or `timeout = \"1m 30s\"`"
                    .to_owned()
            ])
        );
    }
}
