//! Fuzz target: `read_page`, `read_lines` and `grep` with any arguments.
//! Run: `cargo +nightly fuzz run --features libfuzzer readback` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_readback(data);
});
