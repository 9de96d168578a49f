//! Shared by the property-test files of the core.

use proptest::test_runner::Config;

/// `default` cases per property, or `PROPTEST_CASES` when set (`make soak`).
pub fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok());
    Config::with_cases(cases.unwrap_or(default))
}
