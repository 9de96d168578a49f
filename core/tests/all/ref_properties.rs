//! Writer and parser of references are bound by round-trip properties, and
//! pruning never loses a genuine reference.

use crate::common;

use proptest::prelude::*;
use toolcap_core::naming::{content_digest, spill_file_name};
use toolcap_core::tokens::TokenEstimator;
use toolcap_core::{PrunePolicy, RefScheme, prune};

fn scheme(root: &str, thread: &str) -> RefScheme {
    RefScheme::new(root, thread, b"0123456789abcdef-key".to_vec()).unwrap()
}

proptest! {
    #![proptest_config(common::cases(2000))]

    /// `find_refs(render(r)) == [r]` for any ids, roots, sizes and surrounding text.
    #[test]
    fn find_refs_of_render_is_identity(
        root in "/[^\n\r]{0,60}",
        thread in "\\PC{1,80}",
        call in "\\PC{0,80}",
        content in "\\PC{0,40}",
        bytes in any::<u64>(),
        lines in any::<u64>(),
        before in "\\PC{0,40}",
        after in "\\PC{0,40}",
    ) {
        let s = scheme(&root, &thread);
        let digest = content_digest(content.as_bytes());
        let r = s.make_ref(&spill_file_name(&call, &digest), bytes, lines, &digest);
        prop_assert!(s.verify(&r));
        let placeholder = s.placeholder(&r).unwrap();
        let text = format!("{before}{placeholder}{after}");
        prop_assert_eq!(s.find_refs(&text), vec![r.clone()]);
        prop_assert_eq!(s.resolve(&r.path).map(|f| f.to_owned()), Ok(spill_file_name(&call, &digest)));
    }

    /// A text stored as a JSON string (escaping `/` or not, non-ASCII as
    /// `\uXXXX` or not) still yields its genuine references, in order, and
    /// a forged tag stays forged.
    #[test]
    fn find_refs_reads_through_json_strings(
        root in "/[^\n\r]{0,30}",
        thread in "\\PC{1,30}",
        before in "\\PC{0,40}",
        between in "\\PC{0,40}",
        slash in prop_oneof![Just("/"), Just("\\/"), Just("\\u002f"), Just("\\u002F")],
        ascii in any::<bool>(),
    ) {
        let s = scheme(&root, &thread);
        let refs: Vec<_> = ["one", "two"].iter().map(|c| {
            let digest = content_digest(c.as_bytes());
            s.make_ref(&spill_file_name(c, &digest), 3, 1, &digest)
        }).collect();
        let notice = format!("{before}\n[full output saved; {}", RefScheme::token(&refs[0]));
        let text = format!("{notice}{between}{}", s.placeholder(&refs[1]).unwrap());
        let message = format!("{{\"content\": {}}}", json_string(&text, slash, ascii));
        prop_assert_eq!(s.find_refs(&message), refs.clone());
        let forged = text.replace(&refs[1].tag, &"0".repeat(16));
        let message = format!("[{}]", json_string(&forged, slash, ascii));
        prop_assert_eq!(s.find_refs(&message), vec![refs[0].clone()]);
    }

    /// Changing any one byte of a rendered reference makes it unrecognisable
    /// (or, if the byte lies outside the token, leaves it as it was).
    #[test]
    fn any_single_byte_change_is_rejected(pos in any::<prop::sample::Index>(), byte in 0x20u8..0x7f) {
        let s = scheme("/spill", "t");
        let digest = content_digest(b"x");
        let r = s.make_ref(&spill_file_name("c", &digest), 1, 1, &digest);
        let mut text = s.placeholder(&r).unwrap().into_bytes();
        let i = pos.index(text.len());
        // Always a different printable byte, so no case is thrown away.
        text[i] = if text[i] != byte { byte } else if byte < 0x7e { byte + 1 } else { 0x20 };
        let text = String::from_utf8(text).unwrap();
        let found = s.find_refs(&text);
        // The leading "[tool output pruned; " and the trailing characters are not part of the token.
        let token_start = "[tool output pruned; ".len();
        if i < token_start {
            prop_assert_eq!(found, vec![r]);
        } else {
            prop_assert!(found.is_empty(), "accepted after changing byte {i}: {text}");
        }
    }

    /// Whatever the policy, every genuine reference in the input is still in
    /// the output, and bytes saved add up.
    #[test]
    fn prune_never_loses_a_reference(
        bodies in prop::collection::vec(("\\PC{0,300}", any::<bool>()), 0..12),
        keep_last in prop::option::of(0u32..6),
        max_total in prop::option::of(0u64..4000),
        max_tokens in prop::option::of(0u64..1500),
    ) {
        let s = scheme("/spill", "t");
        let messages: Vec<String> = bodies
            .iter()
            .enumerate()
            .map(|(i, (body, with_ref))| {
                if !with_ref {
                    return body.clone();
                }
                let digest = content_digest(body.as_bytes());
                let r = s.make_ref(&spill_file_name(&format!("c{i}"), &digest), body.len() as u64, 1, &digest);
                format!("{body}\n[full output saved; {}", RefScheme::token(&r))
            })
            .collect();
        let policy = PrunePolicy { keep_last, max_total_bytes: max_total, max_total_tokens: max_tokens };
        let estimator = TokenEstimator::default();
        let p = prune(&s, &messages, policy, &estimator);
        for (before, after) in messages.iter().zip(&p.messages) {
            let mut want = s.find_refs(before);
            want.dedup_by(|a, b| a.path == b.path);
            prop_assert_eq!(s.find_refs(after), want);
            prop_assert!(after.len() <= before.len());
        }
        let before: u64 = messages.iter().map(|m| m.len() as u64).sum();
        let after: u64 = p.messages.iter().map(|m| m.len() as u64).sum();
        prop_assert_eq!(p.total_bytes, after);
        prop_assert_eq!(p.bytes_saved, before - after);
        let tokens: u64 = p.messages.iter().map(|m| estimator.estimate(m)).sum();
        prop_assert_eq!(p.total_tokens, tokens);
        let again = prune(&s, &p.messages, policy, &estimator);
        prop_assert!(again.replaced.iter().all(|i| !p.replaced.contains(i)));
    }
}

/// `text` as a JSON string, quotes included, escaped as serde_json does,
/// except that `/` is written `slash` and, when `ascii`, every character
/// beyond ASCII is `\uXXXX` (surrogate pairs above U+FFFF).
fn json_string(text: &str, slash: &str, ascii: bool) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str(slash),
            '\n' => out.push_str("\\n"),
            c if c < ' ' || (ascii && !c.is_ascii()) => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
