//! Fuzz target: `stream-mcp` in any pieces against `cap_mcp` of the whole result.
//! Run: `cargo +nightly fuzz run --features libfuzzer mcp_stream` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_mcp_stream(data);
});
