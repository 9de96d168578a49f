//! Fuzz target: `json::parse_document` against serde_json on any text.
//! Run: `cargo +nightly fuzz run --features libfuzzer json_document` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_json_document(data);
});
