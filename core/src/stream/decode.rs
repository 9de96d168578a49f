//! Bytes to text in pieces, exactly as [`String::from_utf8_lossy`] decodes
//! the whole concatenation: each maximal invalid sequence becomes one U+FFFD,
//! and a character split between two writes is carried over (at most 3
//! bytes wait).

/// The replacement of an invalid sequence.
const REPLACEMENT: &str = "\u{FFFD}";

/// A lossy UTF-8 decoder that takes its input in chunks.
#[derive(Debug, Default)]
pub(crate) struct LossyDecoder {
    /// The start of a character whose last bytes have not come yet.
    pending: Vec<u8>,
    /// An invalid sequence was replaced: the text is not the bytes.
    lossy: bool,
}

impl LossyDecoder {
    /// Decode `chunk`, handing each decoded piece to `out` in order.
    pub(crate) fn feed(&mut self, chunk: &[u8], out: &mut impl FnMut(&str)) {
        let mut i = 0;
        // Complete the pending character one byte at a time: it needs 3 at most.
        while !self.pending.is_empty() && i < chunk.len() {
            self.pending.push(chunk[i]);
            i += 1;
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out(s);
                    self.pending.clear();
                }
                Err(e) => match e.error_len() {
                    None => {}
                    Some(n) => {
                        // The bytes after the invalid sequence came from this
                        // chunk: read them again.
                        i -= self.pending.len() - n;
                        self.pending.clear();
                        self.lossy = true;
                        out(REPLACEMENT);
                    }
                },
            }
        }
        let mut rest = &chunk[i..];
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out(s);
                    return;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    if valid > 0 {
                        out(std::str::from_utf8(&rest[..valid]).expect("valid prefix"));
                    }
                    match e.error_len() {
                        Some(n) => {
                            self.lossy = true;
                            out(REPLACEMENT);
                            rest = &rest[valid + n..];
                        }
                        None => {
                            self.pending.extend_from_slice(&rest[valid..]);
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Decode `text`, whole characters: once no character waits for its
    /// last bytes, it is its own decoding, and its bytes are not read again.
    pub(crate) fn feed_text(&mut self, text: &str, out: &mut impl FnMut(&str)) {
        if !self.pending.is_empty() {
            self.feed(text.as_bytes(), out);
        } else if !text.is_empty() {
            out(text);
        }
    }

    /// The end of the input: a character left incomplete is one U+FFFD.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&str)) {
        if !self.pending.is_empty() {
            self.pending.clear();
            self.lossy = true;
            out(REPLACEMENT);
        }
    }

    /// True once an invalid sequence was replaced: the decoded text is not
    /// the bytes written.
    pub(crate) fn is_lossy(&self) -> bool {
        self.lossy
    }

    /// The bytes of a character not complete yet (at most 3).
    pub(crate) fn pending(&self) -> &[u8] {
        &self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> String {
        let mut d = LossyDecoder::default();
        let mut s = String::new();
        for c in chunks {
            d.feed(c, &mut |p| s.push_str(p));
        }
        d.finish(&mut |p| s.push_str(p));
        s
    }

    #[test]
    fn any_split_decodes_like_from_utf8_lossy() {
        let samples: [&[u8]; 6] = [
            "aж😀b".as_bytes(),
            b"\xF0\x9F\x98",
            b"a\xE2\x82x\xFF\xC3",
            b"\xED\xA0\x80z\xF4\x90\x80\x80",
            b"\xE2\x82\xE2\x82\xAC",
            b"",
        ];
        for s in samples {
            let want = String::from_utf8_lossy(s);
            for i in 0..=s.len() {
                for j in i..=s.len() {
                    let got = decode(&[&s[..i], &s[i..j], &s[j..]]);
                    assert_eq!(got, want, "{s:?} {i} {j}");
                }
            }
            let bytes: Vec<&[u8]> = s.chunks(1).collect();
            assert_eq!(decode(&bytes), want);
        }
    }

    #[test]
    fn lossy_is_set_by_an_invalid_sequence_only() {
        let lossy = |chunks: &[&[u8]]| {
            let mut d = LossyDecoder::default();
            for c in chunks {
                d.feed(c, &mut |_| {});
            }
            d.finish(&mut |_| {});
            d.is_lossy()
        };
        // A real U+FFFD, split anywhere, is valid.
        assert!(!lossy(&[b"a\xEF\xBF", b"\xBDb"]));
        assert!(!lossy(&["aж😀b".as_bytes()]));
        assert!(lossy(&[b"ok\xFF"]));
        assert!(lossy(&[b"\xE2\x82", b"x"]));
        assert!(lossy(&[b"cut \xF0\x9F"]));
    }
}
