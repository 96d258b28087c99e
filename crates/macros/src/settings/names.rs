//! How a settings type's names become variable names: a prefix is UPPER_SNAKE_CASE
//! (`BILLING`), a field's name snake_case (`retry_count`), so that the variable, the prefix,
//! `_` and the name upper-cased (`BILLING_RETRY_COUNT`), reads back as one name, and the file's
//! key is the field's name as written.

/// Why `prefix` is not a prefix, if it is not.
pub(super) fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.is_empty() {
        return Err(
            "a prefix cannot be empty: name the variables' prefix, like \
                    `prefix = \"BILLING\"`, or leave `prefix` out for a type that only \
                    modules register (their names give it one)"
                .to_owned(),
        );
    }
    if is_words(prefix, |c| c.is_ascii_uppercase()) {
        return Ok(());
    }
    let suggestion = words(prefix).map(|w| w.to_ascii_uppercase());
    if let Some(stripped) = prefix.strip_suffix('_')
        && is_words(stripped, |c| c.is_ascii_uppercase())
    {
        return Err(format!(
            "a prefix is written without the `_` that joins it to a field's name \
             (`{stripped}_URL`): write `{stripped}`"
        ));
    }
    Err(format!(
        "the prefix `{prefix}` is not UPPER_SNAKE_CASE (`A`-`Z` and `0`-`9`, words joined by \
         single `_`s, starting with a letter), as the variables it names are{}",
        write_instead(suggestion)
    ))
}

/// Why `name`, a field's name (or its `rename`), makes no variable name, if it does not.
/// `renamed` says whether it was given by `rename`.
pub(super) fn check_field(name: &str, renamed: bool) -> Result<(), String> {
    if is_words(name, |c| c.is_ascii_lowercase()) {
        return Ok(());
    }
    let suggestion = words(name);
    if renamed {
        return Err(format!(
            "`rename = \"{name}\"` is not snake_case (`a`-`z` and `0`-`9`, words joined by \
             single `_`s, starting with a letter): the variable is the prefix, `_` and this \
             name upper-cased, the file's key this name{}",
            write_instead(suggestion)
        ));
    }
    let fix = match suggestion {
        Some(snake) => format!(
            ": name it `{snake}`, or keep it and read it as `{snake}` with \
             `#[settings(rename = \"{snake}\")]`"
        ),
        None => ": read it under a name that is, with `#[settings(rename = \"...\")]`".to_owned(),
    };
    Err(format!(
        "the field `{name}` is not snake_case (`a`-`z` and `0`-`9`, words joined by single \
         `_`s, starting with a letter), so it makes no variable name (the prefix, `_` and the \
         name upper-cased){fix}"
    ))
}

/// `: write `s``, or nothing without a suggestion.
fn write_instead(suggestion: Option<String>) -> String {
    suggestion
        .map(|s| format!(": write `{s}`"))
        .unwrap_or_default()
}

/// Whether `text` is words of `letter`s and digits joined by single `_`s, starting with a
/// letter.
fn is_words(text: &str, letter: impl Fn(char) -> bool) -> bool {
    text.starts_with(&letter)
        && text
            .split('_')
            .all(|word| !word.is_empty() && word.chars().all(|c| letter(c) || c.is_ascii_digit()))
}

/// `text` as lower-case snake_case words (`retryCount`, `RETRY-COUNT` and `retry__count` are
/// `retry_count`), or `None` if that would not be a name (not ASCII, or no letter first).
fn words(text: &str) -> Option<String> {
    if !text.is_ascii() {
        return None;
    }
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        previous = Some(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    out.starts_with(|c: char| c.is_ascii_lowercase())
        .then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_upper_snake_case() {
        for good in ["BILLING", "BILLING_EU", "S3", "A_1"] {
            assert_eq!(check_prefix(good), Ok(()), "{good}");
        }
        assert!(
            check_prefix("")
                .unwrap_err()
                .starts_with("a prefix cannot be empty")
        );
        assert!(
            check_prefix("billing")
                .unwrap_err()
                .ends_with(": write `BILLING`")
        );
        assert!(
            check_prefix("BILL-ING")
                .unwrap_err()
                .ends_with(": write `BILL_ING`")
        );
        assert!(
            check_prefix("billingEu")
                .unwrap_err()
                .ends_with(": write `BILLING_EU`")
        );
        assert!(
            check_prefix("BILLING__EU")
                .unwrap_err()
                .ends_with(": write `BILLING_EU`")
        );
        assert!(
            check_prefix("BILLING_")
                .unwrap_err()
                .ends_with(": write `BILLING`")
        );
        assert!(
            check_prefix("_BILLING")
                .unwrap_err()
                .ends_with(": write `BILLING`")
        );
        assert!(
            check_prefix("1BILLING")
                .unwrap_err()
                .ends_with("starting with a letter), as the variables it names are")
        );
        assert!(
            check_prefix("BÜRO")
                .unwrap_err()
                .ends_with("as the variables it names are")
        );
    }

    #[test]
    fn field_names_are_snake_case() {
        for good in ["url", "retry_count", "v2", "a_1"] {
            assert_eq!(check_field(good, false), Ok(()), "{good}");
        }
        let camel = check_field("retryCount", false).unwrap_err();
        assert!(camel.contains("name it `retry_count`"), "{camel}");
        assert!(
            check_field("_unused", false)
                .unwrap_err()
                .contains("name it `unused`")
        );
        assert!(
            check_field("a__b", false)
                .unwrap_err()
                .contains("name it `a_b`")
        );
        assert!(
            check_field("größe", false)
                .unwrap_err()
                .ends_with("with `#[settings(rename = \"...\")]`")
        );
        assert!(
            check_field("Url", true)
                .unwrap_err()
                .ends_with(": write `url`")
        );
    }
}
