//! The house's walls: core's modules import one way. A module never imports
//! one that imports it back (at the top level of `src/`, and among the
//! submodules of `preview/` and `stream/`), and the preview imports neither
//! the streaming engine nor the `cap` facade that call it.
//!
//! Read from the sources: every `crate::a::b` path and `use crate::{..}`
//! group outside comments and `#[cfg(test)]` modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code without comments and without its test modules.
fn code(path: &Path) -> Option<String> {
    let name = path.file_stem()?.to_str()?;
    if name == "tests" || name.ends_with("_tests") || name == "test_support" {
        return None;
    }
    let text = fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    Some(without_comments(text))
}

fn without_comments(text: &str) -> String {
    let lines = text.lines().filter(|l| !l.trim_start().starts_with("//"));
    lines.collect::<Vec<_>>().join("\n")
}

/// The paths `crate::…` in `code`, each as its first two segments at most.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    code.match_indices("crate::")
        .flat_map(|(at, _)| segments(&code[at + "crate::".len()..], 2))
        .filter(|p| !p.is_empty())
        .collect()
}

/// Up to `left` segments of the path that starts `rest`, one path per
/// member of a `{..}` group.
fn segments(rest: &str, left: usize) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
            .collect()
    };
    if left == 0 {
        return vec![Vec::new()];
    }
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .map(|part| ident(part.trim()))
            .map(|seg| match seg.as_str() {
                "" | "self" => Vec::new(),
                _ => vec![seg],
            })
            .collect();
    }
    let seg = ident(rest);
    if seg.is_empty() {
        return vec![Vec::new()];
    }
    match rest[seg.len()..].strip_prefix("::") {
        Some(after) => segments(after, left - 1)
            .into_iter()
            .map(|tail| [vec![seg.clone()], tail].concat())
            .collect(),
        None => vec![vec![seg]],
    }
}

/// The modules whose submodules are nodes of their own.
const SPLIT: [&str; 2] = ["preview", "stream"];

/// The node of the file `rel` (relative to `src/`): `cap`, `preview` (for
/// `preview.rs`), `preview/notable` (for every file under it), `stream`
/// (for `stream/mod.rs`).
fn node_of_file(rel: &Path) -> String {
    let segs: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    match &segs[..] {
        [top, sub, ..] if SPLIT.contains(&top.as_str()) && sub != "mod" => format!("{top}/{sub}"),
        [top, ..] => top.clone(),
        [] => unreachable!(),
    }
}

/// The node a path `crate::a::b` names: `a/b` when `a` is split and `b`
/// is one of its submodules, else `a`.
fn node_of_path(src: &Path, path: &[String]) -> String {
    let top = &path[0];
    if let Some(sub) = path.get(1).filter(|_| SPLIT.contains(&top.as_str())) {
        let dir = src.join(top);
        if dir.join(format!("{sub}.rs")).is_file() || dir.join(sub).is_dir() {
            return format!("{top}/{sub}");
        }
    }
    top.clone()
}

/// Core's import graph: top-level modules, and the submodules of
/// `preview` and `stream` as `preview/x`.
fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        if rel == Path::new("lib.rs") {
            continue;
        }
        let Some(code) = code(&file) else { continue };
        let from = node_of_file(&rel);
        for path in crate_paths(&code) {
            let to = node_of_path(&src, &path);
            if to != from {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// Whether `to` is reachable from `from`.
fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(m) = todo.pop() {
        for next in graph.get(&m).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = graph();
    assert!(graph.contains_key("preview/whole"), "{graph:?}");
    assert!(graph.contains_key("stream/engine"), "{graph:?}");
    let circles: Vec<(&String, &String)> = graph
        .iter()
        .flat_map(|(a, tos)| tos.iter().map(move |b| (a, b)))
        .filter(|(a, b)| reaches(&graph, b, a))
        .collect();
    assert!(circles.is_empty(), "import circles: {circles:?}");
}

#[test]
fn the_preview_imports_neither_the_engine_nor_the_facade() {
    let graph = graph();
    for (from, tos) in &graph {
        if from.starts_with("preview") {
            for to in tos {
                let banned = ["stream", "cap", "capper", "mcp", "parts"];
                let top = to.split('/').next().unwrap();
                assert!(!banned.contains(&top), "{from} imports {to}");
            }
        }
    }
    // Both choosers render through the one renderer.
    for chooser in ["preview/whole", "preview/one_pass"] {
        assert!(graph[chooser].contains("preview/render"), "{chooser}");
    }
}

#[test]
fn the_graph_sees_an_import_circle() {
    let code = "use crate::a::b;\nuse crate::{c, d::e};\nuse crate::g::{h, self};\n// crate::f\n";
    let paths = crate_paths(&without_comments(code));
    let want = [&["a", "b"][..], &["c"], &["d"], &["g", "h"], &["g"]];
    let want: Vec<Vec<String>> = want
        .iter()
        .map(|p| p.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(paths, want);
    let mut graph = Graph::new();
    graph.entry("x".into()).or_default().insert("y".into());
    graph.entry("y".into()).or_default().insert("x".into());
    assert!(reaches(&graph, "y", "x"));
}
