//! Modules, by hand: keys private to a module unless exported, resolved inside-out, one module
//! registered twice under two names, overrides that reach inside, and every mistake a build
//! error of its own (GT0014, GT0015).

use green_tea::error::Problem;
use green_tea::{BuildError, Container, Module, ProviderFn};

fn codes(err: &BuildError) -> Vec<&'static str> {
    err.problems().iter().map(Problem::code).collect()
}

/// A library-style module: a private client and an exported service over it.
fn billing(region: &'static str) -> Module {
    Module::new("billing")
        .value("client", format!("{region} client"))
        .provider(
            ProviderFn::new("billing", |needs| async move {
                Ok(format!("billing over {}", needs.get::<String>(0)?))
            })
            .needs::<String>("client"),
        )
        .export("billing")
}

async fn get(container: &Container, key: &str) -> String {
    container.get::<String>(key).await.unwrap().to_string()
}

#[tokio::test]
async fn two_modules_each_have_a_private_key_of_one_name() {
    let container = Container::builder()
        .value("client", String::from("the app's client"))
        .module(billing("eu").named("billing_eu"))
        .module(billing("us").named("billing_us"))
        .provider(
            ProviderFn::new("checkout", |needs| async move {
                Ok(format!(
                    "{} + {}",
                    needs.get::<String>(0)?,
                    needs.get::<String>(1)?
                ))
            })
            .needs::<String>("billing_eu::billing")
            .needs::<String>("billing_us::billing"),
        )
        .build()
        .unwrap();
    assert_eq!(
        get(&container, "checkout").await,
        "billing over eu client + billing over us client"
    );
    assert_eq!(get(&container, "client").await, "the app's client");
    let keys: Vec<String> = container.keys().iter().map(|k| k.to_string()).collect();
    assert_eq!(
        keys,
        [
            "billing_eu::billing",
            "billing_eu::client",
            "billing_us::billing",
            "billing_us::client",
            "checkout",
            "client"
        ]
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_need_inside_a_module_resolves_to_its_own_key_then_outward() {
    let container = Container::builder()
        .value("db", String::from("the app's db"))
        .value("name", String::from("the app's name"))
        .module(
            Module::new("orders")
                .value("name", String::from("orders' own name"))
                .provider(
                    ProviderFn::new("report", |needs| async move {
                        Ok(format!(
                            "{} / {}",
                            needs.get::<String>(0)?,
                            needs.get::<String>(1)?
                        ))
                    })
                    .needs::<String>("name")
                    .needs::<String>("db"),
                )
                .module(
                    Module::new("audit")
                        .provider(
                            ProviderFn::new("trail", |needs| async move {
                                Ok(format!("trail of {}", needs.get::<String>(0)?))
                            })
                            .needs::<String>("name"),
                        )
                        .export("trail"),
                )
                .export("report")
                .export("audit::trail"),
        )
        .build()
        .unwrap();
    assert_eq!(
        get(&container, "orders::report").await,
        "orders' own name / the app's db"
    );
    assert_eq!(
        get(&container, "orders::audit::trail").await,
        "trail of orders' own name",
        "a sub-module sees its parent's keys"
    );
    container.close().await.unwrap();
}

#[test]
fn needing_a_private_key_is_gt0014_naming_the_module() {
    let err = Container::builder()
        .module(billing("eu"))
        .provider(
            ProviderFn::new(
                "spy",
                |needs| async move { Ok(needs.get::<String>(0)?.len()) },
            )
            .needs::<String>("billing::client"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0014"], "{err}");
    let Problem::PrivateKey {
        key,
        module,
        consumer,
        provider,
        ..
    } = &err.problems()[0]
    else {
        panic!("{err}")
    };
    assert_eq!(
        (key.as_str(), module.as_str()),
        ("billing::client", "billing")
    );
    assert_eq!(
        (&*consumer.name, &*provider.name),
        ("spy", "value `billing::client`")
    );
    assert!(
        err.to_string()
            .contains("needs `billing::client`, which is private to the module `billing`"),
        "{err}"
    );
}

#[test]
fn a_sub_modules_key_is_private_unless_each_module_around_it_exports_it() {
    let inner = || {
        Module::new("sms")
            .value("gateway", String::from("gateway"))
            .export("gateway")
    };
    let needing = |key: &'static str| {
        ProviderFn::new(
            "app",
            |needs| async move { Ok(needs.get::<String>(0)?.len()) },
        )
        .needs::<String>(key)
    };
    // `sms` exports `gateway`, but `notifications` does not export `sms::gateway`.
    let err = Container::builder()
        .module(Module::new("notifications").module(inner()))
        .provider(needing("notifications::sms::gateway"))
        .build()
        .unwrap_err();
    assert!(
        matches!(&err.problems()[0], Problem::PrivateKey { module, .. } if module == "notifications"),
        "{err}"
    );
    let ok = Container::builder()
        .module(
            Module::new("notifications")
                .module(inner())
                .export("sms::gateway"),
        )
        .provider(needing("notifications::sms::gateway"))
        .build();
    assert!(ok.is_ok(), "{:?}", ok.err());
}

#[test]
fn a_module_cannot_export_what_it_does_not_have_nor_share_a_name() {
    let err = Container::builder()
        .module(
            Module::new("billing")
                .value("client", 1_u8)
                .export("clinet"),
        )
        .module(Module::new("billing"))
        .module(Module::new("bad name?"))
        .module(
            Module::new("outer")
                .module(Module::new("inner").value("secret", 1_u8))
                .export("inner::secret"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0015"; 4], "{err}");
    let text = err.to_string();
    for expected in [
        "exports `clinet`, which it does not provide",
        "is registered twice: register the second under another name",
        "is named `bad name?`",
        "exports `inner::secret`, which its sub-module `outer::inner` keeps private",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
}

#[test]
fn a_declaration_provides_a_plain_name_and_its_module_qualifies_it() {
    let err = Container::builder()
        .module(Module::new("billing").value("billing::client", 1_u8))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0010"], "{err}");
    assert!(
        err.to_string()
            .contains("the module it is registered in qualifies it"),
        "{err}"
    );
}

#[tokio::test]
async fn an_override_reaches_a_private_key_and_is_checked_like_any() {
    let container = Container::builder()
        .module(billing("eu"))
        .override_value("billing::client", String::from("fake client"))
        .build()
        .unwrap();
    assert_eq!(
        get(&container, "billing::billing").await,
        "billing over fake client"
    );
    container.close().await.unwrap();

    let err = Container::builder()
        .module(billing("eu"))
        .override_value("billing::clinet", String::from("fake client"))
        .override_value("billing::client", 7_u32)
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0004", "GT0005"], "{err}");
}

#[tokio::test]
async fn a_module_contributes_to_the_apps_list_and_decorates_its_own_keys() {
    let container = Container::builder()
        .value("notifiers[]", String::from("email"))
        .module(
            Module::new("sms")
                .value("notifiers[]", String::from("sms"))
                .value("gateway", String::from("gateway"))
                .decorator(
                    ProviderFn::new("gateway", |needs| async move {
                        Ok(format!("retrying {}", needs.get::<String>(0)?))
                    })
                    .needs::<String>("gateway"),
                )
                .export("gateway"),
        )
        .provider(
            ProviderFn::new("channels", |needs| async move {
                Ok(needs.all::<String>(0)?.to_vec().join(","))
            })
            .needs::<String>("notifiers[]"),
        )
        .build()
        .unwrap();
    assert_eq!(get(&container, "channels").await, "email,sms");
    assert_eq!(get(&container, "sms::gateway").await, "retrying gateway");
    container.close().await.unwrap();
}

/// A module's provider of plain names gets its keys qualified when the module is registered;
/// one that also contributes to the app's list keeps its keys as written until `build()`
/// qualifies its own: both read alike in the built container, and a key written with its
/// module is refused either way (above).
#[tokio::test]
async fn a_modules_keys_read_alike_wherever_they_were_qualified() {
    use green_tea::{BoxError, Descriptor, Needs, Provided, Provider};

    struct Outbox;
    impl Provider for Outbox {
        fn descriptor(&self) -> Descriptor {
            Descriptor::new("outbox")
                .provides::<String>("outbox")
                .provides::<String>("notifiers[]")
        }
        async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
            Ok(Provided::one(String::from("outbox")).with(String::from("mail")))
        }
    }
    let mail = Module::new("mail")
        .provider(ProviderFn::new("sender", |_| async {
            Ok(String::from("sender"))
        }))
        .provider(Outbox)
        .export("sender")
        .export("outbox");
    let container = Container::builder()
        .module(mail)
        .provider(
            ProviderFn::new("report", |needs| async move {
                let notifiers: Vec<String> = needs.all::<String>(2)?.to_vec();
                Ok(format!(
                    "{} {} {notifiers:?}",
                    needs.get::<String>(0)?,
                    needs.get::<String>(1)?
                ))
            })
            .needs::<String>("mail::sender")
            .needs::<String>("mail::outbox")
            .needs::<String>("notifiers[]"),
        )
        .build()
        .unwrap();
    assert_eq!(get(&container, "report").await, r#"sender outbox ["mail"]"#);
    let keys: Vec<String> = container.keys().iter().map(|k| k.to_string()).collect();
    assert_eq!(
        keys,
        ["mail::outbox", "mail::sender", "notifiers[]", "report"]
    );
    container.close().await.unwrap();
}

#[test]
fn a_plain_need_at_the_root_does_not_see_into_modules() {
    let err = Container::builder()
        .module(billing("eu"))
        .provider(
            ProviderFn::new("checkout", |needs| async move {
                Ok(needs.get::<String>(0)?.len())
            })
            .needs::<String>("billing"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"], "{err}");
}

#[tokio::test]
async fn explain_and_health_name_a_modules_keys_with_its_module() {
    let container = Container::builder().module(billing("eu")).build().unwrap();
    container.get::<String>("billing::billing").await.unwrap();
    let explain = container.explain_key("billing::billing").unwrap();
    let text = explain.to_string();
    assert!(text.contains("1. billing::client: String"), "{text}");
    assert!(
        text.contains("2. billing::billing: String  <- needs client"),
        "{text}"
    );
    let health = container.health();
    assert!(
        health
            .providers
            .iter()
            .any(|p| p.keys.iter().any(|k| k == "billing::client")),
        "{health:?}"
    );
    container.close().await.unwrap();
}

#[test]
fn errors_name_a_modules_declarations_by_its_path() {
    let err = Container::builder()
        .module(
            Module::new("orders").provider(
                ProviderFn::new("report", |needs| async move {
                    Ok(needs.get::<String>(0)?.len())
                })
                .needs::<String>("db"),
            ),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"], "{err}");
    let Problem::MissingKey { needed_by, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    assert_eq!(needed_by[0][0].name, "orders::report");
    assert!(
        err.to_string()
            .contains(&format!("provider `orders::report` ({}:", file!())),
        "{err}"
    );
}

#[test]
fn did_you_mean_offers_only_what_the_consumer_can_see() {
    let orders = || {
        Module::new("orders")
            .value("http", String::from("orders' client"))
            .provider(
                ProviderFn::new("report", |needs| async move {
                    Ok(needs.get::<String>(0)?.len())
                })
                .needs::<String>("htpp"),
            )
    };
    // Inside the module: its own key, as the module's declarations spell it.
    let err = Container::builder().module(orders()).build().unwrap_err();
    let Problem::MissingKey { suggestion, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    assert_eq!(
        suggestion.as_ref().map(|s| s.key.as_str()),
        Some("http"),
        "{err}"
    );

    // Outside it: never another module's private key.
    let err = Container::builder()
        .module(orders().provider(ProviderFn::new("htpp", |_| async { Ok(String::new()) })))
        .provider(
            ProviderFn::new(
                "audit",
                |needs| async move { Ok(needs.get::<String>(0)?.len()) },
            )
            .needs::<String>("http"),
        )
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0001"], "{err}");
    let Problem::MissingKey { suggestion, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    assert_eq!(suggestion.as_ref(), None, "{err}");
}

#[test]
fn a_private_key_error_says_what_the_module_exports() {
    let err = Container::builder()
        .module(billing("eu"))
        .provider(
            ProviderFn::new(
                "spy",
                |needs| async move { Ok(needs.get::<String>(0)?.len()) },
            )
            .needs::<String>("billing::client"),
        )
        .build()
        .unwrap_err();
    let Problem::PrivateKey { exports, .. } = &err.problems()[0] else {
        panic!("{err}");
    };
    let exports: Vec<&str> = exports.iter().map(|k| k.as_str()).collect();
    assert_eq!(exports, ["billing::billing"]);
    assert!(
        err.to_string()
            .contains("help: need what `billing` exports (`billing::billing`)"),
        "{err}"
    );
}

#[tokio::test]
async fn after_names_a_modules_contribution_by_its_qualified_name() {
    let channel = |name: &'static str| {
        Module::new(name).provider(
            ProviderFn::new("notifiers[]", move |_| async move { Ok(name.to_owned()) })
                .named("notifier"),
        )
    };
    let container = Container::builder()
        .provider(
            ProviderFn::new("notifiers[]", |_| async { Ok(String::from("audit")) })
                .named("audit")
                .after("sms::notifier"),
        )
        .module(channel("sms"))
        .module(channel("email"))
        .provider(
            ProviderFn::new("channels", |needs| async move {
                Ok(needs.all::<String>(0)?.to_vec().join(","))
            })
            .needs::<String>("notifiers[]"),
        )
        .build()
        .unwrap();
    assert_eq!(get(&container, "channels").await, "sms,audit,email");
    container.close().await.unwrap();

    // A name no contribution has is GT0013, with the qualified names to choose from.
    let err = Container::builder()
        .provider(
            ProviderFn::new("notifiers[]", |_| async { Ok(String::from("audit")) })
                .named("audit")
                .after("sms::notifer"),
        )
        .module(channel("sms"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0013"], "{err}");
    assert!(err.to_string().contains("sms::notifier"), "{err}");
}

/// A decorator named `instrumented` of the key `decorates`: what a payment client's metrics
/// wrap it in.
fn instrumented(decorates: &'static str) -> impl green_tea::Provider {
    ProviderFn::new(decorates, |needs| async move {
        Ok(format!("instrumented {}", needs.get::<String>(0)?))
    })
    .named("instrumented")
    .needs::<String>(decorates)
}

/// The `orders` area: a payment client of its own, exported or kept private.
fn orders(export: bool) -> Module {
    let orders = Module::new("orders").provider(ProviderFn::new("payment", |_| async {
        Ok(String::from("card payments"))
    }));
    match export {
        true => orders.export("payment"),
        false => orders,
    }
}

#[test]
fn a_private_key_error_names_its_provider_and_the_decorators_wrapping_it() {
    let err = Container::builder()
        .module(orders(false).decorator(instrumented("payment")))
        .provider(
            ProviderFn::new(
                "spy",
                |needs| async move { Ok(needs.get::<String>(0)?.len()) },
            )
            .needs::<String>("orders::payment"),
        )
        .build()
        .unwrap_err();
    let Problem::PrivateKey {
        provider,
        decorators,
        ..
    } = &err.problems()[0]
    else {
        panic!("{err}");
    };
    assert_eq!(provider.name, "orders::payment");
    let decorators: Vec<&str> = decorators.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(decorators, ["orders::instrumented"]);
    let text = err.to_string();
    assert!(
        text.contains("\n  `orders::payment` is provided by provider `orders::payment` ("),
        "{text}"
    );
    assert!(
        text.contains("), wrapped by decorator `orders::instrumented` ("),
        "{text}"
    );
    assert!(!text.contains("provided by decorator"), "{text}");
}

#[test]
fn a_root_decorator_of_a_modules_key_is_told_to_register_in_that_module() {
    for export in [true, false] {
        let err = Container::builder()
            .module(orders(export))
            .decorator(instrumented("payment"))
            .build()
            .unwrap_err();
        let Problem::DecoratesNothing { modules, .. } = &err.problems()[0] else {
            panic!("{err}");
        };
        assert_eq!(modules, &["orders"]);
        assert!(
            err.to_string().contains(
                "decorates `payment`, but nothing provides `payment`\n  help: the module \
                 `orders` provides `payment` (`orders::payment`), and a decorator wraps a key of \
                 the module it is registered in: register it in `orders` (`Module::decorator`) \
                 and decorate `payment`"
            ),
            "{err}"
        );
    }

    // A sub-module's key: the path to register in is the sub-module's.
    let err = Container::builder()
        .module(
            Module::new("shop")
                .module(orders(true))
                .export("orders::payment"),
        )
        .decorator(instrumented("payment"))
        .build()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("register it in `shop::orders` (`Module::decorator`) and decorate `payment`"),
        "{err}"
    );
}

#[test]
fn decorating_a_modules_key_by_its_path_is_told_to_register_in_that_module() {
    let err = Container::builder()
        .module(orders(true))
        .decorator(instrumented("orders::payment"))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), ["GT0010"], "{err}");
    assert!(
        err.to_string().contains("decorator `instrumented` (")
            && err.to_string().contains(
                "spells a key `orders::payment`: a decorator wraps a key of the module it is \
             registered in, which names it without a module: register it in `orders` \
             (`Module::decorator`) and decorate `payment`"
            ),
        "{err}"
    );
}
