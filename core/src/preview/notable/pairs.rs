//! Which pairs of adjacent bytes a short line holds, as a set of 512 bits:
//! a line is asked for thirty-odd phrases ([`super::classify`]) and holds
//! almost none of them, and a phrase with a pair the line lacks is absent
//! without a search. Bytes are paired with their 0x20 bit set (ASCII
//! letters in lower case), so that one set rules phrases out of searches
//! that ignore case as well.

/// Lines longer than this are not paired: their pairs would set most of
/// the bits, and every phrase would be searched for anyway.
const PAIRED_BYTES: usize = 256;

/// The pairs of a line, hashed into 512 bits; every bit set when the line
/// is too long to say.
#[derive(Debug, Clone)]
pub(super) struct Pairs([u64; 8]);

impl Pairs {
    /// The pairs `text` holds (all of them when it is long).
    pub(super) fn of(text: &str) -> Pairs {
        let b = text.as_bytes();
        if b.len() > PAIRED_BYTES {
            return Pairs::any();
        }
        let mut bits = [0u64; 8];
        for pair in b.windows(2) {
            let slot = slot(pair[0], pair[1]);
            bits[slot >> 6] |= 1 << (slot & 63);
        }
        Pairs(bits)
    }

    /// Pairs that rule nothing out.
    pub(super) fn any() -> Pairs {
        Pairs([u64::MAX; 8])
    }

    /// Whether a text with these pairs may hold `needle`, in any ASCII
    /// case: false only when one of the needle's pairs is missing (so the
    /// text holds it in no case).
    pub(super) fn may_hold(&self, needle: &str) -> bool {
        needle.as_bytes().windows(2).all(|pair| {
            let slot = slot(pair[0], pair[1]);
            self.0[slot >> 6] & (1 << (slot & 63)) != 0
        })
    }
}

/// Where a pair's bit is: the top 9 bits of a multiplicative hash of the
/// two bytes with their 0x20 bit set.
fn slot(a: u8, b: u8) -> usize {
    let pair = (u32::from(a | 0x20) << 8) | u32::from(b | 0x20);
    (pair.wrapping_mul(0x9E37_79B1) >> 23) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A text may hold each of its own pieces, in any case, and a
        /// needle it is said not to hold it holds in no case.
        #[test]
        fn a_needle_ruled_out_is_absent(
            text in "[a-dA-D :é\\-]{0,300}",
            from in 0usize..300,
            len in 0usize..12,
            other in "[a-eA-E :]{0,8}",
        ) {
            let pairs = Pairs::of(&text);
            let from = text.floor_char_boundary(from.min(text.len()));
            let to = text.floor_char_boundary((from + len).min(text.len()));
            let piece = &text[from..to];
            prop_assert!(pairs.may_hold(piece));
            prop_assert!(pairs.may_hold(&piece.to_ascii_uppercase()));
            prop_assert!(pairs.may_hold(&text));
            if !pairs.may_hold(&other) {
                let lower = text.to_ascii_lowercase();
                prop_assert!(!lower.contains(&other.to_ascii_lowercase()));
            }
        }
    }

    #[test]
    fn phrases_a_short_line_lacks_are_ruled_out() {
        let line = "src/module7/file3.c:120:4: warning: unused variable 'x3' [-Wunused-variable]";
        let pairs = Pairs::of(line);
        for absent in [
            "Traceback (most recent call last)",
            "No such file",
            "denied",
        ] {
            assert!(!pairs.may_hold(absent), "{absent}");
        }
        assert!(pairs.may_hold(": warning: "));
        // One byte has no pair, and a long line rules nothing out.
        assert!(pairs.may_hold("Q"));
        assert!(Pairs::of(&"x".repeat(PAIRED_BYTES + 1)).may_hold("denied"));
    }
}
