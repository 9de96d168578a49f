//! The scan as it was before it was made faster (commit ef079e8), frozen:
//! the tests check that the scan of `tokens.rs` gives exactly its numbers
//! on every text. Change it only with a deliberate change of the rates
//! (0.3: `foreign_per_line`, and vowel-less abbreviations).

use super::{CHAR_COST_RANGES, CHAR_COSTS, MAX_SPAN, RATES, SCRIPTS, Script, abbreviations};

/// Thousandths of heuristic tokens of `text`, margin aside.
pub(super) fn milli(text: &[u8]) -> u64 {
    let mut scan = Scan {
        b: &[],
        milli: 0,
        foreign_words: 0,
        english_milli: 0,
        line_words: 0,
        line_foreign: false,
    };
    scan.run(text);
    scan.milli
}

// Byte classes: the low three bits say what a byte starts; `VOWEL` marks
// the vowels among letters (y included: `sync`, `type` are words).
const LOWER: u8 = 0;
const UPPER: u8 = 1;
const DIGIT: u8 = 2;
const SPACE: u8 = 3;
const NEWLINE: u8 = 4;
const PUNCT: u8 = 5;
const HIGH: u8 = 6;
const KIND: u8 = 7;
const VOWEL: u8 = 8;

static CLASS: [u8; 256] = {
    let mut t = [HIGH; 256];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = match b {
            b'a' | b'e' | b'i' | b'o' | b'u' | b'y' => LOWER | VOWEL,
            b'A' | b'E' | b'I' | b'O' | b'U' | b'Y' => UPPER | VOWEL,
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b'\n' | b'\r' => NEWLINE,
            b' ' | b'\t' | 0x0b | 0x0c => SPACE,
            _ => PUNCT,
        };
        i += 1;
    }
    t
};

/// Extra cost (thousandths) of an ASCII symbol that starts a word piece
/// (`.clone`, `-name`, `"key`), from how often o200k merges it with the
/// word: `_ . (` almost always, `@ " { |` almost never.
static PREFIX: [u16; 128] = {
    let mut t = [1000u16; 128];
    let tiers: [(&[u8], u16); 3] = [(b"_.(", 0), (b",=<&\\)'#\t", 300), (b"-!:[/;", 600)];
    let mut k = 0;
    while k < tiers.len() {
        let (chars, cost) = tiers[k];
        let mut i = 0;
        while i < chars.len() {
            t[chars[i] as usize] = cost;
            i += 1;
        }
        k += 1;
    }
    t
};

/// What a non-ASCII character is to the pre-tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wide {
    /// A letter of an alphabet whose words [`SCRIPTS`] prices, and its
    /// surcharge.
    Alpha(Script, u64),
    /// Another letter, at its own cost.
    Letter(u64),
    /// A symbol or mark: punctuation to the pre-tokenizer.
    Symbol(u64),
    /// Whitespace.
    Space,
}

/// What the text holds at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Letter,
    Digit,
    Space,
    Newline,
    Punct,
    End,
}

/// What precedes a word piece inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefix {
    None,
    Space,
    /// A symbol: its extra cost once the word has two letters, and the
    /// cost of a non-ASCII symbol itself.
    Punct {
        extra: u64,
        symbol: u64,
    },
}

/// The code point at `b[i]` (a UTF-8 lead byte) and its length.
#[inline]
fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let lead = u32::from(b[i]);
    let cont = |k: usize| u32::from(b.get(i + k).copied().unwrap_or(0x80) & 0x3f);
    if lead < 0xe0 {
        (((lead & 0x1f) << 6) | cont(1), 2)
    } else if lead < 0xf0 {
        (((lead & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// One pass over a text, summing thousandths of tokens. Each step takes the
/// position of a piece and returns where the next one starts.
struct Scan<'a> {
    b: &'a [u8],
    milli: u64,
    /// ASCII words still to charge as foreign after a Latin Extended word
    /// ([`Rates::foreign_word`]).
    foreign_words: u64,
    /// What the ASCII words of the line so far, priced as English, would
    /// pay as foreign: a Latin Extended word later in the line charges it.
    english_milli: u64,
    /// ASCII words charged as foreign in this line, and whether it has a
    /// Latin Extended word ([`Rates::foreign_per_line`]).
    line_words: u64,
    line_foreign: bool,
}

/// How a word piece starts.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// After a space, which it holds.
    spaced: bool,
    /// After a symbol, which it holds.
    punct: bool,
}

/// A word piece so far.
#[derive(Debug, Clone, Copy)]
struct Word {
    /// ASCII capitals and lowercase letters.
    upper: u64,
    lower: u64,
    /// Vowels among the letters, and among the lowercase ones.
    vowels: u64,
    lower_vowels: u64,
    /// Letters priced by the alphabet rates.
    alpha: u64,
    /// Their script (the last in [`Script`]'s order, if mixed).
    script: Script,
    /// Whether it holds a CJK character or kana (priced by the character).
    han: bool,
    /// Whether it holds a Latin Extended letter, whatever script follows:
    /// the words around it pay as foreign ([`Rates::foreign_word`]).
    latin_ext: bool,
    /// Costs of the other non-ASCII letters and surcharges.
    wide: u64,
    /// The most the piece cost at any shorter length: appending a letter
    /// never makes a piece cheaper than it was.
    peak: u64,
}

impl Default for Word {
    fn default() -> Self {
        Word {
            upper: 0,
            lower: 0,
            vowels: 0,
            lower_vowels: 0,
            alpha: 0,
            script: Script::Ascii,
            han: false,
            latin_ext: false,
            wide: 0,
            peak: 0,
        }
    }
}

impl Word {
    fn letters(&self) -> u64 {
        self.upper + self.lower
    }

    /// Only ASCII letters so far.
    fn is_ascii(&self) -> bool {
        self.alpha == 0 && self.wide == 0 && !self.han
    }
}

impl<'a> Scan<'a> {
    fn run(&mut self, full: &'a [u8]) {
        let mut i = 0;
        while i < full.len() {
            i = self.step_in(full, i);
        }
    }

    /// One step at `i` of `full`, seeing at most [`MAX_SPAN`] bytes from
    /// `i` (cut back to a character's start); returns where the next starts.
    /// Inlined: a step is a few bytes, and the call cost a tenth of the scan.
    #[inline(always)]
    fn step_in(&mut self, full: &'a [u8], i: usize) -> usize {
        let mut end = (i + MAX_SPAN).min(full.len());
        while end < full.len() && end > i + 1 && full[end] & 0xc0 == 0x80 {
            end -= 1;
        }
        self.b = &full[..end];
        self.step(i)
    }

    fn step(&mut self, mut i: usize) -> usize {
        let b = self.b;
        let byte = b[i];
        {
            match CLASS[usize::from(byte)] & KIND {
                LOWER | UPPER => self.word(i, Prefix::None),
                DIGIT => {
                    let start = i;
                    while b.get(i).is_some_and(|&d| d.is_ascii_digit()) {
                        i += 1;
                    }
                    self.milli += (i - start).div_ceil(3) as u64 * RATES.digits;
                    i
                }
                SPACE
                    if byte == b' '
                        && b.get(i + 1)
                            .is_some_and(|&x| CLASS[usize::from(x)] & KIND <= UPPER) =>
                {
                    self.word(i + 1, Prefix::Space)
                }
                SPACE => self.spaces(i),
                NEWLINE => self.newlines(i),
                PUNCT => match b.get(i + 1).map(|&x| CLASS[usize::from(x)] & KIND) {
                    Some(LOWER | UPPER) => {
                        let extra = u64::from(PREFIX[usize::from(byte)]);
                        self.word(i + 1, Prefix::Punct { extra, symbol: 0 })
                    }
                    Some(DIGIT | SPACE) | None => {
                        self.milli += RATES.punct;
                        i + 1
                    }
                    _ => self.punct_or_prefix(i),
                },
                _ => match wide(decode(b, i).0) {
                    Wide::Alpha(..) | Wide::Letter(_) => self.word(i, Prefix::None),
                    Wide::Symbol(_) => self.punct_or_prefix(i),
                    Wide::Space => self.spaces(i),
                },
            }
        }
    }

    /// What starts at `i`.
    #[inline(always)]
    fn next(&self, i: usize) -> Next {
        let Some(&byte) = self.b.get(i) else {
            return Next::End;
        };
        match CLASS[usize::from(byte)] & KIND {
            LOWER | UPPER => Next::Letter,
            DIGIT => Next::Digit,
            SPACE => Next::Space,
            NEWLINE => Next::Newline,
            PUNCT => Next::Punct,
            _ => match wide(decode(self.b, i).0) {
                Wide::Alpha(..) | Wide::Letter(_) => Next::Letter,
                Wide::Symbol(_) => Next::Punct,
                Wide::Space => Next::Space,
            },
        }
    }

    /// One word piece: capitals, then lowercase letters (o200k starts a new
    /// piece at a capital after lowercase: `camel|Case`), non-ASCII letters
    /// anywhere.
    fn word(&mut self, mut i: usize, prefix: Prefix) -> usize {
        let b = self.b;
        let first_upper = CLASS[usize::from(b[i])] & KIND == UPPER;
        if let Some(end) = plain_word(b, i) {
            // The prefix is charged as below.
            let mut c = RATES.word;
            if let Prefix::Punct { extra, symbol } = prefix {
                if end - i >= 2 {
                    c += extra;
                    if first_upper {
                        c += RATES.cap_after_punct;
                    }
                }
                c += symbol;
            }
            c += self.ascii_word((end - i) as u64);
            self.milli += c;
            return end;
        }
        let shape = Shape {
            spaced: prefix == Prefix::Space,
            punct: matches!(prefix, Prefix::Punct { .. }),
        };
        let begin = i;
        let mut w = Word::default();
        // Capitals of the first ASCII run: a capital after a non-ASCII
        // letter (`AơA`) must not undo a title case's charge below.
        let mut leading_upper = None;
        loop {
            i = upper_run(b, i, &mut w, shape);
            i = lower_run(b, i, &mut w, shape);
            leading_upper.get_or_insert(w.upper);
            // Only a non-ASCII letter continues the piece; a capital after
            // lowercase starts the next one.
            let start = i;
            while b.get(i).is_some_and(|&x| x >= 0x80) {
                let (cp, len) = decode(b, i);
                let kind = wide(cp);
                if w.is_ascii() && matches!(kind, Wide::Alpha(..) | Wide::Letter(_)) {
                    // What the piece cost as an ASCII word, charge included.
                    w.peak = w.peak.max(cost(&w, shape)) + self.foreign(&w);
                }
                match kind {
                    Wide::Alpha(script, surcharge) => {
                        if w.alpha == 0 || script > w.script {
                            // A cheaper script's rates must not lower
                            // what the piece already cost.
                            w.peak = w.peak.max(cost(&w, shape) + self.foreign(&w));
                            w.script = w.script.max(script);
                        }
                        w.alpha += 1;
                        w.wide += surcharge;
                        w.latin_ext |= script == Script::LatinExt;
                    }
                    Wide::Letter(c) => {
                        w.wide += c;
                        w.han |= cp >= 0x3040;
                    }
                    Wide::Symbol(_) | Wide::Space => break,
                }
                i += len;
            }
            // Capitals may follow non-ASCII letters; anything else ends the
            // piece.
            if i == start || b.get(i).is_none_or(|&x| x >= 0x80) {
                break;
            }
        }
        // The peak of an ASCII piece left out its foreign charge, which the
        // whole piece pays once.
        let mut c = cost(&w, shape);
        if w.is_ascii() && w.vowels == 0 && w.letters() >= 5 && (w.upper == 0 || w.lower == 0) {
            // A vowel-less word of abbreviations (`msgstr`).
            if let Some(tokens) = abbreviations::tokens(&b[begin..i]) {
                let mut abbreviated = tokens.max(1) * RATES.word;
                if w.lower == 0 {
                    let per = if shape.punct {
                        RATES.upper_per_after_punct
                    } else {
                        RATES.upper_per
                    };
                    abbreviated += w.upper.saturating_sub(RATES.upper_free) * per;
                }
                c = c.min(abbreviated);
            }
        }
        c = c.max(w.peak);
        if w.is_ascii() {
            c += self.ascii_word(w.letters());
        }
        if w.latin_ext {
            self.milli += self.english_milli;
            self.english_milli = 0;
            self.foreign_words = RATES.foreign_reach;
            self.line_foreign = true;
        }
        if w.han && prefix == Prefix::Space {
            // ` 中`: few ideographs merge with the space before them.
            c += RATES.han_spaced;
        }
        if let Prefix::Punct { extra, symbol } = prefix {
            // One letter after a symbol is a common pair; an ideograph,
            // kana or other non-ASCII letter after an ASCII symbol (`"中`,
            // `\t中`, `:금`, `_ذهبية`) almost never.
            // Never less than the ASCII start of the piece paid for it.
            let mut paid = 0;
            if w.letters() + w.alpha >= 2 {
                paid = extra;
                if first_upper && leading_upper == Some(1) {
                    paid += RATES.cap_after_punct;
                }
            }
            if (w.han || w.alpha > 0) && symbol == 0 {
                paid = paid.max(extra.max(RATES.punct));
            }
            c += paid + symbol;
        }
        self.milli += c;
        i
    }

    /// A line ends: its English words stay English.
    fn line_break(&mut self) {
        self.english_milli = 0;
        self.line_words = 0;
        self.line_foreign = false;
    }

    /// Whether the next ASCII word pays as foreign: after a Latin Extended
    /// word, and in a line without one only for its first few words.
    fn charges(&self) -> bool {
        self.foreign_words > 0 && (self.line_foreign || self.line_words < RATES.foreign_per_line)
    }

    /// What an ASCII word of `letters` letters pays beyond its English
    /// price ([`Rates::foreign_word`]): now, near a Latin Extended word
    /// before it, or later, if one follows in its line.
    fn ascii_word(&mut self, letters: u64) -> u64 {
        if letters < RATES.foreign_letters {
            return 0;
        }
        if self.charges() {
            self.foreign_words -= 1;
            self.line_words += 1;
            return RATES.foreign_word;
        }
        self.english_milli += RATES.foreign_word;
        0
    }

    /// [`Scan::ascii_word`]'s charge of the piece `w`, without counting it:
    /// what a piece that goes on in another script has cost so far.
    fn foreign(&self, w: &Word) -> u64 {
        if self.charges() && w.is_ascii() && w.letters() >= RATES.foreign_letters {
            RATES.foreign_word
        } else {
            0
        }
    }

    /// Spaces and tabs: the last one joins the word or punctuation after
    /// them; before a line break they join it.
    fn spaces(&mut self, start: usize) -> usize {
        let (b, r) = (self.b, &RATES);
        let (mut i, mut n) = (start, 0u64);
        while let Some(&byte) = b.get(i) {
            if CLASS[usize::from(byte)] & KIND == SPACE {
                i += 1;
            } else if byte >= 0x80 && wide(decode(b, i).0) == Wide::Space {
                i += decode(b, i).1;
            } else {
                break;
            }
            n += 1;
        }
        let run = (n - 1).div_ceil(r.spaces_per_token) * r.space_run;
        match self.next(i) {
            Next::Newline => self.newlines(start),
            Next::Letter => {
                self.milli += run;
                // A tab does not join the word as a space does.
                let prefix = if b[i - 1] == b'\t' {
                    Prefix::Punct {
                        extra: u64::from(PREFIX[usize::from(b'\t')]),
                        symbol: 0,
                    }
                } else {
                    Prefix::Space
                };
                self.word(i, prefix)
            }
            Next::Punct => {
                self.milli += run;
                self.punct(i)
            }
            Next::End => {
                // One trailing piece; after a line break it would join the
                // next break, as a blank line.
                let after_break = start > 0 && CLASS[usize::from(b[start - 1])] == NEWLINE;
                let first = if after_break {
                    r.blank_line
                } else {
                    r.space_run
                };
                self.milli += first + (n - 1) / r.spaces_per_token * r.space_run;
                i
            }
            Next::Digit | Next::Space => {
                self.milli += run + r.space_alone;
                i
            }
        }
    }

    /// Whitespace up to its last line break, one piece.
    fn newlines(&mut self, mut i: usize) -> usize {
        let r = &RATES;
        let (mut end, mut groups, mut spaces, mut long) = (i, 0u64, 0u64, 0u64);
        while let Some(&byte) = self.b.get(i) {
            match CLASS[usize::from(byte)] & KIND {
                NEWLINE => {
                    groups += u64::from(spaces > 0 || groups == 0);
                    long += spaces / r.spaces_per_token;
                    spaces = 0;
                    end = i + 1;
                }
                SPACE => spaces += 1,
                HIGH if wide(decode(self.b, i).0) == Wide::Space => {
                    spaces += 1;
                    i += decode(self.b, i).1;
                    continue;
                }
                _ => break,
            }
            i += 1;
        }
        self.milli += r.newline + groups.saturating_sub(1) * r.blank_line + long * r.space_run;
        self.line_break();
        end
    }

    /// A punctuation run, or one symbol that starts a word (`.clone`).
    fn punct_or_prefix(&mut self, i: usize) -> usize {
        let byte = self.b[i];
        let (prefix, len) = if byte < 0x80 {
            let extra = u64::from(PREFIX[usize::from(byte)]);
            (Prefix::Punct { extra, symbol: 0 }, 1)
        } else {
            let (cp, len) = decode(self.b, i);
            let symbol = match wide(cp) {
                Wide::Symbol(c) => c,
                _ => 0,
            };
            (Prefix::Punct { extra: 0, symbol }, len)
        };
        if self.next(i + len) == Next::Letter {
            self.word(i + len, prefix)
        } else {
            self.punct(i)
        }
    }

    /// A run of punctuation and symbols, with the line breaks right after.
    fn punct(&mut self, mut i: usize) -> usize {
        let (b, r) = (self.b, &RATES);
        let (mut ascii, mut changes, mut repeats, mut symbols) = (0u64, 0u64, 0u64, 0u64);
        let (mut prev, mut prev_cp) = (0u8, 0u32);
        while let Some(&byte) = b.get(i) {
            match CLASS[usize::from(byte)] & KIND {
                PUNCT => {
                    if ascii > 0 {
                        repeats += u64::from(byte == prev);
                        changes += u64::from(byte != prev);
                    }
                    ascii += 1;
                    prev = byte;
                    i += 1;
                }
                HIGH => {
                    let (cp, len) = decode(b, i);
                    let Wide::Symbol(c) = wide(cp) else {
                        break;
                    };
                    // ASCII after an emoji or symbol does not merge with
                    // the ASCII before it (`"🥇": "`): a run of its own.
                    if ascii > 0 {
                        symbols += r.punct
                            + changes.saturating_sub(1) * r.punct_change
                            + repeats * r.punct_repeat;
                        (ascii, changes, repeats) = (0, 0, 0);
                    }
                    // A rule of box drawing or blocks merges; emoji do not.
                    let rule = cp == prev_cp && (0x2000..0x2600).contains(&cp);
                    symbols += if rule { r.symbol_repeat } else { c };
                    prev_cp = cp;
                    i += len;
                }
                _ => break,
            }
        }
        let breaks = i;
        while b.get(i).is_some_and(|&x| CLASS[usize::from(x)] == NEWLINE) {
            i += 1;
        }
        if i > breaks {
            self.line_break();
        }
        if ascii > 0 {
            symbols +=
                r.punct + changes.saturating_sub(1) * r.punct_change + repeats * r.punct_repeat;
        }
        self.milli += symbols;
        i
    }
}

/// The end of the commonest word piece at `start`, if it is one: ASCII,
/// at most one capital then lowercase letters, at most `word_free` of them,
/// and not random-looking, then ASCII or the end. [`Scan::word`] prices
/// such a piece at exactly one word; finding that out here, without its
/// general bookkeeping, is most of the speed of the scan on logs and JSON.
#[inline(always)]
fn plain_word(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    // Vowels seen, and the consonants before the first one.
    let (mut vowels, mut lead) = (0u8, 0u64);
    if CLASS[usize::from(b[i])] & KIND == UPPER {
        vowels = CLASS[usize::from(b[i])] >> 3;
        lead = u64::from(vowels == 0);
        i += 1;
    }
    let lower = i;
    while let Some(&x) = b.get(i) {
        let class = CLASS[usize::from(x)];
        if class & KIND != LOWER {
            break;
        }
        lead += u64::from(vowels == 0 && class & VOWEL == 0);
        vowels |= class >> 3;
        i += 1;
    }
    let letters = (i - start) as u64;
    let ascii_after = b.get(i).is_none_or(|&x| x < 0x80);
    if i == lower || letters > RATES.word_free || !ascii_after {
        return None;
    }
    // Five letters without a vowel look random, and so did a piece whose
    // first five letters had none: `Scan::word` keeps that higher cost.
    if letters >= 5 && (vowels == 0 || lead >= 5) {
        return None;
    }
    Some(i)
}

/// Capitals from `i`; returns where they end.
#[inline(always)]
fn upper_run(b: &[u8], mut i: usize, w: &mut Word, shape: Shape) -> usize {
    let (start, mut vowels) = (i, 0u64);
    while let Some(&byte) = b.get(i) {
        let class = CLASS[usize::from(byte)];
        if class & KIND != UPPER {
            break;
        }
        vowels += u64::from(class >> 3);
        i += 1;
    }
    if vowels > 0 && w.vowels == 0 && w.letters() + (i - start) as u64 >= 5 {
        // A random-looking piece gets its first vowel: what it cost before.
        let lead = consonants(&b[start..i]);
        if w.letters() + lead >= 5 {
            let before = Word {
                upper: w.upper + lead,
                ..*w
            };
            w.peak = w.peak.max(cost(&before, shape));
        }
    }
    w.upper += (i - start) as u64;
    w.vowels += vowels;
    i
}

/// Lowercase letters from `i`; returns where they end.
#[inline(always)]
fn lower_run(b: &[u8], mut i: usize, w: &mut Word, shape: Shape) -> usize {
    let (start, mut vowels) = (i, 0u64);
    while let Some(&byte) = b.get(i) {
        let class = CLASS[usize::from(byte)];
        if class & KIND != LOWER {
            break;
        }
        vowels += u64::from(class >> 3);
        i += 1;
    }
    if i == start {
        return i;
    }
    if w.upper >= 2 && (w.lower == 0 || w.lower_vowels == 0) && vowels > 0
        || w.vowels == 0 && vowels > 0 && w.letters() + (i - start) as u64 >= 5
    {
        // The piece stops looking random or all-capital: keep what it
        // cost before.
        if w.upper >= 2 && w.lower == 0 {
            w.peak = w.peak.max(cost(w, shape));
        }
        let lead = consonants(&b[start..i]);
        let random_until_vowel = (w.vowels == 0 && w.letters() + lead >= 5)
            || (w.upper >= 2 && w.lower_vowels == 0 && w.lower + lead > 0);
        if random_until_vowel {
            let before = Word {
                lower: w.lower + lead,
                ..*w
            };
            w.peak = w.peak.max(cost(&before, shape));
        }
    } else if w.upper >= 2 && w.lower == 0 {
        w.peak = w.peak.max(cost(w, shape));
    }
    w.lower += (i - start) as u64;
    w.vowels += vowels;
    w.lower_vowels += vowels;
    i
}

/// Letters of `run` before its first vowel.
fn consonants(run: &[u8]) -> u64 {
    run.iter()
        .take_while(|&&x| CLASS[usize::from(x)] & VOWEL == 0)
        .count() as u64
}

/// The cost of a word piece in its state `w`, prefix extras aside.
#[inline]
fn cost(w: &Word, shape: Shape) -> u64 {
    let r = &RATES;
    let letters = w.letters();
    if w.alpha == 0 && w.wide == 0 && w.upper <= 1 && w.lower > 0 && letters <= r.word_free {
        // The common word: at most one capital, at most eight letters, and
        // a vowel unless it is too short to look random.
        if w.vowels > 0 || letters < 5 {
            return r.word;
        }
    }
    let mut c = w.wide;
    if w.alpha > 0 {
        let s = &SCRIPTS[w.script as usize];
        let (base, per) = if shape.spaced {
            (s.spaced_base, s.spaced_per)
        } else {
            (s.bare_base, s.bare_per)
        };
        c += (base + (w.alpha + letters) as i64 * per).max(0) as u64;
    } else if letters > 0 {
        let mixed = w.upper >= 2 && w.lower > 0;
        if (w.vowels == 0 && letters >= 5) || (mixed && w.lower_vowels == 0) {
            c += letters * r.random_per;
        } else {
            c += r.word + letters.saturating_sub(r.word_free) * r.word_per;
            if w.lower == 0 {
                let per = if shape.punct {
                    r.upper_per_after_punct
                } else {
                    r.upper_per
                };
                c += letters.saturating_sub(r.upper_free) * per;
            }
            if mixed {
                // `XMLHttp`, `IOError`: the capitals and the word.
                c += r.word;
            }
        }
    }
    c.max(r.word)
}

/// Offsets of each range of [`CHAR_COST_RANGES`] in the table, in
/// characters.
const fn range_offsets() -> [u32; 5] {
    let mut out = [0; 5];
    let mut k = 1;
    while k < 5 {
        out[k] = out[k - 1] + CHAR_COST_RANGES[k - 1].1 - CHAR_COST_RANGES[k - 1].0;
        k += 1;
    }
    out
}
const RANGE_OFFSETS: [u32; 5] = range_offsets();

/// Tokens of `cp` alone in o200k_base, from range `k` of the table.
#[inline(always)]
fn table_cost(k: usize, cp: u32) -> u64 {
    let at = (RANGE_OFFSETS[k] + cp - CHAR_COST_RANGES[k].0) as usize;
    let bits = CHAR_COSTS
        .get(at / 4)
        .map_or(3, |b| (b >> (2 * (at % 4))) & 3);
    u64::from(bits) + 1
}

/// A CJK character or kana of range `k`: the common rate if it is a
/// token alone, else what it costs alone.
#[inline(always)]
fn han(k: usize, cp: u32) -> Wide {
    match table_cost(k, cp) {
        1 => Wide::Letter(RATES.han),
        n => Wide::Letter(n * 1000),
    }
}

/// What a non-ASCII character is to the pre-tokenizer, and its cost;
/// split by block first, so that no character takes more than a few
/// comparisons.
#[inline]
fn wide(cp: u32) -> Wide {
    let r = &RATES;
    match cp {
        0..=0x02ff => match cp {
            0x00a0 => Wide::Space,
            0..=0x00bf | 0x00d7 | 0x00f7 => Wide::Symbol(r.symbol),
            0x00c0..=0x00ff => Wide::Alpha(Script::Latin1, 0),
            // ă, đ, ĩ, ũ, ơ, ư: Vietnamese.
            0x0102 | 0x0103 | 0x0110 | 0x0111 | 0x0128 | 0x0129 | 0x0168 | 0x0169 | 0x01a0
            | 0x01a1 | 0x01af | 0x01b0 => Wide::Alpha(Script::Vietnamese, 0),
            _ => Wide::Alpha(Script::LatinExt, 0),
        },
        0x0300..=0x1fff => match cp {
            0x0300..=0x036f => Wide::Letter(r.combining),
            0x0370..=0x03ff => Wide::Alpha(Script::Greek, 0),
            // Polytonic Greek: about two byte tokens a letter.
            0x1f00..=0x1fff => Wide::Alpha(Script::Greek, r.polytonic),
            0x0400..=0x058f => Wide::Alpha(Script::Cyrillic, 0),
            0x0590..=0x05ff => Wide::Alpha(Script::Hebrew, 0),
            0x0600..=0x08ff => Wide::Alpha(Script::Arabic, 0),
            0x0900..=0x097f => Wide::Alpha(Script::Devanagari, 0),
            0x0e00..=0x0eff => Wide::Letter(r.thai),
            0x0980..=0x0dff => Wide::Letter(r.brahmic),
            0x1100..=0x11ff => Wide::Alpha(Script::Hangul, 1000),
            0x1680 => Wide::Space,
            0x1ea0..=0x1eff => Wide::Alpha(Script::Vietnamese, 0),
            0x1e00..=0x1e9f => Wide::Alpha(Script::LatinExt, 0),
            _ => Wide::Letter(r.other),
        },
        0x2000..=0x2fff => match cp {
            0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f => Wide::Space,
            0x200b..=0x200f | 0x20d0..=0x20ff => Wide::Symbol(r.joiner),
            0x2000..=0x2bff => Wide::Symbol(table_cost(0, cp) * 1000),
            _ => Wide::Symbol(r.symbol),
        },
        0x3000..=0xffff => match cp {
            0x3000 => Wide::Space,
            0x3040..=0x30ff => match table_cost(1, cp) {
                1 => Wide::Letter(r.kana),
                n => Wide::Letter(n * 1000),
            },
            0x3001..=0x303f => Wide::Symbol(table_cost(1, cp) * 1000),
            0x4e00..=0x9fff => han(2, cp),
            0xac00..=0xd7a3 => Wide::Alpha(Script::Hangul, (table_cost(3, cp) - 1) * 1000),
            0x31f0..=0x31ff | 0xff66..=0xff9f => Wide::Letter(r.han),
            0xff00..=0xff65 => Wide::Symbol(r.symbol),
            0x3130..=0x318f => Wide::Alpha(Script::Hangul, 1000),
            0x3400..=0x4dbf | 0xf900..=0xfaff => Wide::Letter(r.rare_han),
            0xfe00..=0xfe0f => Wide::Symbol(r.joiner),
            _ => Wide::Letter(r.other),
        },
        0x1f000..=0x1faff => Wide::Symbol(table_cost(4, cp) * 1000),
        0x20000..=0x3ffff => Wide::Letter(r.supplementary_han),
        0xe0000..=0xe007f => Wide::Symbol(r.joiner),
        _ => Wide::Letter(r.other),
    }
}
