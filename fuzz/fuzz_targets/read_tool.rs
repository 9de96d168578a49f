//! Fuzz target: the read tool (`read_tool::run`) on any arguments.
//! Run: `cargo +nightly fuzz run --features libfuzzer read_tool` (see fuzz/README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The checks live in the library so that stable smoke tests run them too.
    let _path = toolcap_fuzz::check_read_tool(data);
});
