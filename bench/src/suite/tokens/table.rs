//! The estimator's table of what single characters cost in o200k_base
//! (core/src/tokens/o200k_char_costs.bin), made here from the tokenizer
//! itself: for every code point of [`RANGES`], its token count alone,
//! 1 to 4, in two bits (count - 1), four to a byte, low bits first.
//! `TOOLCAP_WRITE_CHAR_COSTS=1 cargo test --release -p toolcap-bench char_cost`
//! writes the file; the test checks it against the tokenizer otherwise.

pub use toolcap_core::tokens::CHAR_COST_RANGES as RANGES;

/// The table's bytes, from o200k_base.
pub fn generate() -> Vec<u8> {
    let o200k = bpe_openai::o200k_base();
    let mut bits: Vec<u8> = Vec::new();
    for &(lo, hi) in RANGES {
        for cp in lo..hi {
            let cost = char::from_u32(cp).map_or(4, |c| o200k.count(c.to_string().as_str()));
            bits.push(cost.clamp(1, 4) as u8 - 1);
        }
    }
    bits.chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |byte, (k, &b)| byte | (b << (2 * k)))
        })
        .collect()
}

/// Where the core keeps the table.
pub fn path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/tokens/o200k_char_costs.bin")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_cost_table_is_o200k_s() {
        let made = generate();
        if std::env::var_os("TOOLCAP_WRITE_CHAR_COSTS").is_some() {
            std::fs::write(path(), &made).expect("write the table");
        }
        let kept = std::fs::read(path()).expect("the core's table");
        assert!(
            kept == made,
            "core/src/tokens/o200k_char_costs.bin differs from o200k_base: \
             TOOLCAP_WRITE_CHAR_COSTS=1 cargo test --release -p toolcap-bench char_cost"
        );
        assert_eq!(kept, toolcap_core::tokens::CHAR_COSTS);
    }

    #[test]
    fn abbreviations_are_one_o200k_token_each() {
        let o200k = bpe_openai::o200k_base();
        for piece in toolcap_core::tokens::ABBREVIATIONS {
            let piece = std::str::from_utf8(piece).expect("ASCII");
            assert_eq!(o200k.count(piece), 1, "{piece}");
            assert!(!piece.contains(['a', 'e', 'i', 'o', 'u', 'y']), "{piece}");
        }
    }
}
