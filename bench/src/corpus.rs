//! Benchmark inputs, generated deterministically in code: no large files in
//! the repository, the same bytes on every machine.
//!
//! Five kinds cover what reaches a cap: ASCII logs, Cyrillic and CJK text (2-
//! and 3-byte characters), emoji-heavy chat (4-byte characters and ZWJ
//! sequences), and a minified bundle that is one huge line.

use toolcap_core::test_support::SplitMix;

/// The sizes every kind is benchmarked at.
pub const SIZES: [usize; 4] = [KIB, 64 * KIB, 4 * MIB, 64 * MIB];

/// One kibibyte.
pub const KIB: usize = 1024;
/// One mebibyte.
pub const MIB: usize = 1024 * KIB;

/// A kind of tool output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A server log: ASCII lines of about 90 bytes, one `ERROR` in 500 lines.
    Ascii,
    /// Russian prose lines: mostly 2-byte characters.
    Cyrillic,
    /// Chinese and Japanese lines: mostly 3-byte characters.
    Cjk,
    /// Chat lines dense with 4-byte emoji and ZWJ sequences.
    Emoji,
    /// A minified JavaScript bundle: one line, no LF at all.
    Minified,
}

impl Kind {
    /// Every kind, in table order.
    pub const ALL: [Kind; 5] = [
        Kind::Ascii,
        Kind::Cyrillic,
        Kind::Cjk,
        Kind::Emoji,
        Kind::Minified,
    ];

    /// Short name for tables and benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ascii => "ascii",
            Kind::Cyrillic => "cyrillic",
            Kind::Cjk => "cjk",
            Kind::Emoji => "emoji",
            Kind::Minified => "minified",
        }
    }
}

/// Exactly `size` bytes of `kind`, valid UTF-8, the same on every call.
pub fn text(kind: Kind, size: usize) -> String {
    let mut rng = SplitMix::new(0x9E37_79B9_7F4A_7C15 ^ size as u64);
    let mut out = String::with_capacity(size + 256);
    let mut line = 0u64;
    while out.len() < size {
        match kind {
            Kind::Ascii => ascii_line(&mut out, &mut rng, line),
            Kind::Cyrillic => word_line(&mut out, &mut rng, CYRILLIC, " ", line),
            Kind::Cjk => word_line(&mut out, &mut rng, CJK, "", line),
            Kind::Emoji => word_line(&mut out, &mut rng, EMOJI, " ", line),
            Kind::Minified => minified_statement(&mut out, &mut rng),
        }
        line += 1;
    }
    fit(out, size)
}

/// `size` bytes of log lines that differ only in their numbers (the ASCII
/// log without its errors: one endpoint's access log): every line is alike
/// to the next, so folding measures runs as long as its reach allows.
pub fn alike_lines(size: usize) -> String {
    let mut rng = SplitMix::new(0x5851_F42D_4C95_7F2D ^ size as u64);
    let mut out = String::with_capacity(size + 256);
    let mut line = 0u64;
    while out.len() < size {
        log_line(&mut out, &mut rng, line, "INFO ");
        line += 1;
    }
    fit(out, size)
}

/// A JSON document of about `size` bytes (at least `size`, up to one item
/// more), as an API lists records: a 2-space pretty array of objects, one
/// in 50 with a failed status. Valid JSON, so the JSON preview applies.
pub fn json(size: usize) -> String {
    use std::fmt::Write as _;
    let mut rng = SplitMix::new(0x2545_F491_4F6C_DD1D ^ size as u64);
    let mut out = String::with_capacity(size + 512);
    out.push_str("[\n");
    let mut id = 0u64;
    while out.len() + 4 < size {
        if id > 0 {
            out.push_str(",\n");
        }
        let status = if id % 50 == 49 { "failed" } else { "ok" };
        let _ = write!(
            out,
            "  {{\n    \"id\": {id},\n    \"name\": \"worker-{}-{:x}\",\n    \"status\": \"{status}\",\n    \"tags\": [\"zone-{}\", \"tier-{}\"],\n    \"latency_ms\": {}.{}\n  }}",
            rng.below(8),
            rng.below(1 << 32),
            rng.below(4),
            rng.below(3),
            rng.below(500),
            rng.below(10),
        );
        id += 1;
    }
    out.push_str("\n]\n");
    out
}

/// Source code nobody tuned the preview on, from the token corpus's
/// packages (`make bench-corpus`): Django 5.1.4's Python files, and
/// TypeScript 5.7.2's `lib/typescript.js`. Words such as `error`, `fail`
/// and `panic` are everywhere in code, and the failure lines' searches find
/// and judge every line that holds one.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    Python,
    JavaScript,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Python => "Python source (Django)",
            Source::JavaScript => "JavaScript source (TypeScript's compiler)",
        }
    }
}

/// `size` bytes of `source`: its files in path order, repeated as needed
/// and cut at a line end (then padded with spaces), or why it cannot be
/// read (the corpus is not installed).
pub fn source(source: Source, size: usize) -> Result<String, String> {
    let root = crate::suite::tokens::real::root();
    let files = match source {
        Source::Python => {
            let mut files = Vec::new();
            python_files(&root.join("py/django"), &mut files)
                .map_err(|e| format!("{}: {e}", root.join("py/django").display()))?;
            files.sort();
            files
        }
        Source::JavaScript => vec![root.join("node_modules/typescript/lib/typescript.js")],
    };
    let mut all = String::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| {
            format!(
                "{}: {e} (the token corpus installs it: `make bench-corpus`)",
                file.display()
            )
        })?;
        all.push_str(&text);
        if !all.ends_with('\n') {
            all.push('\n');
        }
    }
    if all.is_empty() {
        return Err(format!("no {} under {}", source.name(), root.display()));
    }
    let mut out = String::with_capacity(size + all.len());
    while out.len() < size {
        out.push_str(&all);
    }
    let end = out[..size].rfind('\n').map_or(0, |i| i + 1);
    out.truncate(end);
    Ok(fit(out, size))
}

fn python_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            python_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
    Ok(())
}

/// `size` bytes of a C build's output where a third of the lines are
/// compiler warnings: every such line is a candidate failure line, so the
/// notable lines' rules read a third of the lines, not one in 500.
pub fn warnings_build_log(size: usize) -> String {
    use std::fmt::Write as _;
    let mut rng = SplitMix::new(0x2127_599B_F432_5C37 ^ size as u64);
    let mut out = String::with_capacity(size + 256);
    while out.len() < size {
        let (module, file) = (rng.below(300), rng.below(40));
        let _ = if rng.below(3) == 0 {
            writeln!(
                out,
                "src/module{module}/file{file}.c:{}:{}: warning: unused variable 'x{}' \
                 [-Wunused-variable]",
                rng.below(3000),
                rng.below(80),
                rng.below(10),
            )
        } else {
            writeln!(out, "  CC      src/module{module}/file{file}.o")
        };
    }
    fit(out, size)
}

/// `s` cut to exactly `size` bytes: cut on a char boundary, then padded with
/// spaces (never a LF, so the minified bundle stays one line).
fn fit(mut s: String, size: usize) -> String {
    s.truncate(s.floor_char_boundary(size));
    while s.len() < size {
        s.push(' ');
    }
    s
}

/// One line in this many of the ASCII log carries `ERROR`.
pub const ERROR_EVERY: u64 = 500;

fn ascii_line(out: &mut String, rng: &mut SplitMix, line: u64) {
    let level = if line % ERROR_EVERY == ERROR_EVERY - 1 {
        "ERROR"
    } else {
        "INFO "
    };
    log_line(out, rng, line, level);
}

/// One line of an access log at `level`.
fn log_line(out: &mut String, rng: &mut SplitMix, line: u64, level: &str) {
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "2026-11-22T11:{:02}:{:02}.{:03}Z {level} worker-{} GET /api/v1/items/{} status=200 in {} ms",
        (line / 60) % 60,
        line % 60,
        rng.below(1000),
        rng.below(8),
        rng.below(1_000_000),
        rng.below(500),
    );
}

fn word_line(out: &mut String, rng: &mut SplitMix, words: &[&str], sep: &str, line: u64) {
    let count = 6 + rng.below(10);
    out.push_str(&line.to_string());
    out.push(':');
    for _ in 0..count {
        out.push_str(sep);
        out.push_str(words[rng.below(words.len() as u64) as usize]);
    }
    out.push('\n');
}

fn minified_statement(out: &mut String, rng: &mut SplitMix) {
    use std::fmt::Write as _;
    let id = rng.below(1 << 20);
    let _ = write!(
        out,
        "function _{id:x}(e,t){{var n=e[{}]||{{}};return n.v{}=t&&t.k{},\"m{id}\"in n?n:t}};",
        rng.below(64),
        rng.below(100),
        rng.below(100),
    );
}

const CYRILLIC: &[&str] = &[
    "запрос",
    "обработан",
    "ошибка",
    "файл",
    "строка",
    "сервер",
    "ответ",
    "данные",
    "пользователь",
    "время",
    "сборка",
    "тест",
    "прошёл",
    "упал",
    "модуль",
    "и",
];

const CJK: &[&str] = &[
    "请求",
    "处理",
    "错误",
    "文件",
    "日志",
    "服务器",
    "响应",
    "数据",
    "用户",
    "时间",
    "构建",
    "测试",
    "ファイル",
    "エラー",
    "成功",
    "。",
];

const EMOJI: &[&str] = &[
    "🚀",
    "✅",
    "🔥",
    "👩\u{200D}💻",
    "🎉",
    "🐛",
    "⚠️",
    "📦",
    "🧪",
    "👍🏽",
    "🇺🇦",
    "deploy",
    "ok",
    "😀😃😄",
    "🤖",
    "💥",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_the_exact_size_and_its_shape() {
        for kind in Kind::ALL {
            for size in [0, 1, 7, KIB, 64 * KIB] {
                let t = text(kind, size);
                assert_eq!(t.len(), size, "{kind:?}");
                assert_eq!(t, text(kind, size), "deterministic");
            }
            let t = text(kind, 64 * KIB);
            let lfs = t.bytes().filter(|&b| b == b'\n').count();
            assert_eq!(lfs == 0, kind == Kind::Minified, "{kind:?}");
            let wide = t.chars().filter(|c| c.len_utf8() > 1).count();
            assert_eq!(wide == 0, matches!(kind, Kind::Ascii | Kind::Minified));
        }
        assert!(text(Kind::Ascii, 4 * MIB).contains(" ERROR "));
    }

    #[test]
    fn json_is_one_valid_document_of_about_the_size() {
        for size in [KIB, 64 * KIB] {
            let t = json(size);
            assert!(t.len() >= size && t.len() < size + 256, "{}", t.len());
            let v: serde_json::Value = serde_json::from_str(&t).expect("valid JSON");
            assert!(v.as_array().is_some_and(|a| a.len() > 1));
            assert_eq!(t, json(size), "deterministic");
        }
    }
}
