//! Fixtures shared by the report and the criterion benches: one session
//! identity for the native core and the component, so both render and accept
//! the same references, and the budgets each comparison uses.

use std::path::Path;

use tool_output_cap::{COMPONENT_WASM, RuntimeOptions, Session, SessionConfig, ToolCap};
use toolcap_core::{Budget, Capper, Keep, PreviewFeatures, PreviewSettings, RefScheme};

use crate::corpus::KIB;

/// Thread of every benchmark session.
pub const THREAD: &str = "bench-thread";
/// Display root of every benchmark session, native and component alike.
pub const DISPLAY_ROOT: &str = "/spill-root";
/// Session key: fixed, so native and component tags agree.
pub const KEY: [u8; 32] = [7; 32];
/// Call id of the calls whose spill name does not matter: results that fit
/// (nothing is written) and caps with no spill directory; and of every call in
/// the `hosts` suite, because the JS and Python scripts it compares with use
/// this one id (each spill there replaces the last). Other calls that spill
/// take theirs from [`CallIds`], as a real host gives every tool call its own.
pub const CALL_ID: &str = "bench-call";

/// A fresh call id per call, as an agent host gives each tool call its own:
/// a spill then creates a new file every time instead of replacing one.
#[derive(Debug, Default)]
pub struct CallIds(u64);

impl CallIds {
    /// `call-1`, `call-2`, ...
    pub fn next_id(&mut self) -> String {
        self.0 += 1;
        format!("call-{}", self.0)
    }
}

/// The runtime, compiled once, optionally with pooled instance slots.
pub fn tool_cap(pooled_instances: Option<u32>) -> ToolCap {
    tool_cap_with(RuntimeOptions {
        pooled_instances,
        ..RuntimeOptions::default()
    })
}

/// The runtime with explicit options, once its optimized code is ready:
/// the benchmarks measure what a session runs after a tiered start's first
/// second (`startup` measures that second).
pub fn tool_cap_with(options: RuntimeOptions) -> ToolCap {
    let tool_cap = ToolCap::with_options(COMPONENT_WASM, &options).expect("the component compiles");
    tool_cap.optimize().expect("the optimized code compiles");
    tool_cap
}

/// A session of the benchmark identity, spilling into `spill_dir` (none:
/// every cut reports that it could not be saved, and nothing is written).
pub fn session(tool_cap: &ToolCap, spill_dir: Option<&Path>) -> Session {
    let config = SessionConfig {
        thread_id: THREAD.to_owned(),
        spill_dir: spill_dir.map(Path::to_owned),
        display_root: Some(DISPLAY_ROOT.to_owned()),
        key: KEY.to_vec(),
        ..SessionConfig::default()
    };
    tool_cap.open_session(config).expect("the session opens")
}

/// The native core with the benchmark identity.
pub fn capper() -> Capper {
    Capper::new(RefScheme::new(DISPLAY_ROOT, THREAD, KEY.to_vec()).expect("valid scheme"))
}

/// The native core with the benchmark identity and only `features` on.
pub fn capper_with(features: PreviewFeatures) -> Capper {
    let scheme = RefScheme::new(DISPLAY_ROOT, THREAD, KEY.to_vec()).expect("valid scheme");
    let settings = PreviewSettings {
        features,
        ..PreviewSettings::default()
    };
    Capper::with_settings(scheme, settings).expect("valid settings")
}

/// A budget that cuts an input of `size` bytes: the host defaults at 16 KiB,
/// or just under `size` for small inputs (never below the notice's room).
pub fn cut_budget(size: usize) -> Budget {
    let room = capper().room().bytes;
    let max_bytes = (16 * KIB).min(size * 15 / 16).max(room);
    Budget {
        max_bytes: max_bytes as u32,
        max_lines: Some(tool_output_cap::budget::DEFAULT_MAX_LINES),
        max_line_bytes: Some(tool_output_cap::budget::DEFAULT_MAX_LINE_BYTES),
        keep: Keep::HeadAndTail,
        head_percent: tool_output_cap::budget::DEFAULT_HEAD_PERCENT,
        max_tokens: None,
    }
}

/// A budget that every input up to 64 KiB fits: the call returns it unchanged.
pub fn roomy_budget() -> Budget {
    Budget {
        max_bytes: 128 * KIB as u32,
        max_lines: None,
        ..cut_budget(64 * KIB)
    }
}

/// The same budget in the component's types.
pub fn host_budget(b: &Budget) -> tool_output_cap::Budget {
    tool_output_cap::Budget {
        max_bytes: b.max_bytes,
        max_lines: b.max_lines,
        max_line_bytes: b.max_line_bytes,
        keep: match b.keep {
            Keep::Head => tool_output_cap::types::Keep::Head,
            Keep::Tail => tool_output_cap::types::Keep::Tail,
            Keep::HeadAndTail => tool_output_cap::types::Keep::HeadAndTail,
        },
        head_percent: b.head_percent,
        max_tokens: None,
    }
}

/// `base` with a genuine notice of the benchmark identity after roughly every
/// `every` bytes (on a line boundary): text for `find-refs` to work on.
pub fn with_notices(base: &str, every: usize) -> (String, usize) {
    let scheme = RefScheme::new(DISPLAY_ROOT, THREAD, KEY.to_vec()).expect("valid scheme");
    let mut out = String::with_capacity(base.len() + base.len() / every * 300);
    let mut count = 0;
    let mut last = 0;
    for (i, _) in base.match_indices('\n') {
        out.push_str(&base[last..=i]);
        last = i + 1;
        if out.len() / every > count {
            let digest = toolcap_core::naming::content_digest(count.to_string().as_bytes());
            let name = toolcap_core::naming::spill_file_name(&format!("call-{count}"), &digest);
            let r = scheme.make_ref(&name, 1 << 20, 9000, &digest);
            out.push_str(toolcap_core::refs::SAVED_PREFIX);
            out.push_str(&RefScheme::token(&r));
            out.push('\n');
            count += 1;
        }
    }
    out.push_str(&base[last..]);
    (out, count)
}
