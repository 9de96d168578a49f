//! The three oversized tool results, built deterministically in code.

use serde_json::{Value, json};

/// The string the agent greps for; it occurs once, deep inside the bundle.
pub const BUNDLE_NEEDLE: &str = "apiKeyMissing";
/// The tracker issue the agent reads.
pub const ISSUE_NUMBER: u64 = 1289;
/// Lines in the build log.
const BUILD_LOG_LINES: usize = 20_000;
/// Size of the minified bundle's single line.
const BUNDLE_BYTES: usize = 4 << 20;
/// Comments in the tracker issue (about 1.5 MiB of JSON).
const ISSUE_COMMENTS: usize = 4_000;

/// A 16x16 PNG (568 bytes), as an MCP server would attach a screenshot.
pub const SCREENSHOT_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAB/0lEQVR42g3PkcKGMAAF0P9x7kOEw2EYhmEwGASDwSAIBoNBMBgMgjAMh4MLYfg9wt8DHDh/6BS6BZ1Ft7Lz7CK7xK6gO9Fd6G50lV1j97B72f3+IBTEAmEhVgpPESkSRYE4IS6IG6JSNIqH4qX4gFSQC6SFXCk9ZaRMlAXyhLwgb8hK2SgfypfyA71Cv6C36Ff2nn1kn9gX9Cf6C/2NvrJv7B/2L/vfHwfFYeFgOawYPIaIIWEoHE4OF4ebQ8XQMDwYXgwfGBXHhaPluGL0GCPGhLFwPDleHG+OFWPD+GB8MX5gUpwWTpbTisljipgSpsLp5HRxujlVTA3Tg+nF9IFZcV44W84rZo85Yk6YC+eT88X55lwxN8wP5hfzl9YKeoG20Cu1p47UibpAn9AX9A1dqRv1Q/1Sf8AomAXGwqw0nibSJJoCc8JcMDdMpWk0D81L8wGn4BY4C7fSebpIl+gK3Al3wd1wla7RPXQv3Qc2hW3BZrGt3Dy3yC1xK9hObBe2G1vl1rg93F5uXzoohoXBMqwIHiEiJITCcDJcDDdDRWgID8KL8IFdcV+4W+4rdo89Yk/YC/eT+8X95l6xN+wP9hf7B7JiXpgt84rskSNyQi7MJ/PFfDNX5Ib8IL/IHzgUj4WH5bHi8DgijoSj8Dh5XDxuHhVHw/HgeHH8/gHdka4QUqxq+AAAAABJRU5ErkJggg==";

/// `grep -rn apiKeyMissing dist/` over a minified bundle: one match, so one
/// 4 MiB line (`| head -50` would not help).
pub fn bundle_grep_output() -> String {
    let mut line = String::with_capacity(BUNDLE_BYTES + 256);
    line.push_str("dist/app.min.js:1:!function(){\"use strict\";var e={};");
    let needle_at = BUNDLE_BYTES * 5 / 8;
    let mut placed = false;
    for i in 0.. {
        if line.len() >= BUNDLE_BYTES {
            break;
        }
        if !placed && line.len() >= needle_at {
            line.push_str(&format!(
                "if(!k.key)throw new n.ApiError(\"{BUNDLE_NEEDLE}\",\"Stripe key not set\");"
            ));
            placed = true;
        }
        // Non-ASCII labels, as real i18n bundles have: cuts must respect UTF-8.
        line.push_str(&format!(
            "function a{i}(t,n){{return t.map(function(r){{return r.id===n?\
             {{...r,v{i}:t.length}}:r}})}}var c{i}=Object.freeze({{code:\"E{i:05}\",\
             label:\"Zahlung {i} · “fehlgeschlagen” ✗\"}});"
        ));
    }
    line.push_str("}();\n");
    line
}

/// An MCP `tools/call` result of `tracker.get_issue`: one huge JSON text
/// part and a screenshot, as the server returns it.
pub fn issue_call_tool_result() -> Value {
    let comments: Vec<Value> = (0..ISSUE_COMMENTS)
        .map(|i| {
            json!({
                "id": 900_000 + i,
                "author": format!("dev{}", i % 37),
                "created_at": format!("2025-03-{:02}T{:02}:{:02}:00Z", 1 + i % 28, i % 24, i % 60),
                "body": format!(
                    "Seen again in checkout run #{i}: the request to /v1/payment_intents \
                     fails with apiKey error, retry {} of 5. Trace id {:016x}.",
                    i % 5 + 1,
                    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ),
                "reactions": { "+1": i % 7, "eyes": i % 3 },
                "labels": ["billing", "checkout", if i % 2 == 0 { "regression" } else { "p1" }],
            })
        })
        .collect();
    let issue = json!({
        "number": ISSUE_NUMBER,
        "title": "Checkout fails with apiKeyMissing after the 2025-03 billing deploy",
        "state": "open",
        "assignees": ["dev3", "dev17"],
        "comments": comments,
    });
    json!({
        "content": [
            { "type": "text", "text": serde_json::to_string_pretty(&issue).expect("plain JSON") },
            { "type": "image", "data": SCREENSHOT_PNG_BASE64, "mimeType": "image/png" },
        ],
        "isError": false,
    })
}

/// A verbose `cargo build` log of 20,000 lines whose only error sits in the
/// middle, with the summary at the end.
pub struct BuildLog {
    /// The whole log.
    pub text: String,
    /// The line that starts the error, exactly as in `text`.
    pub error_line: String,
    /// 1-based number of that line.
    pub error_line_number: u64,
    /// The `-->` line that locates the error, exactly as in `text`.
    pub error_location: String,
}

/// The build log, and where its error is.
pub fn build_log() -> BuildLog {
    let error_block = [
        "error[E0308]: mismatched types",
        "    --> src/billing/invoice.rs:4711:17",
        "     |",
        "4711 |     let total: u64 = invoice.total_cents();",
        "     |                ---   ^^^^^^^^^^^^^^^^^^^^^ expected `u64`, found `i64`",
        "     |                |",
        "     |                expected due to this",
    ];
    let summary = [
        "warning: `billing` (lib) generated 2 warnings",
        "error: could not compile `billing` (lib) due to 1 previous error; 2 warnings emitted",
    ];
    let filler = BUILD_LOG_LINES - error_block.len() - summary.len();
    let error_at = filler / 2;
    let mut lines: Vec<String> = Vec::with_capacity(BUILD_LOG_LINES);
    for i in 0..filler {
        if i == error_at {
            lines.extend(error_block.iter().map(|l| l.to_string()));
        }
        lines.push(filler_line(i));
    }
    lines.extend(summary.iter().map(|l| l.to_string()));
    let mut text = lines.join("\n");
    text.push('\n');
    BuildLog {
        text,
        error_line: error_block[0].to_owned(),
        error_line_number: error_at as u64 + 1,
        error_location: error_block[1].to_owned(),
    }
}

/// One line of ordinary, noisy build output.
fn filler_line(i: usize) -> String {
    let krate = format!("dep-{:04}", i / 4);
    match i % 4 {
        0 => format!("   Compiling {krate} v0.{}.{}", i % 9, i % 7),
        1 => format!(
            "     Running `rustc --crate-name {} --edition=2021 src/lib.rs --crate-type lib \
             -C opt-level=3 -C metadata={:016x}`",
            krate.replace('-', "_"),
            (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)
        ),
        2 => format!("[{krate} 0.1.0] cargo:rerun-if-changed=build/{krate}.proto"),
        _ => {
            format!("    Checking {krate}/features: default, std, serde ({i} of {BUILD_LOG_LINES})")
        }
    }
}
