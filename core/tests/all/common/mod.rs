//! Shared by the property-test files of the core.

use proptest::test_runner::Config;

/// `default` cases per property, or `PROPTEST_CASES` when set (`make soak`).
pub fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok());
    Config::with_cases(cases.unwrap_or(default))
}

use proptest::prelude::*;

/// Text that exercises every preview refinement: scripts of 1 to 4 bytes,
/// extended grapheme clusters (ZWJ families, flags, combining marks, CRLF),
/// failure lines of common tools (and look-alikes that are not failures),
/// runs of lines that differ only in numbers, line breaks and control bytes.
/// It never holds `[`, so a test can tell the preview's markers from the
/// input's text.
#[allow(dead_code)]
pub fn rich_text(max: usize) -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        3 => Just("a".to_owned()),
        2 => Just("word ".to_owned()),
        1 => Just("ж".to_owned()),
        1 => Just("中文".to_owned()),
        1 => Just("😀".to_owned()),
        1 => Just("👩\u{200D}👩\u{200D}👧\u{200D}👦".to_owned()),
        1 => Just("🇺🇦🇯🇵".to_owned()),
        1 => Just("e\u{301}\u{302}".to_owned()),
        1 => Just("क्षि".to_owned()),
        4 => Just("\n".to_owned()),
        1 => Just("\r\n".to_owned()),
        1 => Just("\r".to_owned()),
        1 => Just("\0".to_owned()),
        1 => Just("error: mismatched types\n  --> src/lib.rs:12:5\n".to_owned()),
        1 => Just("thread 'main' panicked at src/main.rs:3:5:\n".to_owned()),
        1 => Just("FAILED tests/test_x.py::test_y - AssertionError: boom\n".to_owned()),
        1 => Just("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\nValueError: bad\n".to_owned()),
        1 => Just("0 errors, error_count=0, -Werror\n".to_owned()),
        1 => Just("test error_handling ... ok\n".to_owned()),
        2 => (0u32..300).prop_map(|n| format!("Downloading {n}%\n")),
        2 => "[a-z]{0,40}".prop_map(|s| s),
        1 => "[a-z]{100,400}".prop_map(|s| s),
    ];
    prop::collection::vec(pieces, 0..max).prop_map(|v| v.concat())
}

/// A budget within reach of a session whose notice needs `room_bytes` and
/// `room_lines`: sometimes disabled, any line limit and per-line limit.
#[allow(dead_code)]
pub fn any_budget(room_bytes: u32, room_lines: u32) -> impl Strategy<Value = toolcap_core::Budget> {
    use toolcap_core::{Budget, Keep};
    (
        prop_oneof![Just(0u32), room_bytes..room_bytes + 4000],
        prop::option::of(room_lines..room_lines + 60),
        prop::option::of(1u32..300),
        prop_oneof![Just(Keep::Head), Just(Keep::Tail), Just(Keep::HeadAndTail)],
        0u8..=100,
    )
        .prop_map(
            |(max_bytes, max_lines, max_line_bytes, keep, head_percent)| Budget {
                max_bytes,
                max_lines,
                max_line_bytes,
                keep,
                head_percent,
                max_tokens: None,
            },
        )
}

/// Spills into a map, or fails on demand, so properties see what was written.
#[allow(dead_code)]
#[derive(Default)]
pub struct MemStore {
    pub files: std::collections::HashMap<String, Vec<u8>>,
    pub fail: Option<String>,
}

impl toolcap_core::SpillStore for MemStore {
    fn save(
        &mut self,
        thread: &str,
        name: &str,
        content: &[u8],
    ) -> Result<(), toolcap_core::CapError> {
        if let Some(why) = &self.fail {
            return Err(toolcap_core::CapError::Io(why.clone()));
        }
        self.files
            .insert(format!("{thread}/{name}"), content.to_vec());
        Ok(())
    }
}
