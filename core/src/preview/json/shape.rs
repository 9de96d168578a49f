//! The shape of an array's object items, so that the marker of a run of
//! items not shown says what they are when they all have the same keys
//! (`[toolcap: 139 items omitted (objects with id, name, status)]`): a
//! model knows what it did not see without reading the file back.
//!
//! The shape is the first object item's keys, in order; a marker names at
//! most [`MAX_KEYS`] of them in at most [`MAX_NAMED_BYTES`] (then `…`). An
//! item has it when it is an object with exactly those keys in that order,
//! or a marker that names the same shape.

use super::marker;
use super::tree::{ItemShape, Kind, Node};

/// Keys a marker names at most; more are `…`.
pub(super) const MAX_KEYS: usize = 8;
/// Most bytes of the keys a marker names, separators included: a marker
/// costs the preview its bytes every time it is shown.
const MAX_NAMED_BYTES: usize = 40;

impl ItemShape {
    /// The shape's name when every item of `items[from..to]` has it.
    pub fn of_run(&self, from: usize, to: usize) -> Option<&str> {
        let first_lacking = self.lacking.partition_point(|&i| (i as usize) < from);
        let lacks = self
            .lacking
            .get(first_lacking)
            .is_some_and(|&i| (i as usize) < to);
        (!lacks).then_some(self.named.as_str())
    }
}

/// The shape of `items`, when at least two of them have it and its keys
/// can be named in a marker.
pub(super) fn find_shape(items: &[Node<'_>]) -> Option<ItemShape> {
    let first = items.iter().find_map(|n| match &n.kind {
        Kind::Object(o) if !o.is_empty() => Some(o),
        _ => None,
    })?;
    if !first.iter().all(|e| marker::is_nameable(&e.key)) {
        return None;
    }
    // A short marker: the keys that fit in MAX_NAMED_BYTES, then `…`.
    let mut named = String::new();
    for (i, e) in first.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        if i == MAX_KEYS || named.len() + sep.len() + e.key.len() > MAX_NAMED_BYTES {
            if i == 0 {
                return None;
            }
            named.push_str(", …");
            break;
        }
        named.push_str(sep);
        named.push_str(&e.key);
    }
    let has = |n: &Node<'_>| match &n.kind {
        Kind::Object(o) => {
            o.len() == first.len() && o.iter().zip(first).all(|(a, b)| a.key == b.key)
        }
        Kind::String(s) => marker::shape(s).is_some_and(|s| s == named),
        _ => false,
    };
    // The caller notes no array of more than `u32::MAX` items.
    let lacking: Box<[u32]> = (0u32..)
        .zip(items)
        .filter(|(_, n)| !has(n))
        .map(|(i, _)| i)
        .collect();
    (items.len() - lacking.len() >= 2).then_some(ItemShape { named, lacking })
}
