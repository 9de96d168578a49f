//! `RefScheme::find_refs` on untrusted text: whatever the text, only genuine
//! references of the session come out, each found where it is written.

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::naming::{content_digest, spill_file_name};
use toolcap_core::refs::{PRUNED_PREFIX, SAVED_PREFIX};
use toolcap_core::{OverflowRef, RefScheme};

use crate::pieces::Piece;

/// The session key; foreign tokens are tagged with [`OTHER_KEY`].
const KEY: [u8; 32] = [42; 32];
const OTHER_KEY: [u8; 32] = [43; 32];

/// Display roots a host may choose: plain, with a trailing `/` (dropped),
/// non-ASCII with a space.
const DISPLAY_ROOTS: [&str; 3] = ["/home/me/.spill", "/spill/", "C:/Users/Ж/spill 中"];

/// What starts every token (see the module docs of `core/src/refs.rs`).
const TOKEN_HEAD: &str = "full content at ";

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    /// Index into [`DISPLAY_ROOTS`].
    root: u8,
    /// Any thread id; the scheme makes it a safe folder name. An empty one,
    /// which the scheme refuses, stands for a fixed id.
    thread_id: &'a str,
    /// One genuine reference entirely chosen by the fuzzer.
    chosen: ChosenRef<'a>,
    /// The text, piece by piece.
    pieces: Vec<RefPiece<'a>>,
}

/// The fields of a reference the fuzzer picks.
#[derive(Arbitrary, Debug)]
struct ChosenRef<'a> {
    call_id: &'a str,
    content: &'a [u8],
    bytes: u64,
    lines: u64,
}

/// One piece of the text searched.
#[derive(Arbitrary, Debug)]
enum RefPiece<'a> {
    /// Ordinary text.
    Text(Piece<'a>),
    /// The anchor the parser looks for, with nothing valid after it.
    Anchor,
    /// A genuine token, indexing the session's references.
    Genuine(u8),
    /// A genuine token after one edit: a forgery unless the edit is a no-op.
    Edited(u8, Edit),
    /// A token tagged with another key, or issued for another thread.
    Foreign(u8),
    /// The prefix of a notice's reference line.
    Saved,
    /// The prefix of a prune placeholder.
    Pruned,
}

/// One edit of a token's bytes; positions wrap around its length.
#[derive(Arbitrary, Debug)]
enum Edit {
    Xor(u16, u8),
    Delete(u16),
    Insert(u16, u8),
    Truncate(u16),
}

impl Edit {
    fn apply(&self, token: &mut Vec<u8>) {
        let at = |i: u16, len: usize| usize::from(i) % (len + 1);
        match *self {
            Edit::Xor(i, mask) => {
                if !token.is_empty() {
                    let i = usize::from(i) % token.len();
                    token[i] ^= mask;
                }
            }
            Edit::Delete(i) => {
                if !token.is_empty() {
                    token.remove(usize::from(i) % token.len());
                }
            }
            Edit::Insert(i, byte) => token.insert(at(i, token.len()), byte),
            Edit::Truncate(i) => token.truncate(at(i, token.len())),
        }
    }
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FindRefsPath {
    /// The text held no anchor.
    NoAnchor,
    /// Anchors, but no genuine token.
    OnlyRejected,
    /// At least one genuine token was found.
    Found,
}

/// Parse `data` as a text with genuine, forged and foreign tokens and check
/// `find_refs` on it against a naive oracle. Panics when an invariant breaks;
/// `None` when `data` does not shape into an input.
pub fn check_find_refs(data: &[u8]) -> Option<FindRefsPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let root = DISPLAY_ROOTS[usize::from(input.root) % DISPLAY_ROOTS.len()];
    let thread_id = match input.thread_id {
        "" => "thread-1",
        id => id,
    };
    let scheme = RefScheme::new(root, thread_id, KEY.to_vec()).expect("valid scheme");
    let genuine = genuine_refs(&scheme, &input.chosen);
    let foreign = foreign_refs(root, thread_id, &input.chosen);
    let text = render(&input.pieces, &genuine, &foreign);

    let found = scheme.find_refs(&text);
    let anchor = format!(
        "{TOKEN_HEAD}{}/{}/",
        scheme.display_root(),
        scheme.thread_dir()
    );
    let anchors = text.matches(anchor.as_str()).count();
    // A backslash may be a JSON string escape: find-refs then also reads the
    // decoded string, so a genuine ref can be found that is not written
    // literally. It must still be one of this input's genuine refs.
    let escaped = text.contains('\\');
    assert!(
        escaped || found.len() <= anchors,
        "{} refs from {anchors} anchors",
        found.len()
    );
    for r in &found {
        assert!(
            scheme.verify(r),
            "returned a ref that does not verify: {r:?}"
        );
        assert!(
            text.contains(&RefScheme::token(r)) || (escaped && genuine.contains(r)),
            "returned a ref not written in the text: {r:?}"
        );
        let placeholder = scheme
            .placeholder(r)
            .expect("a found ref makes a placeholder");
        assert_eq!(scheme.find_refs(&placeholder), vec![r.clone()]);
    }
    // Oracle: at each anchor, the genuine token written there, if any. A
    // forgery that verifies would need a 64-bit HMAC tag guessed.
    let expected: Vec<OverflowRef> = text
        .match_indices(anchor.as_str())
        .filter_map(|(at, _)| {
            genuine
                .iter()
                .find(|g| text[at..].starts_with(&RefScheme::token(g)))
                .cloned()
        })
        .collect();
    if escaped {
        // Every literal one is found, in order, among possibly more.
        let mut rest = found.iter();
        for want in &expected {
            assert!(rest.any(|r| r == want), "missed {want:?} in {text:?}");
        }
    } else {
        assert_eq!(found, expected, "text: {text:?}");
    }

    Some(match (anchors, found.is_empty()) {
        (0, _) => FindRefsPath::NoAnchor,
        (_, true) => FindRefsPath::OnlyRejected,
        (_, false) => FindRefsPath::Found,
    })
}

/// References the session issued: edge values and the fuzzer's choice.
fn genuine_refs(scheme: &RefScheme, chosen: &ChosenRef<'_>) -> Vec<OverflowRef> {
    let issue = |call_id: &str, content: &[u8], bytes: u64, lines: u64| {
        let digest = content_digest(content);
        scheme.make_ref(&spill_file_name(call_id, &digest), bytes, lines, &digest)
    };
    vec![
        issue("call_1", b"full output", 11, 1),
        issue("", b"", 0, 0),
        issue(&"../".repeat(40), b"x\n", u64::MAX, u64::MAX),
        issue(chosen.call_id, chosen.content, chosen.bytes, chosen.lines),
    ]
}

/// The same references as another key or another thread would issue them.
fn foreign_refs(root: &str, thread_id: &str, chosen: &ChosenRef<'_>) -> Vec<OverflowRef> {
    let other_key = RefScheme::new(root, thread_id, OTHER_KEY.to_vec());
    let other_thread = RefScheme::new(root, &format!("{thread_id}-other"), KEY.to_vec());
    [other_key, other_thread]
        .into_iter()
        .flatten()
        .flat_map(|s| genuine_refs(&s, chosen))
        .collect()
}

/// The text of `pieces`, with each invalid sequence as U+FFFD.
fn render(pieces: &[RefPiece<'_>], genuine: &[OverflowRef], foreign: &[OverflowRef]) -> String {
    let pick = |refs: &[OverflowRef], i: u8| RefScheme::token(&refs[usize::from(i) % refs.len()]);
    let mut out = Vec::new();
    for piece in pieces {
        if out.len() > crate::pieces::MAX_TEXT {
            break;
        }
        match piece {
            RefPiece::Text(p) => p.push_to(&mut out),
            RefPiece::Anchor => {
                // The anchor of the first genuine token, cut before its file name.
                let token = pick(genuine, 0);
                let cut = token.rfind('/').map_or(0, |i| i + 1);
                out.extend_from_slice(&token.as_bytes()[..cut]);
            }
            RefPiece::Genuine(i) => out.extend_from_slice(pick(genuine, *i).as_bytes()),
            RefPiece::Edited(i, edit) => {
                let mut token = pick(genuine, *i).into_bytes();
                edit.apply(&mut token);
                out.extend_from_slice(&token);
            }
            RefPiece::Foreign(i) => out.extend_from_slice(pick(foreign, *i).as_bytes()),
            RefPiece::Saved => out.extend_from_slice(SAVED_PREFIX.as_bytes()),
            RefPiece::Pruned => out.extend_from_slice(PRUNED_PREFIX.as_bytes()),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0xF1D0,
            20_000,
            400,
            check_find_refs,
            &[
                FindRefsPath::NoAnchor,
                FindRefsPath::OnlyRejected,
                FindRefsPath::Found,
            ],
        );
    }
}
