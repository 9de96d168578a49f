//! `cargo bench -p toolcap-bench -- readback/`: find-refs over 1 MiB with
//! and without notices; grep and read-lines on a 64 MiB spill. Component and
//! native core side by side.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group};
use toolcap_bench::corpus::{self, KIB, Kind, MIB};
use toolcap_bench::native::FsFile;
use toolcap_bench::setup;
use toolcap_core::readback;

fn find_refs(c: &mut Criterion) {
    let tool_cap = setup::tool_cap(None);
    let mut session = setup::session(&tool_cap, None);
    let capper = setup::capper();
    let plain = corpus::text(Kind::Ascii, MIB);
    let (noted, _) = setup::with_notices(&plain, 4 * KIB);
    let mut group = c.benchmark_group("find_refs");
    group.throughput(Throughput::Bytes(MIB as u64));
    for (name, text) in [("plain", &plain), ("notices", &noted)] {
        group.bench_function(format!("component/{name}"), |b| {
            b.iter(|| session.find_refs(black_box(text)))
        });
        group.bench_function(format!("native/{name}"), |b| {
            b.iter(|| capper.scheme().find_refs(black_box(text)))
        });
    }
    group.finish();
}

fn spilled_file(c: &mut Criterion) {
    let tool_cap = setup::tool_cap(None);
    let spill = tempfile::tempdir().unwrap();
    let mut session = setup::session(&tool_cap, Some(spill.path()));
    let size = 64 * MIB;
    let reference = {
        let text = corpus::text(Kind::Ascii, size);
        let budget = setup::host_budget(&setup::cut_budget(size));
        session
            .cap(&text, &budget, "readback")
            .unwrap()
            .report
            .spill
            .unwrap()
    };
    // Per call, as the guest: resolve the path, open the file, check it.
    let capper = setup::capper();
    let root = spill.path();
    let path = reference.path.clone();
    let open = || FsFile::open_ref(root, capper.scheme(), &path).unwrap();
    let first = reference.lines - 1000;
    let page = 64 * KIB as u32;
    let mut group = c.benchmark_group("spilled_64MiB");
    group.throughput(Throughput::Bytes(size as u64));
    group.bench_function("grep/component", |b| {
        b.iter(|| session.grep(&path, "ERROR", 10))
    });
    group.bench_function("grep/native", |b| {
        b.iter(|| readback::grep(&mut open(), "ERROR", 10))
    });
    group.bench_function("read_lines/component", |b| {
        b.iter(|| session.read_lines(&path, first, 100, page))
    });
    group.bench_function("read_lines/native", |b| {
        b.iter(|| readback::read_lines(&mut open(), first, 100, page))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolcap_bench::criterion();
    targets = find_refs, spilled_file
}
