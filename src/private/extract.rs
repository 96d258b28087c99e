//! A handler's and a step's extractors, checked at compile time and read at run time through
//! the type probe (core's `__private::probe`): which may read the body, which are refused, and the read of
//! the one that may.
//!
//! Checks go from the most specific probe to the least, one trait each:
//! - `&&&TypeProbe<T>`, `RefusedExtractor`: axum's extractors of its router's state (`Path`,
//!   `MatchedPath`, `State`...), refused with a message that names green-tea's way;
//! - `&&TypeProbe<T>`, `PartsExtractor`: a `FromRequestParts<()>`, fine anywhere;
//! - `&TypeProbe<T>`, `BodyExtractor`: a `FromRequest<()>`, fine as the body's reader and
//!   refused anywhere else;
//! - `TypeProbe<T>`, `NotAnyExtractor`: anything else, reported as not an extractor.

use std::future::Future;

use axum_core::extract::{FromRequest, FromRequestParts};
use axum_core::response::Response;
use green_tea_http::RequestContext;

use green_tea_core::__private::TypeProbe;
// Defined in the public `extract` module, so that rustc's "the trait ... is not implemented"
// names a path users can read about.
use crate::extract::WorksOutsideAxumRouter;

/// Never implemented: the bound that reports a body extractor where it cannot read the body.
#[diagnostic::on_unimplemented(
    message = "`{Self}` reads the request body, and cannot here",
    label = "reads the body",
    note = "a body extractor (`FromRequest`) must be a route handler's last extractor, and the \
            only parameter that reads the body: not with `#[body]` or a `RequestContext`, \
            and never in a step, which sees only the request head",
    note = "`#[body] x: T` reads JSON; a body extractor (`Json<T>`, `Form<T>`, `Bytes`...) \
            reads the body its own way: take one of them"
)]
pub trait BodyExtractorMisplaced {}

/// What every `check_extractor` returns, which the macros' checks take as a
/// [`WorksOutsideAxumRouter`]: the checks are only type-checked, never run.
pub type RouterCheck<'a> = &'a dyn WorksOutsideAxumRouter;

/// Refuses axum's router extractors, whatever their place: the extractor's type is taken as a
/// [`RouterCheck`], which it is not, so the error names only the type and the public trait (a
/// bound on the method would name the method too).
pub trait RefusedExtractor<T> {
    /// Fails to compile where it is taken as a [`RouterCheck`], pointing at the type.
    fn check_extractor(&self) -> &T {
        unreachable!("only type-checked")
    }
    /// The same for the body's reader.
    fn check_last_extractor(&self) -> &T {
        unreachable!("only type-checked")
    }
}

#[cfg(feature = "axum")]
mod refused {
    use super::{RefusedExtractor, TypeProbe};
    use axum::extract::{ConnectInfo, MatchedPath, NestedPath, Path, RawPathParams, State};

    impl<T> RefusedExtractor<Path<T>> for &&&TypeProbe<Path<T>> {}
    impl RefusedExtractor<RawPathParams> for &&&TypeProbe<RawPathParams> {}
    impl RefusedExtractor<MatchedPath> for &&&TypeProbe<MatchedPath> {}
    impl RefusedExtractor<NestedPath> for &&&TypeProbe<NestedPath> {}
    impl<S> RefusedExtractor<State<S>> for &&&TypeProbe<State<S>> {}
    impl<T> RefusedExtractor<ConnectInfo<T>> for &&&TypeProbe<ConnectInfo<T>> {}
    // Optional forms, which would silently be `None`.
    impl<T> RefusedExtractor<Option<Path<T>>> for &&&TypeProbe<Option<Path<T>>> {}
    impl RefusedExtractor<Option<MatchedPath>> for &&&TypeProbe<Option<MatchedPath>> {}
}

/// A head extractor: fine anywhere.
pub trait PartsExtractor {
    /// Compiles.
    fn check_extractor(&self) -> RouterCheck<'_> {
        unreachable!("only type-checked")
    }
    /// Compiles.
    fn check_last_extractor(&self) -> RouterCheck<'_> {
        unreachable!("only type-checked")
    }
}

impl<T: FromRequestParts<()>> PartsExtractor for &&TypeProbe<T> {}

/// A body extractor: fine as the body's reader, reported anywhere else.
pub trait BodyExtractor<T> {
    /// Fails to compile, pointing at the type: it would read the body, and cannot here.
    fn check_extractor(&self) -> RouterCheck<'_>
    where
        T: BodyExtractorMisplaced,
    {
        unreachable!("only type-checked")
    }
    /// Compiles.
    fn check_last_extractor(&self) -> RouterCheck<'_> {
        unreachable!("only type-checked")
    }
}

impl<T: FromRequest<()>> BodyExtractor<T> for &TypeProbe<T> {}

/// Anything else: reported as not an extractor, with axum-core's note.
pub trait NotAnyExtractor<T> {
    /// Fails to compile, pointing at the type.
    fn check_extractor(&self) -> RouterCheck<'_>
    where
        T: FromRequestParts<()>,
    {
        unreachable!("only type-checked")
    }
    /// Fails to compile, pointing at the type.
    fn check_last_extractor(&self) -> RouterCheck<'_>
    where
        T: FromRequestParts<()>,
    {
        unreachable!("only type-checked")
    }
}

impl<T> NotAnyExtractor<T> for TypeProbe<T> {}

/// Reading a handler's last extractor, which may read the body: a head extractor reads the
/// head (as every other extractor does), a body extractor gets the head and the body.
pub trait ReadHead<T> {
    /// `T::from_request_parts(request.parts_mut(), &())`.
    fn extract_last<'a>(
        &self,
        request: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a;
}

impl<T: FromRequestParts<()>> ReadHead<T> for &&TypeProbe<T> {
    fn extract_last<'a>(
        &self,
        request: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a,
    {
        request.extract::<T>()
    }
}

/// A body extractor's read.
pub trait ReadBody<T> {
    /// `request.extract_body::<T>()`.
    fn extract_last<'a>(
        &self,
        request: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a;
}

impl<T: FromRequest<()>> ReadBody<T> for &TypeProbe<T> {
    fn extract_last<'a>(
        &self,
        request: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a,
    {
        request.extract_body::<T>()
    }
}

/// The stand-in for a type that the checks already reported; it never runs.
pub trait ReadNothing<T> {
    /// Never runs.
    fn extract_last<'a>(
        &self,
        request: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a;
}

impl<T> ReadNothing<T> for TypeProbe<T> {
    fn extract_last<'a>(
        &self,
        _: &'a mut RequestContext,
    ) -> impl Future<Output = Result<T, Response>> + Send + 'a
    where
        T: 'a,
    {
        // Never polled: the crate does not compile.
        std::future::pending()
    }
}
