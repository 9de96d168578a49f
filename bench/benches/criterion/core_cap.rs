//! `cargo bench -p toolcap-bench -- core_cap/`: the core's cap natively,
//! next to a naive copy-and-cut and to memcpy, for every corpus and size.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use toolcap_bench::corpus::{self, Kind, SIZES};
use toolcap_bench::native::Discard;
use toolcap_bench::setup::{self, CALL_ID};

fn core_cap(c: &mut Criterion) {
    let capper = setup::capper();
    for kind in Kind::ALL {
        let mut group = c.benchmark_group(format!("core_cap/{}", kind.name()));
        for size in SIZES {
            let text = corpus::text(kind, size);
            let budget = setup::cut_budget(size);
            let max = budget.max_bytes as usize;
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_function(BenchmarkId::new("cap", size), |b| {
                b.iter(|| capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard))
            });
            group.bench_function(BenchmarkId::new("naive_copy_cut", size), |b| {
                b.iter(|| {
                    let mut s = black_box(&text).to_owned();
                    s.truncate(s.floor_char_boundary(max));
                    s
                })
            });
            let mut copy = vec![0u8; size];
            group.bench_function(BenchmarkId::new("memcpy", size), |b| {
                b.iter(|| copy.copy_from_slice(black_box(text.as_bytes())))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = toolcap_bench::criterion();
    targets = core_cap
}
