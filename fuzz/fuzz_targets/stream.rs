//! Fuzz target: `CapStream` in any chunking against `Capper::cap_call`.
//! Run: `cargo +nightly fuzz run --features libfuzzer stream` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_stream(data);
});
