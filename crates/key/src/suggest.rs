//! "Did you mean": the closest existing name to one that is missing.

/// The closest of `candidates` to `wanted` by name, if one is close: the "did you mean" of
/// keys, step names, module paths, settings variables and routes.
///
/// Names that differ only in case and separators (`billing_api`, `billingApi`) are the same
/// word to a reader, so they match first; otherwise the closest by edit distance, if close.
/// Ties go to the least candidate, so the answer does not depend on the candidates' order.
///
/// ```
/// use green_tea_key::closest;
/// let keys = ["billingApi", "billing"];
/// assert_eq!(closest("billing_api", keys.iter(), |k| k), Some(&"billingApi"));
/// assert_eq!(closest("biling", keys.iter(), |k| k), Some(&"billing"));
/// assert_eq!(closest("orders", keys.iter(), |k| k), None);
/// ```
pub fn closest<'a, T: Ord + ?Sized>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a T>,
    name: impl Fn(&T) -> &str,
) -> Option<&'a T> {
    let normalized = normalize(wanted);
    let wanted_lower = wanted.to_lowercase();
    let mut best: Option<(f64, &T)> = None;
    for candidate in candidates {
        let candidate_lower = name(candidate).to_lowercase();
        let score = if normalize(name(candidate)) == normalized {
            2.0
        } else if !differ_closely(&wanted_lower, &candidate_lower) {
            0.0
        } else {
            strsim::normalized_damerau_levenshtein(&wanted_lower, &candidate_lower)
        };
        let better = match best {
            None => true,
            Some((s, k)) => score > s || (score == s && candidate < k),
        };
        if score >= 0.7 && better {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, k)| k)
}

/// Whether `set` is one edit from `wanted` (a character added, dropped, changed, or two
/// neighbours swapped), or the same name in another case: a name written by mistake for it,
/// such as a settings variable set under a misspelt name.
///
/// ```
/// use green_tea_key::one_edit_away;
/// assert!(one_edit_away("ORDERS_PAYMENT_URL", "ORDER_PAYMENT_URL"));
/// assert!(one_edit_away("BILLING_URL", "billing_url"));
/// assert!(!one_edit_away("BILLING_URL", "BILLING_URL"));
/// assert!(!one_edit_away("BILLING_URL", "BILLING_URI_X"));
/// ```
pub fn one_edit_away(wanted: &str, set: &str) -> bool {
    wanted != set && strsim::damerau_levenshtein(&wanted.to_uppercase(), &set.to_uppercase()) <= 1
}

/// Whether two names that share a dotted prefix (`notifications.`) are close in what follows
/// it: a shared prefix makes any two keys of one area look alike (`notifications.settings`
/// and `notifications.email`), so past it they may differ by a slip only (a letter or two,
/// about a third of the rest at most). Names without a shared prefix are compared whole.
fn differ_closely(wanted: &str, candidate: &str) -> bool {
    let shared = wanted
        .char_indices()
        .zip(candidate.chars())
        .take_while(|((_, a), b)| a == b)
        .filter(|((_, a), _)| *a == '.')
        .map(|((at, _), _)| at + 1)
        .last();
    let Some(shared) = shared else {
        return true;
    };
    let (wanted, candidate) = (&wanted[shared..], &candidate[shared..]);
    let longest = wanted.chars().count().max(candidate.chars().count());
    strsim::damerau_levenshtein(wanted, candidate) <= (longest / 3).max(1)
}

fn normalize(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::closest;

    fn suggest<'a>(wanted: &str, keys: &'a [&'a str]) -> Option<&'a str> {
        closest(wanted, keys.iter(), |k| k).copied()
    }

    #[test]
    fn a_shared_dotted_prefix_alone_is_not_close() {
        let keys = ["notifications.email", "notifications.sms", "orders.db"];
        assert_eq!(suggest("notifications.settings", &keys), None);
        assert_eq!(
            suggest("notifications.emial", &keys),
            Some("notifications.email")
        );
        assert_eq!(
            suggest("notification.email", &keys),
            Some("notifications.email")
        );
        assert_eq!(suggest("orders.dv", &keys), Some("orders.db"));
    }

    #[test]
    fn case_and_separators_match_first() {
        assert_eq!(
            suggest("billing_api", &["billingApi", "billing"]),
            Some("billingApi")
        );
    }
}
