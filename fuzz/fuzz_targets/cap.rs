//! Fuzz target: `Capper::cap` on any text and budget.
//! Run: `cargo +nightly fuzz run --features libfuzzer cap` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_cap(data);
});
