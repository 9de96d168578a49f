//! What does `find-refs` cost over 1 MiB of conversation text,
//! with no references in it and with a genuine one every 4 KiB?

use std::hint::black_box;

use crate::corpus::{self, KIB, Kind, MIB};
use crate::measure::{self, Plan};
use crate::setup;
use crate::table::Row;

/// Native and component, without and with notices.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let mut session = setup::session(&tool_cap, None);
    let capper = setup::capper();
    let scheme = capper.scheme();
    let plain = corpus::text(Kind::Ascii, MIB);
    let (noted, notices) = setup::with_notices(&plain, 4 * KIB);
    assert_eq!(scheme.find_refs(&noted).len(), notices);
    assert_eq!(session.find_refs(&noted).unwrap().len(), notices);
    assert!(scheme.find_refs(&plain).is_empty());

    let mut native_plain = || {
        black_box(scheme.find_refs(black_box(&plain)));
    };
    let mut component_plain = || {
        black_box(session.find_refs(black_box(&plain))).ok();
    };
    let m_plain = measure::medians(&mut [&mut component_plain, &mut native_plain], plan);
    let mut native_noted = || {
        black_box(scheme.find_refs(black_box(&noted)));
    };
    let mut component_noted = || {
        black_box(session.find_refs(black_box(&noted))).ok();
    };
    let mut native_plain = || {
        black_box(scheme.find_refs(black_box(&plain)));
    };
    let m_noted = measure::medians(
        &mut [&mut component_noted, &mut native_noted, &mut native_plain],
        plan,
    );
    rows.push(Row::vs(
        "find-refs, component, no notices",
        Some(plain.len()),
        m_plain[0],
        "core native",
        m_plain[1],
    ));
    let with = format!("find-refs, component, {notices} notices");
    rows.push(Row::vs(
        with,
        Some(noted.len()),
        m_noted[0],
        "core native",
        m_noted[1],
    ));
    let native_with = format!("find-refs, core native, {notices} notices");
    rows.push(Row::vs(
        native_with,
        Some(noted.len()),
        m_noted[1],
        "same, no notices",
        m_noted[2],
    ));
}
