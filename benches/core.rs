//! The core's costs: resolving a built value, `build()` at scale (alone, and with the
//! registrations before it), `explain` of a big slice.
//!
//! `cargo bench --bench core`; figures and method in docs/benchmarks.md.

#![allow(missing_docs)] // criterion_group! generates undocumented public fns

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

#[path = "shared/shapes.rs"]
mod shapes;

use green_tea::{Container, ContainerBuilder, Provider};
use shapes::declarations;

/// A builder with `providers` registered, in order.
fn register(providers: Vec<impl Provider>) -> ContainerBuilder {
    providers
        .into_iter()
        .fold(Container::builder(), |builder, provider| {
            builder.provider(provider)
        })
}

/// [`declarations`]`(n)`, registered.
fn graph(n: usize) -> ContainerBuilder {
    register(declarations(n))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn resolve(c: &mut Criterion) {
    let rt = runtime();
    let container = Container::builder().value("db", 42_u64).build().unwrap();
    let db = container.resolver::<u64>("db").unwrap();
    rt.block_on(db.get()).unwrap();
    let arc = Arc::new(42_u64);

    let mut group = c.benchmark_group("resolve");
    group.bench_function("Arc::clone", |b| {
        b.iter(|| black_box(Arc::clone(black_box(&arc))))
    });
    group.bench_function("Resolver::try_get (built)", |b| {
        b.iter(|| black_box(db.try_get().unwrap()))
    });
    group.bench_function("Container::get by key (built)", |b| {
        b.iter(|| rt.block_on(container.get::<u64>(black_box("db"))).unwrap())
    });
    group.finish();
    rt.block_on(container.close()).unwrap();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || graph(n),
                |builder| black_box(builder.build().unwrap()),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// `build()` together with the registrations before it, from the same declarations: work moved
/// from one to the other shows here.
fn register_and_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("register_and_build");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || declarations(n),
                |providers| black_box(register(providers).build().unwrap()),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn explain(c: &mut Criterion) {
    let rt = runtime();
    let container = graph(1_000).build().unwrap();
    rt.block_on(container.build_all()).unwrap();
    assert_eq!(container.explain_key("p999").unwrap().nodes.len(), 1_000);
    c.bench_function("explain_key (1,000-provider slice)", |b| {
        b.iter(|| black_box(container.explain_key(black_box("p999")).unwrap()))
    });
    rt.block_on(container.close()).unwrap();
}

/// `build()` of the 10,000-declaration graph with and without the graph's vocabulary (lists,
/// decorators, optional needs), as 100 modules of 100 providers, and under six switches:
/// `graph_shapes` counts the same four under callgrind.
fn build_shapes(c: &mut Criterion) {
    let mut group = c.benchmark_group("build_shapes");
    group.sample_size(10);
    for (name, graph) in [
        ("plain", shapes::plain as fn() -> ContainerBuilder),
        ("vocabulary", shapes::vocabulary),
        ("modules", shapes::modules),
        ("switched", shapes::switched),
    ] {
        group.bench_function(BenchmarkId::new(name, shapes::N), |b| {
            b.iter_batched(
                graph,
                |builder| black_box(builder.build().unwrap()),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    resolve,
    build,
    register_and_build,
    explain,
    build_shapes
);
criterion_main!(benches);
