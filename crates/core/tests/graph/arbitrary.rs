//! Arbitrary graphs: providers, values, overrides and request-scoped steps and routes, with keys
//! from a small alphabet and a few Rust types, so that duplicates, cycles, missing keys, scope
//! violations and type mismatches all happen.
//!
//! `build_with` never panics. It fails with exactly the problems an independent check of the
//! same declarations expects, each with a code and a rendering; or it succeeds, and then the
//! wiring matches that check, every key holds the value of the declaration that owns it (the
//! override, where there is one), `start()` (or lazy `get`s) build each provider once after
//! its dependencies, and `close()` disposes each once before its dependencies.
//!
//! CI runs a few hundred cases; `PROPTEST_CASES=200000` runs more. The cargo-fuzz target
//! `graph` (in `fuzz/`) feeds fuzzer bytes through the same strategy into the same `check`.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::build::{RequestDecls, Wired};
use green_tea_core::__private::layer::values::{AnyValue, Source};
use green_tea_core::{
    BoxError, BuildError, Container, ContainerBuilder, Descriptor, Needs, ProvideError, Provided,
    Provider, ProviderFn,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Few keys, so that they collide; `ab`/`a_b` and `c`/`cc` are near-misses for "did you mean".
const KEYS: [&str; 6] = ["a", "b", "c", "ab", "a_b", "cc"];
/// Few names, so that two declarations share one.
const NAMES: [&str; 4] = ["p", "q", "billing", "orders"];

/// The Rust type of a key: mostly `u32`, so that many graphs type-check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ty {
    U8,
    U32,
    Text,
    Marker,
}

/// A value type that remembers which declaration made it.
#[derive(Debug)]
struct Marker(usize);

trait Made: Send + Sync + 'static {
    fn made_by(decl: usize) -> Self;
    fn maker(&self) -> usize;
}

impl Made for u8 {
    fn made_by(decl: usize) -> Self {
        u8::try_from(decl).expect("fewer than 256 declarations")
    }
    fn maker(&self) -> usize {
        usize::from(*self)
    }
}

impl Made for u32 {
    fn made_by(decl: usize) -> Self {
        u32::try_from(decl).expect("few declarations")
    }
    fn maker(&self) -> usize {
        *self as usize
    }
}

impl Made for String {
    fn made_by(decl: usize) -> Self {
        format!("made by #{decl}")
    }
    fn maker(&self) -> usize {
        self["made by #".len()..].parse().expect("a made value")
    }
}

impl Made for Marker {
    fn made_by(decl: usize) -> Self {
        Marker(decl)
    }
    fn maker(&self) -> usize {
        self.0
    }
}

/// Calls `$body` with `$T` bound to the Rust type of `$ty`.
macro_rules! with_type {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            Ty::U8 => {
                type $T = u8;
                $body
            }
            Ty::U32 => {
                type $T = u32;
                $body
            }
            Ty::Text => {
                type $T = String;
                $body
            }
            Ty::Marker => {
                type $T = Marker;
                $body
            }
        }
    };
}

/// A key (by index into [`KEYS`]) with its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    key: usize,
    ty: Ty,
}

impl Spec {
    fn key(&self) -> &'static str {
        KEYS[self.key]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `ProviderFn` when it provides exactly one key, a hand-written provider otherwise.
    Provider,
    Value,
    OverrideValue,
    OverrideProvider,
    Step,
    Route,
}

impl Kind {
    fn is_request_scoped(self) -> bool {
        matches!(self, Kind::Step | Kind::Route)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct DeclInput {
    kind: Kind,
    name: usize,
    provides: Vec<Spec>,
    needs: Vec<Spec>,
}

/// One arbitrary graph, and how to exercise it if it is valid.
#[derive(Clone, Debug)]
pub(crate) struct GraphInput {
    decls: Vec<DeclInput>,
    /// `start()` everything, or `get` each key lazily.
    start_all: bool,
}

// No `prop_oneof!` here: its unchosen branches fork the RNG, which under the fuzz targets'
// pass-through RNG halves the fuzzer's bytes at every choice. A range mapped to the choices
// draws from one stream.

fn ty() -> impl Strategy<Value = Ty> {
    (0_u8..9).prop_map(|n| match n {
        0..=5 => Ty::U32,
        6 => Ty::U8,
        7 => Ty::Text,
        _ => Ty::Marker,
    })
}

/// Mostly the first three keys, sometimes a near-miss.
fn spec() -> impl Strategy<Value = Spec> {
    (0_usize..15, ty()).prop_map(|(n, ty)| Spec {
        key: if n < 12 { n % 3 } else { 3 + n % 3 },
        ty,
    })
}

fn decl() -> impl Strategy<Value = DeclInput> {
    let kind = (0_u8..12).prop_map(|n| match n {
        0..=3 => Kind::Provider,
        4 | 5 => Kind::Value,
        6 => Kind::OverrideValue,
        7 => Kind::OverrideProvider,
        8 | 9 => Kind::Step,
        _ => Kind::Route,
    });
    (
        kind,
        0..NAMES.len(),
        proptest::collection::vec(spec(), 0..=3),
        proptest::collection::vec(spec(), 0..=3),
        spec(),
    )
        .prop_map(|(kind, name, mut provides, mut needs, one)| {
            match kind {
                // A value provides its one key and needs nothing.
                Kind::Value | Kind::OverrideValue => {
                    provides = vec![one];
                    needs.clear();
                }
                Kind::Route => provides.clear(),
                Kind::Step => provides.truncate(2),
                Kind::Provider | Kind::OverrideProvider => {}
            }
            DeclInput {
                kind,
                name,
                provides,
                needs,
            }
        })
}

/// An arbitrary graph of up to 10 declarations: as drawn (most have problems), or repaired
/// into a valid one, so that building, starting and closing are exercised as often.
pub(crate) fn graph_input() -> impl Strategy<Value = GraphInput> {
    (
        proptest::collection::vec(decl(), 0..=10),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(decls, repair, start_all)| GraphInput {
            decls: if repair { repaired(decls) } else { decls },
            start_all,
        })
}

/// The declarations made valid: each key provided once, needs only of keys provided earlier
/// (so no cycle), with the provider's type and scope, and overrides only of provided keys.
fn repaired(decls: Vec<DeclInput>) -> Vec<DeclInput> {
    // Key -> (type, provided by a step, already overridden).
    let mut provided: HashMap<usize, (Ty, bool, bool)> = HashMap::new();
    let mut valid = Vec::new();
    for mut d in decls {
        let overrides = matches!(d.kind, Kind::OverrideValue | Kind::OverrideProvider);
        let request = d.kind.is_request_scoped();
        d.needs
            .retain(|n| matches!(provided.get(&n.key), Some(&(_, step, _)) if request || !step));
        for n in &mut d.needs {
            n.ty = provided[&n.key].0;
        }
        let mut mine = BTreeSet::new();
        if overrides {
            // An override redirects earlier consumers to itself: needing anything could close
            // a ring, so a repaired override needs nothing.
            d.needs.clear();
            d.provides.retain(|s| {
                matches!(provided.get(&s.key), Some(&(_, _, false))) && mine.insert(s.key)
            });
            for s in &mut d.provides {
                let entry = provided.get_mut(&s.key).unwrap();
                s.ty = entry.0;
                entry.2 = true;
            }
        } else {
            d.provides
                .retain(|s| !provided.contains_key(&s.key) && mine.insert(s.key));
            for s in &d.provides {
                provided.insert(s.key, (s.ty, request, false));
            }
        }
        let empty_value =
            matches!(d.kind, Kind::Value | Kind::OverrideValue) && d.provides.is_empty();
        if !empty_value {
            valid.push(d);
        }
    }
    valid
}

/// What happened to the providers, in order: `(provide | dispose, declaration)`.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(&'static str, usize)>>>);

impl Log {
    fn push(&self, event: &'static str, decl: usize) {
        self.0.lock().unwrap().push((event, decl));
    }
    /// The declarations of every `event`, in order.
    fn of(&self, event: &str) -> Vec<usize> {
        let events = self.0.lock().unwrap();
        events
            .iter()
            .filter(|e| e.0 == event)
            .map(|e| e.1)
            .collect()
    }
}

/// Needs each declared need as its declared type; provides one made value per declared key.
fn check_needs(needs: &Needs<'_>, specs: &[Spec]) -> Result<(), BoxError> {
    assert_eq!(needs.len(), specs.len(), "one value per declared need");
    for (i, spec) in specs.iter().enumerate() {
        with_type!(spec.ty, T => { needs.get::<T>(i)?; });
    }
    Ok(())
}

fn made(decl: usize, specs: &[Spec]) -> Provided {
    specs.iter().fold(
        Provided::new(),
        |provided, spec| with_type!(spec.ty, T => provided.with(T::made_by(decl))),
    )
}

/// A hand-written provider of any number of keys.
struct AnyProvider {
    decl: usize,
    name: &'static str,
    provides: Vec<Spec>,
    needs: Vec<Spec>,
    log: Log,
}

impl Provider for AnyProvider {
    fn descriptor(&self) -> Descriptor {
        let d = self.provides.iter().fold(
            Descriptor::new(self.name),
            |d, s| with_type!(s.ty, T => d.provides::<T>(s.key())),
        );
        self.needs
            .iter()
            .fold(d, |d, s| with_type!(s.ty, T => d.needs::<T>(s.key())))
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        check_needs(&needs, &self.needs)?;
        self.log.push("provide", self.decl);
        Ok(made(self.decl, &self.provides))
    }

    async fn dispose(&self, provided: &Provided) -> Result<(), BoxError> {
        assert_eq!(provided.len(), self.provides.len());
        self.log.push("dispose", self.decl);
        Ok(())
    }
}

/// A `ProviderFn` of one key of type `T`.
fn provider_fn<T: Made>(
    decl: usize,
    name: &'static str,
    d: &DeclInput,
    log: &Log,
) -> impl Provider {
    let (specs, log) = (d.needs.clone(), log.clone());
    let provider = ProviderFn::new(d.provides[0].key(), move |needs: Needs<'static>| {
        let (specs, log) = (specs.clone(), log.clone());
        async move {
            check_needs(&needs, &specs)?;
            log.push("provide", decl);
            Ok(T::made_by(decl))
        }
    })
    .named(name);
    d.needs.iter().fold(
        provider,
        |p, s| with_type!(s.ty, N => p.needs::<N>(s.key())),
    )
}

/// The graph in the order the test numbers it: app-scoped declarations first (container
/// order), then the request-scoped ones (steps and routes, in input order; each carries its
/// number here as its payload in the request scope).
struct Layout<'a> {
    decls: Vec<&'a DeclInput>,
    app: usize,
}

impl<'a> Layout<'a> {
    fn of(input: &'a GraphInput) -> Self {
        let app: Vec<&DeclInput> = input
            .decls
            .iter()
            .filter(|d| !d.kind.is_request_scoped())
            .collect();
        let count = app.len();
        let mut decls = app;
        decls.extend(input.decls.iter().filter(|d| d.kind.is_request_scoped()));
        Layout { decls, app: count }
    }

    fn builder(&self, log: &Log) -> (ContainerBuilder, RequestDecls<usize, usize>) {
        let mut builder = Container::builder();
        for (id, d) in self.decls[..self.app].iter().enumerate() {
            let name = NAMES[d.name];
            builder = match d.kind {
                Kind::Provider if d.provides.len() == 1 => {
                    with_type!(d.provides[0].ty, T => builder.provider(provider_fn::<T>(id, name, d, log)))
                }
                Kind::Provider | Kind::OverrideProvider => {
                    let provider = AnyProvider {
                        decl: id,
                        name,
                        provides: d.provides.clone(),
                        needs: d.needs.clone(),
                        log: log.clone(),
                    };
                    if d.kind == Kind::Provider {
                        builder.provider(provider)
                    } else {
                        builder.override_provider(provider)
                    }
                }
                Kind::Value => {
                    let s = d.provides[0];
                    with_type!(s.ty, T => builder.value(s.key(), T::made_by(id)))
                }
                Kind::OverrideValue => {
                    let s = d.provides[0];
                    with_type!(s.ty, T => builder.override_value(s.key(), T::made_by(id)))
                }
                Kind::Step | Kind::Route => unreachable!("app-scoped declarations only"),
            };
        }
        let mut scope = RequestDecls::new();
        for (offset, d) in self.decls[self.app..].iter().enumerate() {
            let decl = self.app + offset;
            let descriptor = d.provides.iter().fold(
                Descriptor::new(NAMES[d.name]),
                |x, s| with_type!(s.ty, T => x.provides::<T>(s.key())),
            );
            let descriptor = d.needs.iter().fold(
                descriptor,
                |x, s| with_type!(s.ty, T => x.needs::<T>(s.key())),
            );
            if d.kind == Kind::Step {
                scope.add_step(descriptor, decl);
            } else {
                scope.add_route(descriptor, Vec::new(), decl);
            }
        }
        (builder, scope)
    }
}

/// The independent check: which declaration each key resolves to, what each need resolves to,
/// and how many problems of each code the graph has.
struct Expected {
    /// Key -> (declaration, index among its provides).
    keys: HashMap<usize, (usize, usize)>,
    /// Per declaration, per need: the declaration and index it resolves to, if any.
    needs: Vec<Vec<Option<(usize, usize)>>>,
    /// Problem code -> how many (cycles: how many rings).
    codes: BTreeMap<&'static str, usize>,
}

impl Expected {
    fn of(layout: &Layout<'_>) -> Self {
        let decls = &layout.decls;
        let is_override =
            |d: &DeclInput| matches!(d.kind, Kind::OverrideValue | Kind::OverrideProvider);
        let mut codes: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut count = |code| *codes.entry(code).or_default() += 1;
        let mut keys: HashMap<usize, (usize, usize)> = HashMap::new();
        for (i, d) in decls.iter().enumerate().filter(|(_, d)| !is_override(d)) {
            for (index, s) in d.provides.iter().enumerate() {
                match keys.entry(s.key) {
                    Entry::Occupied(_) => count("GT0003"),
                    Entry::Vacant(slot) => {
                        slot.insert((i, index));
                    }
                }
            }
        }
        for (i, d) in decls.iter().enumerate().filter(|(_, d)| is_override(d)) {
            for (index, s) in d.provides.iter().enumerate() {
                match keys.get(&s.key).copied() {
                    None => count("GT0005"),
                    Some((base, _)) if is_override(decls[base]) => count("GT0003"),
                    Some((base, base_index)) => {
                        if decls[base].provides[base_index].ty != s.ty {
                            // One problem; the key stays with the declaration it would replace.
                            count("GT0004");
                        } else {
                            keys.insert(s.key, (i, index));
                        }
                    }
                }
            }
        }
        let mut edges = vec![vec![false; decls.len()]; decls.len()];
        let mut missing = BTreeSet::new();
        let needs = decls
            .iter()
            .enumerate()
            .map(|(i, d)| {
                d.needs
                    .iter()
                    .map(|need| {
                        let Some(&(p, index)) = keys.get(&need.key) else {
                            // One problem per missing key, naming every consumer.
                            if missing.insert(need.key) {
                                count("GT0001");
                            }
                            return None;
                        };
                        if decls[p].provides[index].ty != need.ty {
                            count("GT0004");
                        }
                        if i < layout.app && p >= layout.app {
                            count("GT0006");
                        }
                        edges[p][i] = true;
                        Some((p, index))
                    })
                    .collect()
            })
            .collect();
        // Rings: classes of mutually reachable declarations that lie on a cycle.
        let reach = closure(edges);
        let mut ring_of: Vec<Option<usize>> = vec![None; decls.len()];
        let mut rings = 0;
        for i in 0..decls.len() {
            if reach[i][i] && ring_of[i].is_none() {
                for j in 0..decls.len() {
                    if reach[i][j] && reach[j][i] {
                        ring_of[j] = Some(rings);
                    }
                }
                rings += 1;
            }
        }
        if rings > 0 {
            codes.insert("GT0002", rings);
        }
        Expected { keys, needs, codes }
    }
}

/// Transitive closure (Floyd–Warshall over booleans): `reach[a][b]` if a path of one or more
/// edges leads from `a` to `b`.
fn closure(mut reach: Vec<Vec<bool>>) -> Vec<Vec<bool>> {
    for k in 0..reach.len() {
        let through = reach[k].clone();
        for row in &mut reach {
            if row[k] {
                for (to, &via) in row.iter_mut().zip(&through) {
                    *to |= via;
                }
            }
        }
    }
    reach
}

/// Builds `input` and checks everything the file's header promises.
pub(crate) fn check(input: &GraphInput) -> Result<(), TestCaseError> {
    let layout = Layout::of(input);
    let expected = Expected::of(&layout);
    let log = Log::default();
    let (builder, scope) = layout.builder(&log);
    match layer::build::build_scope(builder, scope) {
        Err(error) => check_error(&error, &expected),
        Ok(wired) => {
            prop_assert!(
                expected.codes.is_empty(),
                "built, but expected problems {:?}",
                expected.codes
            );
            let app_sources = check_plans(&layout, &expected, &wired)?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap();
            runtime.block_on(check_lifecycle(
                input,
                &layout,
                &expected,
                &wired.container,
                &app_sources,
                &log,
            ))
        }
    }
}

fn check_error(error: &BuildError, expected: &Expected) -> Result<(), TestCaseError> {
    let mut codes: BTreeMap<&'static str, usize> = BTreeMap::new();
    let text = error.to_string();
    prop_assert!(!error.problems().is_empty(), "an error with no problem");
    for problem in error.problems() {
        let code = problem.code();
        prop_assert!(
            code.len() == 6
                && code.starts_with("GT")
                && code[2..].bytes().all(|b| b.is_ascii_digit()),
            "code {code:?}"
        );
        let rendered = problem.to_string();
        prop_assert!(
            rendered.starts_with(&format!("error[{code}]: ")),
            "{rendered}"
        );
        prop_assert!(text.contains(&rendered), "the error shows every problem");
        *codes.entry(code).or_default() += 1;
    }
    prop_assert!(
        error
            .problems()
            .windows(2)
            .all(|w| w[0].code() <= w[1].code()),
        "problems are sorted by code"
    );
    prop_assert!(text.ends_with("nothing was built"), "{text}");
    prop_assert_eq!(&codes, &expected.codes, "{}", text);
    Ok(())
}

/// Checks every route's plan against the independent check: it runs exactly the steps its
/// handler needs, transitively, each after the steps it needs; each need of a step or the
/// handler reads the right local value (by the plan's layout) or an app value. Returns, for
/// the app values, which key each must hold the value of (checked once they are built).
fn check_plans(
    layout: &Layout<'_>,
    expected: &Expected,
    wired: &Wired<usize, usize>,
) -> Result<Vec<(layer::values::AppValue, usize)>, TestCaseError> {
    let steps = layout.decls.iter().filter(|d| d.kind == Kind::Step).count();
    prop_assert_eq!(wired.steps.len(), steps);
    let mut app_sources = Vec::new();
    for route in wired.routes.iter() {
        let decl = route.route;
        let plan = &route.plan;
        // The steps the route needs, transitively, by the independent check.
        let mut wanted = BTreeSet::new();
        let mut stack = vec![decl];
        while let Some(d) = stack.pop() {
            for &(p, _) in expected.needs[d].iter().flatten() {
                if p >= layout.app && wanted.insert(p) {
                    stack.push(p);
                }
            }
        }
        let runs: Vec<usize> = plan
            .steps
            .iter()
            .map(|s| wired.steps[s.step].step)
            .collect();
        prop_assert_eq!(
            runs.iter().copied().collect::<BTreeSet<_>>(),
            wanted,
            "the route runs exactly the steps it needs"
        );
        prop_assert_eq!(runs.len(), plan.steps.len(), "each step once");
        // Local values, in run order.
        let mut first_local = HashMap::new();
        let mut locals = 0;
        for &step in &runs {
            first_local.insert(step, locals);
            locals += layout.decls[step].provides.len();
        }
        prop_assert_eq!(plan.locals, locals);
        let mut check_sources =
            |consumer: usize, sources: &[Source]| -> Result<(), TestCaseError> {
                prop_assert_eq!(sources.len(), layout.decls[consumer].needs.len());
                for (j, source) in sources.iter().enumerate() {
                    let (p, index) =
                        expected.needs[consumer][j].expect("a valid graph resolves every need");
                    match *source {
                        Source::App(at) => {
                            prop_assert!(p < layout.app, "{source:?} should be a step's value");
                            prop_assert!(plan.app_values.contains(&at));
                            app_sources.push((at, layout.decls[consumer].needs[j].key));
                        }
                        Source::Local(local) => {
                            prop_assert!(p >= layout.app, "{source:?} should be an app value");
                            prop_assert_eq!(local.position(), first_local[&p] + index);
                            if consumer >= layout.app && consumer != decl {
                                let at = |d| runs.iter().position(|&r| r == d).unwrap();
                                prop_assert!(at(p) < at(consumer), "a step runs after its needs");
                            }
                        }
                        Source::Absent => {
                            prop_assert!(false, "{source:?}: these graphs have no optional needs")
                        }
                    }
                }
                Ok(())
            };
        for planned in plan.steps.iter() {
            check_sources(wired.steps[planned.step].step, &planned.needs)?;
        }
        check_sources(decl, &plan.needs)?;
    }
    let app_keys: BTreeSet<&str> = expected
        .keys
        .iter()
        .filter(|(_, (p, _))| *p < layout.app)
        .map(|(&k, _)| KEYS[k])
        .collect();
    let keys: Vec<String> = wired
        .container
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect();
    prop_assert_eq!(
        keys,
        app_keys.iter().map(|k| k.to_string()).collect::<Vec<_>>()
    );
    Ok(app_sources)
}

async fn check_lifecycle(
    input: &GraphInput,
    layout: &Layout<'_>,
    expected: &Expected,
    container: &Container,
    app_sources: &[(layer::values::AppValue, usize)],
    log: &Log,
) -> Result<(), TestCaseError> {
    let app = layout.app;
    // Dependencies among app-scoped declarations, transitively.
    let mut edges = vec![vec![false; app]; app];
    for (i, needs) in expected.needs[..app].iter().enumerate() {
        for &(p, _) in needs.iter().flatten() {
            edges[i][p] = true;
        }
    }
    let depends_on = closure(edges);
    let routed: BTreeMap<usize, (usize, usize)> = expected
        .keys
        .iter()
        .filter(|(_, (p, _))| *p < app)
        .map(|(&k, &at)| (k, at))
        .collect();

    // Providers whose every key an override replaced: docs/testing.md says they are never
    // built, but `Container::start()` builds them (see the ignored regression test below), so
    // here they may be built after `start()`, and must not be otherwise.
    let replaced: BTreeSet<usize> = (0..app)
        .filter(|&d| {
            let provides = &layout.decls[d].provides;
            !provides.is_empty() && provides.iter().all(|s| routed[&s.key].0 != d)
        })
        .collect();
    let (required, tolerated) = if input.start_all {
        container
            .build_all()
            .await
            .map_err(|e| TestCaseError::fail(format!("start: {e}")))?;
        let all: BTreeSet<usize> = (0..app).filter(|d| !replaced.contains(d)).collect();
        (all, replaced)
    } else {
        let mut slices = BTreeSet::new();
        for &(p, _) in routed.values() {
            slices.insert(p);
            slices.extend((0..app).filter(|&d| depends_on[p][d]));
        }
        (slices, BTreeSet::new())
    };
    for (&key, &(p, index)) in &routed {
        let ty = layout.decls[p].provides[index].ty;
        let maker = with_type!(ty, T => container
            .get::<T>(KEYS[key])
            .await
            .map(|v| v.maker())
            .map_err(|e| TestCaseError::fail(format!("get {}: {e}", KEYS[key])))?);
        prop_assert_eq!(maker, p, "`{}` holds the value of its owner", KEYS[key]);
        let explain = container
            .explain_key(KEYS[key])
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let _ = (
            explain.to_string(),
            explain.to_dot(),
            explain.to_mermaid(),
            explain.to_json(),
        );
    }

    // Each app value a route's plan reads is the value of the key its consumer needs.
    for &(at, key) in app_sources {
        let planned = layer::values::value(container, at);
        let ty = layout.decls[routed[&key].0].provides[routed[&key].1].ty;
        let got: AnyValue = with_type!(ty, T => container
            .get::<T>(KEYS[key])
            .await
            .map_err(|e| TestCaseError::fail(e.to_string()))?);
        prop_assert!(
            planned.is_some_and(|v| Arc::ptr_eq(v, &got)),
            "a plan reads `{}` from the wrong value",
            KEYS[key]
        );
    }

    // Values log nothing; `ProviderFn`s log their builds but have no dispose to log.
    let logs_provide =
        |d: &usize| !matches!(layout.decls[*d].kind, Kind::Value | Kind::OverrideValue);
    let logs_dispose = |d: &usize| is_any_provider(layout.decls[*d]);
    let provided = log.of("provide");
    let built: BTreeSet<usize> = provided.iter().copied().collect();
    prop_assert_eq!(
        built.len(),
        provided.len(),
        "each provider is built at most once"
    );
    let required: BTreeSet<usize> = required.into_iter().filter(logs_provide).collect();
    prop_assert!(
        built.is_superset(&required) && built.difference(&required).all(|d| tolerated.contains(d)),
        "built {:?}, expected {:?} (and maybe {:?})",
        built,
        required,
        tolerated
    );
    for (pos, &d) in provided.iter().enumerate() {
        for &dep in &provided[pos + 1..] {
            prop_assert!(
                !depends_on[d][dep],
                "#{d} was built before its dependency #{dep}"
            );
        }
    }

    container
        .close()
        .await
        .map_err(|e| TestCaseError::fail(format!("close: {e}")))?;
    let disposed = log.of("dispose");
    let disposed_once: BTreeSet<usize> = disposed.iter().copied().collect();
    prop_assert_eq!(
        disposed_once.len(),
        disposed.len(),
        "each provider is disposed once"
    );
    let should: BTreeSet<usize> = built.into_iter().filter(logs_dispose).collect();
    prop_assert_eq!(disposed_once, should, "every built provider is disposed");
    for (pos, &d) in disposed.iter().enumerate() {
        for &dependent in &disposed[pos + 1..] {
            prop_assert!(
                !depends_on[dependent][d],
                "#{d} was disposed before its dependent #{dependent}"
            );
        }
    }
    let after = container.get::<u32>(KEYS[0]).await;
    let refused = matches!(
        after,
        Err(ProvideError::Closed
            | ProvideError::UnknownKey { .. }
            | ProvideError::WrongType { .. })
    );
    prop_assert!(refused, "get after close: {:?}", after.map(|_| ()));
    Ok(())
}

/// Whether declaration `d` is an [`AnyProvider`] (the only providers that log disposal).
fn is_any_provider(d: &DeclInput) -> bool {
    match d.kind {
        Kind::Provider => d.provides.len() != 1,
        Kind::OverrideProvider => true,
        _ => false,
    }
}

/// Every case on a fresh runtime; `PROPTEST_CASES` overrides the CI count.
fn config(ci_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = ci_cases;
    }
    config
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn arbitrary_graphs_build_or_explain_every_problem(input in graph_input()) {
        check(&input)?;
    }
}

/// The smallest graph the property found: docs/testing.md promises "The replaced provider is
/// never built", and lazy `get`s keep that promise, but `Container::start()` builds every node
/// in the graph's order, the replaced one included (`container/mod.rs`, `start`: `all` is
/// `inner.order`, which holds every provider).
#[test]
fn start_does_not_build_a_replaced_provider() {
    let log = Log::default();
    let real = log.clone();
    let container = Container::builder()
        .provider(ProviderFn::new("a_b", move |_| {
            let real = real.clone();
            async move {
                real.push("provide", 0);
                Ok(0_u32)
            }
        }))
        .override_value("a_b", 1_u32)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    runtime.block_on(async {
        container.build_all().await.unwrap();
        assert_eq!(*container.get::<u32>("a_b").await.unwrap(), 1);
        container.close().await.unwrap();
    });
    assert_eq!(
        log.of("provide"),
        Vec::<usize>::new(),
        "the real provider was built"
    );
}
