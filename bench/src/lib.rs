//! Benchmarks of tool-output-cap. `make bench` runs `report`, which measures
//! every path against its baseline in the same run and prints one Markdown
//! table; `cargo bench -p toolcap-bench` gives criterion's detailed view of
//! the same paths. bench/README.md describes every row and holds the numbers.
//!
//! The component measured is the one the `tool-output-cap` crate embeds
//! (`tool_output_cap::COMPONENT_WASM`): the file `TOOLCAP_WASM` names when
//! the crate is built, as for every other host. To measure another build,
//! set `TOOLCAP_WASM=other.wasm` for the `cargo run`; cargo rebuilds the
//! crate around it, and the report's header prints the component's size and
//! digest, so a table always says which build it measured.

pub mod corpus;
pub mod mcp_client;
pub mod mcp_fixture;
pub mod measure;
pub mod native;
pub mod process;
pub mod recall;
pub mod setup;
pub mod suite;
pub mod table;

use std::time::Duration;

/// Criterion tuned so `cargo bench -p toolcap-bench` takes minutes, not hours:
/// short warm-up and measurement, and few samples, because the 64 MiB paths
/// are slow per call.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .without_plots()
}
