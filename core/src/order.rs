//! Stable sorts through one compiled sort routine.
//!
//! Each `slice::sort_by_key` call compiles its own copy of the standard
//! library's sort (merge runs, small-sort networks, pivot selection) for its
//! element type and closure: 4-12 KB of wasm each, about 150 KB of the
//! component over two dozen call sites. The sorts here order *indices* with
//! one shared routine ([`stable_order`], compiled once) and then move the
//! elements into place by swaps, so a call site adds only its comparison.
//! The result is exactly a stable sort's: equal elements keep their order.
//!
//! Comparisons go through a `dyn` call, so this is for the short lists of
//! decisions (hits, candidates, files), not for sorting bytes.

use std::cmp::Ordering;

/// Sorts `items` by `key`, stably: the result of `items.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` with `compare`, stably: the result of
/// `items.sort_by(compare)`.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = stable_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    for (a, b) in swaps(order) {
        items.swap(a, b);
    }
}

/// The indices `0..len` in the stable order of `compare`: the one sort the
/// module compiles.
fn stable_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// The swaps that put element `order[i]` at position `i` for every `i`,
/// one cycle of the permutation at a time (at most `len - 1` swaps).
fn swaps(mut order: Vec<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Done: this position holds its element, now or from a swap.
            order[at] = at;
            if from == start || from == at {
                break;
            }
            out.push((at, from));
            at = from;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_keys_keep_their_order() {
        let mut v = [(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        sort_by_key(&mut v, |p| p.0);
        assert_eq!(v, [(0, 'e'), (1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }

    #[test]
    fn empty_and_single_lists_are_left_alone() {
        let mut empty: [u8; 0] = [];
        sort_by_key(&mut empty, |&x| x);
        let mut one = [7];
        sort_by(&mut one, |a, b| b.cmp(a));
        assert_eq!(one, [7]);
    }

    proptest! {
        /// The same result as the standard library's stable sort, ties
        /// included (the second field tells equal keys apart).
        #[test]
        fn same_as_std_stable_sort(keys in proptest::collection::vec(0u8..8, 0..200)) {
            let items: Vec<(u8, usize)> = keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
            let mut ours = items.clone();
            let mut std_sorted = items.clone();
            sort_by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            prop_assert_eq!(&ours, &std_sorted);
            // A comparison that is not a key: by residue, then descending.
            let by = |a: &(u8, usize), b: &(u8, usize)| (a.0 % 3).cmp(&(b.0 % 3)).then(b.0.cmp(&a.0));
            let mut ours = items.clone();
            let mut std_sorted = items;
            sort_by(&mut ours, by);
            std_sorted.sort_by(by);
            prop_assert_eq!(ours, std_sorted);
        }
    }
}
