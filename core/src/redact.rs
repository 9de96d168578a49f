//! Opt-in secret redaction: tokens, keys, passwords and host-supplied
//! literals in a tool's output become `[redacted: <kind>]` before the text
//! reaches the model (and, if the host asks, the spill file).
//!
//! ```
//! use toolcap_core::Redactor;
//!
//! let redactor = Redactor::new(&["hunter2-db".to_owned()])?;
//! let (text, counts) = redactor.redact("DB_PASSWORD=hunter2-db\nok\n");
//! assert_eq!(text, "DB_PASSWORD=[redacted: literal]\nok\n");
//! assert_eq!(counts.get("literal"), 1);
//! // Nothing matched: the input comes back borrowed, not copied.
//! assert!(matches!(redactor.redact("ok\n").0, std::borrow::Cow::Borrowed(_)));
//! # Ok::<(), toolcap_core::CapError>(())
//! ```
//!
//! How it works: one Aho-Corasick pass over each line finds anchors (token
//! prefixes such as `ghp_`, key names such as `password`, `Bearer`, `://`,
//! `-----BEGIN `, the literals); each anchor is then validated by hand
//! (character classes, lengths, word boundaries, placeholder values), because
//! a false positive destroys text the agent needs. Everything is line-local
//! except PEM private-key blocks, whose body lines are replaced one by one
//! (the line count never changes); that block is the only state a
//! [`LineRedactor`] carries from one line to the next.
//!
//! A line longer than [`UNIT`] bytes is redacted as pieces of at most that
//! size (cut at multiples of [`UNIT`] from the line's start, moved back to a
//! character boundary), in [`Redactor::redact`] and [`LineRedactor`] alike, so
//! a streaming caller never needs more than one piece in memory. A secret
//! that straddles such a cut is not found.

mod assign;
pub(crate) mod json;
mod pem;
mod tokens;

use std::borrow::Cow;
use std::collections::BTreeMap;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};

use crate::error::CapError;

/// Longest piece of a line that is redacted as one unit, in bytes.
pub const UNIT: usize = 64 * 1024;
/// Most host-supplied literals a [`Redactor`] accepts.
pub const MAX_LITERALS: usize = 64;
/// Shortest literal, in bytes: shorter ones would match ordinary words.
pub const MIN_LITERAL: usize = 4;
/// Longest literal, in bytes.
pub const MAX_LITERAL: usize = 512;

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $text:literal,)*) => {
        /// The stable names of the kinds of secret, as they appear in
        /// `[redacted: <kind>]` and in [`Redactions`].
        pub mod kind {
            $($(#[$doc])* pub const $name: &str = $text;)*
            /// Every kind, in the order of this list.
            pub const ALL: &[&str] = &[$($text),*];
        }

        /// The replacement text of `kind`.
        pub(crate) fn placeholder(kind: &str) -> &'static str {
            match kind {
                $($text => concat!("[redacted: ", $text, "]"),)*
                _ => unreachable!("unknown redaction kind {kind}"),
            }
        }
    };
}

kinds! {
    /// AWS access key id (`AKIA…`, `ASIA…`, 20 characters).
    AWS_ACCESS_KEY = "aws-access-key",
    /// AWS secret access key (40 characters after `aws_secret_access_key`).
    AWS_SECRET_KEY = "aws-secret-key",
    /// Google API key (`AIza…`).
    GOOGLE_API_KEY = "google-api-key",
    /// Azure storage account or Service Bus key in a connection string.
    AZURE_KEY = "azure-key",
    /// GitHub token (`ghp_…`, `github_pat_…`).
    GITHUB_TOKEN = "github-token",
    /// GitLab token (`glpat-…`).
    GITLAB_TOKEN = "gitlab-token",
    /// OpenAI API key (`sk-proj-…`, legacy `sk-…`).
    OPENAI_KEY = "openai-key",
    /// Anthropic API key (`sk-ant-api03-…`).
    ANTHROPIC_KEY = "anthropic-key",
    /// OpenRouter API key (`sk-or-v1-…`).
    OPENROUTER_KEY = "openrouter-key",
    /// Groq API key (`gsk_…`).
    GROQ_KEY = "groq-key",
    /// xAI API key (`xai-…`).
    XAI_KEY = "xai-key",
    /// Hugging Face token (`hf_…`).
    HUGGINGFACE_TOKEN = "huggingface-token",
    /// Stripe secret or restricted key (`sk_live_…`, `rk_test_…`).
    STRIPE_KEY = "stripe-key",
    /// npm access token (`npm_…`).
    NPM_TOKEN = "npm-token",
    /// PyPI API token (`pypi-AgEIcHlwaS5vcmc…`).
    PYPI_TOKEN = "pypi-token",
    /// Docker Hub personal access token (`dckr_pat_…`).
    DOCKER_TOKEN = "docker-token",
    /// DigitalOcean token (`dop_v1_…`).
    DIGITALOCEAN_TOKEN = "digitalocean-token",
    /// Slack token (`xoxb-…`, `xapp-…`).
    SLACK_TOKEN = "slack-token",
    /// Path of a Slack incoming webhook.
    SLACK_WEBHOOK = "slack-webhook",
    /// JSON Web Token.
    JWT = "jwt",
    /// Token of an `Authorization: Bearer` header.
    BEARER_TOKEN = "bearer-token",
    /// Body of a PEM private key block.
    PRIVATE_KEY = "private-key",
    /// Value of a password assignment, or the password of a URL.
    PASSWORD = "password",
    /// Value of a `secret`, `token`, `api_key`… assignment.
    SECRET = "secret",
    /// A literal the host supplied.
    LITERAL = "literal",
}

/// How many secrets were redacted, per kind, in the order of the kinds'
/// names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions {
    counts: BTreeMap<&'static str, u64>,
}

impl Redactions {
    /// Secrets redacted, all kinds together.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Secrets of `kind` redacted (0 for a kind never seen).
    pub fn get(&self, kind: &str) -> u64 {
        self.counts.get(kind).copied().unwrap_or(0)
    }

    /// True when nothing was redacted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// `(kind, count)` for every kind seen, sorted by kind.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.counts.iter().map(|(k, n)| (*k, *n))
    }

    /// Add the counts of `other`.
    pub fn merge(&mut self, other: &Redactions) {
        for (k, n) in other.iter() {
            *self.counts.entry(k).or_default() += n;
        }
    }

    fn add(&mut self, kind: &'static str) {
        *self.counts.entry(kind).or_default() += 1;
    }
}

/// A redaction to apply: bytes `start..end` of a unit become the kind's
/// placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
}

/// What an anchor found by the automaton starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// A token with a fixed prefix; the prefix's case must match exactly.
    Token(tokens::Token),
    /// A key name (any case) whose assigned value is secret.
    Key(assign::Key),
    /// `Bearer` (any case).
    Bearer,
    /// `://`, for the password of a URL.
    Url,
    /// `-----BEGIN ` of a PEM block.
    PemBegin,
    /// Host literal number `n`; matched case-sensitively.
    Literal(usize),
}

impl Anchor {
    /// Order among anchors found at one offset: literals first (the host
    /// said so), then fixed formats, then contexts, which defer to both.
    fn rank(self) -> u8 {
        match self {
            Anchor::Literal(_) => 0,
            Anchor::Token(_) | Anchor::PemBegin => 1,
            Anchor::Key(_) | Anchor::Bearer | Anchor::Url => 2,
        }
    }

    /// True when the anchor's bytes must match the pattern's case exactly.
    fn exact_case(self) -> bool {
        matches!(
            self,
            Anchor::Token(_) | Anchor::PemBegin | Anchor::Literal(_)
        )
    }
}

/// An anchor found in a unit.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    anchor: Anchor,
}

/// The redactor of one session: its anchors and literals, built once.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// A DFA itself, not `AhoCorasick` (which compiles in both NFAs and
    /// their searches to choose at run time): the component is smaller.
    automaton: DFA,
    anchors: Vec<Anchor>,
    patterns: Vec<String>,
}

impl Redactor {
    /// A redactor for the built-in kinds and `literals`: host-supplied secret
    /// strings, redacted wherever they occur (kind `literal`, case-sensitive).
    ///
    /// At most [`MAX_LITERALS`], each [`MIN_LITERAL`]`..=`[`MAX_LITERAL`]
    /// bytes, without LF or CR, and not part of a replacement text (which
    /// would redact the replacement again); otherwise
    /// [`CapError::InvalidSettings`], naming the literal by its position, never
    /// by its text.
    pub fn new(literals: &[String]) -> Result<Redactor, CapError> {
        if literals.len() > MAX_LITERALS {
            return Err(CapError::InvalidSettings(format!(
                "{} secret literals were given; at most {MAX_LITERALS} are allowed",
                literals.len()
            )));
        }
        for (i, lit) in literals.iter().enumerate() {
            let n = i + 1;
            if !(MIN_LITERAL..=MAX_LITERAL).contains(&lit.len()) {
                return Err(CapError::InvalidSettings(format!(
                    "secret literal {n} is {} bytes long; each must be {MIN_LITERAL} to \
                     {MAX_LITERAL} bytes (shorter ones would match ordinary words)",
                    lit.len()
                )));
            }
            if lit.contains(['\n', '\r']) {
                return Err(CapError::InvalidSettings(format!(
                    "secret literal {n} contains a line break; literals are matched within \
                     one line"
                )));
            }
            if kind::ALL
                .iter()
                .any(|k| placeholder(k).contains(lit.as_str()))
            {
                return Err(CapError::InvalidSettings(format!(
                    "secret literal {n} occurs in the replacement text `[redacted: <kind>]`, \
                     which would then be redacted again"
                )));
            }
        }
        let mut patterns: Vec<String> = Vec::new();
        let mut anchors = Vec::new();
        let mut add = |p: &str, a: Anchor| {
            patterns.push(p.to_owned());
            anchors.push(a);
        };
        for &(p, t) in tokens::PREFIXES {
            add(p, Anchor::Token(t));
        }
        for &(p, k) in assign::KEYS {
            add(p, Anchor::Key(k));
        }
        add("bearer", Anchor::Bearer);
        add("://", Anchor::Url);
        add(pem::BEGIN, Anchor::PemBegin);
        for (i, lit) in literals.iter().enumerate() {
            add(lit, Anchor::Literal(i));
        }
        // One case-insensitive automaton finds every anchor in one pass; the
        // anchors that need an exact case are checked per hit. Overlapping
        // search, so that a rejected anchor never hides one that overlaps it.
        let automaton = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .map_err(|e| CapError::InvalidSettings(format!("secret literals: {e}")))?;
        Ok(Redactor {
            automaton,
            anchors,
            patterns,
        })
    }

    /// Redact a whole text: the same result as feeding its lines to
    /// [`Redactor::stream`] one by one. Borrowed when nothing matched.
    pub fn redact<'t>(&self, text: &'t str) -> (Cow<'t, str>, Redactions) {
        let mut state = self.stream();
        let mut out: Option<String> = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            for unit in units(line) {
                state.scan(unit);
                match &mut out {
                    Some(out) => apply(out, unit, &state.edits),
                    None if !state.edits.is_empty() => {
                        let mut s = String::with_capacity(text.len() + 64);
                        s.push_str(&text[..offset]);
                        apply(&mut s, unit, &state.edits);
                        out = Some(s);
                    }
                    None => {}
                }
                offset += unit.len();
            }
        }
        let text = out.map_or(Cow::Borrowed(text), Cow::Owned);
        (text, state.counts)
    }

    /// A state machine fed complete lines, for output that arrives in
    /// pieces; see [`LineRedactor`].
    pub fn stream(&self) -> LineRedactor<'_> {
        LineRedactor {
            redactor: Cow::Borrowed(self),
            pem: pem::State::default(),
            counts: Redactions::default(),
            hits: Vec::new(),
            edits: Vec::new(),
        }
    }

    /// [`stream`](Self::stream) owning this redactor: for a stream kept
    /// across calls, apart from the session that holds the original.
    pub fn into_stream(self) -> LineRedactor<'static> {
        LineRedactor {
            redactor: Cow::Owned(self),
            pem: pem::State::default(),
            counts: Redactions::default(),
            hits: Vec::new(),
            edits: Vec::new(),
        }
    }

    /// The anchors of `unit`, sorted by offset, then rank, longest first.
    fn anchors_of(&self, unit: &str, hits: &mut Vec<Hit>) {
        hits.clear();
        let bytes = unit.as_bytes();
        let matches = self
            .automaton
            .try_find_overlapping_iter(Input::new(unit))
            .expect("an unanchored standard DFA searches overlapping");
        for m in matches {
            let anchor = self.anchors[m.pattern().as_usize()];
            if anchor.exact_case()
                && &bytes[m.start()..m.end()] != self.patterns[m.pattern().as_usize()].as_bytes()
            {
                continue;
            }
            hits.push(Hit {
                start: m.start(),
                end: m.end(),
                anchor,
            });
        }
        crate::order::sort_by_key(hits, |h| (h.start, h.anchor.rank(), usize::MAX - h.end));
    }

    /// The secret that anchor `hit` starts, if it validates.
    fn detect(&self, unit: &str, hit: Hit, hits: &[Hit]) -> Option<Span> {
        match hit.anchor {
            Anchor::Literal(_) => Some(Span {
                start: hit.start,
                end: hit.end,
                kind: kind::LITERAL,
            }),
            Anchor::Token(t) => tokens::detect(t, unit, hit.start, hit.end),
            Anchor::Key(k) => assign::key(k, unit, hit.start, hit.end)
                .filter(|s| !self.is_exact_format(unit, s, hits)),
            Anchor::Bearer => assign::bearer(unit, hit.start, hit.end)
                .filter(|s| !self.is_exact_format(unit, s, hits)),
            Anchor::Url => assign::url(unit, hit.start, hit.end)
                .filter(|s| !self.is_exact_format(unit, s, hits)),
            // Handled by the caller, which opens a block.
            Anchor::PemBegin => None,
        }
    }

    /// True when the value `span` found by a context (key, `Bearer`, URL) is
    /// exactly a literal or a token of a fixed format: that more precise
    /// anchor, later in the list, names it.
    fn is_exact_format(&self, unit: &str, span: &Span, hits: &[Hit]) -> bool {
        let first = hits.partition_point(|h| h.start < span.start);
        hits[first..]
            .iter()
            .take_while(|h| h.start == span.start)
            .filter(|h| h.anchor.rank() < 2)
            .any(|h| {
                self.detect(unit, *h, hits)
                    .is_some_and(|s| s.end == span.end)
            })
    }
}

/// Streaming form of [`Redactor::redact`]: feed the lines of a text one by
/// one (each ending in LF, or the last one without); the concatenated outputs
/// equal `redact(text)`, and [`LineRedactor::counts`] its counts.
///
/// A line may also hold several LFs; it is then redacted line by line. A
/// piece without LF is taken as a whole line, cut into units of [`UNIT`]
/// bytes from its start. A caller that cuts a long line itself, at the same
/// places as [`Redactor::redact`] (multiples of [`UNIT`] from the line's
/// start, moved back to a char boundary), passes it one unit per call to
/// [`LineRedactor::push_unit`]: a unit after one moved back is up to three
/// bytes longer than [`UNIT`], and `push_line` would cut it again.
#[derive(Debug)]
pub struct LineRedactor<'r> {
    /// Borrowed from a session, or owned by a stream that outlives the
    /// borrow (see [`Redactor::into_stream`]).
    redactor: Cow<'r, Redactor>,
    pem: pem::State,
    counts: Redactions,
    hits: Vec<Hit>,
    edits: Vec<Span>,
}

impl LineRedactor<'_> {
    /// Redact `line` and append it to `out`.
    pub fn push_line(&mut self, line: &str, out: &mut String) {
        for line in line.split_inclusive('\n') {
            for unit in units(line) {
                self.push_unit(unit, out);
            }
        }
    }

    /// Redact one unit as [`Redactor::redact`] cuts them (a line with its
    /// LF, or a piece of a longer line) and append it to `out`, without
    /// cutting it again.
    pub fn push_unit(&mut self, unit: &str, out: &mut String) {
        self.scan(unit);
        apply(out, unit, &self.edits);
    }

    /// The redactions of `unit`, one unit as [`Redactor::redact`] cuts
    /// them (a line with its LF, or a piece of a longer line): `(start, end,
    /// kind)` with offsets into `unit`, sorted and disjoint. For callers
    /// that map offsets of the redacted text back to the original's.
    pub(crate) fn spans_of_unit(
        &mut self,
        unit: &str,
    ) -> impl Iterator<Item = (usize, usize, &'static str)> + '_ {
        self.scan(unit);
        self.edits.iter().map(|e| (e.start, e.end, e.kind))
    }

    /// Secrets redacted so far.
    pub fn counts(&self) -> &Redactions {
        &self.counts
    }

    /// Fill `self.edits` with the redactions of `unit` (one line, or one
    /// piece of a long line), counting them.
    fn scan(&mut self, unit: &str) {
        self.edits.clear();
        if self.pem.is_open() {
            match self.pem.body_line(unit) {
                pem::Body::Keep => return,
                pem::Body::Redact(span, first) => {
                    if first {
                        self.counts.add(span.kind);
                    }
                    self.edits.push(span);
                    return;
                }
                // Not a body line: the block has ended; scan the line anew.
                pem::Body::Closed => {}
            }
        }
        let redactor = &*self.redactor;
        redactor.anchors_of(unit, &mut self.hits);
        let mut pos = 0;
        for i in 0..self.hits.len() {
            let hit = self.hits[i];
            if hit.start < pos {
                continue;
            }
            if hit.anchor == Anchor::PemBegin {
                match pem::begin(unit, hit.start, hit.end) {
                    pem::Begin::No => continue,
                    pem::Begin::Inline(span) => {
                        self.counts.add(span.kind);
                        self.edits.push(span);
                        pos = span.end;
                    }
                    pem::Begin::Open {
                        prefix,
                        rest,
                        body_seen,
                    } => {
                        self.pem.open(&unit[..prefix], rest.is_some(), body_seen);
                        if let Some(span) = rest {
                            self.counts.add(span.kind);
                            self.edits.push(span);
                        }
                        // The rest of the line belongs to the block.
                        break;
                    }
                }
                continue;
            }
            if let Some(span) = redactor.detect(unit, hit, &self.hits) {
                debug_assert!(span.start >= hit.start && span.end > span.start);
                if span.start >= pos {
                    self.counts.add(span.kind);
                    self.edits.push(span);
                    pos = span.end;
                }
            }
        }
    }
}

/// Append `unit` to `out` with `edits` (sorted, disjoint) applied.
fn apply(out: &mut String, unit: &str, edits: &[Span]) {
    let mut last = 0;
    for e in edits {
        out.push_str(&unit[last..e.start]);
        out.push_str(placeholder(e.kind));
        last = e.end;
    }
    out.push_str(&unit[last..]);
}

/// The units of one line: pieces of at most [`UNIT`] bytes, cut at multiples
/// of [`UNIT`] from the line's start, each moved back to a char boundary.
fn units(line: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut nominal = 0;
    std::iter::from_fn(move || {
        if start >= line.len() {
            return None;
        }
        nominal += UNIT;
        let end = if nominal >= line.len() {
            line.len()
        } else {
            line.floor_char_boundary(nominal)
        };
        let unit = &line[start..end];
        start = end;
        Some(unit)
    })
}

/// Byte classes shared by the detectors.
/// Add `more` to the report's `(kind, count)` list, sorted by kind.
pub(crate) fn merge_counts(counts: &mut Vec<(String, u64)>, more: &Redactions) {
    for (kind, n) in more.iter() {
        match counts.iter_mut().find(|(k, _)| k == kind) {
            Some((_, total)) => *total += n,
            None => counts.push((kind.to_owned(), n)),
        }
    }
    crate::order::sort_by(counts, Ord::cmp);
}

mod class {
    /// Letters and digits.
    pub(super) fn alnum(b: u8) -> bool {
        b.is_ascii_alphanumeric()
    }

    /// The base64url alphabet.
    pub(super) fn b64url(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
    }

    /// End of the run of `class` bytes that starts at `from`.
    pub(super) fn run(b: &[u8], from: usize, class: fn(u8) -> bool) -> usize {
        from + b[from.min(b.len())..]
            .iter()
            .take_while(|&&c| class(c))
            .count()
    }

    /// True when the byte before `at` (if any) is not a token byte: a
    /// fixed-format token starts a word.
    pub(super) fn starts_word(b: &[u8], at: usize) -> bool {
        at == 0 || !(b64url(b[at - 1]) || b[at - 1] == b'+')
    }

    /// True when the byte at `at` (if any) is not a token byte: a
    /// fixed-format token ends a word, and is not the start of a longer
    /// base64 blob.
    pub(super) fn ends_word(b: &[u8], at: usize) -> bool {
        at >= b.len() || !(b64url(b[at]) || matches!(b[at], b'+' | b'/' | b'='))
    }
}

#[cfg(test)]
mod tests;
