//! Where the next occurrence of any of a few dozen literals starts, sixteen
//! positions a step: the prefilter the automaton's walk lacks in wasm,
//! where aho-corasick has no SIMD searcher (its Teddy is x86-64 and ARM).
//!
//! The method is Teddy's (Geoff Langdale's, as aho-corasick's
//! `packed::teddy` describes it): each literal's first four bytes put its
//! bucket's bit into tables of low and high nibbles, one pair per offset;
//! the literals of three bytes have a bucket of their own, whose bit every
//! value of a fourth byte sets ([`TABLES`]). Looking up sixteen positions'
//! bytes in the tables (one swizzle each) and ANDing the results leaves,
//! per position, the buckets whose literals may start there. A position
//! that survives is checked exactly: its first
//! three bytes in a bitmap of the literals' first three, then its first
//! four in one of the first four of the literals that have four (or its
//! first three in one of the shorter literals: [`Heads`]), then the
//! literals that start with its first three compared whole. Nothing is
//! missed: a literal that starts at a position sets its bucket's bit in
//! every table there, and its heads' bits.
//!
//! [`super::walk`] runs the automaton over the lines this finds only.

/// Bytes fingerprinted: every literal is at least this long.
pub(super) const MIN_LEN: usize = 3;

/// Most literals: past this the buckets fill, and most positions survive.
/// The built-in searches are 79, a session's patterns come on top.
const MAX_LITERALS: usize = 96;

/// Buckets: one bit of a byte each.
const BUCKETS: usize = 8;

/// Bytes of each position the tables look at. With three, about one
/// position in eight of real code and prose (one in seventeen of the
/// bench's log) passed the tables; with four, and the literals of three
/// bytes in a bucket of their own, half as many do.
const TABLES: usize = 4;

/// Positions a step, and the bytes a block reads: two vectors, whose
/// second holds the bytes the tables look at past the sixteenth position.
const STEP: usize = 16;
const BLOCK: usize = 2 * STEP;

/// The literals of one search, fingerprinted.
#[derive(Debug, Clone)]
pub(super) struct Fingerprints {
    /// Per offset, the buckets of each value of a byte's low nibble and of
    /// its high nibble, as the lanes take them.
    tables: lanes::Tables,
    /// The literals' first bytes.
    heads: Heads,
    /// The literals, sorted.
    literals: Vec<Box<[u8]>>,
    /// Each literal's first [`MIN_LEN`] bytes as a number that sorts as
    /// they do: the literals a position may start are found by comparing
    /// numbers, not slices.
    firsts: Vec<u32>,
}

impl Fingerprints {
    /// The fingerprints of `literals`, or none when one is shorter than
    /// [`MIN_LEN`] or there are too many (the walk goes on alone).
    pub(super) fn new<'a>(literals: impl IntoIterator<Item = &'a [u8]>) -> Option<Fingerprints> {
        let mut literals: Vec<Box<[u8]>> = literals.into_iter().map(Box::from).collect();
        if literals.is_empty()
            || literals.len() > MAX_LITERALS
            || literals.iter().any(|l| l.len() < MIN_LEN)
        {
            return None;
        }
        crate::order::sort_by(&mut literals, |a, b| a.cmp(b));
        literals.dedup();
        let (mut low, mut high) = ([[0u8; 16]; TABLES], [[0u8; 16]; TABLES]);
        let mut heads = Heads::default();
        for (literal, bucket) in literals.iter().zip(buckets(&literals)) {
            let bit = 1 << bucket;
            for k in 0..TABLES {
                match literal.get(k) {
                    Some(&byte) => {
                        low[k][usize::from(byte & 0xf)] |= bit;
                        high[k][usize::from(byte >> 4)] |= bit;
                    }
                    // Past a short literal's end, any byte.
                    None => {
                        low[k].iter_mut().for_each(|b| *b |= bit);
                        high[k].iter_mut().for_each(|b| *b |= bit);
                    }
                }
            }
            heads.insert(literal);
        }
        Some(Fingerprints {
            tables: lanes::Tables::new(&low, &high),
            heads,
            firsts: literals.iter().map(|l| first_bytes(l)).collect(),
            literals,
        })
    }

    /// Where the first literal that lies whole in `b[from..to]` starts.
    pub(super) fn find(&self, b: &[u8], from: usize, to: usize) -> Option<usize> {
        let hay = &b[..to];
        let mut at = from;
        // Two blocks a step, their survivors in one loop: a 4 MiB cap of
        // Python in the component, 5% faster than a block a step.
        while at + STEP + BLOCK <= to {
            let maybe = lanes::survivors(&self.tables, &hay[at..at + BLOCK])
                | lanes::survivors(&self.tables, &hay[at + STEP..at + STEP + BLOCK]) << STEP;
            if let Some(p) = self.first_survivor(hay, at, maybe) {
                return Some(p);
            }
            at += 2 * STEP;
        }
        if at + BLOCK <= to {
            let maybe = lanes::survivors(&self.tables, &hay[at..at + BLOCK]);
            if let Some(p) = self.first_survivor(hay, at, maybe) {
                return Some(p);
            }
            at += STEP;
        }
        (at..to).find(|&p| self.starts_at(hay, p))
    }

    /// The first position `at + k`, for each bit `k` of `maybe`, where a
    /// literal of `hay` starts.
    #[inline(always)]
    fn first_survivor(&self, hay: &[u8], at: usize, mut maybe: u32) -> Option<usize> {
        while maybe != 0 {
            let p = at + maybe.trailing_zeros() as usize;
            if self.heads.may_start(&hay[p..]) && self.literal_at(&hay[p..]) {
                return Some(p);
            }
            maybe &= maybe - 1;
        }
        None
    }

    /// Whether a literal starts at `p` of `hay` and ends in it.
    fn starts_at(&self, hay: &[u8], p: usize) -> bool {
        let rest = &hay[p..];
        rest.len() >= MIN_LEN && self.heads.may_start(rest) && self.literal_at(rest)
    }

    /// Whether a literal starts `rest`.
    fn literal_at(&self, rest: &[u8]) -> bool {
        let key = first_bytes(rest);
        let first = self.firsts.partition_point(|&f| f < key);
        self.firsts[first..]
            .iter()
            .zip(&self.literals[first..])
            .take_while(|(f, _)| **f == key)
            .any(|(_, l)| rest.starts_with(l))
    }
}

/// The first [`MIN_LEN`] bytes of `bytes` (at least that long), big-endian
/// in a number: numbers of two slices compare as the bytes do.
fn first_bytes(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], 0])
}

/// How often each byte value occurs in text, roughly and in relative
/// units: English letters by their frequency (lower case more than upper),
/// spaces, digits and the punctuation of code and logs. What a bucket's
/// tables let through is weighed with it ([`Nibbles::cost`]).
const BYTE_WEIGHTS: [u8; 256] = {
    // a..z, per 1,000 letters of English.
    const LETTERS: [u8; 26] = [
        82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24,
        2, 20, 1,
    ];
    let mut w = [1u8; 256];
    let mut i = 0;
    while i < 26 {
        w[b'a' as usize + i] = LETTERS[i];
        w[b'A' as usize + i] = LETTERS[i] / 6 + 1;
        i += 1;
    }
    let mut d = b'0';
    while d <= b'9' {
        w[d as usize] = 25;
        d += 1;
    }
    w[b' ' as usize] = 250;
    w[b'\n' as usize] = 40;
    let punctuation = b".,:;()[]{}\"'=-_/<>";
    let mut p = 0;
    while p < punctuation.len() {
        w[punctuation[p] as usize] = 20;
        p += 1;
    }
    w
};

/// A bucket for each of `literals` (sorted). Those shorter than
/// [`TABLES`] have the first bucket to themselves, since their bucket
/// passes any fourth byte. The others go, one by one, to the bucket they
/// add least to what its tables let through ([`Nibbles::cost`]). With the
/// built-in searches, fewer positions pass the tables than when literals
/// sharing their first bytes' low nibbles shared a bucket: 81,000 of a 4
/// MB log of `INFO` lines instead of 355,000, 94,000 of 2 MB of Django's
/// Python instead of 218,000, 190,000 of 4 MB of TypeScript's compiler
/// instead of 441,000.
fn buckets(literals: &[Box<[u8]>]) -> Vec<usize> {
    let short = |l: &[u8]| l.len() < TABLES;
    let first = usize::from(literals.iter().any(|l| short(l)));
    let mut nibbles = [Nibbles::default(); BUCKETS];
    let mut costs = [0u64; BUCKETS];
    literals
        .iter()
        .map(|l| {
            if short(l) {
                return 0;
            }
            let (bucket, with, cost) = (first..BUCKETS)
                .map(|b| {
                    let with = nibbles[b].with(l);
                    (b, with, with.cost())
                })
                .min_by_key(|&(b, _, cost)| (cost - costs[b], b))
                .expect("buckets");
            (nibbles[bucket], costs[bucket]) = (with, cost);
            bucket
        })
        .collect()
}

/// The low and high nibbles a bucket's literals have at each offset.
#[derive(Debug, Clone, Copy, Default)]
struct Nibbles {
    low: [u16; TABLES],
    high: [u16; TABLES],
}

impl Nibbles {
    /// These nibbles and those of the first [`TABLES`] bytes of `literal`.
    fn with(mut self, literal: &[u8]) -> Nibbles {
        for (k, &byte) in literal[..TABLES].iter().enumerate() {
            self.low[k] |= 1 << (byte & 0xf);
            self.high[k] |= 1 << (byte >> 4);
        }
        self
    }

    /// About how many positions of text the tables let through: per
    /// offset, the weight of the bytes whose nibbles both are these, the
    /// offsets' weights multiplied (each under 2,300, so the product
    /// fits). Grows with every nibble added.
    fn cost(&self) -> u64 {
        let mut cost = 1u64;
        for k in 0..TABLES {
            let mut weight = 0u64;
            let mut highs = self.high[k];
            while highs != 0 {
                let high = highs.trailing_zeros() as usize;
                highs &= highs - 1;
                let mut lows = self.low[k];
                while lows != 0 {
                    let low = lows.trailing_zeros() as usize;
                    lows &= lows - 1;
                    weight += u64::from(BYTE_WEIGHTS[high << 4 | low]);
                }
            }
            cost *= weight;
        }
        cost
    }
}

/// Bytes of a head where the literal has them: four. In source code,
/// prose and JSON, the first three bytes of the built-in searches (`ter` of
/// `terminate called`, `and` of `and not used`, `not`) start about 10,000
/// places a MiB, their first four (`term`, `and `, `not `) about 3,000, and
/// each place a head passes costs a search of the literals.
const HEAD_BYTES: usize = 4;

/// The heads of the literals, a bit each (hashed, 4096 bits a table): the
/// first [`MIN_LEN`] bytes of every literal, which most positions fail as
/// they did before there was more; then those of the literals shorter than
/// [`HEAD_BYTES`], and the first [`HEAD_BYTES`] of the others.
#[derive(Debug, Clone, Default)]
struct Heads {
    all: Bits,
    short: Bits,
    long: Bits,
}

#[derive(Debug, Clone)]
struct Bits([u64; 64]);

impl Default for Bits {
    fn default() -> Bits {
        Bits([0; 64])
    }
}

impl Bits {
    fn set(&mut self, slot: usize) {
        self.0[slot / 64] |= 1 << (slot % 64);
    }

    fn has(&self, slot: usize) -> bool {
        self.0[slot / 64] & (1 << (slot % 64)) != 0
    }
}

impl Heads {
    fn insert(&mut self, literal: &[u8]) {
        self.all.set(slot(&literal[..MIN_LEN]));
        match literal.get(..HEAD_BYTES) {
            Some(head) => self.long.set(slot(head)),
            None => self.short.set(slot(&literal[..MIN_LEN])),
        }
    }

    /// Whether a literal may start `rest` (at least [`MIN_LEN`] bytes):
    /// the check of most positions that survive the tables, made in the
    /// loop.
    #[inline]
    fn may_start(&self, rest: &[u8]) -> bool {
        let three = slot(&rest[..MIN_LEN]);
        if !self.all.has(three) {
            return false;
        }
        self.short.has(three)
            || rest
                .get(..HEAD_BYTES)
                .is_some_and(|head| self.long.has(slot(head)))
    }
}

/// The bit of `head` (three or four bytes) in a table of [`Heads`].
fn slot(head: &[u8]) -> usize {
    let mut word = [0u8; 4];
    word[..head.len()].copy_from_slice(head);
    (u32::from_le_bytes(word).wrapping_mul(0x9E37_79B1) >> 20) as usize
}

/// In the component, wasm SIMD: a swizzle looks a nibble up in sixteen
/// lanes at once.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use core::arch::wasm32::{
        i8x16_shuffle, i8x16_swizzle, u8x16_bitmask, u8x16_eq, u8x16_shr, u8x16_splat, u64x2, v128,
        v128_and,
    };

    use super::{BLOCK, TABLES};

    /// The nibble tables as vectors.
    #[derive(Debug, Clone)]
    pub(super) struct Tables {
        low: [v128; TABLES],
        high: [v128; TABLES],
    }

    impl Tables {
        pub(super) fn new(low: &[[u8; 16]; TABLES], high: &[[u8; 16]; TABLES]) -> Tables {
            Tables {
                low: low.map(|t| load(&t)),
                high: high.map(|t| load(&t)),
            }
        }
    }

    /// Two 64-bit loads: the one safe form that compiles to loads of
    /// words, not sixteen of bytes.
    fn load(s: &[u8]) -> v128 {
        let word = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("a word"));
        u64x2(word(0), word(8))
    }

    /// A bit per position of `block`'s first sixteen where a literal may
    /// start. The bytes at each offset are shuffled out of the block's two
    /// vectors, not loaded again (a 4 MiB cap of Python in the component,
    /// 1% faster).
    pub(super) fn survivors(tables: &Tables, block: &[u8]) -> u32 {
        debug_assert_eq!(block.len(), BLOCK);
        let nibble = u8x16_splat(0xf);
        let mut all = u8x16_splat(0xff);
        let (a, b) = (load(&block[..16]), load(&block[16..32]));
        let offsets = [
            a,
            i8x16_shuffle::<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>(a, b),
            i8x16_shuffle::<2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17>(a, b),
            i8x16_shuffle::<3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18>(a, b),
        ];
        for (k, bytes) in offsets.into_iter().enumerate() {
            let low = i8x16_swizzle(tables.low[k], v128_and(bytes, nibble));
            let high = i8x16_swizzle(tables.high[k], u8x16_shr(bytes, 4));
            all = v128_and(all, v128_and(low, high));
        }
        !u32::from(u8x16_bitmask(u8x16_eq(all, u8x16_splat(0)))) & 0xffff
    }
}

/// Elsewhere (where this runs in tests only: natively the automaton has a
/// SIMD prefilter of its own), the same lookups a lane at a time.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    use super::{BLOCK, STEP, TABLES};

    #[derive(Debug, Clone)]
    pub(super) struct Tables {
        low: [[u8; 16]; TABLES],
        high: [[u8; 16]; TABLES],
    }

    impl Tables {
        pub(super) fn new(low: &[[u8; 16]; TABLES], high: &[[u8; 16]; TABLES]) -> Tables {
            Tables {
                low: *low,
                high: *high,
            }
        }
    }

    pub(super) fn survivors(tables: &Tables, block: &[u8]) -> u32 {
        debug_assert_eq!(block.len(), BLOCK);
        (0..STEP).fold(0, |mask, lane| {
            let all = (0..TABLES).fold(0xff, |all, k| {
                let byte = block[lane + k];
                all & tables.low[k][usize::from(byte & 0xf)]
                    & tables.high[k][usize::from(byte >> 4)]
            });
            mask | u32::from(all != 0) << lane
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const LITERALS: &[&str] = &[
        "rror", "ERR", "FAIL", "ail", "crit", "E   ", "exit", "Kill", "\u{2716}", "\" 5",
    ];

    fn fingerprints() -> Fingerprints {
        Fingerprints::new(LITERALS.iter().map(|l| l.as_bytes())).unwrap()
    }

    /// The first start of a literal whole in `b[from..to]`, byte by byte.
    fn naive(b: &[u8], from: usize, to: usize) -> Option<usize> {
        (from..to).find(|&p| LITERALS.iter().any(|l| b[p..to].starts_with(l.as_bytes())))
    }

    /// A position that starts like a literal of four bytes or more but
    /// goes on otherwise fails the heads, not the literals' search; one
    /// that starts like a three-byte literal passes.
    #[test]
    fn four_bytes_of_a_long_literal_are_checked_three_of_a_short_one() {
        let heads = &fingerprints().heads;
        for literal in LITERALS {
            assert!(heads.may_start(literal.as_bytes()), "{literal}");
        }
        assert!(!heads.may_start(b"rroW"), "rror's first three only");
        assert!(!heads.may_start(b"FAIr"), "FAIL's first three only");
        assert!(heads.may_start(b"ERRx"), "ERR is three bytes long");
        assert!(heads.may_start(b"ERR"));
    }

    /// A literal of three bytes passes the fourth table whatever follows
    /// it, at every place in a block.
    #[test]
    fn a_short_literal_is_found_before_any_byte() {
        let f = fingerprints();
        for short in LITERALS.iter().filter(|l| l.len() < TABLES) {
            for next in 0..=u8::MAX {
                for at in [0, 5, STEP - 1, STEP] {
                    let mut text = vec![b'z'; at];
                    text.extend_from_slice(short.as_bytes());
                    text.push(next);
                    text.extend_from_slice(&[b'z'; BLOCK]);
                    assert_eq!(f.find(&text, 0, text.len()), Some(at), "{short} {next}");
                }
            }
        }
    }

    #[test]
    fn literals_too_short_or_too_many_are_refused() {
        assert!(Fingerprints::new(["ab".as_bytes()]).is_none());
        assert!(Fingerprints::new(std::iter::empty()).is_none());
        let many: Vec<String> = (0..=MAX_LITERALS).map(|i| format!("w{i:03}")).collect();
        assert!(Fingerprints::new(many.iter().map(|l| l.as_bytes())).is_none());
        assert!(Fingerprints::new(many[1..].iter().map(|l| l.as_bytes())).is_some());
    }

    #[test]
    fn every_literal_is_found_at_every_offset_of_a_block() {
        let f = fingerprints();
        for literal in LITERALS {
            for at in 0..40 {
                let text = format!("{}{literal}{}", "z".repeat(at), "z".repeat(40));
                assert_eq!(
                    f.find(text.as_bytes(), 0, text.len()),
                    Some(at),
                    "{literal} at {at}"
                );
                // Cut by the end: not whole, not found.
                let end = at + literal.len() - 1;
                assert_eq!(
                    f.find(text.as_bytes(), 0, end),
                    None,
                    "{literal} cut at {end}"
                );
            }
        }
    }

    /// Pieces of the literals, near misses (`rro`, `FAI`, `ERr`), bytes
    /// that share a literal byte's low or high nibble, and multi-byte chars.
    fn text() -> impl Strategy<Value = String> {
        let pieces = [
            "error", "rror", "rro", "ERR", "ERr", "FAIL", "FAI", "ail", "ai", "crit", "cri",
            "E   ", "E  ", "exit", "Kill", "Ki", "\u{2716}", "\u{2715}", "\" 5", "\" 4", "é", "中",
            "z", "b", "R", " ", "\n", "\r\n", "2", "%",
        ];
        prop::collection::vec(prop::sample::select(pieces.to_vec()), 0..300)
            .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// The first literal from any position to any end, as the
        /// byte-by-byte search finds it.
        #[test]
        fn finds_the_first_literal_as_a_naive_search(text in text(), from in 0usize..600, len in 0usize..600) {
            let b = text.as_bytes();
            let from = from.min(b.len());
            let to = (from + len).min(b.len());
            prop_assert_eq!(fingerprints().find(b, from, to), naive(b, from, to));
        }
    }
}
