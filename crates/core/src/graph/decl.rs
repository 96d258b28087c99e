//! Declarations as the graph sees them: each one's kind and descriptor, borrowed
//! ([`Decl`]); a route with its guards; the three typed lists the analysis reads ([`Input`]);
//! and the [`Scope`] a node's values live in.

use crate::descriptor::Descriptor;
use crate::error::{NodeKind, Origin};
use crate::ids::{IdVec, ProviderId, RouteId, StepId};
use crate::module::RegisteredModule;

/// How long a node's values live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Built at most once for the whole app (providers and values).
    App,
    /// Built from scratch on every request that needs it (steps, routes).
    Request,
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scope::App => "app",
            Scope::Request => "request",
        })
    }
}

/// One declaration as the graph sees it: its kind and its descriptor, borrowed (the analysis
/// copies nothing per declaration; an [`Origin`] is made only for a problem).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decl<'a> {
    pub(crate) kind: NodeKind,
    pub(crate) descriptor: &'a Descriptor,
    /// The module it was registered in, if any: its position in [`Input::module_table`], plus one
    /// (so that a declaration stays 16 bytes; read it with [`Decl::module`]).
    pub(crate) in_module: Option<std::num::NonZeroU32>,
    /// Whether the keys it provides were qualified by its module's path at registration, each
    /// from a plain name: the graph takes them as they are.
    pub(crate) keys_qualified: bool,
}

impl Decl<'_> {
    /// The module it was registered in (its position in [`Input::module_table`]), if any.
    #[inline]
    pub(crate) fn module(&self) -> Option<u32> {
        self.in_module.map(|m| m.get() - 1)
    }

    /// What [`Decl::in_module`] holds for the module at `module`.
    pub(crate) fn in_module(module: Option<u32>) -> Option<std::num::NonZeroU32> {
        crate::module::module_number(module)
    }

    pub(crate) fn scope(&self) -> Scope {
        match self.kind {
            NodeKind::Step | NodeKind::Route => Scope::Request,
            // A worker is the app's: it cannot need a request's values.
            _ => Scope::App,
        }
    }

    /// Who this is, for an error.
    pub(crate) fn origin(&self) -> Origin {
        Origin {
            kind: self.kind,
            // A module's declaration by its module's path (`notifications::http`); a route
            // by its method and path, which say where it is.
            name: match self.kind {
                NodeKind::Route => self.descriptor.name.to_string(),
                _ => self.descriptor.qualified_name().into_owned(),
            },
            location: self.descriptor.location,
        }
    }

    /// The order of origins (kind, name, location), without making them.
    pub(crate) fn cmp_origin(&self, other: &Decl<'_>) -> std::cmp::Ordering {
        (self.kind, &*self.descriptor.name, self.descriptor.location).cmp(&(
            other.kind,
            &*other.descriptor.name,
            other.descriptor.location,
        ))
    }
}

/// A route as the graph sees it: its handler's declaration and the steps it names as guards.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RouteDecl<'a> {
    pub(crate) decl: Decl<'a>,
    pub(crate) guards: &'a [std::borrow::Cow<'static, str>],
}

/// Everything the graph checks, in three typed lists.
pub(crate) struct Input<'a> {
    pub(crate) providers: IdVec<ProviderId, Decl<'a>>,
    pub(crate) steps: IdVec<StepId, Decl<'a>>,
    pub(crate) routes: IdVec<RouteId, RouteDecl<'a>>,
    /// The modules declarations were registered in.
    pub(crate) module_table: &'a [RegisteredModule],
    /// Each node's condition, when the graph of every shape is checked at once (switches);
    /// `None` for the graph of one shape.
    pub(crate) shapes: Option<Shapes<'a>>,
}

/// Each node's condition (providers, then steps, then routes, as numbered), with the switches
/// they name: the graph of every shape at once, which `graph::shapes` checks.
#[derive(Clone, Copy)]
pub(crate) struct Shapes<'a> {
    /// Each node's condition, as a position in `conditions` (`0`: on in every shape).
    pub(crate) of: &'a [u32],
    /// The distinct conditions, on in every shape first.
    pub(crate) conditions: &'a [crate::switch::condition::Condition],
    /// Whether each node is on in today's shape: the analysis resolves each key to today's
    /// provider, leaves out of a need what is off today, and orders today's graph.
    pub(crate) on: &'a [bool],
    pub(crate) switches: &'a crate::switch::decide::Switches,
}
