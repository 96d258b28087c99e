//! The key language's laws, on random keys and module paths: what qualifies is undone by
//! `relative_to`, and the verdicts agree with each other.

use green_tea_key::{
    Declarer, Spelling, check_provided, is_plain, is_within, qualify, relative_to, spelling,
    split_last,
};
use proptest::prelude::*;

/// A plain name: letters, digits, `_`, `.`, `-`, as keys are written.
fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_.-]{0,11}"
}

/// A module path: one to three names joined by `::`.
fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(name(), 1..=3).prop_map(|names| names.join("::"))
}

/// Any text made of a key's characters, the reserved ones included.
fn text() -> impl Strategy<Value = String> {
    "[a-c:?\\[\\]{}]{0,8}"
}

proptest! {
    #[test]
    fn qualify_then_relative_is_the_identity(path in path(), key in name()) {
        let qualified = qualify(Some(&path), &key);
        prop_assert_eq!(relative_to(&qualified, &path), Some(key.as_str()));
        prop_assert_eq!(split_last(&qualified), (Some(path.as_str()), key.as_str()));
        prop_assert!(is_within(&qualified, &path));
        // A qualified key is a well-spelled one, and names a module: it qualifies no further.
        prop_assert_eq!(spelling(&qualified), Ok(Spelling::One(&qualified)));
        prop_assert_eq!(qualify(Some(&path), &qualified), qualified.clone());
    }

    #[test]
    fn only_plain_names_qualify(path in path(), key in text()) {
        let qualified = qualify(Some(&path), &key);
        if is_plain(&key) {
            prop_assert_eq!(relative_to(&qualified, &path), Some(key.as_str()));
        } else {
            prop_assert_eq!(qualified, key.clone());
        }
        prop_assert_eq!(qualify(None, &key), key.clone());
    }

    #[test]
    fn a_module_path_is_within_only_itself_and_its_parents(a in path(), b in name()) {
        prop_assert!(is_within(&a, &a));
        let sibling = format!("{a}{b}");
        prop_assert!(!is_within(&sibling, &a));
        prop_assert!(relative_to(&sibling, &a).is_none());
    }

    #[test]
    fn a_plain_name_is_what_spelling_calls_one_without_a_module(key in text()) {
        let plain = is_plain(&key);
        let one_without_module = matches!(spelling(&key), Ok(Spelling::One(k)) if !k.contains(':'));
        prop_assert_eq!(plain, one_without_module);
    }

    #[test]
    fn what_a_declaration_provides_is_well_spelled(key in text()) {
        for by in [
            Declarer::Provider, Declarer::Value, Declarer::Settings, Declarer::Step,
            Declarer::Decorator, Declarer::Collection, Declarer::Override,
        ] {
            match check_provided(&key, by) {
                Ok(spelled) => prop_assert_eq!(spelling(&key), Ok(spelled)),
                Err(reason) => prop_assert!(!reason.is_empty()),
            }
            // A plain name is what every declaration may provide.
            if is_plain(&key) {
                prop_assert!(check_provided(&key, by).is_ok());
            }
        }
    }
}
