//! UTF-8 in raw file bytes: character boundaries and how much of a buffer
//! fits a page as lossy text.
//!
//! A spilled file may have been tampered with, so these work on `[u8]` that
//! may be invalid UTF-8, where std's `str::floor_char_boundary` and
//! `str::ceil_char_boundary` do not apply (std has no `[u8]` version).

/// Longest UTF-8 sequence minus one: how many bytes beyond a position tell
/// whether it splits a character.
pub(super) const UTF8_SLACK: u64 = 3;

/// Bytes of U+FFFD, which stands for each invalid sequence in returned text.
const REPLACEMENT_LEN: usize = char::REPLACEMENT_CHARACTER.len_utf8();

/// Length of the longest prefix of `buf` (which starts on a character
/// boundary) that keeps valid characters whole, spans at most `raw_limit`
/// bytes and becomes at most `text_limit` bytes of lossy text. `buf` must reach
/// 3 bytes past `raw_limit` or to the end of file, so that a character at the
/// limit is seen whole.
pub(super) fn fit_prefix(buf: &[u8], raw_limit: usize, text_limit: usize) -> usize {
    let mut used = 0;
    let mut text = 0;
    for part in buf.utf8_chunks() {
        let valid = part.valid();
        let room = raw_limit
            .saturating_sub(used)
            .min(text_limit.saturating_sub(text));
        if valid.len() > room {
            return used + valid.floor_char_boundary(room);
        }
        used += valid.len();
        text += valid.len();
        let bad = part.invalid().len();
        if bad == 0 {
            continue;
        }
        // An invalid sequence costs its bytes in the file but U+FFFD in text.
        if used + bad > raw_limit || text + REPLACEMENT_LEN > text_limit {
            return used;
        }
        used += bad;
        text += REPLACEMENT_LEN;
    }
    used
}

/// Whether `byte` continues a UTF-8 sequence (`10xxxxxx`).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Length of the UTF-8 sequence that `byte` starts, `None` if it starts none.
fn utf8_len(byte: u8) -> Option<usize> {
    match byte {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF => Some(2),
        0xE0..=0xEF => Some(3),
        0xF0..=0xF4 => Some(4),
        _ => None,
    }
}

/// Start of the valid character that index `i` of `buf` lies strictly
/// inside, or `i` itself. Only a sequence that is whole and valid within `buf`
/// counts; stray bytes of a tampered file stand alone.
pub(super) fn char_floor(buf: &[u8], i: usize) -> usize {
    for back in 1..=3 {
        let Some(lead) = i.checked_sub(back) else {
            return i;
        };
        let Some(&byte) = buf.get(lead) else {
            return i;
        };
        if is_continuation(byte) {
            continue;
        }
        let covers = utf8_len(byte).is_some_and(|len| {
            len > back
                && buf
                    .get(lead..lead + len)
                    .is_some_and(|s| std::str::from_utf8(s).is_ok())
        });
        return if covers { lead } else { i };
    }
    i
}

/// End of the valid character that index `i` of `buf` lies strictly inside,
/// or `i` itself.
pub(super) fn char_ceil(buf: &[u8], i: usize) -> usize {
    let lead = char_floor(buf, i);
    if lead == i {
        return i;
    }
    lead + buf.get(lead).and_then(|&b| utf8_len(b)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_of_valid_text_are_std_ones() {
        let s = "aж中😀b";
        for i in 0..=s.len() {
            assert_eq!(char_floor(s.as_bytes(), i), s.floor_char_boundary(i), "{i}");
            assert_eq!(char_ceil(s.as_bytes(), i), s.ceil_char_boundary(i), "{i}");
        }
    }

    #[test]
    fn stray_and_cut_sequences_stand_alone() {
        // A lone continuation byte, a lead byte without its continuations, a
        // surrogate (ED A0 80) and a 4-byte sequence cut by the buffer's end.
        let buf: &[u8] = b"a\x80b\xe2\x82c\xed\xa0\x80d\xf0\x9f\x98";
        for i in 0..=buf.len() {
            assert_eq!(char_floor(buf, i), i, "{i}");
            assert_eq!(char_ceil(buf, i), i, "{i}");
        }
    }

    #[test]
    fn fit_prefix_keeps_characters_whole_and_counts_replacements() {
        let s = "aж😀".as_bytes();
        assert_eq!(fit_prefix(s, 2, 10), 1);
        assert_eq!(fit_prefix(s, 3, 10), 3);
        assert_eq!(fit_prefix(s, 10, 6), 3);
        assert_eq!(fit_prefix(s, 10, 7), 7);
        // One invalid byte costs 1 byte of the file but 3 of text.
        let bad: &[u8] = b"a\xffb";
        assert_eq!(fit_prefix(bad, 10, 3), 1);
        assert_eq!(fit_prefix(bad, 10, 4), 2);
        assert_eq!(fit_prefix(bad, 10, 5), 3);
        assert_eq!(fit_prefix(bad, 1, 10), 1);
    }
}
