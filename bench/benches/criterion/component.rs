//! `cargo bench -p toolcap-bench -- component/`: calls through wasmtime
//! next to the same core function natively; a fitting result, and a cut
//! result spilled to disk.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group};
use toolcap_bench::corpus::{self, KIB, Kind, MIB};
use toolcap_bench::native::{self, Discard, FsSpill};
use toolcap_bench::setup::{self, CALL_ID, CallIds, THREAD};

fn call_overhead(c: &mut Criterion) {
    let tool_cap = setup::tool_cap(None);
    let spill = tempfile::tempdir().unwrap();
    let mut session = setup::session(&tool_cap, Some(spill.path()));
    let capper = setup::capper();
    let budget = setup::roomy_budget();
    let host_budget = setup::host_budget(&budget);
    let mut group = c.benchmark_group("cap_fits");
    for size in [KIB, 64 * KIB] {
        let text = corpus::text(Kind::Ascii, size);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("component", size), |b| {
            b.iter(|| session.cap(black_box(&text), &host_budget, CALL_ID))
        });
        group.bench_function(BenchmarkId::new("native", size), |b| {
            b.iter(|| capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard))
        });
    }
    group.finish();
}

/// As the report's `spill` suite: a fresh call id per call on both sides, so
/// every spill creates a new file; the files are removed between iterations,
/// untimed, on both sides alike.
fn spill(c: &mut Criterion) {
    let tool_cap = setup::tool_cap(None);
    let component_dir = tempfile::tempdir().unwrap();
    let native_dir = tempfile::tempdir().unwrap();
    let component_thread = component_dir.path().join(THREAD);
    let native_thread = native_dir.path().join(THREAD);
    let mut session = setup::session(&tool_cap, Some(component_dir.path()));
    let capper = setup::capper();
    let mut store = FsSpill::new(native_dir.path());
    let mut ids = CallIds::default();
    let mut group = c.benchmark_group("cap_spill");
    for size in [4 * MIB, 64 * MIB] {
        let text = corpus::text(Kind::Ascii, size);
        let budget = setup::cut_budget(size);
        let host_budget = setup::host_budget(&budget);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("component", size), |b| {
            b.iter_batched(
                || {
                    native::remove_files(&component_thread);
                    ids.next_id()
                },
                |id| session.cap(black_box(&text), &host_budget, &id),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("native_fs_same_steps", size), |b| {
            b.iter_batched(
                || {
                    native::remove_files(&native_thread);
                    ids.next_id()
                },
                |id| capper.cap(black_box(&text), &budget, &id, &mut store),
                BatchSize::PerIteration,
            )
        });
    }
    native::remove_files(&component_thread);
    native::remove_files(&native_thread);
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolcap_bench::criterion();
    targets = call_overhead, spill
}
