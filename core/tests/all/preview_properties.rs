//! Properties of the refined preview (notable lines, folding, fill, grapheme
//! cuts, JSON previews) against naive oracles: the preview is parsed back
//! into the ranges of the input it shows, and everything the result claims
//! is recounted from those ranges.
//!
//! What is proved here, for any text of the generators and any valid budget,
//! with every combination of features:
//!
//! - the budget holds: bytes and lines, notice included;
//! - every line of the preview is verbatim input, a marker that says exactly
//!   what it stands for, or a notable line whose `[line N]` is its number;
//! - `omitted-bytes`, `omitted-lines`, `gap-line`, `notable-lines` and
//!   `folded-lines` equal a naive recount from the parsed ranges;
//! - with fill on, no cut splits an extended grapheme cluster;
//! - a JSON preview parses as JSON;
//! - with fill on, when the line limit does not bind and the input is larger
//!   than `max-bytes` and not a JSON document, the preview (notice included)
//!   is at least 90% of `max-bytes`, folding on or off (a run is folded
//!   only when what follows it can use the room that frees).

use crate::common;

use proptest::prelude::*;
use toolcap_core::cap::{JSON_HEADER, PreviewFeatures, PreviewSettings};
use toolcap_core::text::count_lines;
use toolcap_core::{Budget, Call, CapError, Capped, Capper, Keep, RefScheme, SpillStore};
use unicode_segmentation::UnicodeSegmentation;

struct Discard;

impl SpillStore for Discard {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
        Ok(())
    }
}

fn capper(features: PreviewFeatures, patterns: Vec<String>) -> Capper {
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        features,
        notable_patterns: patterns,
        ..PreviewSettings::default()
    };
    Capper::with_settings(scheme, settings).unwrap()
}

fn features() -> impl Strategy<Value = PreviewFeatures> {
    prop_oneof![
        2 => Just(PreviewFeatures::ALL),
        1 => any::<[bool; 5]>().prop_map(|f| PreviewFeatures {
            notable: f[0],
            fold: f[1],
            json: f[2],
            fill: f[3],
            adaptive_notice: f[4],
        }),
    ]
}

/// A budget from raw numbers, valid for `capper`.
fn budget_for(capper: &Capper, raw: (u32, Option<u32>, Option<u32>, u8, u8)) -> Budget {
    let room = capper.room();
    let (extra, lines, line_bytes, keep, head_percent) = raw;
    Budget {
        max_bytes: room.bytes as u32 + extra,
        max_lines: lines.map(|l| room.lines as u32 + l),
        max_line_bytes: line_bytes,
        keep: [Keep::Head, Keep::Tail, Keep::HeadAndTail][usize::from(keep % 3)],
        head_percent,
        max_tokens: None,
    }
}

fn raw_budget() -> impl Strategy<Value = (u32, Option<u32>, Option<u32>, u8, u8)> {
    (
        0u32..4000,
        prop::option::of(0u32..60),
        prop::option::of(1u32..300),
        any::<u8>(),
        0u8..=100,
    )
}

/// Digit runs as one placeholder: what folding and deduplication compare.
fn digits_as_one(s: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// What a text preview shows, parsed back.
#[derive(Debug, Default)]
struct Parsed {
    /// Ranges of the input shown verbatim, in order.
    ranges: Vec<(usize, usize)>,
    /// Lines behind fold markers, and the ranges of those lines.
    folded: u64,
    folded_ranges: Vec<(usize, usize)>,
    /// Notable lines: (line number, similar count).
    notable: Vec<(u64, u64)>,
}

/// The lines of the input: (start, end of content, end after LF).
fn input_lines(text: &str) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        match text[start..].find('\n') {
            Some(i) => {
                out.push((start, start + i, start + i + 1));
                start += i + 1;
            }
            None => {
                out.push((start, text.len(), text.len()));
                start = text.len();
            }
        }
    }
    out
}

fn parse_marker<'a>(line: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix)?.strip_suffix(suffix)
}

fn numbers(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap())
        .collect()
}

/// Split ` [... N bytes cut]` (and a CR after it) off a preview line.
fn cut_suffix(line: &str) -> (&str, Option<usize>, &str) {
    let (body, cr) = match line.strip_suffix('\r') {
        Some(b) if b.ends_with(" bytes cut]") => (b, "\r"),
        _ => (line, ""),
    };
    if let Some(i) = body.rfind(" [... ")
        && body.ends_with(" bytes cut]")
    {
        let n = &body[i + 6..body.len() - " bytes cut]".len()];
        if let Ok(n) = n.parse() {
            return (&body[..i], Some(n), cr);
        }
    }
    (line, None, "")
}

/// The ranges of `text` a shortened line's shown content stands for: from
/// `at`, verbatim parts separated by ` [... M bytes cut] ` (windows around
/// search hits in the line's cut part), within the line's content (to
/// `end`). `None` when it is not that.
fn line_parts(text: &str, at: usize, end: usize, content: &str) -> Option<Vec<(usize, usize)>> {
    let line = &text[at..end];
    if line.starts_with(content) {
        return Some(vec![(at, at + content.len())]);
    }
    // A literal marker in the input can look like one: try each.
    for (i, _) in content.match_indices(" [... ") {
        let part = &content[..i];
        let Some((n, after)) = content[i + 6..].split_once(" bytes cut] ") else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        if n == 0 || !line.starts_with(part) || part.len() + n > line.len() {
            continue;
        }
        let next = at + part.len() + n;
        if let Some(mut rest) = line_parts(text, next, end, after) {
            if !part.is_empty() {
                rest.insert(0, (at, at + part.len()));
            }
            return Some(rest);
        }
    }
    None
}

/// Parse the body of a text preview back into what it shows of `text`.
/// With `strict`, a line shown in part is always followed by a gap (0.1
/// could split a line between head and tail with nothing omitted).
fn parse(text: &str, body: &str, strict: bool) -> Result<Parsed, String> {
    let lines = input_lines(text);
    let line_at = |pos: usize| {
        lines
            .iter()
            .position(|&(s, _, e)| s <= pos && pos < e.max(s + 1))
    };
    let mut p = Parsed::default();
    let mut cursor = 0usize;
    let mut middle_end = None;
    let mut in_notables = false;
    let mut last_shown: Option<(usize, usize)> = None;
    let mut out_lines: Vec<&str> = body.split_inclusive('\n').collect();
    if let Some(last) = out_lines.last_mut() {
        *last = last.strip_suffix('\n').ok_or("body does not end with LF")?;
    }
    let count = out_lines.len();
    for (k, raw) in out_lines.iter().enumerate() {
        let l = raw.strip_suffix('\n').unwrap_or(raw);
        if in_notables {
            if parse_marker(l, "[... end of the omitted lines ", " ...]").is_some() {
                in_notables = false;
                cursor = middle_end.take().unwrap();
                continue;
            }
            let (head, rest) = l
                .split_once("] ")
                .ok_or(format!("bad notable line {l:?}"))?;
            let n = numbers(head);
            let (line_no, similar) = match n.as_slice() {
                [a] if head == format!("[line {a}") => (*a, 0),
                [a, b] if head == format!("[line {a} and {b} more like it") => (*a, *b),
                _ => return Err(format!("bad notable prefix {head:?}")),
            };
            let (s, ce, e) = *lines
                .get(line_no as usize - 1)
                .ok_or(format!("no line {line_no}"))?;
            // A window around a search hit starts with the bytes of the
            // line cut before it.
            let (lead, rest) = match rest
                .strip_prefix("[... ")
                .and_then(|r| r.split_once(" bytes cut] "))
            {
                Some((n, after)) if n.parse::<usize>().is_ok() => {
                    (n.parse::<usize>().unwrap(), after)
                }
                _ => (0, rest),
            };
            let s = s + lead;
            if s > ce {
                return Err(format!(
                    "notable line {line_no}: {lead} bytes cut before it"
                ));
            }
            let (content, cut, _) = cut_suffix(rest);
            match cut {
                Some(c) => {
                    if !text[s..ce].starts_with(content) || content.len() + c != ce - s {
                        return Err(format!("notable line {line_no} {rest:?} is not its cut"));
                    }
                    p.ranges.push((s, s + content.len()));
                }
                None => {
                    if &text[s..ce] != rest {
                        return Err(format!("notable line {line_no} {rest:?} is not verbatim"));
                    }
                    p.ranges.push((s, e));
                }
            }
            p.notable.push((line_no, similar));
            continue;
        }
        if l.starts_with("[... ") && l.contains(" bytes omitted here (bytes ") {
            let n = numbers(l);
            let [len, a, b, line] = n[..] else {
                return Err(format!("bad gap marker {l:?}"));
            };
            if a as usize != cursor
                || b - a != len
                || line_at(cursor).map(|i| i as u64 + 1) != Some(line)
            {
                return Err(format!("gap marker {l:?} at {cursor}"));
            }
            cursor = b as usize;
            continue;
        }
        if l.starts_with("[... lines ") && l.ends_with(" notable lines ...]") {
            let n = numbers(l);
            let [first, last, a, b, _count] = n[..] else {
                return Err(format!("bad open marker {l:?}"));
            };
            let line_of = |pos: usize| {
                1 + text.as_bytes()[..pos]
                    .iter()
                    .filter(|&&c| c == b'\n')
                    .count() as u64
            };
            if a as usize != cursor || line_of(cursor) != first || line_of(b as usize - 1) != last {
                return Err(format!("open marker {l:?} at {cursor}"));
            }
            middle_end = Some(b as usize);
            in_notables = true;
            continue;
        }
        if let Some(n) = parse_marker(l, "[... ", " more lines like the one above]") {
            let n: usize = n.parse().map_err(|_| format!("bad fold {l:?}"))?;
            let (ls, le) = last_shown.ok_or("fold with no line above")?;
            let like = digits_as_one(text[ls..le].trim_end_matches('\n'));
            for _ in 0..n {
                let i = line_at(cursor).ok_or("fold past the end")?;
                let (s, ce, e) = lines[i];
                if s != cursor || digits_as_one(&text[s..ce]) != like.trim_end_matches('\n') {
                    return Err(format!("folded line {} is not like {like:?}", i + 1));
                }
                p.folded_ranges.push((s, e));
                cursor = e;
            }
            p.folded += n as u64;
            continue;
        }
        if let Some(n) = parse_marker(l, "[... ", " more lines like the one below]") {
            let n: usize = n.parse().map_err(|_| format!("bad fold {l:?}"))?;
            let i = line_at(cursor).ok_or("fold past the end")?;
            let (s2, ce2, _) = *lines.get(i + n).ok_or("fold with no line below")?;
            let like = digits_as_one(&text[s2..ce2]);
            for j in 0..n {
                let (s, ce, e) = lines[i + j];
                if s != cursor || digits_as_one(&text[s..ce]) != like {
                    return Err(format!("folded line {} is not like {like:?}", i + j + 1));
                }
                p.folded_ranges.push((s, e));
                cursor = e;
            }
            p.folded += n as u64;
            continue;
        }
        // Verbatim input, whole or cut.
        let rest = &text[cursor..];
        let (content, cut, cr) = cut_suffix(l);
        if let Some(c) = cut {
            let i = line_at(cursor).ok_or("cut line past the end")?;
            let (_, ce, e) = lines[i];
            // Its start, and windows around search hits in its cut part.
            let parts = line_parts(text, cursor, ce, content)
                .ok_or(format!("cut line {l:?} is not input at {cursor}"))?;
            let shown_end = parts.last().map_or(cursor, |r| r.1);
            let body_end = shown_end + c;
            if body_end > e {
                return Err(format!("cut line {l:?}: {c} bytes past its end"));
            }
            let term = &text[body_end..e];
            if !(term == format!("{cr}\n") || (term.is_empty() && cr.is_empty() && ce == e)) {
                return Err(format!("cut line {l:?}: {c} bytes then {term:?}"));
            }
            p.ranges.extend(parts);
            if !term.is_empty() {
                p.ranges.push((body_end, e));
            }
            last_shown = Some((cursor, e));
            cursor = e;
            continue;
        }
        let whole = format!("{l}\n");
        if rest.starts_with(&whole) {
            p.ranges.push((cursor, cursor + whole.len()));
            last_shown = Some((cursor, cursor + whole.len()));
            cursor += whole.len();
        } else if rest == l && k + 1 == count {
            p.ranges.push((cursor, text.len()));
            last_shown = Some((cursor, text.len()));
            cursor = text.len();
        } else if rest.starts_with(l) && !l.is_empty() {
            // A line shown in part: a gap follows.
            p.ranges.push((cursor, cursor + l.len()));
            last_shown = Some((cursor, cursor + l.len()));
            cursor += l.len();
            let next = out_lines.get(k + 1).copied().unwrap_or("");
            if strict && (!next.starts_with("[... ") || next.contains("more lines like")) {
                return Err(format!("partial line {l:?} not followed by a gap"));
            }
        } else if let Some((_, ce, e)) = line_at(cursor).map(|i| lines[i])
            && let Some(parts) = line_parts(text, cursor, ce, l)
            && parts.len() > 1
            && parts.last().is_some_and(|r| r.1 == ce)
        {
            // Windows in a shortened line's cut part that reach its end.
            p.ranges.extend(parts);
            p.ranges.push((ce, e));
            last_shown = Some((cursor, e));
            cursor = e;
        } else {
            return Err(format!("line {l:?} is not input at {cursor}"));
        }
    }
    if cursor != text.len() {
        return Err(format!("preview ends at {cursor} of {}", text.len()));
    }
    p.ranges.retain(|(a, b)| a < b);
    Ok(p)
}

/// The accounting a preview should report, recounted from `p`.
fn recount(text: &str, p: &Parsed) -> (u64, u64, u64) {
    let mut shown = vec![false; text.len()];
    for &(a, b) in &p.ranges {
        for s in &mut shown[a..b] {
            assert!(!*s, "byte shown twice");
            *s = true;
        }
    }
    let omitted_bytes = shown.iter().filter(|s| !**s).count() as u64;
    let omitted_lines = input_lines(text)
        .iter()
        .filter(|&&(s, _, e)| !shown[s..e].iter().any(|x| *x))
        .count() as u64;
    let first_omitted = shown.iter().position(|s| !*s).unwrap_or(text.len());
    let gap_line = 1 + text[..first_omitted].matches('\n').count() as u64;
    (omitted_bytes, omitted_lines, gap_line)
}

fn body_of(c: &Capped) -> &str {
    &c.text[..c.text.rfind("[toolcap] ").unwrap()]
}

fn check(
    text: &str,
    budget: &Budget,
    features: PreviewFeatures,
    c: &Capped,
) -> Result<(), TestCaseError> {
    check_using(text, budget, features, c, true)
}

/// [`check`]; with `used` false, a preview may leave budget unused (a
/// search's window in the middle stops a head-only preview's growth).
fn check_using(
    text: &str,
    budget: &Budget,
    features: PreviewFeatures,
    c: &Capped,
    used: bool,
) -> Result<(), TestCaseError> {
    prop_assert!(
        c.text.len() <= budget.max_bytes as usize,
        "{} > {}",
        c.text.len(),
        budget.max_bytes
    );
    if let Some(m) = budget.max_lines {
        prop_assert!(count_lines(c.text.as_bytes()) <= u64::from(m));
    }
    if c.text.starts_with(JSON_HEADER) {
        prop_assert!(features.json);
        let json = &c.text[JSON_HEADER.len() + 1..c.text.rfind("\n[toolcap] ").unwrap()];
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(json);
        prop_assert!(parsed.is_ok(), "JSON preview does not parse: {json}");
        prop_assert_eq!((c.notable_lines, c.folded_lines), (0, 0));
        return Ok(());
    }
    let p = parse(text, body_of(c), features.fill)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", c.text)))?;
    let (omitted_bytes, omitted_lines, gap_line) = recount(text, &p);
    prop_assert_eq!(c.omitted_bytes, omitted_bytes, "omitted bytes\n{}", c.text);
    prop_assert_eq!(c.omitted_lines, omitted_lines, "omitted lines\n{}", c.text);
    prop_assert_eq!(c.gap_line, Some(gap_line), "gap line\n{}", c.text);
    prop_assert_eq!(c.notable_lines, p.notable.len() as u64);
    prop_assert_eq!(c.folded_lines, p.folded);
    if !features.notable {
        prop_assert!(p.notable.is_empty());
    }
    if !features.fold {
        prop_assert_eq!(p.folded, 0);
    }
    if features.fill {
        let bounds: std::collections::HashSet<usize> = text
            .grapheme_indices(true)
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        for &(a, b) in &p.ranges {
            prop_assert!(
                bounds.contains(&a) && bounds.contains(&b),
                "cut {a}..{b} splits a cluster\n{:?}",
                c.text
            );
        }
        // Used, not wasted.
        let lines_bind = budget
            .max_lines
            .is_some_and(|m| count_lines(c.text.as_bytes()) >= u64::from(m));
        if used && !lines_bind && text.len() > budget.max_bytes as usize {
            prop_assert!(
                c.text.len() * 10 >= budget.max_bytes as usize * 9,
                "{} of {} bytes used\n{}",
                c.text.len(),
                budget.max_bytes,
                c.text
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(common::cases(3000))]

    #[test]
    fn every_preview_parses_back_and_accounts_exactly(
        text in common::rich_text(150),
        raw in raw_budget(),
        features in features(),
        failed in any::<bool>(),
        host in any::<bool>(),
    ) {
        let patterns = if host { vec!["word a".to_owned()] } else { Vec::new() };
        let capper = capper(features, patterns);
        let budget = budget_for(&capper, raw);
        let call = Call { exit_code: failed.then_some(2), ..Call::new("c") };
        let c = capper.cap_call(&text, &budget, &call, &mut Discard).unwrap();
        if !c.truncated {
            prop_assert_eq!(&c.text, &text);
            return Ok(());
        }
        check(&text, &budget, features, &c)?;
    }

    /// Long texts, tight budgets: the share of notable lines, folds reaching
    /// far, lines cut by max-line-bytes and grown back.
    #[test]
    fn long_texts_parse_back_too(
        text in common::rich_text(1500),
        raw in raw_budget(),
        features in features(),
    ) {
        let capper = capper(features, Vec::new());
        let budget = budget_for(&capper, raw);
        let c = capper.cap(&text, &budget, "c", &mut Discard).unwrap();
        if c.truncated {
            check(&text, &budget, features, &c)?;
        }
    }

    #[test]
    fn json_documents_get_json_previews(
        items in prop::collection::vec((any::<u32>(), "[a-zé😀 ]{0,30}", any::<bool>()), 1..300),
        pretty in any::<bool>(),
        raw in raw_budget(),
    ) {
        let doc: Vec<serde_json::Value> = items
            .iter()
            .map(|(n, s, b)| serde_json::json!({"id": n, "name": s, "ok": b, "tags": [s, s]}))
            .collect();
        let doc = serde_json::json!({"items": doc, "count": items.len()});
        let text = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            serde_json::to_string(&doc).unwrap()
        };
        let capper = capper(PreviewFeatures::ALL, Vec::new());
        let budget = budget_for(&capper, raw);
        let c = capper.cap(&text, &budget, "c", &mut Discard).unwrap();
        if c.truncated {
            check(&text, &budget, PreviewFeatures::ALL, &c)?;
            prop_assert!(c.omitted_bytes <= text.len() as u64);
        }
    }
}

/// Lines of lowercase filler, some of them thousands of bytes long, with
/// the search's alternatives (uppercase, so never there by chance) planted
/// at random offsets, and the alternatives.
fn searched_text() -> impl Strategy<Value = (String, Vec<String>)> {
    let line = prop_oneof![
        3 => 0usize..80,
        2 => 200usize..3000,
        1 => 5_000usize..60_000,
    ];
    (
        prop::collection::vec((line, "[a-z ]{1,8}"), 1..80),
        prop::collection::vec("[A-Z]{3,12}", 1..4),
        prop::collection::vec(
            (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            1..8,
        ),
    )
        .prop_map(|(lines, terms, plants)| {
            let mut text = String::new();
            for (len, piece) in lines {
                text.extend(piece.chars().cycle().take(len));
                text.push('\n');
            }
            for (at, which) in plants {
                let term = which.get(&terms);
                let at = at.index(text.len() + 1);
                text.insert_str(at, term);
            }
            (text, terms)
        })
}

proptest! {
    #![proptest_config(common::cases(1000))]

    /// The first occurrence of every alternative is shown (a part of it at
    /// least, when it straddles the end of the head) whenever the budget
    /// leaves the notable lines room for a window each; and every preview
    /// still parses back and accounts exactly.
    #[test]
    fn the_first_hit_of_every_alternative_is_shown(
        (text, terms) in searched_text(),
        extra in 0u32..30_000,
        keep in 0u8..3,
        head_percent in 0u8..=100,
        max_line in prop::option::of(40u32..2000),
    ) {
        let capper = capper(PreviewFeatures::ALL, Vec::new());
        let budget = budget_for(&capper, (extra, None, max_line, keep, head_percent));
        let call = Call { search: Some(terms.join("\n")), ..Call::new("grep") };
        let c = capper.cap_call(&text, &budget, &call, &mut Discard).unwrap();
        if !c.truncated {
            return Ok(());
        }
        let windows = c.text.lines().any(|l| l.starts_with("[line ") && l.contains("] [... "));
        let used = !(windows && budget.keep == Keep::Head);
        check_using(&text, &budget, PreviewFeatures::ALL, &c, used)?;
        // Room for a window of each alternative's first hit: a quarter of
        // the budget is the notable lines', each window at most 400 bytes
        // and its markers.
        let roomy = budget.max_bytes as usize >= capper.room().bytes + 4 * 500 * terms.len() + 2000;
        // A line shortened to fewer bytes than a start and a window (with
        // their markers) shows its start only.
        let narrow = max_line.is_some_and(|m| m < 300);
        if !roomy || narrow || text.len() > 4 << 20 {
            return Ok(());
        }
        let p = parse(&text, body_of(&c), true).unwrap();
        for term in &terms {
            let Some(at) = text.find(term.as_str()) else { continue };
            let end = at + term.len();
            // A line that head or tail squeezed under a start, a window and
            // their markers shows its start only, as a narrow
            // `max-line-bytes` does (`search::open_cut_lines`).
            let line = text[..at].rfind('\n').map_or(0, |i| i + 1)
                ..text[at..].find('\n').map_or(text.len(), |i| at + i);
            let shown: usize = p
                .ranges
                .iter()
                .map(|&(a, b)| b.min(line.end).saturating_sub(a.max(line.start)))
                .sum();
            if shown > 0 && shown < toolcap_core::preview::search::MIN_PREFIX + term.len() {
                continue;
            }
            prop_assert!(
                p.ranges.iter().any(|&(a, b)| a < end && at < b),
                "{term:?} at {at} not shown\n{}",
                c.text
            );
        }
    }
}

/// A fill that takes the last lines in closes the middle, and the gap
/// marker's room it frees goes to the lines `max-line-bytes` still cuts:
/// the preview used 555 of 638 bytes, now all but one. (Found by
/// `every_preview_parses_back_and_accounts_exactly`.)
#[test]
fn the_room_of_a_gap_a_fill_closes_goes_to_the_lines_still_cut() {
    let text = format!(
        "{}error: mismatched types\n  --> src/lib.rs:12:5\n{}Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\nValueError: bad\n",
        "a".repeat(392),
        "a".repeat(284)
    );
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    for extra in [0, 40, 120] {
        let budget = budget_for(&capper, (extra, None, Some(1), 0, 0));
        let c = capper.cap(&text, &budget, "c", &mut Discard).unwrap();
        assert!(c.truncated);
        assert_eq!(c.omitted_lines, 0, "{}", c.text);
        assert!(
            c.text.len() + 4 >= budget.max_bytes as usize,
            "{} of {} bytes used\n{}",
            c.text.len(),
            budget.max_bytes,
            c.text
        );
        check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
    }
}

/// A line that `max-line-bytes` cuts, with the first hits of two
/// alternatives in its cut part and room for a start and two narrow
/// windows: the first hit's window leaves room for the second's. (It took
/// a wide window, and the second alternative showed only at its second hit,
/// in the middle. Found by `the_first_hit_of_every_alternative_is_shown`.)
#[test]
fn a_window_leaves_room_for_the_later_first_hits_of_its_line() {
    let (a, s) = ("a", " ");
    let lines: [&[(&str, usize)]; 28] = [
        &[("AAA", 1), (a, 828)],
        &[(a, 5000)],
        &[(s, 73)],
        &[(a, 24)],
        &[(s, 965)],
        &[(a, 10827)],
        &[(s, 1827)],
        &[(s, 69)],
        &[(s, 59)],
        &[(s, 1827)],
        &[(s, 57)],
        &[(a, 44)],
        &[(a, 1827)],
        &[(s, 39)],
        &[(s, 19)],
        &[(a, 10827)],
        &[(s, 1827)],
        &[(s, 301)],
        &[(a, 11901)],
        &[(a, 35)],
        &[(s, 75)],
        &[
            (s, 1102),
            ("AAA", 1),
            (s, 24702),
            ("AAAAAAAA", 1),
            (s, 14243),
        ],
        &[
            (a, 10198),
            ("AAA", 1),
            (a, 396),
            ("AAAAAAAA", 1),
            (a, 32387),
        ],
        &[(s, 298), ("AAA", 1), (s, 9897), ("AAA", 1), (s, 24504)],
        &[(a, 35024)],
        &[(s, 29613)],
        &[(a, 46640)],
        &[(a, 14467)],
    ];
    let mut text = String::new();
    for line in lines {
        for &(piece, times) in line {
            text.push_str(&piece.repeat(times));
        }
        text.push('\n');
    }
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let budget = budget_for(&capper, (15026, None, Some(824), 2, 83));
    let call = Call {
        search: Some("AAA\nAAAAAAAA".into()),
        ..Call::new("grep")
    };
    let c = capper
        .cap_call(&text, &budget, &call, &mut Discard)
        .unwrap();
    assert!(c.truncated);
    let first = text.find("AAAAAAAA").unwrap();
    let p = parse(&text, body_of(&c), true).unwrap();
    assert!(
        p.ranges.iter().any(|&(s, e)| s < first + 8 && first < e),
        "the first AAAAAAAA (at {first}) is not shown\n{}",
        c.text
    );
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
}

/// A search window that both head and tail grow up to closes the middle
/// inside its line: the line is shown whole, with no line break added.
/// (Found by `the_first_hit_of_every_alternative_is_shown`.)
#[test]
fn a_line_both_sides_reach_through_a_window_stays_one_line() {
    let last = format!("{}{}{}", "a".repeat(472), "A".repeat(12), "a".repeat(1986));
    let text = format!(
        "{}{}\n{}\n{last}\n",
        "A".repeat(60),
        "a".repeat(19000),
        "a".repeat(1913)
    );
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let budget = budget_for(&capper, (6285, None, Some(317), 2, 15));
    let call = Call {
        search: Some("A".repeat(12)),
        ..Call::new("grep")
    };
    let c = capper
        .cap_call(&text, &budget, &call, &mut Discard)
        .unwrap();
    assert!(c.truncated);
    assert!(c.text.lines().any(|l| l == last), "{}", c.text);
    check_using(&text, &budget, PreviewFeatures::ALL, &c, true).unwrap();
}

/// A search hit across the edge of the middle that head and tail leave:
/// its part in the middle is a window that the side showing the rest takes
/// in, so the hit is shown whole. (Found by
/// `the_first_hit_of_every_alternative_is_shown`.)
#[test]
fn a_hit_across_the_edge_of_the_middle_is_shown_whole() {
    let text = format!(
        "{}\n{}\n{}\n{}AAA{}\n",
        " ".repeat(1320),
        "a".repeat(1488),
        " ".repeat(63),
        "a".repeat(31139),
        "a".repeat(3655)
    );
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let budget = budget_for(&capper, (8703, None, None, 2, 67));
    let call = Call {
        search: Some("AAA".into()),
        ..Call::new("grep")
    };
    let c = capper
        .cap_call(&text, &budget, &call, &mut Discard)
        .unwrap();
    assert!(c.truncated);
    assert!(c.text.contains("aAAAa"), "{}", c.text);
    check_using(&text, &budget, PreviewFeatures::ALL, &c, true).unwrap();
}

#[test]
fn a_huge_single_line_fills_the_budget_with_both_ends() {
    let line: String = "function(a){return a+1};".repeat(4 * 1024 * 1024 / 24);
    let budget = Budget {
        max_bytes: 16 * 1024,
        max_lines: Some(200),
        max_line_bytes: Some(2000),
        keep: Keep::HeadAndTail,
        head_percent: 50,
        max_tokens: None,
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&line, &budget, "grep", &mut Discard)
        .unwrap();
    assert!(c.text.len() <= 16 * 1024);
    assert!(c.text.len() * 10 >= 16 * 1024 * 9, "{}", c.text.len());
    let (head, rest) = c.text.split_once("\n[... ").unwrap();
    let tail = rest.split_once(" ...]\n").unwrap().1;
    let tail = tail.split_once("\n[toolcap]").unwrap().0;
    assert!(line.starts_with(head) && line.ends_with(tail));
    // Both ends, about evenly.
    assert!(
        head.len() > 5000 && tail.len() > 5000,
        "{} {}",
        head.len(),
        tail.len()
    );
    assert_eq!(
        (c.original_lines, c.omitted_lines, c.gap_line),
        (1, 0, Some(1))
    );
    assert_eq!(
        c.omitted_bytes,
        (line.len() - head.len() - tail.len()) as u64
    );
}

fn build_log(lines: usize, error_at: usize) -> String {
    let mut log = String::new();
    for i in 1..=lines {
        if i == error_at {
            log.push_str("error[E0308]: mismatched types\n  --> src/lib.rs:42:5\n");
        } else {
            log.push_str(&format!(
                "   Compiling crate-{i} v0.1.{} ({})\n",
                i % 7,
                if i % 3 == 0 { "build script" } else { "lib" }
            ));
        }
    }
    log
}

#[test]
fn an_error_in_the_middle_of_a_build_log_is_shown_with_its_location() {
    let log = build_log(20_000, 10_000);
    let budget = Budget {
        max_bytes: 16 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&log, &budget, "build", &mut Discard)
        .unwrap();
    assert!(
        c.text
            .contains("\n[line 10000] error[E0308]: mismatched types\n"),
        "{}",
        c.text
    );
    assert!(
        c.text.contains("\n[line 10001]   --> src/lib.rs:42:5\n"),
        "{}",
        c.text
    );
    assert_eq!(c.notable_lines, 2);
    assert!(c.text.len() * 10 >= 16 * 1024 * 9);
    check(&log, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn look_alikes_do_not_flood_the_preview_and_the_real_failure_wins() {
    let mut log = String::new();
    for i in 0..3000 {
        log.push_str(&match i % 6 {
            0 => format!("test error::case_{i} ... ok\n"),
            1 => format!("summary: 0 errors, error_count=0, errors: [] ({i})\n"),
            2 => format!("cc -Werror -o obj/{i}.o src/{i}.c\n"),
            3 => format!("const ERROR_CODES_{i} = [];\n"),
            4 => format!("  ✓ handles error {i} (3 ms)\n"),
            _ => format!("retrying request {i}: connection error\n"),
        });
        if i == 1700 {
            log.push_str("thread 'main' panicked at src/main.rs:3:5:\nindex out of bounds\n");
        }
    }
    let budget = Budget {
        max_bytes: 8 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&log, &budget, "test", &mut Discard)
        .unwrap();
    let notable: Vec<&str> = c.text.lines().filter(|l| l.starts_with("[line ")).collect();
    assert!(
        notable.contains(&"[line 1702] thread 'main' panicked at src/main.rs:3:5:"),
        "{notable:?}"
    );
    assert!(
        notable.contains(&"[line 1703] index out of bounds"),
        "{notable:?}"
    );
    // The weak "connection error" lines count once, as similar.
    assert!(notable.len() <= 3, "{notable:?}");
    for l in &notable {
        for fake in ["0 errors", "-Werror", "ERROR_CODES", "✓", "... ok"] {
            assert!(!l.contains(fake), "{l}");
        }
    }
    check(&log, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn host_patterns_are_notable_first() {
    let mut log = String::new();
    let words = ["fine", "good", "done", "ready", "idle"];
    for i in 0..5000 {
        log.push_str(&format!("step {i} {}\n", words[i % 5]));
        if i == 2500 {
            log.push_str("deploy: QUOTA-EXCEEDED in region x\n");
            log.push_str("error: something else went wrong\n");
        }
    }
    let budget = Budget {
        max_bytes: 4 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, vec!["QUOTA-EXCEEDED".into()])
        .cap(&log, &budget, "deploy", &mut Discard)
        .unwrap();
    assert!(
        c.text
            .contains("[line 2502] deploy: QUOTA-EXCEEDED in region x\n"),
        "{}",
        c.text
    );
    check(&log, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn progress_bars_fold_where_that_frees_room_for_what_follows() {
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!("Downloading {}%\n", i % 101));
    }
    text.push_str("Download failed: connection reset\n");
    for i in 0..3000 {
        text.push_str(&format!("Retrying {}%\n", i % 101));
    }
    let budget = Budget {
        max_bytes: 2048,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&text, &budget, "dl", &mut Discard)
        .unwrap();
    let body = body_of(&c);
    // The first run folds: the failure and what follows it use the room.
    // The last run reaches the end: folding it would free room for nothing,
    // so its own lines fill the head and the tail.
    assert!(
        body.starts_with(
            "Downloading 0%\n[... 2999 more lines like the one above]\n\
             Download failed: connection reset\nRetrying 0%\nRetrying 1%\n"
        ),
        "{body}"
    );
    assert!(
        body.ends_with(&format!("Retrying {}%\n", 2999 % 101)),
        "{body}"
    );
    assert_eq!(c.folded_lines, 2999);
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn a_table_of_numbers_fills_the_budget_with_rows_not_a_fold() {
    // Rows that differ only in their numbers are similar lines; folding the
    // whole table would show one row of it in a budget for hundreds.
    let text: String = (0..5000)
        .map(|i| format!("{i},{},{}.{:02},ok\n", i * 37 % 1000, i % 97, i % 100))
        .collect();
    let budget = Budget {
        max_bytes: 8192,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&text, &budget, "table", &mut Discard)
        .unwrap();
    assert_eq!(c.folded_lines, 0, "{}", c.text);
    assert!(c.text.len() * 10 >= 8192 * 9, "{} bytes", c.text.len());
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn a_fold_leaves_the_tail_the_rows_it_has_room_for() {
    // A few hundred alike rows, each longer than max-line-bytes: a head fold
    // that ran up to the last row left the tail's share of the budget empty
    // (64% of it used, or less).
    let cyrillic: String = (1..=400)
        .map(|n| {
            format!(
                "row {n}: сборка модуля завершилась с предупреждением, повторите попытку позже\n"
            )
        })
        .collect();
    let ascii: String = (1..=300)
        .map(|n| format!("row {n}: {}\n", "build step finished ok; ".repeat(8)))
        .collect();
    for text in [cyrillic, ascii] {
        for max_bytes in [2048, 4096, 8192, 16384] {
            let budget = Budget {
                max_bytes,
                max_lines: None,
                max_line_bytes: Some(120),
                ..Budget::default()
            };
            let c = capper(PreviewFeatures::ALL, Vec::new())
                .cap(&text, &budget, "rows", &mut Discard)
                .unwrap();
            assert!(
                c.text.len() * 10 >= max_bytes as usize * 9,
                "{} of {max_bytes} bytes:\n{}",
                c.text.len(),
                c.text
            );
            check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
        }
    }
}

#[test]
fn a_run_past_the_fold_reach_is_shown_not_folded() {
    // Far more repetition than a side may compare: folding would end the
    // side there and leave its room unused, so the lines are shown, and the
    // gap marker covers the rest.
    let text: String = (0..400_000)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    let budget = Budget {
        max_bytes: 2048,
        max_lines: None,
        ..Budget::default()
    };
    // 8.8 MB would get the one-pass preview, which does not fold: folding
    // is the full preview's, so this capper gives every size the full one.
    let mut capper = capper(PreviewFeatures::ALL, Vec::new());
    capper.set_large_input(usize::MAX);
    let c = capper.cap(&text, &budget, "log", &mut Discard).unwrap();
    let body = body_of(&c);
    assert!(
        body.starts_with("line 0 of the log\nline 1 of the log\n"),
        "{body}"
    );
    assert!(body.contains(" bytes omitted here "), "{body}");
    assert!(body.ends_with("line 399999 of the log\n"), "{body}");
    assert_eq!(c.folded_lines, 0);
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
}

#[test]
fn cuts_keep_emoji_flags_and_combining_marks_whole() {
    let unit = "👩\u{200D}👩\u{200D}👧\u{200D}👦🇺🇦e\u{301}\u{302}क्षिx";
    for lines in [1, 40] {
        let text = (0..lines)
            .map(|_| unit.repeat(300 / lines + 20))
            .collect::<Vec<_>>()
            .join("\r\n");
        for max_line_bytes in [None, Some(7), Some(33), Some(100)] {
            for keep in [Keep::Head, Keep::Tail, Keep::HeadAndTail] {
                let capper = capper(PreviewFeatures::ALL, Vec::new());
                for extra in [0, 13, 101, 999] {
                    let budget = Budget {
                        max_bytes: capper.room().bytes as u32 + extra,
                        max_lines: None,
                        max_line_bytes,
                        keep,
                        head_percent: 40,
                        max_tokens: None,
                    };
                    let c = capper.cap(&text, &budget, "c", &mut Discard).unwrap();
                    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
                }
            }
        }
    }
}

/// A pretty JSON object whose `items` are 4000 small objects.
fn items_document() -> String {
    let items: Vec<String> = (0..4000)
        .map(|i| format!("    {{\"id\": {i}, \"name\": \"item-{i}\"}}"))
        .collect();
    format!("{{\n  \"items\": [\n{}\n  ]\n}}\n", items.join(",\n"))
}

/// `c` is a JSON preview of [`items_document`], kept as its text starts.
fn assert_items_preview(c: &Capped) {
    assert!(
        c.text
            .starts_with(&format!("{JSON_HEADER}\n{{\n  \"items\": [\n")),
        "{}",
        c.text
    );
}

/// Under a token limit the preview is rendered again in less room, from
/// the document parsed once: it stays a JSON preview, within the limit.
#[test]
fn a_json_document_under_a_token_limit_keeps_its_structure() {
    let text = items_document();
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let bytes_only = Budget {
        max_bytes: 16 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let free = capper.cap(&text, &bytes_only, "api", &mut Discard).unwrap();
    let limit = (free.tokens / 3) as u32;
    let budget = Budget {
        max_tokens: Some(limit),
        ..bytes_only
    };
    let c = capper.cap(&text, &budget, "api", &mut Discard).unwrap();
    assert!(c.tokens <= u64::from(limit), "{} > {limit}", c.tokens);
    assert_items_preview(&c);
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
    assert!(c.omitted_bytes > free.omitted_bytes);
}

#[test]
fn a_json_document_keeps_its_structure() {
    let text = items_document();
    let budget = Budget {
        max_bytes: 16 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let c = capper(PreviewFeatures::ALL, Vec::new())
        .cap(&text, &budget, "api", &mut Discard)
        .unwrap();
    assert_items_preview(&c);
    check(&text, &budget, PreviewFeatures::ALL, &c).unwrap();
    // The preview keeps the document's own lines: the gap is where it
    // first differs from them.
    let shown = c.text.strip_prefix(&format!("{JSON_HEADER}\n")).unwrap();
    let first_difference = text
        .lines()
        .zip(shown.lines())
        .position(|(a, b)| a != b)
        .unwrap() as u64
        + 1;
    assert!(first_difference > 3, "items are kept verbatim");
    assert_eq!(c.gap_line, Some(first_difference));
    let off = capper(
        PreviewFeatures {
            json: false,
            ..PreviewFeatures::ALL
        },
        Vec::new(),
    )
    .cap(&text, &budget, "api", &mut Discard)
    .unwrap();
    assert!(!off.text.starts_with(JSON_HEADER));
    // Not a document: JSON Lines, or a log that starts with `[`.
    for not_json in [
        "{\"a\":1}\n{\"a\":2}\n".repeat(3000),
        "[INFO] started\n".repeat(3000),
    ] {
        let c = capper(PreviewFeatures::ALL, Vec::new())
            .cap(&not_json, &budget, "x", &mut Discard)
            .unwrap();
        assert!(c.truncated && !c.text.starts_with(JSON_HEADER));
    }
}

#[test]
fn a_failed_call_leans_to_the_tail_and_says_so_first() {
    let log = build_log(3000, 2990);
    let budget = Budget {
        max_bytes: 8 * 1024,
        max_lines: None,
        ..Budget::default()
    };
    let call = Call {
        tool: Some("cargo".into()),
        exit_code: Some(101),
        ..Call::new("b")
    };
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let failed = capper.cap_call(&log, &budget, &call, &mut Discard).unwrap();
    let ok = capper.cap(&log, &budget, "b", &mut Discard).unwrap();
    let head = |c: &Capped| body_of(c).split_once("\n[... ").unwrap().0.len();
    assert!(
        head(&failed) * 3 < head(&ok) * 2,
        "{} {}",
        head(&failed),
        head(&ok)
    );
    assert!(
        failed
            .text
            .contains("[toolcap] The tool `cargo` failed (exit code 101). ")
    );
}

// ---- max-line-bytes, as the WIT states it ----

/// `count` lines of `len` bytes each, no two alike (nothing folds).
fn long_varied_lines(count: u32, len: u32) -> String {
    let mut text = String::new();
    for i in 0..count {
        let body: String = (0..len)
            .map(|j| char::from(b'a' + ((i * 7 + j * 13 + j / 5) % 26) as u8))
            .collect();
        text.push_str(&format!("{i:04} {body}\n"));
    }
    text
}

fn cap_with_line_limit(text: &str, max_bytes: u32, max_line_bytes: u32) -> Capped {
    let budget = Budget {
        max_bytes,
        max_lines: None,
        max_line_bytes: Some(max_line_bytes),
        ..Budget::default()
    };
    capper(PreviewFeatures::ALL, Vec::new())
        .cap(text, &budget, "c", &mut Discard)
        .unwrap()
}

/// The preview's lines before the notice.
fn preview_lines(capped: &Capped) -> Vec<&str> {
    capped
        .text
        .lines()
        .take_while(|l| !l.starts_with("[toolcap]"))
        .collect()
}

#[test]
fn max_line_bytes_shortens_and_marks_long_lines_while_the_budget_is_shared() {
    // 400 lines of 405 bytes in 4000 bytes: the budget is shared, every
    // line shown is shortened to 120 bytes and marked.
    let text = long_varied_lines(400, 400);
    let capped = cap_with_line_limit(&text, 4000, 120);
    let lines = preview_lines(&capped);
    let shortened: Vec<&&str> = lines
        .iter()
        .filter(|l| l.ends_with(" bytes cut]"))
        .collect();
    assert!(shortened.len() >= 10, "{}", capped.text);
    for line in &lines {
        if line.starts_with("[...") {
            continue;
        }
        let content = line.split(" [... ").next().unwrap();
        assert!(content.len() <= 120, "{} bytes: {line}", content.len());
    }
    // With max-line-bytes 1, a 49-byte line is shortened to 1 byte and
    // marked while other lines wait for the budget.
    let text = long_varied_lines(400, 44);
    let capped = cap_with_line_limit(&text, 1500, 1);
    let lines = preview_lines(&capped);
    assert!(lines.contains(&"0 [... 48 bytes cut]"), "{}", capped.text);
}

#[test]
fn budget_left_after_shortening_flows_back_to_the_shortened_lines() {
    // 5 lines of 3000 bytes in 8000 bytes: shortened to 120 bytes each,
    // they would leave most of the budget unused; it flows back to them.
    let text = long_varied_lines(5, 3000);
    let capped = cap_with_line_limit(&text, 8000, 120);
    assert!(capped.truncated);
    let longest = preview_lines(&capped)
        .iter()
        .map(|l| l.len())
        .max()
        .unwrap();
    assert!(longest > 120, "{}", capped.text);
    assert!(
        capped.text.len() * 10 >= 8000 * 9,
        "{} of 8000 bytes used",
        capped.text.len()
    );
}

/// A hit in the part of the text's last line that head and tail split
/// between them (each shows one end, the gap between) is shown: the head's
/// part reaches it. (Found by `the_first_hit_of_every_alternative_is_shown`
/// with seed 12: the tail had first taken the line as one shortened by
/// `max-line-bytes`, so the middle was searched empty, and `fill` then split
/// the line around the hit.)
#[test]
fn a_hit_in_the_gap_of_a_split_last_line_is_shown() {
    let lines: [(usize, char); 32] = [
        (513, ' '),
        (513, 'a'),
        (513, ' '),
        (1512, 'a'),
        (1512, ' '),
        (612, ' '),
        (1512, 'a'),
        (10512, ' '),
        (1512, 'a'),
        (612, ' '),
        (230, 'a'),
        (62, 'a'),
        (56, ' '),
        (47, 'a'),
        (1512, 'a'),
        (10512, 'a'),
        (48, ' '),
        (9, ' '),
        (69, ' '),
        (31, ' '),
        (612, 'a'),
        (1512, 'a'),
        (61, 'a'),
        (329, ' '),
        (19359, 'a'),
        (60, 'a'),
        (40, 'a'),
        (5164, ' '),
        (16, ' '),
        (78, 'a'),
        (9, ' '),
        (62, 'a'),
    ];
    let mut text: String = lines
        .iter()
        .map(|&(n, c)| format!("{}\n", c.to_string().repeat(n)))
        .collect();
    text.push_str(&format!("{}AAAA{}\n", " ".repeat(876), " ".repeat(39886)));
    assert_first_hit_shown(&text, "AAAA", (11517, None, Some(359), 2, 85));
}

/// The text capped with a search for `terms` (one per line) under the
/// budget `raw`: a preview that parses back, and that shows the first
/// hit of the first term.
fn assert_first_hit_shown(text: &str, terms: &str, raw: (u32, Option<u32>, Option<u32>, u8, u8)) {
    let term = terms.lines().next().unwrap();
    let hit = text.find(term).unwrap();
    let capper = capper(PreviewFeatures::ALL, Vec::new());
    let budget = budget_for(&capper, raw);
    let call = Call {
        search: Some(terms.into()),
        ..Call::new("grep")
    };
    let c = capper.cap_call(text, &budget, &call, &mut Discard).unwrap();
    assert!(c.truncated);
    check_using(text, &budget, PreviewFeatures::ALL, &c, true).unwrap();
    let p = parse(text, body_of(&c), true).unwrap();
    assert!(
        p.ranges
            .iter()
            .any(|&(a, b)| a < hit + term.len() && hit < b),
        "{}",
        c.text
    );
}

/// A hit in the gap of a split last line, too far from the head's part to
/// reach: the line is shown shortened, as `max-line-bytes` shortens it,
/// with the hit's window in its cut part. (Found by
/// `the_first_hit_of_every_alternative_is_shown` with seed 4.)
#[test]
fn a_hit_deep_in_a_split_last_line_is_shown_in_its_cut() {
    let text = format!(
        "AAB{}\n{}\n{}\n{}\n{}AAAAAAAAAAAA{}\n",
        "a".repeat(1648),
        "a".repeat(374),
        "a".repeat(1657),
        " ".repeat(1747),
        "a".repeat(3307),
        "a".repeat(10408 - 3307 - 12),
    );
    assert_first_hit_shown(&text, "AAAAAAAAAAAA\nAAB", (6582, None, Some(1197), 2, 82));
}

/// A hit the sides show only while the notable lines' share is set aside:
/// with the whole allowance the head grows into the hit's line and the
/// tail shrinks past it, so no side and no window would show it. The first
/// choice is kept and filled. (Found by
/// `the_first_hit_of_every_alternative_is_shown` with seed 3.)
#[test]
fn a_hit_the_sides_show_before_the_share_moves_stays_shown() {
    let hit_line = format!("{}AAA{}", "a".repeat(31141), "a".repeat(725));
    let text = format!(
        "{}\n{}\n{}\n{hit_line}\n{}\n",
        " ".repeat(1320),
        "a".repeat(1488),
        " ".repeat(63),
        " ".repeat(2927),
    );
    assert_eq!(text.find("AAA"), Some(34015));
    assert_first_hit_shown(&text, "AAA", (8703, None, None, 2, 67));
}

/// A split last line shortened to show its hit takes the budget no side
/// used, the gap marker's room included, since the gap closes. (Found by
/// `the_first_hit_of_every_alternative_is_shown` with seed 17: 552 of 638
/// bytes used.)
#[test]
fn a_split_line_shortened_for_its_hit_uses_the_budget() {
    let text = format!(
        "{}{}{}\n",
        " ".repeat(270),
        "A".repeat(15),
        " ".repeat(1759)
    );
    assert_first_hit_shown(&text, "AAAAA", (0, None, Some(40), 2, 11));
}
