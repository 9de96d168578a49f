//! Texts built from pieces: a few fuzz bytes reach multi-byte characters, line
//! break styles, invalid UTF-8 and outputs far larger than the input, which
//! raw bytes would reach only after a long search.

use arbitrary::Arbitrary;

/// Generated texts stop growing here, so that each run stays fast.
pub const MAX_TEXT: usize = 64 * 1024;

/// Longest run of one character.
const MAX_RUN: usize = 4096;

/// One piece of a generated text.
#[derive(Arbitrary, Debug, Clone)]
pub enum Piece<'a> {
    /// Text as the fuzzer wrote it.
    Raw(&'a str),
    /// One character.
    Char(Script),
    /// One line break.
    Break(LineBreak),
    /// A character repeated, for outputs far over any budget.
    Run(Script, u16),
    /// A byte at or above 0x80: on its own never valid UTF-8, next to others
    /// sometimes part of a character.
    HighByte(u8),
}

/// A character of each UTF-8 length, and the odd ones tools print.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Script {
    Ascii,
    Space,
    Nul,
    Cyrillic,
    Cjk,
    Emoji,
}

impl Script {
    fn as_str(self) -> &'static str {
        match self {
            Script::Ascii => "a",
            Script::Space => " ",
            Script::Nul => "\0",
            Script::Cyrillic => "ж",
            Script::Cjk => "中",
            Script::Emoji => "😀",
        }
    }
}

/// Line break styles: the core counts LF only, CRLF ends with LF, a lone CR
/// is no break.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum LineBreak {
    Lf,
    CrLf,
    Cr,
}

impl LineBreak {
    fn as_str(self) -> &'static str {
        match self {
            LineBreak::Lf => "\n",
            LineBreak::CrLf => "\r\n",
            LineBreak::Cr => "\r",
        }
    }
}

impl Piece<'_> {
    /// Append this piece's bytes to `out`.
    pub fn push_to(&self, out: &mut Vec<u8>) {
        match self {
            Piece::Raw(s) => out.extend_from_slice(s.as_bytes()),
            Piece::Char(c) => out.extend_from_slice(c.as_str().as_bytes()),
            Piece::Break(b) => out.extend_from_slice(b.as_str().as_bytes()),
            Piece::Run(c, times) => {
                let times = usize::from(*times) % (MAX_RUN + 1);
                out.extend_from_slice(c.as_str().repeat(times).as_bytes());
            }
            Piece::HighByte(b) => out.push(0x80 | b),
        }
    }
}

/// The bytes of `pieces` in order, stopping once [`MAX_TEXT`] is passed.
pub fn bytes_of(pieces: &[Piece<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in pieces {
        if out.len() > MAX_TEXT {
            break;
        }
        piece.push_to(&mut out);
    }
    out
}

/// The text of `pieces`, with each invalid sequence as U+FFFD.
pub fn text_of(pieces: &[Piece<'_>]) -> String {
    String::from_utf8_lossy(&bytes_of(pieces)).into_owned()
}
