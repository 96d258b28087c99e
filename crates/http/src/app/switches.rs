//! The app's switches: registered and overridden as on a `Container`, and `when` over what the
//! app registers (its steps, routes and fallback too). A mounted service and an app layer are
//! the app's in every shape: a `when` over one is refused (GT0023), not ignored.

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

    /// Registers what `register` adds (providers, values, decorators, workers, modules, steps,
    /// routes, the fallback) under the condition `condition` (`cacheOn`, `!cacheOn`,
    /// `gateway = stripe | paypal`): each is part of the graph only where it holds (a route is
    /// served only there), and `build()` checks the graph of every outcome. Conditions nest.
    /// A mounted service and an app layer are the app's in every shape: registering one here
    /// is a build error (GT0023).
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
        mut self,
        condition: impl Into<Cow<'static, str>>,
        register: impl FnOnce(Self) -> Self,
    ) -> Self {
        let condition = condition.into();
        let location = Location::caller();
        let marks = switches::marks(&self.container);
        let (steps, routes) = (self.steps.len(), self.routes.len());
        let (mounts, layers) = (self.mounts.len(), self.layers.len());
        // A fallback set inside replaces the one before, under the condition.
        let before = self.fallback.take();
        let mut app = register(self);
        switches::put_under(&mut app.container, condition.clone(), marks);
        // A module's steps and routes are under its module's condition already.
        let steps = app
            .steps
            .iter_mut()
            .skip(steps)
            .filter(|s| s.module.is_none());
        for step in steps {
            step.when.push(condition.clone());
        }
        let routes = app
            .routes
            .iter_mut()
            .skip(routes)
            .filter(|r| r.module.is_none());
        for route in routes {
            route.when.push(condition.clone());
        }
        match &mut app.fallback {
            Some(route) => route.when.push(condition.clone()),
            None => app.fallback = before,
        }
        let refused = [
            (
                app.mounts.len() - mounts,
                "a mounted service",
                "mounted services",
            ),
            (app.layers.len() - layers, "an app layer", "app layers"),
        ];
        for (count, one, many) in refused.into_iter().filter(|(n, ..)| *n > 0) {
            let what = match count {
                1 => one.to_owned(),
                n => format!("{n} {many}"),
            };
            switches::refuse(&mut app.container, &condition, location, &what);
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
