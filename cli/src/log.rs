//! Diagnostics: one line each on standard error, prefixed `toolcap:`, so
//! they never mix with the capped output or the MCP messages on stdout.

/// Writes `message` as one `toolcap:` line (line breaks inside become spaces).
pub fn line(message: &str) {
    let one_line = message.trim_end().replace(['\n', '\r'], " ");
    eprintln!("toolcap: {one_line}");
}

/// At most `limit` bytes of `bytes`, lossily decoded: enough of a bad line
/// to recognise it in a log.
pub fn excerpt(bytes: &[u8], limit: usize) -> String {
    let cut = &bytes[..bytes.len().min(limit)];
    let text = String::from_utf8_lossy(cut);
    let text = text.trim_end_matches(['\n', '\r']);
    if bytes.len() > limit {
        format!("{text}...")
    } else {
        text.to_owned()
    }
}
