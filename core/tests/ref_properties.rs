//! Writer and parser of references are bound by round-trip properties, and
//! pruning never loses a genuine reference.

mod common;

use proptest::prelude::*;
use toolcap_core::naming::{content_digest, spill_file_name};
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
        let policy = PrunePolicy { keep_last, max_total_bytes: max_total };
        let p = prune(&s, &messages, policy);
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
        let again = prune(&s, &p.messages, policy);
        prop_assert!(again.replaced.iter().all(|i| !p.replaced.contains(i)));
    }
}
