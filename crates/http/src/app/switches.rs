//! The app's switches: registered and overridden as on a `Container`, and `when` over what the
//! app registers. Steps and routes are on in every shape in this version: a `when` over one is
//! refused (GT0023), not ignored.

use std::borrow::Cow;

use green_tea_core::__private::Location;
use green_tea_core::__private::layer::switches;
use green_tea_core::switches::Switch;

use super::AppBuilder;

impl AppBuilder {
    /// Adds a switch: a named function of one settings type with a finite set of outcomes,
    /// decided at `build()`, under whose outcomes declarations are on or off
    /// ([`when`](Self::when)). See [`Switch`] and the switches guide.
    pub fn switch(mut self, switch: Switch) -> Self {
        self.container = self.container.switch(switch);
        self
    }

    /// Registers what `register` adds (providers, values, decorators, workers, modules) under
    /// the condition `condition` (`cacheOn`, `!cacheOn`, `gateway = stripe | paypal`): each is
    /// part of the graph only where it holds, and `build()` checks the graph of every outcome.
    /// Conditions nest. Steps and routes are on in every shape in this version: registering
    /// one here is a build error (GT0023).
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// use green_tea::settings::Sources;
    ///
    /// #[derive(Settings)]
    /// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
    /// pub struct ShopSettings {
    ///     #[settings(default = "false")]
    ///     pub cache: bool,
    /// }
    ///
    /// let app = App::builder()
    ///     .settings(Sources::from_env_map([("SHOP_CACHE", "true")]))
    ///     .provider(ShopSettings::provider())
    ///     .switch(Switch::new("cacheOn", |shop: &ShopSettings| shop.cache))
    ///     .when("cacheOn", |on| on.value("cache", 64_u32))
    ///     .build()
    ///     .unwrap();
    /// # drop(app);
    /// ```
    #[track_caller]
    pub fn when(
        self,
        condition: impl Into<Cow<'static, str>>,
        register: impl FnOnce(Self) -> Self,
    ) -> Self {
        let condition = condition.into();
        let location = Location::caller();
        let marks = switches::marks(&self.container);
        let (steps, routes) = (self.steps.len(), self.routes.len());
        let mut app = register(self);
        switches::put_under(&mut app.container, condition.clone(), marks);
        let added = (app.steps.len() - steps) + (app.routes.len() - routes);
        if added > 0 {
            switches::refuse(
                &mut app.container,
                &condition,
                location,
                &format!("{added} steps or routes"),
            );
        }
        app
    }

    /// Decides the switch a test names (`cacheOn = false`, `gateway = fake`) whatever its
    /// settings say, for tests; every shape is still checked.
    #[track_caller]
    pub fn override_switch(mut self, outcome: impl Into<Cow<'static, str>>) -> Self {
        self.container = self.container.override_switch(outcome);
        self
    }
}
