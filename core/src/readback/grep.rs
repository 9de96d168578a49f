//! Literal search: every non-overlapping occurrence of a pattern, in one pass
//! over the file with a sliding window of bytes.

use memchr::{memchr_iter, memmem};

use super::excerpt::{EXCERPT_CONTEXT, excerpt};
use super::scan::read_range;
use super::source::RandomRead;
use super::utf8::UTF8_SLACK;
use super::window::Window;
use super::{invalid, to_index};
use crate::error::CapError;

/// One occurrence of a grep pattern (WIT `grep-match`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepMatch {
    /// 1-based line number where the occurrence starts.
    pub line: u64,
    /// Byte offset of the occurrence in the file.
    pub offset: u64,
    /// The line around the occurrence, without its line break: whole if short,
    /// otherwise about 200 bytes on each side of the occurrence.
    pub excerpt: String,
    /// Byte offset in the file where `excerpt` starts.
    pub excerpt_offset: u64,
}

/// Result of [`grep`](fn@super::grep) (WIT `grep-result`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepResult {
    /// The first occurrences, in file order, at most `max_matches`.
    pub matches: Vec<GrepMatch>,
    /// All occurrences in the file.
    pub total_matches: u64,
}

/// [`grep`](fn@super::grep) with the read chunk size as a parameter.
pub(super) fn grep_in(
    src: &mut impl RandomRead,
    pattern: &str,
    max_matches: u32,
    chunk: usize,
) -> Result<GrepResult, CapError> {
    if pattern.is_empty() {
        return Err(invalid("pattern must not be empty".to_owned()));
    }
    if max_matches == 0 {
        return Err(invalid("max-matches must be at least 1".to_owned()));
    }
    let size = src.size()?;
    let needle = pattern.as_bytes();
    let finder = memmem::Finder::new(needle);
    let plen = needle.len() as u64;
    let wanted = to_index(u64::from(max_matches));
    // Reads at least as long as the pattern keep the carried tail shorter than
    // each read, so copying stays linear in the file size.
    let step = chunk.max(1).max(needle.len()) as u64;
    let mut window = Window::default();
    let mut lines = LineCursor::default();
    // Earliest offset where a match not yet reported may start.
    let mut search_from = 0;
    let mut result = GrepResult {
        matches: Vec::new(),
        total_matches: 0,
    };
    while window.end() < size {
        let from = window.end();
        let bytes = read_range(src, from, from + step.min(size - from))?;
        if bytes.is_empty() {
            break;
        }
        window.bytes.extend_from_slice(&bytes);
        let skip = to_index(search_from - window.pos);
        for hit in finder.find_iter(&window.bytes[skip..]) {
            let at = window.pos + (skip + hit) as u64;
            result.total_matches += 1;
            search_from = at + plen;
            if result.matches.len() < wanted {
                let line = lines.line_at(&window, at);
                let (excerpt_offset, excerpt) = excerpt(src, &window, at, plen, size)?;
                result.matches.push(GrepMatch {
                    line,
                    offset: at,
                    excerpt,
                    excerpt_offset,
                });
            }
        }
        // A match may still start in the last plen-1 bytes and end in the next
        // read; keep those, and enough before them for an excerpt's left side.
        search_from = search_from.max(window.end().saturating_sub(plen - 1));
        let keep_from = search_from
            .saturating_sub(EXCERPT_CONTEXT + UTF8_SLACK)
            .max(window.pos);
        if result.matches.len() < wanted {
            lines.advance(&window, keep_from);
        }
        window.drop_before(keep_from);
    }
    Ok(result)
}

/// Counts LFs incrementally as grep moves forward through its window.
#[derive(Debug, Default)]
struct LineCursor {
    /// File offset up to which LFs are counted.
    counted_to: u64,
    /// LFs before `counted_to`.
    lfs: u64,
}

impl LineCursor {
    /// 1-based line number of file offset `at`, which the window holds.
    fn line_at(&mut self, window: &Window, at: u64) -> u64 {
        self.advance(window, at);
        self.lfs + 1
    }

    /// Count the LFs up to file offset `to`; the window holds the bytes from
    /// the last counted offset to `to`.
    fn advance(&mut self, window: &Window, to: u64) {
        if to <= self.counted_to {
            return;
        }
        let seen = window
            .slice(self.counted_to, to)
            .map_or(0, |b| memchr_iter(b'\n', b).count());
        debug_assert!(
            window.slice(self.counted_to, to).is_some(),
            "uncounted bytes were dropped"
        );
        self.lfs += seen as u64;
        self.counted_to = to;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::*;
    use crate::readback::testing::{
        Spy, grep_text, long_text, mem, naive_excerpt, naive_line, naive_matches, pattern,
        raw_bytes,
    };

    #[test]
    fn match_straddling_a_chunk_boundary_is_found() {
        for chunk in 1..=8 {
            for pad in 0..12 {
                let text = format!("{}needle\nyyyneedle", "x".repeat(pad));
                let found = grep_text(&text, "needle", 5, chunk);
                assert_eq!(found.total_matches, 2, "chunk {chunk} pad {pad}");
                let offsets: Vec<u64> = found.matches.iter().map(|m| m.offset).collect();
                assert_eq!(offsets, [pad as u64, pad as u64 + 10]);
                assert_eq!(found.matches[1].line, 2);
                assert_eq!(found.matches[1].excerpt, "yyyneedle");
            }
        }
    }

    #[test]
    fn pattern_longer_than_a_chunk_is_found() {
        let pattern = "0123456789".repeat(5);
        let text = format!("ab{pattern}{pattern}c\n{pattern}");
        let found = grep_text(&text, &pattern, 10, 4);
        assert_eq!(found.total_matches, 3);
        assert_eq!(found.matches[2].line, 2);
        assert_eq!(found.matches[2].excerpt, pattern);
    }

    #[test]
    fn occurrences_do_not_overlap_and_beyond_max_are_only_counted() {
        let found = grep_text("aaaaa", "aa", 5, 2);
        let offsets: Vec<u64> = found.matches.iter().map(|m| m.offset).collect();
        assert_eq!((found.total_matches, offsets), (2, vec![0, 2]));
        let found = grep_text("x\nx\nx\nx\n", "x", 2, 3);
        assert_eq!((found.total_matches, found.matches.len()), (4, 2));
        assert_eq!(found.matches[1].line, 2);
    }

    #[test]
    fn excerpts_reuse_the_bytes_already_read() {
        // Each match sits 10 bytes into a 1024-byte read: its left context
        // lies in the previous read, its right context in its own.
        let unit = format!(
            "{}match{}\n{}",
            "a".repeat(10),
            "b".repeat(800),
            "x".repeat(208)
        );
        assert_eq!(unit.len(), 1024);
        let text = unit.repeat(8);
        let mut spy = Spy::new(mem(&text));
        let found = grep_in(&mut spy, "match", 100, 1024).unwrap();
        assert_eq!(found.total_matches, 8);
        let right = "b".repeat(200);
        assert_eq!(
            found.matches[0].excerpt,
            format!("{}match{right}", "a".repeat(10))
        );
        let left = format!("{}{}", "x".repeat(190), "a".repeat(10));
        assert_eq!(found.matches[7].excerpt, format!("{left}match{right}"));
        assert_eq!(spy.calls, 8, "one read per chunk, none for excerpts");
    }

    #[test]
    fn pattern_longer_than_a_chunk_widens_the_reads() {
        let mut spy = Spy::new(mem("a".repeat(1000)));
        let found = grep_in(&mut spy, &"b".repeat(50), 1, 4).unwrap();
        assert_eq!(found.total_matches, 0);
        assert!(
            spy.calls <= 20,
            "{} reads: the carried tail would be copied again each time",
            spy.calls
        );
    }

    #[test]
    fn pattern_with_line_break_reports_the_line_it_starts_on() {
        let found = grep_text("aa\nbb\ncc\n", "b\ncc", 3, 2);
        let m = &found.matches[0];
        assert_eq!(
            (m.line, m.offset, m.excerpt.as_str(), m.excerpt_offset),
            (2, 4, "bb\ncc", 3)
        );
    }

    proptest! {
        #[test]
        fn grep_matches_naive_search(
            text in long_text(), pattern in pattern(), max in 1u32..6, chunk in 1usize..10,
        ) {
            let found = grep_text(&text, pattern, max, chunk);
            let naive: Vec<usize> = text.match_indices(pattern).map(|(i, _)| i).collect();
            prop_assert_eq!(found.total_matches, naive.len() as u64);
            prop_assert_eq!(found.matches.len(), naive.len().min(max as usize));
            for (m, &at) in found.matches.iter().zip(&naive) {
                prop_assert_eq!(m.offset, at as u64);
                prop_assert_eq!(m.line, naive_line(text.as_bytes(), at));
                let (left, right) = naive_excerpt(&text, at, at + pattern.len());
                prop_assert_eq!(m.excerpt_offset, left as u64);
                prop_assert_eq!(&m.excerpt, &text[left..right]);
            }
        }

        #[test]
        fn grep_counts_tampered_bytes_like_naive(
            bytes in raw_bytes(), pattern in select(vec!["a", "\n", "é", "€", "a\n", "\r"]),
            chunk in 1usize..6,
        ) {
            let found = grep_text(&bytes, pattern, 4, chunk);
            let naive = naive_matches(&bytes, pattern.as_bytes());
            prop_assert_eq!(found.total_matches, naive.len() as u64);
            for (m, &at) in found.matches.iter().zip(&naive) {
                prop_assert_eq!(m.offset, at as u64);
                prop_assert_eq!(m.line, naive_line(&bytes, at));
                prop_assert!(m.excerpt_offset <= m.offset);
                prop_assert!(m.excerpt.contains(pattern));
            }
        }
    }
}
