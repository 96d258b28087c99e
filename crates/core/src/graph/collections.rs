//! The collection nodes `build()` adds to the graph: one per list and map that the
//! declarations need or contribute to, each a provider of its contributions ([`Members`]).

use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::KeyMap;
use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::key::{Key, KeySpec, Location, Spelling, TypeInfo};
use crate::provider::{ErasedProvider, Registered};
use crate::value::{AnyValue, Members, Needs, Provided};

/// The provider behind a collection's node: it needs every contribution (its descriptor's
/// needs are filled in by `build()`, which decides them) and provides [`Members`].
pub(crate) struct Collect {
    pub(crate) element: TypeInfo,
    /// A map's entry names, in the order of the needs; empty for a list.
    pub(crate) names: Box<[Key]>,
}

impl ErasedProvider for Collect {
    fn provide<'a>(&'a self, needs: Needs<'a>) -> BoxFuture<'a, Result<Provided, BoxError>> {
        let values = (0..needs.len())
            .map(|i| needs.any(i).cloned())
            .collect::<Result<Box<[AnyValue]>, _>>();
        let provided = values.map_err(BoxError::from).map(|values| {
            Provided::one(Members::new(self.element.id(), values, self.names.clone()))
        });
        Box::pin(std::future::ready(provided))
    }

    fn dispose<'a>(&'a self, _provided: &'a Provided) -> BoxFuture<'a, Result<(), BoxError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// A collection node for each list and map that `declarations` need or contribute to, in the
/// order they first appear. Its type is the one its first consumer needs, or else its first
/// contributor's; its location that declaration's. Its needs are filled in by [`fill`], once
/// `build()` has decided its contributions.
pub(crate) fn nodes<'a>(declarations: impl Iterator<Item = &'a Descriptor>) -> Vec<Registered> {
    // (collection key, type, location, whether a consumer gave the type), and where each key is.
    let mut found: Vec<(Key, TypeInfo, Location, bool)> = Vec::new();
    let mut at: KeyMap<usize> = KeyMap::default();
    let mut note = |key: Key, spec: &KeySpec, location: Location, consumer: bool| match at.get(&key)
    {
        Some(&i) => {
            let seen = &mut found[i];
            if consumer && !seen.3 {
                (seen.1, seen.2, seen.3) = (spec.ty, location, true);
            }
        }
        None => {
            at.insert(key.clone(), found.len());
            found.push((key, spec.ty, location, consumer));
        }
    };
    for descriptor in declarations {
        let location = descriptor.location;
        for spec in descriptor
            .needs
            .iter()
            .filter(|s| s.key.may_be_collection())
        {
            // A list's or a map's key is the collection's own.
            if let Ok(Spelling::List(_) | Spelling::Map(_)) = spec.key.spelling() {
                note(spec.key.clone(), spec, location, true);
            }
        }
        for spec in descriptor
            .provides
            .iter()
            .filter(|s| s.key.may_be_collection())
        {
            match spec.key.spelling() {
                Ok(Spelling::List(_)) => note(spec.key.clone(), spec, location, false),
                Ok(Spelling::Entry { map, .. }) => {
                    note(Key::from(format!("{map}{{}}")), spec, location, false)
                }
                _ => {}
            }
        }
    }
    found
        .into_iter()
        .map(|(key, element, location, _)| {
            let mut descriptor = Descriptor::new(key.to_string()).at(location);
            descriptor.provides.push(KeySpec { key, ty: element });
            Registered {
                descriptor,
                provider: Arc::new(Collect {
                    element,
                    names: Box::new([]),
                }),
            }
        })
        .collect()
}

/// Gives the collection `registered` its contributions: `specs`, in order, as its needs (a
/// map's names from their keys).
pub(crate) fn fill(registered: &mut Registered, specs: Vec<KeySpec>) {
    let collection = &registered.descriptor.provides[0];
    let element = collection.ty;
    // A list's contributions are spelled as the list is (`notifiers[]`), never as a map's
    // entries: only a map's need reading for names.
    let names = match collection.key.spelling() {
        Ok(Spelling::List(_)) => Box::default(),
        _ => specs
            .iter()
            .filter(|s| matches!(s.key.spelling(), Ok(Spelling::Entry { .. })))
            .map(|s| Key::from(super::entry_name(&s.key).to_owned()))
            .collect(),
    };
    registered.descriptor.needs = specs;
    registered.provider = Arc::new(Collect { element, names });
}
