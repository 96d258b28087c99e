//! `after` through the macros: a list's contributions (from provider fns and impl blocks) and a
//! key's decorators in the order their `after`s ask for, registered and discovered, and a name
//! that is no other member's refused by `build()` (GT0013).

use std::sync::Arc;

use green_tea::error::Problem;
use green_tea::prelude::*;

/// What `notifiers[]` holds: the contributor's name.
type Channel = &'static str;

/// Registered first, it asks to come after the last.
#[provider(provides = "notifiers[]", after = ["third"])]
fn first() -> Channel {
    "first"
}

#[provider(provides = "notifiers[]")]
fn second() -> Channel {
    "second"
}

#[provider(provides = "notifiers[]")]
async fn third() -> Channel {
    "third"
}

/// Reads the list, so the container builds it.
#[provider(provides = "channels", needs = "notifiers[]")]
fn channels(notifiers: All<'_, Channel>) -> String {
    let names: Vec<Channel> = notifiers.iter().copied().collect();
    names.join(",")
}

/// An impl block takes `after` too, as one name.
struct Pager;

#[provider(provides = ["pagerKey", "notifiers[]"], after = "first", discover = false)]
impl Pager {
    fn provide(&self) -> (String, Channel) {
        ("pager".to_owned(), "pager")
    }
}

async fn channels_of(builder: green_tea::ContainerBuilder) -> String {
    let container = builder.provider(channels::provider()).build().unwrap();
    let channels = container.get::<String>("channels").await.unwrap();
    container.close().await.unwrap();
    channels.to_string()
}

#[tokio::test]
async fn a_contribution_comes_after_the_ones_it_names() {
    let asked = Container::builder()
        .provider(first::provider())
        .provider(second::provider())
        .provider(third::provider());
    assert_eq!(channels_of(asked).await, "second,third,first");
    // Registered in another order, it still comes after `third`, and the rest keep theirs.
    let reversed = Container::builder()
        .provider(third::provider())
        .provider(first::provider())
        .provider(second::provider());
    assert_eq!(channels_of(reversed).await, "third,first,second");
}

#[tokio::test]
async fn an_impl_block_comes_after_the_one_it_names() {
    let builder = Container::builder()
        .provider(Pager)
        .provider(second::provider())
        .provider(first::provider())
        .provider(third::provider());
    assert_eq!(channels_of(builder).await, "second,third,first,pager");
}

#[provider(provides = "payments")]
fn payments() -> String {
    "payments".to_owned()
}

/// Registered first, it wraps what `retrying` made.
#[decorator(decorates = "payments", after = ["retrying"])]
fn metered(payments: &String) -> String {
    format!("metered({payments})")
}

#[decorator(decorates = "payments")]
async fn retrying(payments: Arc<String>) -> String {
    format!("retrying({payments})")
}

#[tokio::test]
async fn a_decorator_wraps_what_the_ones_it_names_made() {
    let container = Container::builder()
        .provider(payments::provider())
        .decorator(metered::decorator())
        .decorator(retrying::decorator())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("payments").await.unwrap(),
        "metered(retrying(payments))"
    );
    container.close().await.unwrap();
}

/// What `discover_in` finds here: `discover()`'s order (by module path, then name) puts
/// `alpha` first, and its `after` moves it behind `beta`.
mod discovered {
    use green_tea::prelude::*;

    pub(super) const MODULE: &str = module_path!();

    #[provider(provides = "letters[]", after = "beta")]
    fn alpha() -> char {
        'a'
    }

    #[provider(provides = "letters[]")]
    fn beta() -> char {
        'b'
    }

    #[provider(provides = "letters", needs = "letters[]")]
    fn letters(letters: All<'_, char>) -> String {
        letters.iter().copied().collect()
    }

    #[provider(provides = "tea")]
    fn tea() -> String {
        "tea".to_owned()
    }

    #[decorator(decorates = "tea", after = "sweet")]
    fn hot(tea: &String) -> String {
        format!("hot({tea})")
    }

    #[decorator(decorates = "tea")]
    fn sweet(tea: &String) -> String {
        format!("sweet({tea})")
    }
}

#[tokio::test]
async fn discovery_keeps_the_order_after_asks_for() {
    let container = Container::builder()
        .discover_in(&[discovered::MODULE])
        .build()
        .unwrap();
    assert_eq!(*container.get::<String>("letters").await.unwrap(), "ba");
    assert_eq!(
        *container.get::<String>("tea").await.unwrap(),
        "hot(sweet(tea))"
    );
    container.close().await.unwrap();
}

#[provider(provides = "notifiers[]", after = "secnod")]
fn misspelled() -> Channel {
    "misspelled"
}

#[decorator(decorates = "payments", after = "retryng")]
fn audited(payments: &String) -> String {
    format!("audited({payments})")
}

#[test]
fn a_name_that_is_no_other_members_is_gt0013() {
    let err = Container::builder()
        .provider(misspelled::provider())
        .provider(second::provider())
        .provider(channels::provider())
        .build()
        .unwrap_err();
    let [problem] = err.problems() else {
        panic!("one problem: {err}")
    };
    assert_eq!(problem.code(), "GT0013");
    let Problem::UnknownAfter {
        key,
        by,
        after,
        suggestion,
    } = problem
    else {
        panic!("{err}")
    };
    assert_eq!(key.as_str(), "notifiers[]");
    assert_eq!(by.name, "misspelled");
    assert_eq!(after, "secnod");
    assert_eq!(suggestion.as_deref(), Some("second"));
    let rendered = err.to_string();
    assert!(rendered.starts_with("error[GT0013]"), "{rendered}");
    assert!(rendered.contains("pass/vocabulary_after.rs:"), "{rendered}");

    let err = Container::builder()
        .provider(payments::provider())
        .decorator(audited::decorator())
        .decorator(retrying::decorator())
        .build()
        .unwrap_err();
    let [problem] = err.problems() else {
        panic!("one problem: {err}")
    };
    assert!(
        matches!(
            problem,
            Problem::UnknownAfter { key, by, after, suggestion: Some(close) }
                if key.as_str() == "payments"
                    && by.name == "audited"
                    && after == "retryng"
                    && close == "retrying"
        ),
        "{err}"
    );
}
