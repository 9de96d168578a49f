//! A parsed JSON document as the preview works on it: each value with
//! where it is in the text, and what parsing noted of each array (its
//! markers, its notable items, its items' groups).

use std::borrow::Cow;

/// Notable items an array keeps note of at most, the best: a long array of
/// failures stays bounded, and a preview never shows that many.
pub(super) const MAX_NOTABLE: usize = 256;

/// Where a value or key is in the text: `start..end`, quotes and brackets
/// included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One JSON value and where it is.
#[derive(Debug, Clone)]
pub(super) struct Node<'a> {
    pub at: Span,
    pub kind: Kind<'a>,
}

/// What a value is.
#[derive(Debug, Clone)]
pub(super) enum Kind<'a> {
    Null,
    Bool(bool),
    /// A number as the text writes it.
    Number(&'a str),
    String(Cow<'a, str>),
    /// Items, and what else is known of them when there is something: most
    /// arrays have neither markers, notable items nor groups.
    Array(Vec<Node<'a>>, Option<Box<ArrayInfo>>),
    /// Entries in document order; a repeated key is kept as often as it
    /// appears.
    Object(Vec<Entry<'a>>),
}

/// An object's entry.
#[derive(Debug, Clone)]
pub(super) struct Entry<'a> {
    pub key: Cow<'a, str>,
    /// The key's span, quotes included.
    pub key_at: Span,
    pub value: Node<'a>,
}

/// An array's markers and notable items, found while parsing so that trial
/// renderings do not scan long arrays. Indexes past `u32::MAX` are not
/// noted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ArrayInfo {
    /// Every marker element, `(index, count)`, in order.
    pub markers: Box<[(u32, u64)]>,
    /// Items other than markers with a failure score above 0, `(index,
    /// score)`, best first (score descending, then index ascending), at
    /// most [`MAX_NOTABLE`].
    pub notable: Box<[(u32, u8)]>,
    /// The items' groups by a categorical field, when they have some.
    pub groups: Option<ItemGroups>,
    /// The object items' shape, when they share one.
    pub shape: Option<ItemShape>,
}

/// The code of an item that is a marker.
pub(super) const MARKER: u8 = u8::MAX - 1;
/// The code of an item in the [`super::marker::OTHER`] group.
pub(super) const NONE: u8 = u8::MAX;

/// The groups of an array's items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ItemGroups {
    /// The field's path as a marker names it.
    pub field: String,
    /// Its values, in order of first appearance.
    pub values: Vec<String>,
    /// Each item's value (an index of `values`), [`MARKER`] or [`NONE`].
    pub of: Box<[u8]>,
    /// Running counts of each code ([`ItemGroups::slot`]) at every `step`
    /// items, so that a run's counts cost two look-ups and at most two
    /// steps of items: a preview renders each array many times over while
    /// it fits the budget, and counted each cut run item by item.
    checkpoints: Box<[u32]>,
    step: usize,
}

/// Items between checkpoints of [`ItemGroups`], at least.
const CHECKPOINT_STEP: usize = 64;

/// Counts the checkpoints of one array hold, at most (4 MiB): a larger
/// array or more values take a longer step.
const MAX_CHECKPOINT_COUNTS: usize = 1 << 20;

impl ItemGroups {
    /// The groups named `field` of items whose codes are `of`.
    pub(super) fn new(field: String, values: Vec<String>, of: Box<[u8]>) -> ItemGroups {
        let width = values.len() + 2;
        let step = CHECKPOINT_STEP.max((of.len() * width).div_ceil(MAX_CHECKPOINT_COUNTS));
        let mut checkpoints = Vec::with_capacity((of.len() / step + 1) * width);
        let mut running = vec![0u32; width];
        checkpoints.extend_from_slice(&running);
        for items in of.chunks_exact(step) {
            for &code in items {
                running[slot(values.len(), code)] += 1;
            }
            checkpoints.extend_from_slice(&running);
        }
        ItemGroups {
            field,
            values,
            of,
            checkpoints: checkpoints.into_boxed_slice(),
            step,
        }
    }

    /// How many of the items `from..to` hold each code, by code.
    pub(super) fn tally(&self, from: usize, to: usize) -> [u64; 256] {
        let mut tally = [0u64; 256];
        let count = |tally: &mut [u64; 256], items: &[u8]| {
            for &code in items {
                tally[code as usize] += 1;
            }
        };
        let (first, last) = (from.div_ceil(self.step), to / self.step);
        if first >= last {
            count(&mut tally, &self.of[from..to]);
            return tally;
        }
        count(&mut tally, &self.of[from..first * self.step]);
        count(&mut tally, &self.of[last * self.step..to]);
        let width = self.values.len() + 2;
        let at = |k: usize| &self.checkpoints[k * width..(k + 1) * width];
        let codes = (0..self.values.len() as u8).chain([MARKER, NONE]);
        for ((code, hi), lo) in codes.zip(at(last)).zip(at(first)) {
            tally[code as usize] += u64::from(hi - lo);
        }
        tally
    }
}

/// Where `code` is counted in a checkpoint of `values` values: each value,
/// then [`MARKER`], then [`NONE`].
fn slot(values: usize, code: u8) -> usize {
    match code {
        MARKER => values,
        NONE => values + 1,
        value => value as usize,
    }
}

/// The shape of an array's object items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ItemShape {
    /// The keys as a marker names them: `id, name, status`.
    pub named: String,
    /// The items without the shape, in order: a run's look-up is a
    /// binary search, where a scan of its items cost each trial rendering
    /// the length of every run it cut (11% of a 4 MiB document's cap in
    /// the component).
    pub lacking: Box<[u32]>,
}
