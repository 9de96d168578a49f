//! What a preview has room for: the notice a session may have to write at
//! worst, the notice and gap marker of one cut, the form of notice a budget
//! allows, and which way a failed call's preview leans.

use crate::budget::{Budget, Keep, NoticeRoom};
use crate::call::Call;
use crate::naming;
use crate::notice::{self, GAP_LINES, Loss, NoticeForm, NoticeStyle, Saved};
use crate::refs::{OverflowRef, RefScheme};
use crate::settings::{PreviewFeatures, PreviewSettings};
use crate::text::digits;
use crate::tokens::TokenEstimator;

/// Largest number a notice can hold, for worst-case sizes.
const MAX_NUMBER: u64 = u64::MAX;

/// What the notice of one cut is made of, besides its numbers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoticeParts<'a> {
    pub(crate) call: &'a Call,
    pub(crate) style: &'a NoticeStyle,
    pub(crate) features: PreviewFeatures,
    /// The preview is a lossy decoding of the saved bytes.
    pub(crate) lossy: bool,
}

impl NoticeParts<'_> {
    /// The form of notice for a cut under `budget`: compact when the full
    /// one would take more than a quarter of the bytes or lines.
    pub(crate) fn form(&self, budget: &Budget, full_room: usize) -> NoticeForm {
        if !self.features.adaptive_notice {
            return NoticeForm::Full;
        }
        let lines_tight = budget
            .max_lines
            .is_some_and(|m| u64::from(m) < 4 * (notice::NOTICE_LINES + GAP_LINES));
        if full_room * 4 > budget.max_bytes as usize || lines_tight {
            NoticeForm::Compact
        } else {
            NoticeForm::Full
        }
    }
}

/// The worst-case room of any notice of this session: numbers of 20 digits,
/// the longest file name, the longest failure reason and tool name. Budgets
/// must leave room for the smallest form that can be chosen.
pub(crate) fn worst_room(
    scheme: &RefScheme,
    settings: &PreviewSettings,
    estimator: &TokenEstimator,
) -> NoticeRoom {
    let form = if settings.features.adaptive_notice {
        NoticeForm::Compact
    } else {
        NoticeForm::Full
    };
    let worst = Loss {
        original_bytes: MAX_NUMBER,
        original_lines: MAX_NUMBER,
        omitted_bytes: MAX_NUMBER,
        omitted_lines: MAX_NUMBER,
        gap_line: MAX_NUMBER - 40,
    };
    let long_ref = OverflowRef {
        path: String::new(),
        relative_path: String::new(),
        bytes: MAX_NUMBER,
        lines: MAX_NUMBER,
        digest: "0".repeat(naming::DIGEST_HEX),
        tag: "0".repeat(crate::refs::TAG_HEX),
    };
    // The longest tool name and reason, as hex: as long as any in bytes, and
    // the densest free text in tokens (one render serves both measures).
    const _: () = assert!(
        crate::call::MAX_TOOL_NAME_BYTES.is_multiple_of(2)
            && notice::MAX_REASON_BYTES.is_multiple_of(2),
        "hex pairs fill the longest tool name and reason exactly"
    );
    let failed_call = Call {
        search: None,
        id: String::new(),
        tool: Some("0f".repeat(crate::call::MAX_TOOL_NAME_BYTES / 2)),
        exit_code: Some(i32::MIN),
        is_error: true,
    };
    let reason = "0f".repeat(notice::MAX_REASON_BYTES / 2);
    let style = &settings.notice;
    // A full notice (the only form without adaptive notices) may state that
    // the preview is a lossy decoding; a compact one never does.
    let lossy = form == NoticeForm::Full;
    let render = |saved: Saved<'_>| {
        notice::render_notice_lossy(&worst, saved, &failed_call, style, form, lossy)
    };
    let spilled = render(Saved::Spilled(&long_ref)).len()
        + (scheme.max_token_len() - RefScheme::token(&long_ref).len());
    let failed_notice = render(Saved::Failed(&reason));
    let failed = failed_notice.len();
    let gap_marker = notice::gap_marker(0, MAX_NUMBER, MAX_NUMBER);
    let gap = gap_marker.len() + 1;
    // In tokens, the worst is a notice whose free text is dense: the tool
    // name and reason as hex, the numbers at 20 digits; a quarter more than
    // its estimate leaves room for the few preview bytes beside a real one.
    let long_ref_path = OverflowRef {
        path: format!(
            "{}/{}/{}",
            scheme.display_root(),
            scheme.thread_dir(),
            "0".repeat(60)
        ),
        ..long_ref.clone()
    };
    let dense = estimator
        .estimate(&render(Saved::Spilled(&long_ref_path)))
        .max(estimator.estimate(&failed_notice));
    NoticeRoom {
        bytes: spilled.max(failed) + gap + 1,
        lines: form.lines() + GAP_LINES,
        tokens: (dense + estimator.estimate(&gap_marker)) * 5 / 4,
    }
}

/// The room this call's notice needs in `form` (with the LF before it), and
/// the room of a gap marker (with its LF), with its real path, reason and
/// call, and numbers bounded by the input's size.
pub(crate) fn call_room(
    bytes: u64,
    lines: u64,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    form: NoticeForm,
) -> (usize, usize) {
    let bound = Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes,
        // At least 2: "0 whole lines" of a one-line text is longer than "1 whole line".
        omitted_lines: lines.max(2),
        gap_line: lines.max(1),
    };
    let text = notice::render_notice_lossy(
        &bound,
        outcome,
        notice.call,
        notice.style,
        form,
        notice.lossy,
    )
    .len();
    let gap = "[...  bytes omitted here (bytes .. of the full output, from line ) ...]".len()
        + 3 * digits(bytes)
        + digits(lines.max(1))
        + 1;
    (text + 1, gap)
}

/// A failed call's head-and-tail preview gives the head half its usual share:
/// errors and summaries come last.
pub(crate) fn lean_to_tail(budget: &Budget, notice: &NoticeParts<'_>) -> Budget {
    let lean = notice.features.adaptive_notice
        && notice.call.failed()
        && budget.keep == Keep::HeadAndTail
        && budget.head_percent < 100;
    Budget {
        head_percent: if lean {
            budget.head_percent / 2
        } else {
            budget.head_percent
        },
        ..*budget
    }
}

/// The percent of the allowance the head takes (the tail takes what it
/// leaves).
pub(crate) fn head_share(budget: &Budget) -> usize {
    match effective_keep(budget) {
        Keep::Head => 100,
        Keep::Tail => 0,
        Keep::HeadAndTail => usize::from(budget.head_percent),
    }
}

/// The choice `budget` really makes: `head-and-tail` with `head-percent` 100
/// leaves nothing to a tail and is `head`; with 0 it is `tail`.
pub(crate) fn effective_keep(budget: &Budget) -> Keep {
    match (budget.keep, budget.head_percent) {
        (Keep::HeadAndTail, 100) => Keep::Head,
        (Keep::HeadAndTail, 0) => Keep::Tail,
        (keep, _) => keep,
    }
}
