//! Integration tests of tool-output-cap through the real component: see
//! `tests/*.rs` and the shared vectors in `vectors/` (`vectors/README.md`).
