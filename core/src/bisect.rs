//! The one bisection the core uses: the JSON preview's detail levels and
//! the planner's fair level are both "the most that still fits".

use std::ops::{Add, Div, Sub};

/// The largest `x` in `lo..=hi` for which `ok(x)` holds, found by bisection
/// (so `ok` is taken as monotone: true up to some point, false after), or
/// `None` when `ok(lo)` fails.
pub fn largest<T>(lo: T, hi: T, mut ok: impl FnMut(T) -> bool) -> Option<T>
where
    T: Copy + Ord + Add<Output = T> + Sub<Output = T> + Div<Output = T> + From<u8>,
{
    if !ok(lo) {
        return None;
    }
    if hi <= lo || ok(hi) {
        return Some(hi.max(lo));
    }
    let (one, two) = (T::from(1), T::from(2));
    let (mut good, mut bad) = (lo, hi);
    while bad - good > one {
        let mid = good + (bad - good) / two;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

#[cfg(test)]
mod tests {
    use super::largest;

    #[test]
    fn finds_the_edge_of_a_monotone_predicate() {
        for edge in 0u64..40 {
            assert_eq!(largest(0, 39, |x| x <= edge), Some(edge));
        }
        assert_eq!(largest(5usize, 9, |x| x < 5), None);
        assert_eq!(largest(7u64, 3, |_| true), Some(7));
        assert_eq!(
            largest(0u64, u64::MAX, |x| x <= u64::MAX / 3),
            Some(u64::MAX / 3)
        );
    }
}
