//! The search of a command line, when the command is a search tool:
//! `grep`/`egrep`/`fgrep`, `rg`, `git grep`, `ag`, `ack`, also behind
//! `env`, `command`, `exec`, `time`, `nice`, `timeout`, `xargs`, and in a
//! simple `sh -c` / `bash -c` script (the first command of it that gives
//! one). Its patterns (`-e`, `--regexp`, else the first operand) become
//! literal alternatives ([`super::pattern`]). No search when the patterns
//! come from a file (`-f`), or when the output holds no hits (`-v`, `-l`,
//! `-L`, `-c`, `-q`, `rg --files`).

use std::ffi::OsString;
use std::path::Path;

use super::pattern::{self, Dialect};
use super::shell;

/// How deep `sh -c` and wrappers are followed.
const MAX_DEPTH: usize = 4;

/// The search of `command` (program and arguments), fitted to the limits.
pub fn search_of(command: &[OsString]) -> Option<String> {
    let words: Vec<Option<String>> = command
        .iter()
        .map(|w| w.to_str().map(str::to_owned))
        .collect();
    let literals = of_words(&words, 0)?;
    super::fit(literals)
}

/// The literal alternatives of one command's words.
fn of_words(words: &[Option<String>], depth: usize) -> Option<Vec<String>> {
    if depth > MAX_DEPTH {
        return None;
    }
    // `LC_ALL=C grep ...` in a script.
    let start = words
        .iter()
        .position(|w| !w.as_deref().is_some_and(is_assignment))?;
    let words = &words[start..];
    let program = words.first()?.as_deref()?;
    let name = Path::new(program).file_name()?.to_str()?;
    let args = &words[1..];
    match name {
        "grep" => search(&GREP, Dialect::Basic, args),
        "egrep" => search(&GREP, Dialect::Extended, args),
        "fgrep" => search(&GREP, Dialect::Fixed, args),
        "rg" => search(&RG, Dialect::Perl, args),
        "ag" => search(&AG, Dialect::Perl, args),
        "ack" | "ack-grep" => search(&ACK, Dialect::Perl, args),
        "git" => git_grep(args),
        "sh" | "bash" | "dash" | "zsh" | "ksh" => script(args, depth),
        _ => of_words(after_wrapper(name, args)?, depth + 1),
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The command a wrapper runs: what follows its own options.
fn after_wrapper<'a>(name: &str, args: &'a [Option<String>]) -> Option<&'a [Option<String>]> {
    // Options of each wrapper that take a value.
    let (valued, operands_before): (&[&str], usize) = match name {
        "env" => (&["-u", "-C", "-S", "--unset", "--chdir"], 0),
        "command" | "exec" | "time" => (&["-a"], 0),
        "nice" => (&["-n", "--adjustment"], 0),
        "timeout" => (&["-s", "-k", "--signal", "--kill-after"], 1),
        "xargs" => (
            &[
                "-I",
                "-n",
                "-P",
                "-L",
                "-d",
                "-E",
                "-s",
                "-a",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--delimiter",
                "--arg-file",
            ],
            0,
        ),
        _ => return None,
    };
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_deref()?;
        if word == "--" {
            i += 1;
            break;
        }
        if name == "env" && is_assignment(word) {
            i += 1;
            continue;
        }
        if !word.starts_with('-') || word == "-" {
            break;
        }
        i += if valued.contains(&word) { 2 } else { 1 };
    }
    args.get(i + operands_before..)
}

/// `sh -c SCRIPT`: the first command of the script that gives a search.
fn script(args: &[Option<String>], depth: usize) -> Option<Vec<String>> {
    let mut command_string = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_deref()?;
        if word == "-o" || word == "+o" {
            i += 2;
            continue;
        }
        if word == "--" {
            i += 1;
            break;
        }
        if word.starts_with("--") {
            i += 1;
            continue;
        }
        if (word.starts_with('-') || word.starts_with('+')) && word.len() > 1 {
            command_string |= word.contains('c');
            i += 1;
            continue;
        }
        break;
    }
    if !command_string {
        return None;
    }
    let commands = shell::commands(args.get(i)?.as_deref()?)?;
    commands
        .iter()
        .find_map(|words| of_words(words, depth + 1).filter(|l| !l.is_empty()))
}

/// `git [global options] grep ...`.
fn git_grep(args: &[Option<String>]) -> Option<Vec<String>> {
    const VALUED: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--config-env",
        "--super-prefix",
    ];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_deref()?;
        if !word.starts_with('-') {
            break;
        }
        i += if VALUED.contains(&word) { 2 } else { 1 };
    }
    if args.get(i)?.as_deref()? != "grep" {
        return None;
    }
    search(&GIT_GREP, Dialect::Basic, &args[i + 1..])
}

/// One search tool's options, as far as finding its patterns needs.
struct Tool {
    /// Short options taking a value (in the rest of the cluster, or the next word).
    short_values: &'static str,
    /// Long options taking a value (after `=`, or the next word).
    long_values: &'static [&'static str],
    /// Short options whose value is optional: a number in the rest of the
    /// cluster or the next word (`ag -C 3`, `ack -C`).
    short_optional_numbers: &'static str,
    /// Options giving a pattern.
    short_pattern: Option<char>,
    long_patterns: &'static [&'static str],
    /// Options reading patterns from a file: no search then.
    short_pattern_file: Option<char>,
    long_pattern_files: &'static [&'static str],
    /// Options choosing how patterns are read.
    short_dialects: &'static [(char, Dialect)],
    long_dialects: &'static [(&'static str, Dialect)],
    /// Options after which the output holds no hits (inverted matches,
    /// file names, counts, nothing), or no pattern is searched for.
    short_hitless: &'static str,
    long_hitless: &'static [&'static str],
    /// Boolean expressions of patterns (`git grep --not`): not followed.
    long_unfollowed: &'static [&'static str],
}

/// grep's pattern dialects, which `git grep` shares.
const GREP_SHORT_DIALECTS: &[(char, Dialect)] = &[
    ('F', Dialect::Fixed),
    ('E', Dialect::Extended),
    ('G', Dialect::Basic),
    ('P', Dialect::Perl),
];
const GREP_LONG_DIALECTS: &[(&str, Dialect)] = &[
    ("fixed-strings", Dialect::Fixed),
    ("extended-regexp", Dialect::Extended),
    ("basic-regexp", Dialect::Basic),
    ("perl-regexp", Dialect::Perl),
];

const GREP: Tool = Tool {
    short_values: "efmABCdD",
    long_values: &[
        "regexp",
        "file",
        "max-count",
        "after-context",
        "before-context",
        "context",
        "directories",
        "devices",
        "include",
        "exclude",
        "exclude-dir",
        "exclude-from",
        "label",
        "binary-files",
        "group-separator",
    ],
    short_optional_numbers: "",
    short_pattern: Some('e'),
    long_patterns: &["regexp"],
    short_pattern_file: Some('f'),
    long_pattern_files: &["file"],
    short_dialects: GREP_SHORT_DIALECTS,
    long_dialects: GREP_LONG_DIALECTS,
    short_hitless: "vlLcq",
    long_hitless: &[
        "invert-match",
        "files-with-matches",
        "files-without-match",
        "count",
        "quiet",
        "silent",
    ],
    long_unfollowed: &[],
};

const RG: Tool = Tool {
    short_values: "efgtTmABCMjErd",
    long_values: &[
        "regexp",
        "file",
        "glob",
        "iglob",
        "type",
        "type-not",
        "type-add",
        "type-clear",
        "max-count",
        "after-context",
        "before-context",
        "context",
        "max-columns",
        "max-depth",
        "maxdepth",
        "max-filesize",
        "threads",
        "replace",
        "encoding",
        "ignore-file",
        "path-separator",
        "sort",
        "sortr",
        "color",
        "colors",
        "context-separator",
        "field-context-separator",
        "field-match-separator",
        "dfa-size-limit",
        "regex-size-limit",
        "engine",
        "pre",
        "pre-glob",
        "hyperlink-format",
        "hostname-bin",
        "generate",
    ],
    short_optional_numbers: "",
    short_pattern: Some('e'),
    long_patterns: &["regexp"],
    short_pattern_file: Some('f'),
    long_pattern_files: &["file"],
    short_dialects: &[('F', Dialect::Fixed), ('P', Dialect::Perl)],
    long_dialects: &[
        ("fixed-strings", Dialect::Fixed),
        ("no-fixed-strings", Dialect::Perl),
        ("pcre2", Dialect::Perl),
    ],
    short_hitless: "vlcq",
    long_hitless: &[
        "invert-match",
        "files-with-matches",
        "files-without-match",
        "count",
        "count-matches",
        "quiet",
        "files",
        "type-list",
    ],
    long_unfollowed: &[],
};

const AG: Tool = Tool {
    // `-g PATTERN` lists file names matching it (hitless, below).
    short_values: "ABGgmpW",
    long_values: &[
        "after",
        "before",
        "file-search-regex",
        "ignore",
        "ignore-dir",
        "max-count",
        "depth",
        "pager",
        "path-to-ignore",
        "width",
        "color-line-number",
        "color-match",
        "color-path",
    ],
    short_optional_numbers: "C",
    short_pattern: None,
    long_patterns: &[],
    short_pattern_file: None,
    long_pattern_files: &[],
    short_dialects: &[('Q', Dialect::Fixed)],
    long_dialects: &[("literal", Dialect::Fixed)],
    short_hitless: "vlLcg",
    long_hitless: &[
        "invert-match",
        "files-with-matches",
        "files-without-matches",
        "count",
    ],
    long_unfollowed: &[],
};

const ACK: Tool = Tool {
    // `-g REGEX` lists file names matching it, `-f` the files (hitless).
    short_values: "ABmgtT",
    long_values: &[
        "match",
        "type",
        "ignore-dir",
        "noignore-dir",
        "ignore-directory",
        "noignore-directory",
        "ignore-file",
        "output",
        "files-from",
        "after-context",
        "before-context",
        "max-count",
        "pager",
        "color-filename",
        "color-match",
        "color-lineno",
        "color-colno",
        "range-start",
        "range-end",
        "type-add",
        "type-set",
        "type-del",
    ],
    short_optional_numbers: "C",
    short_pattern: None,
    long_patterns: &["match"],
    short_pattern_file: None,
    long_pattern_files: &[],
    short_dialects: &[('Q', Dialect::Fixed)],
    long_dialects: &[("literal", Dialect::Fixed)],
    short_hitless: "vlLcfg",
    long_hitless: &[
        "invert-match",
        "files-with-matches",
        "files-without-matches",
        "count",
    ],
    long_unfollowed: &[],
};

const GIT_GREP: Tool = Tool {
    short_values: "efABCm",
    long_values: &[
        "after-context",
        "before-context",
        "context",
        "max-count",
        "max-depth",
        "threads",
    ],
    short_optional_numbers: "",
    short_pattern: Some('e'),
    long_patterns: &[],
    short_pattern_file: Some('f'),
    long_pattern_files: &[],
    short_dialects: GREP_SHORT_DIALECTS,
    long_dialects: GREP_LONG_DIALECTS,
    short_hitless: "vlLcq",
    long_hitless: &[
        "invert-match",
        "files-with-matches",
        "name-only",
        "files-without-match",
        "count",
        "quiet",
    ],
    long_unfollowed: &["not", "and", "or"],
};

/// What a search tool's arguments say.
#[derive(Default)]
struct Reading {
    patterns: Vec<Option<String>>,
    operands: Vec<Option<String>>,
    dialect: Option<Dialect>,
    /// No search can be given (hitless output, patterns from a file, an
    /// expression not followed).
    none: bool,
}

/// The literal alternatives `tool`'s `args` search for.
fn search(tool: &Tool, default: Dialect, args: &[Option<String>]) -> Option<Vec<String>> {
    let reading = read(tool, args);
    if reading.none {
        return None;
    }
    let patterns = if reading.patterns.is_empty() {
        reading.operands.into_iter().take(1).collect()
    } else {
        reading.patterns
    };
    let dialect = reading.dialect.unwrap_or(default);
    let mut literals = Vec::new();
    for pattern in patterns.into_iter().flatten() {
        literals.extend(pattern::literals(&pattern, dialect));
    }
    (!literals.is_empty()).then_some(literals)
}

fn read(tool: &Tool, args: &[Option<String>]) -> Reading {
    let mut reading = Reading::default();
    let mut words = args.iter();
    let mut options_ended = false;
    while let Some(word) = words.next() {
        let Some(word) = word.as_deref() else {
            reading.operands.push(None);
            continue;
        };
        if options_ended || word == "-" || !word.starts_with('-') {
            // `(` and `)` group git grep's expressions.
            if !options_ended && tool.long_unfollowed.contains(&"not") && matches!(word, "(" | ")")
            {
                reading.none = true;
            }
            reading.operands.push(Some(word.to_owned()));
            continue;
        }
        if word == "--" {
            options_ended = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let mut value = || match &attached {
                Some(value) => Some(value.clone()),
                None => words.next().cloned().flatten(),
            };
            if tool.long_patterns.contains(&name) {
                let pattern = value();
                reading.patterns.push(pattern);
            } else if tool.long_pattern_files.contains(&name) {
                value();
                reading.none = true;
            } else if tool.long_values.contains(&name) {
                value();
            } else if let Some(&(_, dialect)) = tool.long_dialects.iter().find(|(n, _)| *n == name)
            {
                reading.dialect = Some(dialect);
            } else if tool.long_hitless.contains(&name) || tool.long_unfollowed.contains(&name) {
                reading.none = true;
            }
            continue;
        }
        let cluster = &word[1..];
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            let mut value = || {
                if rest.is_empty() {
                    words.next().cloned().flatten()
                } else {
                    Some(rest.to_owned())
                }
            };
            if tool.short_pattern == Some(c) {
                let pattern = value();
                reading.patterns.push(pattern);
                break;
            }
            if tool.short_pattern_file == Some(c) {
                value();
                reading.none = true;
                break;
            }
            if tool.short_values.contains(c) {
                value();
                reading.none |= tool.short_hitless.contains(c);
                break;
            }
            if tool.short_optional_numbers.contains(c) {
                let next_is_number = words
                    .clone()
                    .next()
                    .and_then(|w| w.as_deref())
                    .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()));
                if rest.is_empty() && next_is_number {
                    words.next();
                }
                break;
            }
            if let Some(&(_, dialect)) = tool.short_dialects.iter().find(|(s, _)| *s == c) {
                reading.dialect = Some(dialect);
            }
            reading.none |= tool.short_hitless.contains(c);
        }
    }
    reading
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search of a command line written as a shell would split it.
    fn search_of_line(line: &str) -> Option<String> {
        let words: Vec<OsString> = shell::commands(line).unwrap()[0]
            .iter()
            .map(|w| OsString::from(w.clone().unwrap()))
            .collect();
        search_of(&words)
    }

    fn case(line: &str, expected: Option<&str>) {
        assert_eq!(search_of_line(line).as_deref(), expected, "{line}");
    }

    #[test]
    fn grep_command_lines() {
        case("grep -rn TOKEN dir/", Some("TOKEN"));
        case("grep -rn --include='*.rs' 'fn main' src", Some("fn main"));
        case("grep -A 3 -B2 -m 5 needle file.txt", Some("needle"));
        case("grep -C3 -i error log.txt", Some("error"));
        case("grep --max-count 5 --context=2 panic .", Some("panic"));
        case("grep -e foo -e bar file", Some("foo\nbar"));
        case(
            "grep -efoo --regexp=bar --regexp baz file",
            Some("foo\nbar\nbaz"),
        );
        case("grep -rne needle .", Some("needle"));
        case(r"grep 'foo\|bar' file", Some("foo\nbar"));
        case("grep 'a|b' file", Some("a|b"));
        case("grep -E 'error|warning' build.log", Some("error\nwarning"));
        case("egrep 'error|warning' build.log", Some("error\nwarning"));
        case("grep -F 'a.b*c' file", Some("a.b*c"));
        case("fgrep 'x|y' file", Some("x|y"));
        case(r"grep -P '\bTODO\(\w+\)' .", Some("TODO("));
        case(r"grep -rn 'config\.toml' .", Some("config.toml"));
        case("grep -rn 'fn .*(' src", Some("fn "));
        case("grep -n '^import ' *.py", Some("import "));
        case("grep -- -v file", Some("-v"));
        case(
            "grep -r -d skip --exclude-dir=target needle .",
            Some("needle"),
        );
        case("grep -5 needle file", Some("needle"));
    }

    #[test]
    fn grep_without_hits_in_its_output_or_patterns_from_a_file() {
        case("grep -v needle file", None);
        case("grep -rl needle .", None);
        case("grep -c needle file", None);
        case("grep --files-with-matches needle .", None);
        case("grep -q needle file", None);
        case("grep -f patterns.txt file", None);
        case("grep --file=patterns.txt file", None);
        case("grep -rn '.*' .", None);
        case("grep", None);
    }

    #[test]
    fn ripgrep_command_lines() {
        case("rg TOKEN", Some("TOKEN"));
        case(
            "rg -n -g '*.rs' -t rust 'impl Display' src",
            Some("impl Display"),
        );
        case("rg --type rust -A 2 'unsafe fn'", Some("unsafe fn"));
        case("rg -e foo -e 'bar|baz'", Some("foo\nbar\nbaz"));
        case("rg -F 'a.b(c)'", Some("a.b(c)"));
        case("rg -i -S 'hello world' .", Some("hello world"));
        case(r"rg 'fn\s+parse_\w+' crates", Some("parse_"));
        case("rg -r '$1' 'foo(bar)' .", Some("foobar"));
        case("rg -j4 -M 200 needle", Some("needle"));
        case("rg --files", None);
        case("rg --files -g '*.rs' src", None);
        case("rg -l needle", None);
        case("rg --count needle", None);
        case("rg -f pats.txt", None);
    }

    #[test]
    fn git_grep_ag_and_ack() {
        case("git grep -n needle", Some("needle"));
        case(
            "git -C repo --no-pager grep -E 'foo|bar' HEAD -- src",
            Some("foo\nbar"),
        );
        case(r"git grep 'a\|bcd' v1.0", Some("a\nbcd"));
        case("git grep -e foo --and -e bar", None);
        case("git grep -l needle", None);
        case("git log --grep needle", None);
        case("ag needle src", Some("needle"));
        case("ag -C 3 needle src", Some("needle"));
        case("ag -Q 'a.b' src", Some("a.b"));
        case("ag -G '.*\\.rs$' needle", Some("needle"));
        case("ag -g needle", None);
        case("ack --match needle src", Some("needle"));
        case("ack -C needle", Some("needle"));
        case("ack -f", None);
        case("ack -i 'foo|barbaz'", Some("foo\nbarbaz"));
    }

    #[test]
    fn wrappers_and_shell_scripts() {
        case("env LC_ALL=C grep -rn needle .", Some("needle"));
        case("timeout 10 rg needle", Some("needle"));
        case("timeout -s KILL 10s rg needle", Some("needle"));
        case("nice -n 5 grep needle f", Some("needle"));
        case("xargs -0 -n 10 grep -n needle", Some("needle"));
        case("/usr/bin/grep needle f", Some("needle"));
        case("sh -c 'grep -rn needle . | head -50'", Some("needle"));
        case(
            "bash -lc 'cd src && rg -n \"fn main\" 2>/dev/null'",
            Some("fn main"),
        );
        case("bash -o pipefail -c 'cat f | grep -i error'", Some("error"));
        case(
            "sh -c 'find . -name \"*.rs\" | xargs grep -n TODO'",
            Some("TODO"),
        );
        case("sh -c 'LC_ALL=C grep needle f'", Some("needle"));
        case("sh -c 'grep \"$PAT\" file'", None);
        case("sh -c 'grep $(cat p) file'", None);
        case("sh script.sh", None);
        case("cargo test", None);
        case("ls -la", None);
        case("echo grep needle", None);
    }

    #[test]
    fn limits_are_kept_by_dropping_extras() {
        let mut line = "grep".to_owned();
        for i in 0..20 {
            line.push_str(&format!(" -e needle{i}"));
        }
        let search = search_of_line(&line).unwrap();
        assert_eq!(search.lines().count(), 16);
        let long = "x".repeat(300);
        assert_eq!(
            search_of_line(&format!("grep -F {long} f")).unwrap(),
            "x".repeat(256)
        );
    }

    #[test]
    fn arguments_that_are_not_utf8_are_unknown() {
        use std::os::unix::ffi::OsStringExt;
        let words = vec![
            OsString::from("grep"),
            OsString::from_vec(b"caf\xe9".to_vec()),
            OsString::from("file"),
        ];
        assert_eq!(search_of(&words), None);
    }
}
