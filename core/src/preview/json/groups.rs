//! Groups of an array's items by a categorical field, so that the marker of
//! a run of items not shown says how many of them hold each value
//! (`[toolcap: 139 items omitted; conclusion: 120 success, 17 cancelled, 2
//! failure]`) and a model can answer "how many failed" from the preview.
//!
//! The field is found in one pass over the items, among the string entries
//! of the first object item and of its objects one level down: one held by
//! at least three items in four (as a short string or null), with at most
//! [`MAX_VALUES`] distinct values over the whole array. Fields whose name
//! says a state (`status`, `state`, `conclusion`, `phase`, `level`, ... see
//! [`STATE_NAMES`]) come first, those with several values before those
//! with one; another field is taken only when its values differ and repeat
//! (each held by four items on average), the one whose commonest value
//! holds the smallest share of the items first: its groups say the most
//! (`edition: 193 2021, 101 2018, ...` rather than `readme: 329 README.md,
//! 57 null, ...`). An array whose markers already name groups keeps their
//! field when it still qualifies.
//!
//! An item whose value few items share (one in [`RARE_SHARE`] or fewer,
//! in an array of at least that many items) is notable: a pending pod among
//! running ones, a failed order among paid ones. It ranks after every item
//! that reports a failure.

use std::borrow::Cow;

use super::marker::{self, Groups};
use super::tree::{Entry, ItemGroups, Kind, MARKER, NONE, Node};

/// Distinct values a field may have.
pub(super) const MAX_VALUES: usize = 8;
/// Longest value that names a group, in bytes.
const MAX_VALUE_BYTES: usize = 32;
/// Longest field path named, in bytes.
const MAX_FIELD_BYTES: usize = 64;
/// Fields of the first item considered.
const MAX_CANDIDATES: usize = 24;

/// Field names that say what state an item is in, best first. A field
/// matches when its last key, or that key's last word (after `.`, `_` or
/// `-`), is one of them, ASCII case ignored.
pub(super) const STATE_NAMES: [&str; 17] = [
    "conclusion",
    "status",
    "state",
    "phase",
    "result",
    "outcome",
    "health",
    "verdict",
    "level",
    "severity",
    "priority",
    "reason",
    "type",
    "kind",
    "category",
    "stage",
    "action",
];

/// A field's path: a key, or a key of the object under `outer`.
#[derive(Debug, Clone)]
struct Path<'a> {
    outer: Option<(Cow<'a, str>, usize)>,
    /// The key and where it was in the first item.
    inner: (Cow<'a, str>, usize),
}

impl Path<'_> {
    fn name(&self) -> String {
        match &self.outer {
            Some((o, _)) => format!("{o}.{}", self.inner.0),
            None => self.inner.0.to_string(),
        }
    }
}

/// One field being counted.
struct Candidate<'a> {
    path: Path<'a>,
    name: String,
    values: Vec<&'a str>,
    of: Vec<u8>,
    /// Items holding a value.
    present: usize,
    /// More than [`MAX_VALUES`] values.
    dead: bool,
}

impl Candidate<'_> {
    /// Items holding the value most of them hold.
    fn commonest(&self) -> usize {
        let mut counts = [0usize; MAX_VALUES];
        for &code in &self.of {
            if let Some(n) = counts.get_mut(usize::from(code)) {
                *n += 1;
            }
        }
        counts.into_iter().max().unwrap_or(0)
    }
}

/// The entry `key` of `entries`, looked for at `hint` first.
fn find<'e, 'a>(
    entries: &'e [Entry<'a>],
    (key, hint): &(Cow<'_, str>, usize),
) -> Option<&'e Node<'a>> {
    match entries.get(*hint) {
        Some(e) if e.key == *key => Some(&e.value),
        _ => entries.iter().find(|e| e.key == *key).map(|e| &e.value),
    }
}

/// The value that names a group, of a value: a short plain string, or
/// `null`.
fn group_value<'a>(v: &'a Node<'_>) -> Option<&'a str> {
    match &v.kind {
        Kind::String(s) if marker::is_plain(s, MAX_VALUE_BYTES) && s != marker::OTHER => Some(s),
        Kind::Null => Some("null"),
        _ => None,
    }
}

fn lookup<'n, 'a>(item: &'n Node<'a>, path: &Path<'_>) -> Option<&'n Node<'a>> {
    let Kind::Object(entries) = &item.kind else {
        return None;
    };
    let entries = match &path.outer {
        None => entries,
        Some(outer) => match &find(entries, outer)?.kind {
            Kind::Object(inner) => inner,
            _ => return None,
        },
    };
    find(entries, &path.inner)
}

/// The value of `field` (a path as a marker names it) in `item`, as a group
/// names it; for tests.
#[cfg(test)]
pub(super) fn field_value<'a>(item: &'a Node<'_>, field: &str) -> Option<&'a str> {
    let Kind::Object(entries) = &item.kind else {
        return None;
    };
    if let Some(e) = entries.iter().find(|e| e.key == field) {
        return group_value(&e.value);
    }
    for (dot, _) in field.match_indices('.') {
        let (outer, inner) = (&field[..dot], &field[dot + 1..]);
        let path = Path {
            outer: Some((Cow::Borrowed(outer), 0)),
            inner: (Cow::Borrowed(inner), 0),
        };
        if let Some(v) = lookup(item, &path) {
            return group_value(v);
        }
    }
    None
}

/// The rank of a field named `name` holding `distinct` values over
/// `present` items, `commonest` of them its commonest value: lower is
/// better; `None` when it names no groups.
fn rank(name: &str, distinct: usize, present: usize, commonest: usize) -> Option<(u8, usize)> {
    let last = name.rsplit('.').next().unwrap_or(name);
    let word = last.rsplit(['_', '-']).next().unwrap_or(last);
    let known = STATE_NAMES
        .iter()
        .position(|n| last.eq_ignore_ascii_case(n) || word.eq_ignore_ascii_case(n));
    match known {
        Some(i) if distinct >= 2 => Some((1, i)),
        Some(i) => Some((2, i)),
        // The commonest value's share, in thousandths: the lower, the more
        // the groups tell apart.
        None if distinct >= 2 && distinct * 4 <= present => {
            Some((3, commonest * 1000 / present.max(1)))
        }
        None => None,
    }
}

/// The groups of `items` (an array's elements, `markers` the indexes of its
/// markers, in order), or `None` when no field qualifies. One pass over the
/// items.
pub(super) fn find_groups<'a>(items: &'a [Node<'a>], markers: &[(u32, u64)]) -> Option<ItemGroups> {
    let objects = items.len() - markers.len();
    if objects < 2 {
        return None;
    }
    let is_marker = |i: usize| {
        markers
            .binary_search_by_key(&i, |&(m, _)| m as usize)
            .is_ok()
    };
    let first = items
        .iter()
        .enumerate()
        .find(|(i, v)| !is_marker(*i) && matches!(v.kind, Kind::Object(_)))?
        .1;
    let Kind::Object(entries) = &first.kind else {
        return None;
    };
    let mut candidates: Vec<Candidate<'a>> = Vec::new();
    let mut add = |path: Path<'a>| {
        let name = path.name();
        if candidates.len() < MAX_CANDIDATES && marker::is_plain(&name, MAX_FIELD_BYTES) {
            candidates.push(Candidate {
                path,
                name,
                values: Vec::new(),
                of: Vec::with_capacity(items.len()),
                present: 0,
                dead: false,
            });
        }
    };
    for (i, e) in entries.iter().enumerate() {
        match &e.value.kind {
            Kind::Object(inner) => {
                for (j, ie) in inner.iter().enumerate() {
                    if group_value(&ie.value).is_some() {
                        add(Path {
                            outer: Some((e.key.clone(), i)),
                            inner: (ie.key.clone(), j),
                        });
                    }
                }
            }
            _ if group_value(&e.value).is_some() => add(Path {
                outer: None,
                inner: (e.key.clone(), i),
            }),
            _ => {}
        }
    }
    let mut markers_at = markers.iter().peekable();
    for (i, item) in items.iter().enumerate() {
        let marker = markers_at.next_if(|&&(m, _)| m as usize == i).is_some();
        for c in candidates.iter_mut().filter(|c| !c.dead) {
            let code = if marker {
                MARKER
            } else {
                match lookup(item, &c.path).and_then(group_value) {
                    None => NONE,
                    Some(v) => match c.values.iter().position(|&known| known == v) {
                        Some(at) => at as u8,
                        None if c.values.len() < MAX_VALUES => {
                            c.values.push(v);
                            (c.values.len() - 1) as u8
                        }
                        None => {
                            c.dead = true;
                            continue;
                        }
                    },
                }
            };
            c.present += usize::from(code < MARKER);
            c.of.push(code);
        }
    }
    // A field the markers already name is kept.
    let named = markers
        .first()
        .and_then(|&(m, _)| match &items[m as usize].kind {
            Kind::String(s) => marker::groups(s).map(|g| g.field),
            _ => None,
        });
    let best = candidates
        .into_iter()
        .filter(|c| !c.dead && c.present * 4 >= objects * 3)
        .filter_map(|c| {
            let r = rank(&c.name, c.values.len(), c.present, c.commonest())?;
            let r = if named.as_deref() == Some(c.name.as_str()) {
                (0, 0)
            } else {
                r
            };
            Some((r, c))
        })
        .min_by_key(|(r, _)| *r)?
        .1;
    Some(ItemGroups::new(
        best.name,
        best.values.iter().map(|v| (*v).to_owned()).collect(),
        best.of.into_boxed_slice(),
    ))
}

/// The groups of the run `from..to` of an array's elements, markers among
/// them counting what they name; `None` when some element has no group
/// under the same field (an array without groups, a marker without them or
/// naming another field).
pub(super) fn run_groups(
    items: &[Node<'_>],
    groups: Option<&ItemGroups>,
    markers: &[(u32, u64)],
    from: usize,
    to: usize,
) -> Option<Groups> {
    let lo = markers.partition_point(|&(m, _)| (m as usize) < from);
    let hi = markers.partition_point(|&(m, _)| (m as usize) < to);
    let in_run = &markers[lo..hi];
    let mut field: Option<String> = groups.map(|g| g.field.clone());
    let mut counts: Vec<(String, u64)> = Vec::new();
    let mut other = 0;
    if let Some(g) = groups {
        let tally = g.tally(from, to);
        for (i, v) in g.values.iter().enumerate() {
            if tally[i] > 0 {
                counts.push((v.clone(), tally[i]));
            }
        }
        other += tally[NONE as usize];
    } else if to - from > in_run.len() {
        return None;
    }
    for &(m, _) in in_run {
        let Kind::String(s) = &items[m as usize].kind else {
            return None;
        };
        let named = marker::groups(s)?;
        match &field {
            Some(f) if *f != named.field => return None,
            Some(_) => {}
            None => field = Some(named.field.clone()),
        }
        for (v, n) in named.counts {
            if v == marker::OTHER {
                other += n;
            } else if let Some(c) = counts.iter_mut().find(|(known, _)| *known == v) {
                c.1 += n;
            } else {
                counts.push((v, n));
            }
        }
    }
    // The largest first; a stable sort keeps ties in order of appearance.
    crate::order::sort_by_key(&mut counts, |c| std::cmp::Reverse(c.1));
    if other > 0 {
        counts.push((marker::OTHER.to_owned(), other));
    }
    Some(Groups {
        field: field?,
        counts,
    })
}

/// A value held by at most one item in this many is rare.
pub(super) const RARE_SHARE: usize = 20;
/// The failure score of an item with a rare value: the lowest.
pub(super) const RARE_SCORE: u8 = 1;

/// The items (indexes, ascending) whose value of the groups' field is rare:
/// held by at most one item in [`RARE_SHARE`], when most items share
/// another value. At most [`super::tree::MAX_NOTABLE`].
pub(super) fn rare_items(g: &ItemGroups) -> Vec<u32> {
    let mut tally = [0usize; 256];
    for &code in g.of.iter() {
        tally[code as usize] += 1;
    }
    let items = g.of.len() - tally[MARKER as usize];
    let most = tally[..g.values.len()].iter().copied().max().unwrap_or(0);
    if items < RARE_SHARE || most * 2 < items {
        return Vec::new();
    }
    let rare =
        |code: u8| (code as usize) < g.values.len() && tally[code as usize] * RARE_SHARE <= items;
    g.of.iter()
        .enumerate()
        .filter(|&(_, &code)| rare(code))
        .map(|(i, _)| i as u32)
        .take(super::tree::MAX_NOTABLE)
        .collect()
}
