//! A search pattern (a regex of some dialect, a glob, or fixed strings)
//! turned into literal alternatives: text every match of that alternative
//! contains, which is what the preview can look for.
//!
//! Each alternative is either the pattern's own literal (nothing in it but
//! characters and anchors), or its longest run of literal text that every
//! match must contain, kept when at least [`MIN_RUN_BYTES`] long (a shorter
//! run would hit almost anywhere). An alternative with no such run is dropped.

/// Shortest literal run kept from a pattern that is not a plain literal.
pub const MIN_RUN_BYTES: usize = 3;

/// How a pattern is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Fixed strings (`grep -F`, `rg -F`, `ag -Q`): taken as they are.
    Fixed,
    /// POSIX basic regex with GNU's `\|`, `\+`, `\?` (grep, git grep).
    Basic,
    /// POSIX extended regex (`grep -E`, `egrep`, `git grep -E`).
    Extended,
    /// Perl-like regex (`grep -P`, rg's Rust regex, ag's PCRE, ack's Perl).
    Perl,
    /// A shell glob (`*.rs`, `**/test_*.py`, `file[0-9].{txt,md}`).
    Glob,
}

/// The literal alternatives of `pattern` read as `dialect`. Each line of the
/// pattern is an alternative of its own, as grep reads patterns.
pub fn literals(pattern: &str, dialect: Dialect) -> Vec<String> {
    let mut out = Vec::new();
    for line in pattern.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        match dialect {
            Dialect::Fixed => out.push(line.to_owned()),
            Dialect::Glob => out.extend(glob_literal(line)),
            _ => {
                if let Some(alternatives) = Parser::new(line, dialect).pattern() {
                    for alternative in expand(alternatives) {
                        out.extend(required_literal(&alternative));
                    }
                }
            }
        }
    }
    out
}

/// A tool argument named `pattern`: a glob for file-search tools
/// (`search_files`), a regex for grep-like ones. Read as a glob when it has
/// glob wildcards and none of a regex's own syntax.
pub fn guess_dialect(pattern: &str) -> Dialect {
    let wildcards = pattern.contains(['*', '?', '[', '{']);
    let regex_only = pattern.contains(['\\', '|', '(', ')', '+', '^', '$'])
        || [".*", ".+", ".?"].iter().any(|s| pattern.contains(s));
    if wildcards && !regex_only {
        Dialect::Glob
    } else {
        Dialect::Perl
    }
}

/// The literal of a glob: itself when it has no wildcard, else its longest
/// literal run of at least [`MIN_RUN_BYTES`].
fn glob_literal(glob: &str) -> Option<String> {
    let mut runs = vec![String::new()];
    let mut pure = true;
    let mut chars = glob.chars().peekable();
    let mut brace_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) if brace_depth == 0 => push(&mut runs, escaped),
                _ => {}
            },
            '*' | '?' => {
                pure = false;
                runs.push(String::new());
            }
            '[' => {
                pure = false;
                runs.push(String::new());
                // `[!]a]`, `[]a]`: a `]` first is a member.
                if chars.peek().is_some_and(|&c| c == '!' || c == '^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
            }
            '{' => {
                pure = false;
                brace_depth += 1;
                runs.push(String::new());
            }
            '}' if brace_depth > 0 => {
                brace_depth -= 1;
                runs.push(String::new());
            }
            _ if brace_depth > 0 => {}
            c => push(&mut runs, c),
        }
    }
    pick(runs, pure)
}

fn push(runs: &mut [String], c: char) {
    if let Some(run) = runs.last_mut() {
        run.push(c);
    }
}

/// The whole literal when nothing broke it, else the longest run (the
/// first of equals) of at least [`MIN_RUN_BYTES`].
fn pick(runs: Vec<String>, pure: bool) -> Option<String> {
    if pure {
        return runs.into_iter().find(|r| !r.is_empty());
    }
    let mut best: Option<String> = None;
    for run in runs {
        if run.len() >= MIN_RUN_BYTES && best.as_ref().is_none_or(|b| run.len() > b.len()) {
            best = Some(run);
        }
    }
    best
}

/// One piece of a parsed regex.
#[derive(Debug, Clone)]
enum Node {
    /// A character matched as itself.
    Char(char),
    /// Matches something not known here (`.`, a class, `\w`, a back-reference).
    Unknown,
    /// Matches the empty string (`^`, `$`, `\b`, `(?i)`).
    Empty,
    /// A group: its alternatives; a lookaround contributes nothing.
    Group {
        alternatives: Vec<Vec<Node>>,
        lookaround: bool,
    },
    /// A repeated node; `at_least_once` for `+` and `{1,}`-like counts.
    Repeat {
        node: Box<Node>,
        at_least_once: bool,
    },
}

/// The top-level alternatives, with an alternative that is one plain
/// group (`(foo|bar)`) opened into its own alternatives.
fn expand(alternatives: Vec<Vec<Node>>) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    for alternative in alternatives {
        match alternative.as_slice() {
            [
                Node::Group {
                    alternatives: inner,
                    lookaround: false,
                },
            ] => out.extend(expand(inner.clone())),
            _ => out.push(alternative),
        }
    }
    out
}

/// The literal every match of `sequence` contains: the whole of it when it
/// is only characters and anchors, else its longest required run.
fn required_literal(sequence: &[Node]) -> Option<String> {
    let mut runs = vec![String::new()];
    let pure = walk(sequence, &mut runs);
    pick(runs, pure)
}

/// Appends `sequence`'s required characters to the last run, starting a new
/// run wherever the match may hold something else; whether nothing did.
fn walk(sequence: &[Node], runs: &mut Vec<String>) -> bool {
    let mut pure = true;
    for node in sequence {
        match node {
            Node::Char(c) => push(runs, *c),
            Node::Empty => {}
            Node::Unknown => {
                pure = false;
                runs.push(String::new());
            }
            Node::Group {
                alternatives,
                lookaround: false,
            } if alternatives.len() == 1 => pure &= walk(&alternatives[0], runs),
            Node::Group { .. } => {
                pure = false;
                runs.push(String::new());
            }
            Node::Repeat {
                node,
                at_least_once,
            } => {
                pure = false;
                // `ab+c`: "ab" is in every match, what follows `b` is not known.
                if *at_least_once && let Node::Char(c) = **node {
                    push(runs, c);
                }
                runs.push(String::new());
            }
        }
    }
    pure
}

/// A recursive-descent reader of the regex dialects, only as far as
/// finding literals needs. `None` for what it does not follow (`(?x)`
/// free-spacing, where spaces are not literal).
struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    dialect: Dialect,
}

impl<'a> Parser<'a> {
    fn new(pattern: &'a str, dialect: Dialect) -> Self {
        Self {
            chars: pattern.chars().peekable(),
            dialect,
        }
    }

    fn pattern(mut self) -> Option<Vec<Vec<Node>>> {
        // An unmatched `)` at the top is a character (as in GNU ERE).
        self.alternatives(0)
    }

    /// Alternatives until the end, or the `)` closing a group at `depth` > 0.
    fn alternatives(&mut self, depth: usize) -> Option<Vec<Vec<Node>>> {
        let mut alternatives = vec![Vec::new()];
        loop {
            let Some(c) = self.chars.next() else {
                return Some(alternatives);
            };
            let sequence = alternatives.last_mut()?;
            let basic = self.dialect == Dialect::Basic;
            match c {
                '\\' => {
                    let Some(e) = self.chars.next() else {
                        sequence.push(Node::Char('\\'));
                        continue;
                    };
                    match (basic, e) {
                        (true, '|') => alternatives.push(Vec::new()),
                        (true, '(') => {
                            let inner = self.alternatives(depth + 1)?;
                            sequence.push(Node::Group {
                                alternatives: inner,
                                lookaround: false,
                            });
                        }
                        (true, ')') if depth > 0 => return Some(alternatives),
                        (true, '+') => quantify(sequence, true, '+'),
                        (true, '?') => quantify(sequence, false, '?'),
                        (true, '{') => {
                            let at_least_once = self.count(true).unwrap_or(false);
                            quantify(sequence, at_least_once, '{');
                        }
                        _ => {
                            let node = self.escape(e);
                            sequence.push(node);
                        }
                    }
                }
                '|' if !basic => alternatives.push(Vec::new()),
                '(' if !basic => {
                    let group = self.group(depth)?;
                    sequence.push(group);
                }
                ')' if !basic && depth > 0 => return Some(alternatives),
                '*' => {
                    // A leading `*` is a literal in POSIX regexes.
                    if sequence.is_empty() {
                        sequence.push(Node::Char('*'));
                    } else {
                        quantify(sequence, false, '*');
                        self.lazy_suffix();
                    }
                }
                '+' | '?' if !basic => {
                    quantify(sequence, c == '+', c);
                    self.lazy_suffix();
                }
                '{' if !basic => match self.count(false) {
                    Some(at_least_once) => {
                        quantify(sequence, at_least_once, '{');
                        self.lazy_suffix();
                    }
                    None => sequence.push(Node::Char('{')),
                },
                '.' => sequence.push(Node::Unknown),
                '[' => {
                    let node = self.class();
                    sequence.push(node);
                }
                '^' if !basic || sequence.is_empty() => sequence.push(Node::Empty),
                '$' if !basic || self.at_sequence_end() => sequence.push(Node::Empty),
                c => sequence.push(Node::Char(c)),
            }
        }
    }

    /// Whether a BRE `$` here is an anchor: at the end, or before `\)`/`\|`.
    fn at_sequence_end(&self) -> bool {
        let mut rest = self.chars.clone();
        match rest.next() {
            None => true,
            Some('\\') => matches!(rest.next(), Some(')' | '|')),
            Some(_) => false,
        }
    }

    /// After `(` in ERE and Perl dialects.
    fn group(&mut self, depth: usize) -> Option<Node> {
        let mut lookaround = false;
        if self.chars.peek() == Some(&'?') && self.dialect == Dialect::Perl {
            self.chars.next();
            match self.chars.next()? {
                ':' | '>' | '|' => {}
                '=' | '!' => lookaround = true,
                '<' if matches!(self.chars.peek(), Some('=' | '!')) => {
                    self.chars.next();
                    lookaround = true;
                }
                // Named groups: `(?P<name>`, `(?<name>`, `(?'name'`.
                'P' | '<' | '\'' => {
                    for c in self.chars.by_ref() {
                        if c == '>' || c == '\'' {
                            break;
                        }
                    }
                }
                '#' => {
                    for c in self.chars.by_ref() {
                        if c == ')' {
                            break;
                        }
                    }
                    return Some(Node::Empty);
                }
                first => {
                    // Flags: `(?i)`, `(?s-m:...)`; free-spacing is not followed.
                    let mut c = first;
                    loop {
                        if c == 'x' {
                            return None;
                        }
                        match c {
                            ')' => return Some(Node::Empty),
                            ':' => break,
                            _ => c = self.chars.next()?,
                        }
                    }
                }
            }
        }
        let alternatives = self.alternatives(depth + 1)?;
        Some(Node::Group {
            alternatives,
            lookaround,
        })
    }

    /// A `\` escape outside a class.
    fn escape(&mut self, e: char) -> Node {
        match e {
            'b' | 'B' | '<' | '>' | '`' | '\'' | 'A' | 'z' | 'Z' | 'G' => Node::Empty,
            '1'..='9' => Node::Unknown,
            _ if self.dialect != Dialect::Perl => match e {
                'w' | 'W' | 's' | 'S' => Node::Unknown,
                e => Node::Char(e),
            },
            't' => Node::Char('\t'),
            'x' => self.hex().map_or(Node::Unknown, Node::Char),
            'p' | 'P' => {
                if self.chars.peek() == Some(&'{') {
                    for c in self.chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                    }
                } else {
                    self.chars.next();
                }
                Node::Unknown
            }
            'Q' => {
                // `\Q...\E`: all literal.
                let mut quoted = Vec::new();
                while let Some(c) = self.chars.next() {
                    if c == '\\' && self.chars.peek() == Some(&'E') {
                        self.chars.next();
                        break;
                    }
                    quoted.push(Node::Char(c));
                }
                Node::Group {
                    alternatives: vec![quoted],
                    lookaround: false,
                }
            }
            'E' => Node::Empty,
            e if e.is_ascii_alphanumeric() => Node::Unknown,
            e => Node::Char(e),
        }
    }

    /// `\xHH` or `\x{H...}`.
    fn hex(&mut self) -> Option<char> {
        let digits: String = if self.chars.peek() == Some(&'{') {
            self.chars.next();
            self.chars.by_ref().take_while(|&c| c != '}').collect()
        } else {
            let mut digits = String::new();
            for _ in 0..2 {
                match self.chars.peek() {
                    Some(c) if c.is_ascii_hexdigit() => digits.push(*c),
                    _ => break,
                }
                self.chars.next();
            }
            digits
        };
        char::from_u32(u32::from_str_radix(&digits, 16).ok()?).filter(|c| *c != '\n')
    }

    /// A bracket expression, after its `[`: one known character when it
    /// holds only that (`[.]`), else [`Node::Unknown`].
    fn class(&mut self) -> Node {
        let mut members = Vec::new();
        let mut negated = false;
        if self.chars.peek() == Some(&'^') {
            self.chars.next();
            negated = true;
        }
        if self.chars.peek() == Some(&']') {
            self.chars.next();
            members.push(']');
        }
        let mut named = false;
        while let Some(c) = self.chars.next() {
            match c {
                ']' => break,
                '[' if matches!(self.chars.peek(), Some(':' | '=' | '.')) => {
                    named = true;
                    let close = self.chars.next().unwrap_or(':');
                    let mut previous = None;
                    for c in self.chars.by_ref() {
                        if c == ']' && previous == Some(close) {
                            break;
                        }
                        previous = Some(c);
                    }
                }
                '\\' if self.dialect == Dialect::Perl => {
                    named = true;
                    self.chars.next();
                }
                c => members.push(c),
            }
        }
        match members.as_slice() {
            [only] if !negated && !named && *only != '-' => Node::Char(*only),
            _ => Node::Unknown,
        }
    }

    /// A `{m,n}` count after its `{` (BRE: `\{m,n\}`): whether it is at
    /// least one; `None`, and nothing read, when it is not a count.
    fn count(&mut self, basic: bool) -> Option<bool> {
        let mut ahead = self.chars.clone();
        let mut min = String::new();
        let mut seen_comma = false;
        let mut any_digit = false;
        loop {
            match ahead.next()? {
                c if c.is_ascii_digit() => {
                    any_digit = true;
                    if !seen_comma {
                        min.push(c);
                    }
                }
                ',' if !seen_comma => seen_comma = true,
                '\\' if basic && ahead.peek() == Some(&'}') => {
                    ahead.next();
                    break;
                }
                '}' if !basic => break,
                _ => return None,
            }
        }
        if !any_digit {
            return None;
        }
        self.chars = ahead;
        Some(min.parse::<u64>().is_ok_and(|m| m >= 1))
    }

    /// Perl's lazy `*?` and possessive `*+`.
    fn lazy_suffix(&mut self) {
        if self.dialect == Dialect::Perl && matches!(self.chars.peek(), Some('?' | '+')) {
            self.chars.next();
        }
    }
}

/// Applies a quantifier to the last node of `sequence`; with nothing before
/// it, the quantifier is a literal character.
fn quantify(sequence: &mut Vec<Node>, at_least_once: bool, literal: char) {
    match sequence.pop() {
        Some(node) => sequence.push(Node::Repeat {
            node: Box::new(node),
            at_least_once,
        }),
        None => sequence.push(Node::Char(literal)),
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect::{Basic, Extended, Fixed, Glob, Perl};
    use super::*;

    fn lits(pattern: &str, dialect: Dialect) -> Vec<String> {
        literals(pattern, dialect)
    }

    #[test]
    fn fixed_strings_are_taken_as_they_are_one_per_line() {
        assert_eq!(lits("a.b*c", Fixed), ["a.b*c"]);
        assert_eq!(lits("one\ntwo\r\n\nx", Fixed), ["one", "two", "x"]);
    }

    #[test]
    fn a_plain_literal_is_kept_whole_however_short() {
        for dialect in [Basic, Extended, Perl, Glob] {
            assert_eq!(lits("TODO", dialect), ["TODO"], "{dialect:?}");
            assert_eq!(lits("ab", dialect), ["ab"], "{dialect:?}");
        }
    }

    #[test]
    fn basic_regex_alternation_and_escapes() {
        assert_eq!(lits(r"foo\|bar", Basic), ["foo", "bar"]);
        assert_eq!(lits(r"main\.rs", Basic), ["main.rs"]);
        // In BRE `+ ? | ( ) {` are characters.
        assert_eq!(lits("a+b|c(d)", Basic), ["a+b|c(d)"]);
        assert_eq!(lits(r"fn \(main\|run\)", Basic), ["fn "]);
        assert_eq!(lits(r"\(main\|run\)", Basic), ["main", "run"]);
        assert_eq!(lits(r"abc\+d", Basic), ["abc"]);
        assert_eq!(lits(r"x\{2,3\}yzw", Basic), ["yzw"]);
        // `^` and `$` are anchors only at the ends.
        assert_eq!(lits("^error$", Basic), ["error"]);
        assert_eq!(lits("a^b$c", Basic), ["a^b$c"]);
        assert_eq!(lits(r"\<word\>", Basic), ["word"]);
        assert_eq!(lits("*star", Basic), ["*star"]);
    }

    #[test]
    fn extended_regex_alternation_groups_and_quantifiers() {
        assert_eq!(lits("foo|bar", Extended), ["foo", "bar"]);
        assert_eq!(lits("(error|warning): ", Extended), Vec::<String>::new());
        assert_eq!(lits("(error|warning)", Extended), ["error", "warning"]);
        assert_eq!(lits("colou?r", Extended), ["colo"]);
        assert_eq!(lits("ab*c", Extended), Vec::<String>::new());
        assert_eq!(lits("abc+d", Extended), ["abc"]);
        assert_eq!(lits("x{2}yz1", Extended), ["yz1"]);
        assert_eq!(lits("a{b", Extended), ["a{b"]);
        assert_eq!(lits(r"fn\s+main", Extended), ["main"]);
        assert_eq!(lits(r"main\.rs|lib\.rs", Extended), ["main.rs", "lib.rs"]);
        assert_eq!(lits("[Ee]rror: .*failed", Extended), ["rror: "]);
        assert_eq!(
            lits("[Ee]rror: .*compilation failed", Extended),
            ["compilation failed"]
        );
        assert_eq!(lits("v[.]1", Extended), ["v.1"]);
        assert_eq!(lits("(foo)?barbaz", Extended), ["barbaz"]);
        assert_eq!(lits("pre(fix)ed", Extended), ["prefixed"]);
        assert_eq!(lits("^$", Extended), Vec::<String>::new());
    }

    #[test]
    fn perl_regex_escapes_flags_and_lookarounds() {
        assert_eq!(lits(r"\bTODO\b", Perl), ["TODO"]);
        assert_eq!(lits(r"(?i)panic", Perl), ["panic"]);
        assert_eq!(lits(r"fn\s+\w+\(", Perl), Vec::<String>::new());
        assert_eq!(lits(r"impl\s+Display\s+for", Perl), ["Display"]);
        assert_eq!(lits(r"foo(?!bar)", Perl), ["foo"]);
        assert_eq!(lits(r"(?<=key=)value", Perl), ["value"]);
        assert_eq!(lits(r"(?:GET|POST) /api", Perl), [" /api"]);
        assert_eq!(lits(r"(?P<word>hello) world", Perl), ["hello world"]);
        assert_eq!(lits(r"\d{3}-\d{4} ext", Perl), [" ext"]);
        assert_eq!(lits(r"\x41BC", Perl), ["ABC"]);
        assert_eq!(lits(r"\Q(a.b)\E", Perl), ["(a.b)"]);
        assert_eq!(lits(r"a.*?bcd", Perl), ["bcd"]);
        assert_eq!(lits(r"\p{Lu}pper", Perl), ["pper"]);
        assert_eq!(lits(r"(?x) a b c", Perl), Vec::<String>::new());
        assert_eq!(lits(r"[\]x]yz1", Perl), ["yz1"]);
    }

    #[test]
    fn an_alternative_without_a_long_enough_run_is_dropped_others_kept() {
        assert_eq!(lits("a.b|needle", Extended), ["needle"]);
        assert_eq!(lits("x|y", Extended), ["x", "y"]);
    }

    #[test]
    fn globs() {
        assert_eq!(lits("*.rs", Glob), [".rs"]);
        assert_eq!(lits("**/test_*.py", Glob), ["/test_"]);
        assert_eq!(lits("config*", Glob), ["config"]);
        assert_eq!(lits("file[0-9].{txt,md}", Glob), ["file"]);
        assert_eq!(lits("*.?s", Glob), Vec::<String>::new());
        assert_eq!(lits(r"a\*bcd*", Glob), ["a*bcd"]);
    }

    #[test]
    fn a_pattern_argument_is_a_glob_only_without_regex_syntax() {
        assert_eq!(guess_dialect("*.ts"), Glob);
        assert_eq!(guess_dialect("**/needle*"), Glob);
        assert_eq!(guess_dialect("needle"), Perl);
        assert_eq!(guess_dialect("fn.*main"), Perl);
        assert_eq!(guess_dialect(r"\bfoo\b"), Perl);
        assert_eq!(guess_dialect("(a|b)*"), Perl);
    }
}
