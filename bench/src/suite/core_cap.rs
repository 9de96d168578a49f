//! What does the core's cap cost natively, next to copying the input and
//! cutting it (naive) and to copying its bytes (the physical floor)? Both are
//! reference points that do less than the cap, not the same work: the naive
//! copy allocates a fresh buffer each call (its page faults are most of its
//! time at 64 MiB), memcpy writes into one allocated once.

use std::hint::black_box;

use crate::corpus::{self, Kind, SIZES};
use crate::measure::{self, Plan};
use crate::native::Discard;
use crate::setup::{self, CALL_ID};
use crate::table::Row;

/// Every kind at every size: cap without the write, naive, memcpy.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let capper = setup::capper();
    for size in SIZES {
        for kind in Kind::ALL {
            let text = corpus::text(kind, size);
            let budget = setup::cut_budget(size);
            let capped = capper.cap(&text, &budget, CALL_ID, &mut Discard).unwrap();
            assert!(capped.truncated, "{kind:?} {size} must be cut");
            let max = budget.max_bytes as usize;
            let mut copy = vec![0u8; size];
            let mut cap = || {
                black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard)).ok();
            };
            let mut naive = || {
                let mut s = black_box(&text).to_owned();
                s.truncate(s.floor_char_boundary(max));
                black_box(s);
            };
            let mut memcpy = || {
                copy.copy_from_slice(black_box(text.as_bytes()));
                black_box(&copy);
            };
            let m = measure::medians(&mut [&mut cap, &mut naive, &mut memcpy], plan);
            let path = format!("cap, core native, {}", kind.name());
            rows.push(Row::vs(&path, Some(size), m[0], "naive copy+cut", m[1]));
            rows.push(Row::vs(&path, Some(size), m[0], "memcpy", m[2]));
        }
    }
}
