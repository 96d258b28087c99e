//! `discover()` collects every macro-declared provider linked in; `discover_in` only some.

use green_tea::Container;
use green_tea::provider;
// Linked for its registrations: the recipes declare `billingApi` and `billing` themselves.
extern crate green_tea_recipes as _;

mod mine {
    use green_tea::provider;

    #[provider(provides = "greeting")]
    pub(crate) fn greeting() -> String {
        "hello".to_owned()
    }
}

#[provider(provides = "answer")]
fn answer() -> u32 {
    42
}

#[test]
fn discover_collects_every_linked_provider() {
    let keys = Container::builder().discover().build().unwrap().keys();
    let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    assert!(
        keys.contains(&"greeting") && keys.contains(&"answer"),
        "{keys:?}"
    );
    assert!(
        keys.contains(&"billingApi") && keys.contains(&"billing"),
        "the recipes' too: {keys:?}"
    );
}

#[test]
fn discover_in_keeps_only_the_modules_named() {
    let only_mine = Container::builder()
        .discover_in(&[module_path!()])
        .build()
        .unwrap();
    let keys: Vec<String> = only_mine.keys().iter().map(|k| k.to_string()).collect();
    assert_eq!(keys, ["answer", "greeting"]);

    let submodule = Container::builder()
        .discover_in(&[&format!("{}::mine", module_path!())])
        .build()
        .unwrap();
    assert_eq!(submodule.keys().len(), 1);

    let app = green_tea::App::builder()
        .discover_in(&["green_tea_recipes"])
        .build()
        .unwrap();
    let keys: Vec<String> = app
        .container()
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert!(keys.contains(&"billing".to_owned()), "{keys:?}");
    assert!(!keys.contains(&"answer".to_owned()), "{keys:?}");
}
