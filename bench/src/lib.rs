//! Benchmarks of tool-output-cap. `make bench` runs `report`, which measures
//! every path against its baseline in the same run and prints one Markdown
//! table; `cargo bench -p toolcap-bench` gives criterion's detailed view of
//! the same paths.
//!
//! Set `TOOLCAP_BENCH_WASM=path.wasm` to measure another build of the
//! component (A/B of guest flags) without rebuilding the host.

pub mod corpus;
pub mod measure;
pub mod native;
pub mod setup;
pub mod suite;
pub mod table;

use std::time::Duration;

/// Criterion tuned so `cargo bench -p toolcap-bench` takes minutes, not hours:
/// short warm-up and measurement, few samples (the 64 MiB paths take tens of
/// milliseconds per call).
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .without_plots()
}
