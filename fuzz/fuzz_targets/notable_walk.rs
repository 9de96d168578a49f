//! Fuzz target: the failure lines' automaton walked parts at once against
//! its own search and the searches per anchor.
//! Run: `cargo +nightly fuzz run --features libfuzzer notable_walk` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_notable_walk(data);
});
