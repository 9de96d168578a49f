//! `cargo bench -p toolcap-bench -- startup/`: compile, load a serialized
//! component, instantiate from an `InstancePre`, open a session; with and
//! without the pooling allocator. A second process with and without the
//! compiled-code cache is measured by the report only (`startup` suite): it
//! spawns the report binary itself.

use std::hint::black_box;

use criterion::{Criterion, criterion_group};
use toolcap_bench::setup;
use toolcap_bench::suite::startup::{Instantiator, POOL_SLOTS, deserialize, pooling_config};
use wasmtime::component::Component;
use wasmtime::{Config, Engine};

fn startup(c: &mut Criterion) {
    let wasm = tool_output_cap::COMPONENT_WASM;
    let engine = Engine::new(&Config::new()).unwrap();
    let serialized = Component::new(&engine, wasm).unwrap().serialize().unwrap();
    let mut group = c.benchmark_group("startup");
    group.bench_function("compile", |b| {
        b.iter(|| Component::new(&engine, black_box(wasm)).unwrap())
    });
    group.bench_function("deserialize", |b| {
        b.iter(|| deserialize(&engine, black_box(&serialized)))
    });
    let on_demand = Instantiator::new(Config::new(), wasm);
    group.bench_function("instantiate_on_demand", |b| {
        b.iter(|| on_demand.instantiate())
    });
    let pooled = Instantiator::new(pooling_config(), wasm);
    group.bench_function("instantiate_pooling", |b| b.iter(|| pooled.instantiate()));
    let spill = tempfile::tempdir().unwrap();
    for (name, slots) in [
        ("open_session_on_demand", None),
        ("open_session_pooling", Some(POOL_SLOTS)),
    ] {
        let tool_cap = setup::tool_cap(slots);
        group.bench_function(name, |b| {
            b.iter(|| setup::session(&tool_cap, Some(spill.path())))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolcap_bench::criterion();
    targets = startup
}
