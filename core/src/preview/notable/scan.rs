//! Finding the candidates: a few searches over the omitted middle for the
//! words and signs failures are written with, each hit's line classified,
//! and the best kept with variety between families of alike lines.

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};
use memchr::memmem::Finder;
use memchr::{memchr, memchr3_iter, memrchr};

use super::classify::{ANCHORS, LEVEL_ANCHORS, RARE, RARE_SIGNS, classify};
use super::context::{Kind, MAX_LINE, context_lines};
use super::fingerprint::Fingerprints;
use super::similar::{Sketch, dedupe_key};
use super::split::{HAS_PREFILTER, Split};
use super::walk::{First, Search, Starts, walks_alike};

/// Middles at least this long are searched for anchors in one pass of the
/// automaton of every search ([`Patterns::anchored_lines`]) rather than one
/// pass per anchor. The pass saves about 0.25 ms a MiB natively and 1.3 ms
/// in the component (4 MiB of log: 4.4 -> 3.4 ms, 15.6 -> 9.4 ms); building
/// the automaton costs a session 120 us natively and 420 us in the
/// component, once, so shorter middles keep the searches per anchor.
const ONE_PASS_SCAN: usize = 1 << 20;

/// Level anchors away from a level that [`Patterns::anchored_lines`] moves
/// on from before it may judge how dense they are, and the bytes it wants
/// between them on average to go on.
const MAX_SKIPS: usize = 64;
const SKIP_SPACING: usize = 1024;

/// Longest anchor or rare sign, in bytes, at most.
const LONGEST_SIGN: usize = 64;

/// The middle is searched in pieces of about this size, cut at line ends,
/// so that hits come in file order and stay in cache.
pub(super) const CHUNK: usize = 256 * 1024;

/// How [`Patterns::occurrences`] reports overlapping patterns; which lines
/// hold an occurrence is the same either way. Leftmost-first lets the
/// automaton run on its SIMD prefilter (Teddy) where it has one: natively,
/// the one-pass preview of 64 MiB of log then takes 77 ms instead of 210.
/// wasm has no Teddy, and there the standard semantics measured a little
/// faster (`toolcap cap` of 64 MiB: 0.36 s of CPU against 0.39), and let
/// the automaton walk only the lines a prefilter of its own finds, or four
/// parts of a text at once ([`super::walk`]).
pub(super) const ANY_MATCH_KIND: MatchKind = if cfg!(target_arch = "wasm32") {
    MatchKind::Standard
} else {
    MatchKind::LeftmostFirst
};

/// Confidence of a host pattern.
pub const HOST_SCORE: u8 = 5;

/// The share of the preview's budget (bytes and lines) notable lines may
/// take, in percent.
pub const SHARE_PERCENT: usize = 25;

/// The searches for one session: built-in anchors and the host's patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    /// Each built-in anchor, and whether it is a [`LEVEL_ANCHORS`] one;
    /// built on the first search of a middle: most results fit, and a
    /// session that never cuts one need not build 59 searchers.
    anchors: OnceLock<Vec<(Finder<'static>, bool)>>,
    host: Vec<Finder<'static>>,
    /// The host's patterns as given.
    host_text: Vec<String>,
    /// Every anchor, rare sign and host pattern in one search: a line
    /// none of them occurs in is not notable, so one pass over it decides
    /// (the one-pass preview asks this of every line). DFAs themselves, as
    /// in [`crate::redact`]: the same matches as `AhoCorasick`, a smaller
    /// component. Built when first asked: building takes about 120 us
    /// natively and 420 us in the component (most of opening a session),
    /// and only the one-pass preview and the scan of a long middle ask.
    any: OnceLock<Compiled>,
}

/// A session's searches compiled.
#[derive(Debug, Clone)]
enum Compiled {
    /// With the standard semantics that wasm uses, where no SIMD prefilter
    /// of aho-corasick's runs ahead of the automaton, walks
    /// ([`super::walk`]) find what its search finds ([`walks_alike`]): the
    /// automaton, and the fingerprints of its patterns, which find the
    /// lines it walks.
    Walked {
        dfa: Box<DFA>,
        fingerprints: Option<Box<Fingerprints>>,
    },
    /// Otherwise the automata's own searches: natively split by length,
    /// for the prefilter ([`Split`]).
    Searched(Split),
}

impl Patterns {
    /// The built-in searches and the host's literal `patterns`.
    pub fn new(patterns: &[String]) -> Patterns {
        Patterns {
            anchors: OnceLock::new(),
            host: patterns
                .iter()
                .map(|p| Finder::new(p.as_bytes()).into_owned())
                .collect(),
            host_text: patterns.to_vec(),
            any: OnceLock::new(),
        }
    }

    /// The automaton of every search, built on first use.
    fn any(&self) -> &Compiled {
        self.any.get_or_init(|| self.automaton(ANY_MATCH_KIND))
    }

    /// The search of every anchor, rare sign and host pattern, in that
    /// order (the order [`Patterns::anchored_lines`] reads its ids in).
    fn automaton(&self, kind: MatchKind) -> Compiled {
        if !walks_alike(kind, self.searches()) {
            return Compiled::Searched(Split::new(self.searches(), kind, HAS_PREFILTER));
        }
        Compiled::Walked {
            dfa: Box::new(
                DFA::builder()
                    .match_kind(kind)
                    .build(self.searches())
                    .expect("a few short literals build an automaton"),
            ),
            fingerprints: Fingerprints::new(self.searches().map(str::as_bytes)).map(Box::new),
        }
    }

    /// Every anchor, rare sign and host pattern, in that order.
    fn searches(&self) -> impl Iterator<Item = &str> {
        ANCHORS
            .iter()
            .chain(&RARE_SIGNS)
            .copied()
            .chain(self.host_text.iter().map(String::as_str))
    }

    /// How `automaton` walks, with its fingerprints when `fingerprinted`;
    /// none when it cannot walk.
    fn walker(automaton: &Compiled, fingerprinted: bool) -> Option<Search<'_>> {
        match automaton {
            Compiled::Walked { dfa, fingerprints } => Some(Search {
                dfa,
                fingerprints: fingerprints.as_deref().filter(|_| fingerprinted),
            }),
            Compiled::Searched(_) => None,
        }
    }

    /// False when `line` holds no anchor, rare sign or host pattern: then it
    /// is not notable, whatever [`classify`] would make of it.
    pub fn may_be_notable(&self, line: &str) -> bool {
        match self.any() {
            Compiled::Walked { dfa, .. } => dfa
                .try_find(&Input::new(line).earliest(true))
                .expect("an unanchored DFA searches")
                .is_some(),
            Compiled::Searched(split) => split.occurs(line),
        }
    }

    /// Where anchors, rare signs and host patterns occur in `hay`
    /// (non-overlapping, in order). None spans a line break, so a line of
    /// `hay` that holds none of these starts holds no occurrence at all and
    /// [`may_be_notable`](Self::may_be_notable) of any part of it is false:
    /// one search of a whole buffer stands in for a call per line.
    pub fn occurrences<'a>(&'a self, hay: &'a str) -> Box<dyn Iterator<Item = usize> + 'a> {
        match self.any() {
            any @ Compiled::Walked { .. } => {
                let search = Self::walker(any, true).expect("walked");
                Box::new(Starts::new(search, hay.as_bytes()))
            }
            Compiled::Searched(split) => Box::new(split.starts(hay.as_bytes())),
        }
    }

    /// The lines of `b[lo..hi]` (`lo` starts a line) where an anchor or a
    /// rare sign counts, as [`lines_with`] and [`rare_lines`] find them:
    /// a search of each anchor over the bytes, then one for the rare signs.
    pub(super) fn anchored_lines_each(
        &self,
        b: &[u8],
        lo: usize,
        hi: usize,
        out: &mut Vec<(usize, bool)>,
    ) {
        let anchors = self.anchors.get_or_init(|| {
            ANCHORS
                .iter()
                .map(|a| {
                    (
                        Finder::new(a.as_bytes()).into_owned(),
                        LEVEL_ANCHORS.contains(a),
                    )
                })
                .collect()
        });
        for (finder, level) in anchors {
            lines_with(finder, *level, b, lo, hi, false, out);
        }
        rare_lines(b, lo, hi, out);
    }

    /// The same lines as [`Patterns::anchored_lines_each`], from one pass
    /// of the automaton of every search: a line where it finds nothing
    /// holds no anchor or rare sign. A line counts at its first match that
    /// is a plain anchor, a rare sign or a [`LEVEL_ANCHORS`] one where a
    /// level is written, within [`MAX_LINE`] of its start. A level anchor
    /// elsewhere (`critical path`, a table's `NAME   `) only moves the
    /// search on by a byte: no anchor or sign holds one, so no match is
    /// skipped. Any other first match (a host pattern; one past
    /// `MAX_LINE`, which the standard semantics of wasm may report before
    /// an earlier one) has the line's first bytes searched each way.
    pub(super) fn anchored_lines(
        &self,
        b: &[u8],
        lo: usize,
        hi: usize,
        out: &mut Vec<(usize, bool)>,
    ) {
        self.anchored_lines_by(self.any(), MAX_SKIPS, b, lo, hi, out);
    }

    /// [`Patterns::anchored_lines`] with `automaton`, of this session's
    /// searches of either match kind, judging after `max_skips`.
    fn anchored_lines_by(
        &self,
        automaton: &Compiled,
        max_skips: usize,
        b: &[u8],
        lo: usize,
        hi: usize,
        out: &mut Vec<(usize, bool)>,
    ) {
        // Natively the automaton runs on its prefilter; without one (wasm),
        // walks answer the same: of the lines the fingerprints find, or of
        // the piece's parts at once.
        let mut walked = Self::walker(automaton, true).map(|search| First::new(search, b, lo, hi));
        let mut searched = match automaton {
            Compiled::Searched(split) => Some(split.searcher(b)),
            Compiled::Walked { .. } => None,
        };
        let mut first_from = |q: usize| match (&mut walked, &mut searched) {
            (Some(first), _) => first.from(q),
            (None, Some(searcher)) => searcher.first(q, hi).map(|(o, _)| o),
            (None, None) => unreachable!("a compiled search walks or searches"),
        };
        // `p` starts the first line not yet decided; `q` is where to search.
        let (mut p, mut q) = (lo, lo);
        let mut skips = 0;
        while q < hi {
            // Level anchors away from a level on most lines (a table of
            // `ACTIVE   TRUE   `): each costs a search, and the searches per
            // anchor do better for the rest of the piece.
            if skips > max_skips && skips * SKIP_SPACING > q - lo {
                let from = if p > lo { p - 1 } else { lo };
                self.anchored_lines_each(b, from, hi, out);
                return;
            }
            let Some(m) = first_from(q) else { break };
            let at = m.start;
            let start = memrchr(b'\n', &b[p..at]).map_or(p, |i| p + i + 1);
            let end = memchr(b'\n', &b[at..hi]).map_or(hi, |i| at + i + 1);
            let id = m.pattern;
            // Where the search that found it each way would have hit.
            let hit = match ANCHORS.get(id) {
                Some(a) if !LEVEL_ANCHORS.contains(a) || level_written(b, lo, at) => Some(at),
                Some(_) => {
                    (p, q) = (start, at + 1);
                    skips += 1;
                    continue;
                }
                // A sign starts on its rare byte, where `rare_lines` hits.
                None => RARE_SIGNS.get(id - ANCHORS.len()).map(|_| at),
            };
            if hit.is_some_and(|h| line_start(b, lo, h) == Some(start)) {
                out.push((start, false));
            } else {
                // Only what starts within MAX_LINE of the line's start
                // counts. From the LF before the line, if it is in the
                // chunk: `line_start` then counts as it counts in the chunk.
                let first = end.min(start.saturating_add(MAX_LINE + LONGEST_SIGN));
                let from = if start > lo { start - 1 } else { lo };
                self.anchored_lines_each(b, from, first, out);
            }
            (p, q) = (end, end);
        }
    }

    /// These searches with a call's search `terms` added to the host's
    /// patterns (what the JSON preview keeps an item for).
    pub fn with_terms(&self, terms: &[&str]) -> Patterns {
        let mut all = self.host_text.clone();
        all.extend(terms.iter().map(|t| (*t).to_owned()));
        Patterns::new(&all)
    }

    /// True when one of the host's patterns occurs in `s`.
    pub fn host_matches(&self, s: &str) -> bool {
        self.host.iter().any(|f| f.find(s.as_bytes()).is_some())
    }
}

/// What the fuzz checks compare (feature `test-support`): the answers of
/// the standard automaton walked parts at once ([`super::walk`]) beside
/// those of its own search and of the searches per anchor.
#[cfg(any(test, feature = "test-support"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOracle {
    /// Whether the patterns let the walks stand in for the search, and
    /// whether they were fingerprinted.
    pub walks: bool,
    pub fingerprinted: bool,
    /// Where occurrences start: walked in parts, walked where the
    /// fingerprints found a pattern (when they could be taken), and by the
    /// automaton's search.
    pub walked_starts: Vec<usize>,
    pub fingerprinted_starts: Vec<usize>,
    pub searched_starts: Vec<usize>,
    /// The lines the one-pass scan finds with the walks, and those the
    /// searches per anchor find.
    pub walked_lines: Vec<usize>,
    pub each_lines: Vec<usize>,
}

#[cfg(any(test, feature = "test-support"))]
impl Patterns {
    /// [`WalkOracle`] of `text` from `lo`, which starts a line.
    pub fn walk_oracle(&self, text: &str, lo: usize) -> WalkOracle {
        let automaton = self.automaton(MatchKind::Standard);
        let b = text.as_bytes();
        let walks = matches!(automaton, Compiled::Walked { .. });
        let starts = |fingerprinted| match Self::walker(&automaton, fingerprinted) {
            Some(search) => Starts::new(search, &b[lo..]).map(|s| lo + s).collect(),
            None => Vec::new(),
        };
        let (walked_starts, fingerprinted_starts) = (starts(false), starts(true));
        let searched_starts = match &automaton {
            Compiled::Walked { dfa, .. } => dfa
                .try_find_iter(Input::new(b).range(lo..))
                .expect("an unanchored DFA searches")
                .map(|m| m.start())
                .collect(),
            Compiled::Searched(split) => split.starts_from(b, lo).collect(),
        };
        let line_starts = |mut found: Vec<(usize, bool)>| {
            let mut starts: Vec<usize> = found.drain(..).map(|(s, _)| s).collect();
            starts.sort_unstable();
            starts.dedup();
            starts
        };
        let (mut walked, mut each) = (Vec::new(), Vec::new());
        self.anchored_lines_by(&automaton, MAX_SKIPS, b, lo, b.len(), &mut walked);
        self.anchored_lines_each(b, lo, b.len(), &mut each);
        WalkOracle {
            walks,
            fingerprinted: matches!(
                automaton,
                Compiled::Walked {
                    fingerprints: Some(_),
                    ..
                }
            ),
            walked_starts,
            fingerprinted_starts,
            searched_starts,
            walked_lines: line_starts(walked),
            each_lines: line_starts(each),
        }
    }
}

/// A notable line of the middle, with the lines shown with it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Start of the line.
    pub start: usize,
    /// End of the line, after its LF (or the end of the text).
    pub end: usize,
    /// Confidence, 1 to 5.
    pub score: u8,
    /// More lines of the middle like this one (not shown).
    pub similar: u64,
    /// Other lines shown with it, `(start, end)`, in file order.
    pub context: Vec<(usize, usize)>,
    /// What it is, for the lines of its whole block ([`blocks::block`]).
    pub kind: Kind,
}

/// Find the notable lines of `text[from..to]`; `from` starts a line and
/// `to` ends one (or is the end of the text). Distinct candidates are
/// kept up to 4 x `keep`, then cut back to the best `keep` by confidence,
/// then rank in their family of lines alike (round robin between
/// families), then file order.
pub fn scan(
    text: &str,
    from: usize,
    to: usize,
    patterns: &Patterns,
    keep: usize,
) -> Vec<Candidate> {
    let b = text.as_bytes();
    let mut found = Found::new(keep);
    let mut hits: Vec<(usize, bool)> = Vec::new();
    let one_pass = to - from >= ONE_PASS_SCAN;
    let mut pos = from;
    while pos < to {
        let target = pos + CHUNK;
        let end = if target >= to {
            to
        } else {
            memchr(b'\n', &b[target..to]).map_or(to, |i| target + i + 1)
        };
        hits.clear();
        if one_pass {
            patterns.anchored_lines(b, pos, end, &mut hits);
        } else {
            patterns.anchored_lines_each(b, pos, end, &mut hits);
        }
        for finder in &patterns.host {
            lines_with(finder, false, b, pos, end, true, &mut hits);
        }
        // One entry per line, host patterns first.
        crate::order::sort_by_key(&mut hits, |&(start, host)| (start, !host));
        hits.dedup_by_key(|h| h.0);
        for &(start, host) in &hits {
            let line_end = memchr(b'\n', &b[start..end]).map_or(end, |i| start + i + 1);
            found.consider(text, start, line_end, host, from, to);
        }
        pos = end;
    }
    found.kept
}

/// The lines of `b[lo..hi]` (which starts a line) where `finder` matches;
/// only where a log level is written if `level`.
pub(super) fn lines_with(
    finder: &Finder<'_>,
    level: bool,
    b: &[u8],
    lo: usize,
    hi: usize,
    host: bool,
    out: &mut Vec<(usize, bool)>,
) {
    let mut p = lo;
    while p < hi {
        let Some(i) = finder.find(&b[p..hi]) else {
            break;
        };
        let hit = p + i;
        if level && !level_written(b, lo, hit) {
            p = hit + 1;
            continue;
        }
        if let Some(start) = line_start(b, lo, hit) {
            out.push((start, host));
        }
        p = memchr(b'\n', &b[hit..hi]).map_or(hi, |i| hit + i + 1);
    }
}

/// Whether a [`LEVEL_ANCHORS`] hit at `hit` is where a log level is
/// written: after `=`, `[` or `"`, or where a line (or `b[lo..]`) starts.
fn level_written(b: &[u8], lo: usize, hit: usize) -> bool {
    hit == lo || matches!(b[hit - 1], b'=' | b'[' | b'"' | b'\n')
}

/// The lines of `b[lo..hi]` with a rare sign: `exception`, `exit`, `Kill`,
/// or a cross mark.
pub(super) fn rare_lines(b: &[u8], lo: usize, hi: usize, out: &mut Vec<(usize, bool)>) {
    let hay = &b[lo..hi];
    let mut skip_to = 0;
    for i in memchr3_iter(RARE[0], RARE[1], RARE[2], hay) {
        if i < skip_to {
            continue;
        }
        let rest = &hay[i..];
        // Each sign starts on its rare byte: the one found starts it here.
        if RARE_SIGNS
            .iter()
            .any(|sign| rest.starts_with(sign.as_bytes()))
        {
            let hit = lo + i;
            if let Some(start) = line_start(b, lo, hit) {
                out.push((start, false));
            }
            skip_to = memchr(b'\n', rest).map_or(hay.len(), |j| i + j + 1);
        }
    }
}

/// The start of the line holding `hit` (not before `lo`), or `None` when the
/// line is longer than [`MAX_LINE`].
pub(super) fn line_start(b: &[u8], lo: usize, hit: usize) -> Option<usize> {
    let floor = hit.saturating_sub(MAX_LINE).max(lo);
    match memrchr(b'\n', &b[floor..hit]) {
        Some(i) => Some(floor + i + 1),
        None if floor == lo => Some(lo),
        None => None,
    }
}

/// Kept members of a family told apart in ranking; later ones rank alike.
pub(super) const RANKS: usize = 16;

/// Families a line is compared with in the scan: the most often seen ones
/// (where a flood finds its family at once), then those of each of its
/// [`Sketch::keys`], at most.
pub(super) const FAMILY_COMPARE: usize = 4;

/// The candidates kept so far: at most about 4 x `keep`, cut back to the
/// best `keep` by confidence, then rank in their family (round robin
/// between families), then file order.
pub(super) struct Found {
    kept: Vec<Candidate>,
    /// For each kept candidate: its family (index in `families`) and its
    /// rank there (0 for the first kept).
    place: Vec<(usize, usize)>,
    /// Dedupe key of each kept line: its index in `kept`.
    by_key: HashMap<u64, usize>,
    families: Vec<Family>,
    /// The most often seen families of each confidence (up to
    /// [`FAMILY_COMPARE`]), the most seen first.
    hot: [Vec<usize>; 6],
    /// The families of each confidence by each of their [`Sketch::keys`].
    by_sketch_key: HashMap<(u8, u32), Vec<usize>>,
    /// The sketch of the line considered.
    sketch: Sketch,
    /// `slots[s][r]`: kept candidates of confidence `s` and rank `r` (the
    /// last counts every rank from `RANKS - 1` on).
    slots: [[usize; RANKS]; 6],
    keep: usize,
}

/// Kept lines alike ([`Sketch::similar`]) and of one confidence.
pub(super) struct Family {
    sketch: Sketch,
    /// The rank of the next member.
    next_rank: usize,
    /// Lines found alike, kept or not.
    seen: usize,
}

impl Found {
    fn new(keep: usize) -> Found {
        Found {
            kept: Vec::new(),
            place: Vec::new(),
            by_key: HashMap::new(),
            families: Vec::new(),
            hot: Default::default(),
            by_sketch_key: HashMap::new(),
            sketch: Sketch::default(),
            slots: [[0; RANKS]; 6],
            keep: keep.max(1),
        }
    }

    fn consider(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        host: bool,
        from: usize,
        to: usize,
    ) {
        let b = text.as_bytes();
        let content_end = if end > start && b[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        if content_end - start > MAX_LINE {
            return;
        }
        let line = &text[start..content_end];
        let classified = classify(line);
        let (score, kind) = match (host, classified) {
            (true, Some((_, kind))) => (HOST_SCORE, kind),
            (true, None) => (HOST_SCORE, Kind::Plain),
            (false, Some(found)) => found,
            (false, None) => return,
        };
        let key = dedupe_key(line.as_bytes());
        if let Some(&i) = self.by_key.get(&key) {
            self.kept[i].similar += 1;
            return;
        }
        let s = usize::from(score);
        // Even as the first of a new family, earlier lines of this
        // confidence or more fill every place already.
        if self.ahead(s, 0) >= self.keep {
            return;
        }
        self.sketch.set(line.as_bytes());
        let family = self.family_of(score);
        let rank = family.map_or(0, |f| self.families[f].next_rank);
        if rank > 0 && self.ahead(s, rank) >= self.keep {
            return; // one more like lines kept already
        }
        let f = family.unwrap_or_else(|| {
            let f = self.families.len();
            for key in self.sketch.keys() {
                self.by_sketch_key.entry((score, key)).or_default().push(f);
            }
            self.families.push(Family {
                sketch: self.sketch.clone(),
                next_rank: 0,
                seen: 1,
            });
            if self.hot[s].len() < FAMILY_COMPARE {
                self.hot[s].push(f);
            }
            f
        });
        self.families[f].next_rank += 1;
        let context = context_lines(b, start, end, kind, from, to);
        self.by_key.insert(key, self.kept.len());
        self.kept.push(Candidate {
            start,
            end,
            score,
            similar: 0,
            context,
            kind,
        });
        self.place.push((f, rank));
        self.slots[s][rank.min(RANKS - 1)] += 1;
        if self.kept.len() > 4 * self.keep {
            self.compact(text);
        }
    }

    /// Kept candidates that rank before a new one of confidence `s` and
    /// rank `rank` in its family.
    fn ahead(&self, s: usize, rank: usize) -> usize {
        let above: usize = self.slots[s + 1..].iter().flatten().sum();
        above + self.slots[s][..=rank.min(RANKS - 1)].iter().sum::<usize>()
    }

    /// The family of confidence `score` the line of `self.sketch` belongs
    /// to, if any is found; counted as seen.
    fn family_of(&mut self, score: u8) -> Option<usize> {
        let s = usize::from(score);
        let (families, sketch) = (&self.families, &self.sketch);
        let alike = |&f: &usize| families[f].sketch.similar(sketch);
        let f = match self.hot[s].iter().find(|f| alike(f)) {
            Some(&f) => f,
            None => sketch.keys().find_map(|key| {
                let bucket = self.by_sketch_key.get(&(score, key))?;
                bucket
                    .iter()
                    .take(FAMILY_COMPARE)
                    .find(|f| alike(f))
                    .copied()
            })?,
        };
        self.families[f].seen += 1;
        // Keep the most seen first.
        let hot = &mut self.hot[s];
        let mut k = match hot.iter().position(|&h| h == f) {
            Some(k) => k,
            None if hot.len() < FAMILY_COMPARE => {
                hot.push(f);
                hot.len() - 1
            }
            None if self.families[hot[hot.len() - 1]].seen < self.families[f].seen => {
                let last = hot.len() - 1;
                hot[last] = f;
                last
            }
            None => return Some(f),
        };
        while k > 0 && self.families[hot[k - 1]].seen < self.families[f].seen {
            hot.swap(k - 1, k);
            k -= 1;
        }
        Some(f)
    }

    /// Keep only the best `keep` candidates.
    fn compact(&mut self, text: &str) {
        let mut best: Vec<usize> = (0..self.kept.len()).collect();
        crate::order::sort_by_key(&mut best, |&i| {
            (
                std::cmp::Reverse(self.kept[i].score),
                self.place[i].1.min(RANKS - 1),
                self.kept[i].start,
            )
        });
        best.truncate(self.keep);
        best.sort_unstable();
        let mut kept = std::mem::take(&mut self.kept);
        let mut place = std::mem::take(&mut self.place);
        let mut i = 0;
        kept.retain(|_| {
            i += 1;
            best.binary_search(&(i - 1)).is_ok()
        });
        let mut i = 0;
        place.retain(|_| {
            i += 1;
            best.binary_search(&(i - 1)).is_ok()
        });
        // Families with no member left go; the others are numbered anew.
        let mut next_rank = vec![0; self.families.len()];
        for &(f, rank) in &place {
            next_rank[f] = next_rank[f].max(rank + 1);
        }
        let mut renumber = vec![usize::MAX; self.families.len()];
        let mut families = Vec::new();
        for (f, mut family) in std::mem::take(&mut self.families).into_iter().enumerate() {
            if next_rank[f] > 0 {
                renumber[f] = families.len();
                family.next_rank = next_rank[f];
                families.push(family);
            }
        }
        for hot in &mut self.hot {
            hot.retain_mut(|f| {
                *f = renumber[*f];
                *f != usize::MAX
            });
        }
        self.by_sketch_key.retain(|_, bucket| {
            bucket.retain_mut(|f| {
                *f = renumber[*f];
                *f != usize::MAX
            });
            !bucket.is_empty()
        });
        self.families = families;
        self.by_key.clear();
        self.slots = [[0; RANKS]; 6];
        let b = text.as_bytes();
        for (i, (c, (f, rank))) in kept.iter().zip(&mut place).enumerate() {
            *f = renumber[*f];
            let content_end = if b[c.end - 1] == b'\n' {
                c.end - 1
            } else {
                c.end
            };
            self.by_key.insert(dedupe_key(&b[c.start..content_end]), i);
            self.slots[usize::from(c.score)][(*rank).min(RANKS - 1)] += 1;
        }
        self.kept = kept;
        self.place = place;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Pieces the texts are made of: anchors (level ones where a level is
    /// written and where it is not), rare signs and their near misses,
    /// a host pattern, multi-byte chars and line breaks.
    const PIECES: &[&str] = &[
        "error",
        "ERR",
        "crit",
        "[crit",
        "=crit",
        "\"crit",
        "E   ",
        "\nE   ",
        "xE   ",
        "exception",
        "Exception",
        "exit",
        "Kxit",
        "Kill",
        "xit",
        "xceed",
        "busy",
        "ORA-",
        "Cannot ",
        "\u{2716}",
        "\u{25cf}",
        "\u{2700}",
        "HOSTPAT",
        "a",
        "word ",
        " ",
        "\n",
        "\r\n",
        "é",
        "中",
        "timed out",
        "FA",
    ];

    fn text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(PIECES);
        // Some lines run past MAX_LINE, so that a hit may start too far.
        let lengths = [
            0,
            MAX_LINE - 4,
            MAX_LINE - 2,
            MAX_LINE - 1,
            MAX_LINE,
            MAX_LINE + 7,
        ];
        let filler = prop::sample::select(lengths.to_vec()).prop_map(|n| "z".repeat(n));
        prop::collection::vec((piece, filler, any::<bool>()), 0..120).prop_map(|parts| {
            parts
                .into_iter()
                .map(|(p, f, long)| {
                    if long {
                        format!("{f}{p}")
                    } else {
                        p.to_owned()
                    }
                })
                .collect()
        })
    }

    fn lines(out: &mut [(usize, bool)]) -> Vec<usize> {
        crate::order::sort_by_key(out, |&(start, _)| start);
        let mut starts: Vec<usize> = out.iter().map(|&(s, _)| s).collect();
        starts.dedup();
        starts
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// One pass of the automaton finds exactly the lines the searches
        /// of each anchor find, in any part of a text that starts a line.
        #[test]
        fn one_pass_finds_the_lines_each_search_finds(text in text(), cut in 0usize..64) {
            let patterns = Patterns::new(&["HOSTPAT".to_owned()]);
            let b = text.as_bytes();
            let lo = memchr(b'\n', &b[..cut.min(b.len())]).map_or(0, |i| i + 1);
            let mut each = Vec::new();
            patterns.anchored_lines_each(b, lo, b.len(), &mut each);
            let each = lines(&mut each);
            // Natively leftmost-first; wasm's standard semantics too, which
            // go through the walks of `super::walk`.
            for kind in [MatchKind::LeftmostFirst, MatchKind::Standard] {
                let dfa = patterns.automaton(kind);
                // Dense level anchors hand the rest to the searches per anchor.
                for max_skips in [0, 2, MAX_SKIPS] {
                    let mut once = Vec::new();
                    patterns.anchored_lines_by(&dfa, max_skips, b, lo, b.len(), &mut once);
                    prop_assert_eq!(&each, &lines(&mut once), "{:?} {}", kind, max_skips);
                }
            }
        }
    }

    /// A sign exactly `MAX_LINE` bytes into a line that does not start the
    /// piece is too far, also where the searches per anchor take over.
    #[test]
    fn a_sign_at_max_line_counts_alike_after_the_hand_over() {
        let patterns = Patterns::new(&[]);
        let text = format!("\n crit{}Kill\n", "z".repeat(MAX_LINE - 5));
        let b = text.as_bytes();
        let mut each = Vec::new();
        patterns.anchored_lines_each(b, 0, b.len(), &mut each);
        assert!(each.is_empty(), "{each:?}");
        for kind in [MatchKind::LeftmostFirst, MatchKind::Standard] {
            let mut once = Vec::new();
            patterns.anchored_lines_by(&patterns.automaton(kind), 0, b, 0, b.len(), &mut once);
            assert!(once.is_empty(), "{kind:?}: {once:?}");
        }
    }

    /// `rare_lines` finds the signs where `memchr3` finds their first byte.
    #[test]
    fn every_rare_sign_starts_on_a_rare_byte() {
        for sign in RARE_SIGNS {
            assert!(RARE.contains(&sign.as_bytes()[0]), "{sign}");
        }
    }

    /// What lets a level anchor away from a level move the search on by
    /// one byte without skipping a match.
    #[test]
    fn no_other_anchor_or_sign_holds_a_level_anchor() {
        for level in LEVEL_ANCHORS {
            for other in ANCHORS.iter().chain(&RARE_SIGNS).filter(|a| **a != level) {
                assert!(!other.contains(level), "{other} holds {level}");
            }
        }
    }

    /// Natively the automata's prefilter (aho-corasick's Teddy) takes at
    /// most 64 patterns: with 66 built-in ones in one automaton the search
    /// of a 4 MiB log took 4.8 ms instead of 1.8. Each automaton of the
    /// split ([`super::super::split`]) holds at most that many; a
    /// session's own patterns come on top.
    #[test]
    fn the_built_in_searches_fit_the_native_prefilter() {
        let (long, short): (Vec<&str>, Vec<&str>) = ANCHORS
            .iter()
            .chain(&RARE_SIGNS)
            .partition(|s| super::super::split::is_long(s));
        assert!(long.len() <= 64, "{}", long.len());
        assert!(short.len() <= 64, "{}", short.len());
    }

    /// Natively the prefilter of the short searches' automaton
    /// ([`super::split`]) fingerprints as many first bytes as the shortest
    /// has: a two-byte anchor made the search of a 4 MiB log 2.5 times
    /// slower.
    #[test]
    fn no_anchor_or_sign_is_shorter_than_three_bytes() {
        for a in ANCHORS.iter().chain(&RARE_SIGNS) {
            assert!(a.len() >= 3, "{a:?}");
        }
    }

    #[test]
    fn no_anchor_or_sign_is_longer_than_the_search_after_max_line() {
        let longest = ANCHORS.iter().chain(&RARE_SIGNS).map(|s| s.len()).max();
        assert!(longest.unwrap() <= LONGEST_SIGN);
    }
}
