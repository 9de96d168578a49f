//! Fuzz target: the failure-line rules with phrases ruled out by a line's
//! byte pairs, against the same rules searching every phrase.
//! Run: `cargo +nightly fuzz run --features libfuzzer notable_classify` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_notable_classify(data);
});
