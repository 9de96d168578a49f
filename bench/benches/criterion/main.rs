//! `cargo bench -p toolcap-bench`: criterion's statistics for the paths the
//! report measures, in one binary (one link of wasmtime). Add a filter to run
//! one group: `cargo bench -p toolcap-bench -- core_cap/`.

mod component;
mod core_cap;
mod readback;
mod redact;
mod startup;

criterion::criterion_main!(
    core_cap::benches,
    component::benches,
    startup::benches,
    readback::benches,
    redact::benches
);
