//! Switches: named functions of settings with a finite set of outcomes, and the declarations
//! on only for some of them. `build()` decides each switch from the settings it read, leaves
//! out what is off, and checks the graph of every shape the switches allow ([`condition`]).

pub(crate) mod condition;
pub(crate) mod decide;

use std::any::{Any, TypeId};
use std::borrow::Cow;

use crate::error::Problem;
use crate::key::Location;
use crate::settings::Settings;

/// The outcomes a switch can have: `bool` (`false`, `true`), or an enum of your own, each
/// variant named.
///
/// ```
/// use green_tea::switches::Choice;
///
/// #[derive(Clone, Copy)]
/// enum Gateway {
///     Stripe,
///     Fake,
/// }
///
/// impl Choice for Gateway {
///     const NAMES: &'static [&'static str] = &["stripe", "fake"];
///     fn index(&self) -> usize {
///         *self as usize
///     }
/// }
/// assert_eq!(Gateway::NAMES[Gateway::Fake.index()], "fake");
/// ```
pub trait Choice: 'static {
    /// Every outcome's name, in order: what a condition names (`gateway = fake`). Between 1
    /// and 64 names, each of letters, digits, `_` and `-`, none twice.
    const NAMES: &'static [&'static str];
    /// This outcome's position in [`NAMES`](Self::NAMES).
    fn index(&self) -> usize;
}

impl Choice for bool {
    const NAMES: &'static [&'static str] = &["false", "true"];
    fn index(&self) -> usize {
        usize::from(*self)
    }
}

/// How a switch decides: from the settings value (an `&S`), its outcome's position, or what
/// it returned when that is none of its outcomes.
pub(crate) type Decide = Box<dyn Fn(&dyn Any) -> Result<usize, String> + Send + Sync>;

/// A named function of one settings type with a finite set of outcomes: what decides whether
/// the declarations registered [`when`](crate::ContainerBuilder::when) it is on are part of the
/// graph. `build()` reads the settings, decides the switch, and checks the graph of every
/// outcome, not only today's.
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::switches::Switch;
///
/// #[derive(Settings)]
/// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
/// pub struct ShopSettings {
///     #[settings(default = "false")]
///     pub cache: bool,
///     #[settings(default = "fake")]
///     pub gateway: String,
/// }
///
/// let cache_on = Switch::new("cacheOn", |shop: &ShopSettings| shop.cache).reads("cache");
/// let gateway = Switch::one_of("gateway", ["stripe", "fake"], |shop: &ShopSettings| {
///     shop.gateway.as_str()
/// })
/// .reads("gateway");
/// assert_eq!(cache_on.name(), "cacheOn");
/// assert_eq!(gateway.outcomes(), ["stripe", "fake"]);
/// ```
pub struct Switch {
    pub(crate) name: Cow<'static, str>,
    pub(crate) outcomes: Vec<Cow<'static, str>>,
    /// The settings type it reads: its key, as a need names it, and its type.
    pub(crate) settings: &'static str,
    pub(crate) settings_type: TypeId,
    pub(crate) settings_type_name: &'static str,
    /// The fields it reads, by name, for `explain` and the secret check.
    pub(crate) reads: Vec<&'static str>,
    /// The optional fields it reads only whether they are set, by name: a secret may be one.
    pub(crate) reads_set: Vec<&'static str>,
    /// Decides the outcome from the settings value (an `&S`): its position in `outcomes`, or
    /// what it returned when that is none of them.
    pub(crate) decide: Decide,
    pub(crate) location: Location,
}

impl std::fmt::Debug for Switch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Switch")
            .field("name", &self.name)
            .field("outcomes", &self.outcomes)
            .field("settings", &self.settings)
            .field("reads", &self.reads)
            .field("reads_set", &self.reads_set)
            .finish_non_exhaustive()
    }
}

impl Switch {
    /// A switch named `name` whose outcome `decide` returns from the settings `S`: a `bool`,
    /// or a [`Choice`] of your own.
    #[track_caller]
    pub fn new<S: Settings, O: Choice>(
        name: impl Into<Cow<'static, str>>,
        decide: impl Fn(&S) -> O + Send + Sync + 'static,
    ) -> Switch {
        Switch::with::<S>(
            name.into(),
            O::NAMES.iter().map(|n| Cow::Borrowed(*n)).collect(),
            Box::new(move |settings| {
                let settings = settings
                    .downcast_ref::<S>()
                    .expect("the switch's settings type");
                Ok(decide(settings).index())
            }),
        )
    }

    /// A switch named `name` whose outcome is one of `outcomes`, a string `decide` returns from
    /// the settings `S`; a string that is none of them is a build problem (GT0023) naming it.
    #[track_caller]
    pub fn one_of<S: Settings, const N: usize>(
        name: impl Into<Cow<'static, str>>,
        outcomes: [&'static str; N],
        decide: impl Fn(&S) -> &str + Send + Sync + 'static,
    ) -> Switch {
        Switch::with::<S>(
            name.into(),
            outcomes.iter().map(|n| Cow::Borrowed(*n)).collect(),
            Box::new(move |settings| {
                let settings = settings
                    .downcast_ref::<S>()
                    .expect("the switch's settings type");
                let outcome = decide(settings);
                outcomes
                    .iter()
                    .position(|o| *o == outcome)
                    .ok_or_else(|| outcome.to_owned())
            }),
        )
    }

    #[track_caller]
    fn with<S: Settings>(
        name: Cow<'static, str>,
        outcomes: Vec<Cow<'static, str>>,
        decide: Decide,
    ) -> Switch {
        Switch {
            name,
            outcomes,
            settings: S::KEY,
            settings_type: TypeId::of::<S>(),
            settings_type_name: std::any::type_name::<S>(),
            reads: Vec::new(),
            reads_set: Vec::new(),
            decide,
            location: Location::caller(),
        }
    }

    /// Names a field of the settings that `decide` reads (`cache`): `explain` shows where its
    /// value came from beside the outcome, the settings report names the switch beside the
    /// field, and a secret field is refused (GT0023): a switch's outcome is shown wherever the
    /// graph is, and would show a bit of the secret.
    pub fn reads(mut self, field: &'static str) -> Self {
        self.reads.push(field);
        self
    }

    /// Names an optional field (`Option<T>`) of which `decide` reads only whether a source
    /// sets it: a secret may be one, since the settings report already shows whether a secret
    /// is set (`***`, and from where) and never more. `explain` shows ``redis_url` is set
    /// (env BREAKER_REDIS_URL)`` beside the outcome. A field that is not optional is refused
    /// (GT0023): it is always set. The promise is the code's to keep: a `decide` that reads the
    /// secret's value while saying it reads only whether it is set shows a bit of it.
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// use green_tea::settings::{Secret, Sources};
    ///
    /// #[derive(Settings)]
    /// #[settings(provides = "sharing", prefix = "BREAKER", discover = false)]
    /// pub struct Sharing {
    ///     pub redis_url: Option<Secret<String>>,
    /// }
    ///
    /// let container = Container::builder()
    ///     .settings(Sources::from_env_map([("BREAKER_REDIS_URL", "redis://:hunter2@127.0.0.1/")]))
    ///     .provider(Sharing::provider())
    ///     .switch(
    ///         Switch::new("breakerShared", |s: &Sharing| s.redis_url.is_some())
    ///             .reads_whether_set("redis_url"),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// let explained = container.explain_switches().to_string();
    /// assert!(explained.contains("`redis_url` is set (env BREAKER_REDIS_URL)"));
    /// assert!(!explained.contains("hunter2"));
    /// ```
    pub fn reads_whether_set(mut self, field: &'static str) -> Self {
        self.reads_set.push(field);
        self
    }

    /// Its name (`cacheOn`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its outcomes' names, in order (`false`, `true` for a `bool`).
    pub fn outcomes(&self) -> Vec<&str> {
        self.outcomes.iter().map(|o| &**o).collect()
    }
}

/// GT0023 for `what` (``a mounted service``), registered under `condition` at `location`,
/// which no condition switches.
pub(crate) fn refusal(condition: &str, location: Location, what: &str) -> Problem {
    Problem::Switch {
        subject: format!("the condition `{condition}`"),
        location,
        reason: format!(
            "covers {what}: mounted services and app layers are the app's in every shape; put \
             the routes they are for under the condition instead (a route's own layers follow \
             it)"
        ),
    }
}
