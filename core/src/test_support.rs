//! What the workspace's tests, fuzz smoke runs and generated bench corpora
//! share (feature `test-support`): not part of the API.

/// SplitMix64 (Steele, Lea and Flood): the one seeded generator of the
/// workspace's tests and corpora. Tiny, fast, and the same sequence on
/// every machine, so a failure reproduces from its seed alone.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index below `n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo)
    }

    /// A fraction in `lo..hi`.
    pub fn frac(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + unit * (hi - lo)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.frac(0.0, 1.0) < p
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// Between 0 and `max_len` random bytes; short inputs are as likely as
    /// long ones, as in a young fuzz corpus.
    pub fn bytes(&mut self, max_len: usize) -> Vec<u8> {
        let len = self.index(max_len + 1);
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// `text` in pieces of the lengths `sizes`, in turn, each moved on to the
/// end of a character: how the tests feed a text to what takes it in
/// pieces.
pub fn pieces<'a>(text: &'a str, sizes: &[usize]) -> Vec<&'a str> {
    assert!(
        !sizes.is_empty() && !sizes.contains(&0),
        "pieces of no bytes"
    );
    let mut out = Vec::new();
    let mut at = 0;
    for size in sizes.iter().cycle() {
        if at >= text.len() {
            break;
        }
        let end = text.ceil_char_boundary(at + size);
        out.push(&text[at..end]);
        at = end;
    }
    out
}

/// A line shown with a window in place, `start [... M bytes cut] window
/// [... K bytes cut]`, read back: its start, where the window starts in the
/// line (`start` and `M` bytes), the window, and `K`. `None` for any other
/// line.
pub fn window_in_place(line: &str) -> Option<(&str, usize, &str, usize)> {
    let (start, rest) = line.split_once(" [... ")?;
    let (m, rest) = rest.split_once(" bytes cut] ")?;
    let (window, k) = rest.rsplit_once(" [... ")?;
    let k = k.strip_suffix(" bytes cut]")?.parse().ok()?;
    Some((start, start.len() + m.parse::<usize>().ok()?, window, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_splitmix64() {
        // The first outputs of SplitMix64 seeded with 0, as published with
        // the algorithm (and used by Java's SplittableRandom).
        let mut rng = SplitMix::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut a = SplitMix::new(7);
        let mut b = SplitMix::new(7);
        assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
    }

    #[test]
    fn bounded_draws_stay_in_bounds() {
        let mut rng = SplitMix::new(42);
        for _ in 0..10_000 {
            assert!(rng.below(7) < 7);
            assert!((3..9).contains(&rng.range(3, 9)));
            let f = rng.frac(0.25, 0.5);
            assert!((0.25..0.5).contains(&f));
            assert!(rng.bytes(16).len() <= 16);
        }
    }
}
