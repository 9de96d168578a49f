//! The runner of the shared JSON vectors (`tests/vectors/README.md`).

pub mod check;
pub mod convert;
pub mod format;
pub mod host;
pub mod inputs;
pub mod invariants;
pub mod mcp;
pub mod run;

use std::fs;
use std::path::{Path, PathBuf};

/// `tests/vectors`, where every host reads the vectors from.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Every `*.json` file of [`vectors_dir`], sorted by name.
pub fn vector_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(vectors_dir())
        .expect("tests/vectors exists")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The file name, for messages.
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
