//! The `core` bench's graph, and the three 10,000-declaration graphs that `graph_shapes` (for
//! callgrind) and `core`'s `build_shapes` group (for criterion) build.

use green_tea::{Container, ContainerBuilder, Provider, ProviderFn};

/// How many declarations each graph has.
pub(crate) const N: usize = 10_000;

/// `n` providers `p0..pn`, each needing up to 3 earlier ones (a DAG with ~3n edges), not yet
/// registered: the `core` bench's graph.
pub(crate) fn declarations(n: usize) -> Vec<impl Provider> {
    (0..n)
        .map(|i| {
            let mut provider =
                ProviderFn::new(
                    format!("p{i}"),
                    |needs| async move { Ok(needs.len() as u64) },
                );
            for step in [1, 7, 31] {
                if i >= step {
                    provider = provider.needs::<u64>(format!("p{}", i - step));
                }
            }
            provider
        })
        .collect()
}

/// [`declarations`]`(N)`, registered.
pub(crate) fn plain() -> ContainerBuilder {
    declarations(N)
        .into_iter()
        .fold(Container::builder(), ContainerBuilder::provider)
}

/// What declaration `i` of [`vocabulary`] is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Provider,
    /// Contributes to a list instead of providing `p{i}`.
    Contributor,
    /// Decorates `p{i - 1}`.
    Decorator,
    /// Needs a list, and provides `c{i}`, which nothing needs (so that no list needs itself).
    Consumer,
}

fn kind(i: usize) -> Kind {
    match i % 10 {
        9 => Kind::Decorator,
        0 | 5 => Kind::Contributor,
        _ if i % 100 == 51 => Kind::Consumer,
        _ => Kind::Provider,
    }
}

/// As many declarations, with lists, decorators and optional needs: 6,900 providers, 2,000
/// contributors to 50 lists, 100 providers needing a list each, 1,000 decorators, and 1,000
/// providers with two optional needs, one present and one absent.
pub(crate) fn vocabulary() -> ContainerBuilder {
    (0..N).fold(Container::builder(), |builder, i| {
        if kind(i) == Kind::Decorator {
            let decorator = ProviderFn::new(format!("p{}", i - 1), |needs| async move {
                Ok(*needs.get::<u64>(0)? + 1)
            })
            .needs::<u64>(format!("p{}", i - 1));
            return builder.decorator(decorator);
        }
        let key = match kind(i) {
            Kind::Contributor => format!("l{}[]", i % 50),
            Kind::Consumer => format!("c{i}"),
            _ => format!("p{i}"),
        };
        let mut provider = ProviderFn::new(key, |needs| async move { Ok(needs.len() as u64) });
        for step in [1, 7, 31] {
            if i >= step && kind(i - step) == Kind::Provider {
                provider = provider.needs::<u64>(format!("p{}", i - step));
            }
        }
        if i % 10 == 3 {
            provider = provider
                .needs::<u64>(format!("p{}?", i - 2))
                .needs::<u64>(format!("absent{i}?"));
        }
        if kind(i) == Kind::Consumer {
            provider = provider.needs::<u64>(format!("l{}[]", i / 100 % 50));
        }
        builder.provider(provider)
    })
}

/// The plain graph's 10,000 providers in 100 modules of 100: provider `p{j}` of module `m{k}`
/// needs up to 3 earlier providers of its module, by their plain names, as the plain graph's do;
/// each module exports its even providers (half its keys private), and the first provider of
/// each module from the second on also needs the previous module's last export.
pub(crate) fn modules() -> ContainerBuilder {
    (0..100).fold(Container::builder(), |builder, m| {
        let module = (0..100).fold(green_tea::Module::new(format!("m{m}")), |module, j| {
            let mut provider =
                ProviderFn::new(
                    format!("p{j}"),
                    |needs| async move { Ok(needs.len() as u64) },
                );
            for step in [1, 7, 31] {
                if j >= step {
                    provider = provider.needs::<u64>(format!("p{}", j - step));
                }
            }
            if j == 0 && m > 0 {
                provider = provider.needs::<u64>(format!("m{}::p98", m - 1));
            }
            let module = module.provider(provider);
            if j % 2 == 0 {
                module.export(format!("p{j}"))
            } else {
                module
            }
        });
        builder.module(module)
    })
}

/// The switches of [`switched`]: six flags of one settings type.
#[derive(green_tea::settings::Settings)]
#[settings(provides = "flags", prefix = "FLAGS", discover = false)]
pub(crate) struct Flags {
    #[settings(default = "false")]
    pub(crate) s0: bool,
    #[settings(default = "true")]
    pub(crate) s1: bool,
    #[settings(default = "false")]
    pub(crate) s2: bool,
    #[settings(default = "true")]
    pub(crate) s3: bool,
    #[settings(default = "false")]
    pub(crate) s4: bool,
    #[settings(default = "true")]
    pub(crate) s5: bool,
}

/// The plain graph under six switches: every 100th provider (100 of them) is on under one
/// switch's `true` (`p{i}` under `s{i/100 % 6}`), with an alternative value of its key under
/// `false`, so that every shape has each key once; the settings type the switches read is
/// the 10,101st declaration. Against [`plain`], what switches cost `build()`: the settings
/// read, the switches decided, every shape checked and today's shape built.
pub(crate) fn switched() -> ContainerBuilder {
    use green_tea::switches::Switch;
    let flag = |k: usize, flags: &Flags| match k {
        0 => flags.s0,
        1 => flags.s1,
        2 => flags.s2,
        3 => flags.s3,
        4 => flags.s4,
        _ => flags.s5,
    };
    let builder = (0..6).fold(
        Container::builder().provider(<Flags as green_tea::settings::Settings>::provider()),
        |builder, k| builder.switch(Switch::new(format!("s{k}"), move |f: &Flags| flag(k, f))),
    );
    declarations(N)
        .into_iter()
        .enumerate()
        .fold(builder, |builder, (i, provider)| {
            if i % 100 != 0 {
                return builder.provider(provider);
            }
            let switch = format!("s{}", i / 100 % 6);
            builder
                .when(switch.clone(), |on| on.provider(provider))
                .when(format!("!{switch}"), |off| {
                    off.value(format!("p{i}"), i as u64)
                })
        })
}
