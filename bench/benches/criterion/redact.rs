//! `cargo bench -p toolcap-bench -- redact/`: secret redaction of a 4 MiB
//! build log, without secrets and with one every 100 lines, whole and line by
//! line, next to a plain copy of the text.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use toolcap_bench::corpus::MIB;
use toolcap_core::Redactor;

/// A CI build log of `size` bytes (whole lines), with a fake secret line
/// every `secret_every` lines when set.
fn build_log(size: usize, secret_every: Option<usize>) -> String {
    // Fake, patterned secrets of several kinds, built here rather than
    // written out.
    let secrets = [
        format!("AWS_ACCESS_KEY_ID=AKIA{}", "FAKE".repeat(4)),
        format!("GITHUB_TOKEN=ghp_{}", "Fake0".repeat(8)[..36].to_owned()),
        format!("> Authorization: Bearer {}", "opaqueFAKE0".repeat(4)),
        "DB_PASSWORD=fake-db-pass-1234".to_owned(),
        format!(
            "https://hooks.slack.com/services/T00000000/B00000000/{}",
            "X".repeat(24)
        ),
    ];
    let mut out = String::with_capacity(size + 256);
    let mut i = 0usize;
    while out.len() < size {
        if secret_every.is_some_and(|n| i % n == n - 1) {
            let _ = writeln!(out, "[step {i}] env: {}", secrets[i / 100 % secrets.len()]);
        } else {
            let _ = match i % 5 {
                0 => writeln!(
                    out,
                    "   Compiling crate-{} v0.{}.{} (/home/runner/work/app/crates/c{})",
                    i % 97,
                    i % 13,
                    i % 7,
                    i % 31
                ),
                1 => writeln!(
                    out,
                    "2026-11-22T11:{:02}:{:02}Z [INFO] fetching https://index.crates.io/config.json token bucket={} ok",
                    i / 60 % 60,
                    i % 60,
                    i % 1000
                ),
                2 => writeln!(
                    out,
                    "  sha256:{:064x} layer {} of 12 pulled",
                    (i as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834),
                    i % 12
                ),
                3 => writeln!(
                    out,
                    "test tests::case_{i} ... ok (password_hash column checked, max_tokens={})",
                    i % 4096
                ),
                _ => writeln!(
                    out,
                    "warning: unused variable `secret_{i}` in src/module_{}.rs:{}:{}",
                    i % 50,
                    i % 900,
                    i % 80
                ),
            };
        }
        i += 1;
    }
    out
}

fn redact(c: &mut Criterion) {
    let redactor = Redactor::new(&["corp-vault-FAKE-9f8e7d".to_owned()]).expect("valid literal");
    let size = 4 * MIB;
    let mut group = c.benchmark_group("redact/build_log");
    group.throughput(Throughput::Bytes(size as u64));
    for (name, every) in [("clean", None), ("secret_every_100_lines", Some(100))] {
        let text = build_log(size, every);
        let found = redactor.redact(&text).1.total();
        assert_eq!(found == 0, every.is_none(), "{name}: {found} secrets found");
        group.bench_function(BenchmarkId::new("redact", name), |b| {
            b.iter(|| redactor.redact(black_box(&text)))
        });
        group.bench_function(BenchmarkId::new("stream", name), |b| {
            b.iter(|| {
                let mut stream = redactor.stream();
                let mut out = String::with_capacity(text.len());
                for line in black_box(&text).split_inclusive('\n') {
                    stream.push_line(line, &mut out);
                }
                out
            })
        });
        group.bench_function(BenchmarkId::new("copy", name), |b| {
            b.iter(|| black_box(&text).to_owned())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = toolcap_bench::criterion();
    targets = redact
}
