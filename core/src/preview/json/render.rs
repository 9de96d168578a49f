//! One trial rendering of a document under [`Limits`].

use std::borrow::Cow;
use std::ops::Range;

use unicode_segmentation::GraphemeCursor;

use super::tree::{ArrayInfo, Entry, Kind, Node, Span};
use super::{Limits, Room, groups, marker};

/// Count of the key marker when it is the last entry of `entries`.
fn keys_marker(entries: &[Entry<'_>]) -> Option<u64> {
    match entries.last() {
        Some(Entry {
            key,
            value: Node {
                kind: Kind::Null, ..
            },
            ..
        }) => marker::count(key, marker::KEYS),
        _ => None,
    }
}

/// The largest extended grapheme cluster boundary of `s` at or below `max`:
/// a cut there splits neither a character nor a user-perceived character
/// (an emoji sequence, a flag, a letter and its combining marks).
fn floor_grapheme(s: &str, max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    let at = s.floor_char_boundary(max);
    let mut cursor = GraphemeCursor::new(at, s.len(), true);
    match cursor.is_boundary(s, 0) {
        Ok(true) => at,
        _ => cursor.prev_boundary(s, 0).ok().flatten().unwrap_or(0),
    }
}

/// Where the first `decoded` bytes of a string end in its JSON text `raw`
/// (the bytes between its quotes). `decoded` is a character boundary of the
/// string, so it falls between two escapes.
fn raw_offset(raw: &[u8], decoded: usize) -> usize {
    let (mut r, mut d) = (0, 0);
    while d < decoded && r < raw.len() {
        if raw[r] != b'\\' {
            r += 1;
            d += 1;
        } else if raw.get(r + 1) != Some(&b'u') {
            r += 2;
            d += 1;
        } else {
            let hex = std::str::from_utf8(&raw[r + 2..(r + 6).min(raw.len())]).unwrap_or("0");
            let unit = u32::from_str_radix(hex, 16).unwrap_or(0);
            if (0xD800..0xDC00).contains(&unit) {
                // A surrogate pair (the parser checked it): one character.
                r += 12;
                d += 4;
            } else {
                r += 6;
                d += char::from_u32(unit).map_or(3, char::len_utf8);
            }
        }
    }
    r
}

/// Head and tail items kept of an array of which `limit` items are shown,
/// when at most `head_pool` can come from the head and `tail_pool` from the
/// tail (before the first and after the last earlier marker). About two
/// thirds go to the head.
fn split(limit: usize, head_pool: usize, tail_pool: usize) -> (usize, usize) {
    let head = (limit - limit / 3).min(head_pool);
    let tail = (limit - head).min(tail_pool);
    ((limit - tail).min(head_pool), tail)
}

/// The rendering went over its byte or line limit.
pub(super) struct Full;

type Step = Result<(), Full>;

/// Writes a document under [`Limits`], stopping as soon as it does not fit
/// its [`Room`], and notes what it cut. Every part it keeps is the text's
/// own bytes (values, keys, and the whitespace and separators between
/// them); only markers are written anew, each with the whitespace of the
/// first part it stands for, so that it is indented like its neighbours.
/// On one line ([`Room::pretty`] unset), whitespace that holds a line break
/// is dropped.
pub(super) struct Renderer<'t> {
    text: &'t [u8],
    pub out: Vec<u8>,
    room: Room,
    /// Line breaks written.
    breaks: usize,
    lim: Limits,
    /// Sum of the array markers' counts.
    pub items: u64,
    /// Sum of the key markers' counts.
    pub keys: u64,
    /// Strings with a marker.
    pub strings: u64,
    /// Bytes before the marker of the longest string cut by this rendering.
    pub longest_cut_string: usize,
    /// Items of the longest array cut by this rendering, markers not counted.
    pub longest_cut_array: usize,
    /// Keys of the widest object cut by this rendering, markers not counted.
    pub longest_cut_object: usize,
    /// Keys shown of the widest object shown, markers not counted.
    pub widest_object: usize,
    /// Notable items in the omitted middle of the cut array that has the
    /// most (at most [`super::tree::MAX_NOTABLE`]), shown or not.
    pub most_notable: usize,
}

impl<'t> Renderer<'t> {
    /// The finished rendering of `root`, parsed from `text`, or `None` when
    /// it does not fit `room`.
    pub fn run(text: &'t str, root: &Node<'_>, lim: Limits, room: Room) -> Option<Renderer<'t>> {
        let mut r = Renderer {
            text: text.as_bytes(),
            out: Vec::with_capacity(room.bytes.min(1 << 16)),
            room,
            breaks: 0,
            lim,
            items: 0,
            keys: 0,
            strings: 0,
            longest_cut_string: 0,
            longest_cut_array: 0,
            longest_cut_object: 0,
            widest_object: 0,
            most_notable: 0,
        };
        r.value(root).ok()?;
        Some(r)
    }

    /// Lines of the rendering: a marker or token holds no line break, and
    /// the rendering ends with a bracket.
    pub fn lines(&self) -> usize {
        self.breaks + 1
    }

    fn check(&self, more: usize) -> Step {
        if self.out.len().saturating_add(more) > self.room.bytes {
            Err(Full)
        } else {
            Ok(())
        }
    }

    fn raw(&mut self, bytes: &[u8]) -> Step {
        self.check(bytes.len())?;
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    /// The text's bytes in `span`: a token, which holds no line break.
    fn verbatim(&mut self, span: Span) -> Step {
        let text = self.text;
        self.raw(&text[span.range()])
    }

    /// The text's whitespace and separators in `range`; on one line, what
    /// holds a line break keeps only its separator.
    fn gap(&mut self, range: Range<usize>) -> Step {
        let text = self.text;
        let gap = &text[range];
        // Gaps are a few bytes: a plain count beats a search's set-up.
        let breaks = gap.iter().filter(|&&b| b == b'\n').count();
        if breaks == 0 {
            return self.raw(gap);
        }
        if !self.room.pretty {
            return match gap.iter().find(|&&b| b == b',' || b == b':') {
                Some(&sep) => self.raw(&[sep]),
                None => Ok(()),
            };
        }
        self.breaks += breaks;
        if self.breaks >= self.room.lines {
            return Err(Full);
        }
        self.raw(gap)
    }

    /// `s` as a JSON string, escaped by serde_json: a marker.
    fn str(&mut self, s: &str) -> Step {
        self.check(s.len() + 2)?;
        serde_json::to_writer(&mut self.out, s).map_err(|_| Full)?;
        self.check(0)
    }

    /// `v`. The parser bounds the depth.
    fn value(&mut self, v: &Node<'_>) -> Step {
        match &v.kind {
            Kind::Null | Kind::Bool(_) | Kind::Number(_) => self.verbatim(v.at),
            // A string the parser did not borrow holds an escape.
            Kind::String(s) => self.string(s, matches!(s, Cow::Owned(_)), v.at),
            Kind::Array(a, info) => self.array(a, info.as_deref(), v.at),
            Kind::Object(o) => self.object(o, v.at),
        }
    }

    /// The string `s`, whose text is at `at`: whole, or its head (the
    /// text's bytes, escapes as written) and a marker.
    fn string(&mut self, s: &str, escaped: bool, at: Span) -> Step {
        let (head, prior) = match marker::string_head(s) {
            Some((head, n)) => (head, Some(n)),
            None => (s, None),
        };
        if head.len() > self.lim.string {
            let cut = floor_grapheme(head, self.lim.string);
            self.check(cut + 2)?;
            let omitted = prior.unwrap_or(0).saturating_add((head.len() - cut) as u64);
            let mark = marker::text(omitted, marker::STRING);
            let raw = &self.text[at.start as usize + 1..at.end as usize - 1];
            let raw_cut = if escaped { raw_offset(raw, cut) } else { cut };
            // Shorter as text and as the string it stands for.
            if raw_cut + mark.len() < raw.len() && cut + mark.len() < s.len() {
                self.strings += 1;
                self.longest_cut_string = self.longest_cut_string.max(head.len());
                self.check(raw_cut + mark.len() + 2)?;
                self.out.push(b'"');
                self.out.extend_from_slice(&raw[..raw_cut]);
                self.out.extend_from_slice(mark.as_bytes());
                self.out.push(b'"');
                return Ok(());
            }
        }
        self.strings += u64::from(prior.is_some());
        self.verbatim(at)
    }

    /// The whitespace before item `i` of an array at `at`.
    fn item_gap(&mut self, a: &[Node<'_>], i: usize, at: Span) -> Step {
        let from = match i {
            0 => at.start as usize + 1,
            _ => a[i - 1].at.end as usize,
        };
        self.gap(from..a[i].at.start as usize)
    }

    /// An array. Cut, it shows its first and last items and the best
    /// notable items between them, in document order, and one marker for
    /// each run of elements not shown, counting the run's items and the
    /// counts of the markers in it.
    fn array(&mut self, a: &[Node<'_>], info: Option<&ArrayInfo>, at: Span) -> Step {
        let (markers, notable) = info.map_or((&[][..], &[][..]), |info| {
            (&info.markers[..], &info.notable[..])
        });
        self.raw(b"[")?;
        let Some(last) = a.last() else {
            self.gap(at.start as usize + 1..at.end as usize - 1)?;
            return self.raw(b"]");
        };
        let real = a.len() - markers.len();
        if real <= self.lim.items || real <= self.lim.whole_items {
            let mut markers = markers.iter().peekable();
            for (i, v) in a.iter().enumerate() {
                self.item_gap(a, i, at)?;
                match markers.next_if(|&&(m, _)| m as usize == i) {
                    // A marker is shown as it is, never shortened.
                    Some(&(_, n)) => {
                        self.items = self.items.saturating_add(n);
                        self.verbatim(v.at)?;
                    }
                    None => self.value(v)?,
                }
            }
        } else {
            let head_pool = markers.first().map_or(a.len(), |&(m, _)| m as usize);
            let tail_pool = markers
                .last()
                .map_or(a.len(), |&(m, _)| a.len() - m as usize - 1);
            let (k, m) = split(self.lim.items, head_pool, tail_pool);
            let middle = k..a.len() - m;
            self.longest_cut_array = self.longest_cut_array.max(real);
            let in_middle = notable
                .iter()
                .filter(|&&(i, _)| middle.contains(&(i as usize)));
            self.most_notable = self.most_notable.max(in_middle.clone().count());
            let mut picked = Vec::new();
            if self.lim.notable > 0 {
                picked.extend(in_middle.take(self.lim.notable).map(|&(i, _)| i as usize));
                picked.sort_unstable();
            }
            let mut runs = Runs {
                markers,
                next: 0,
                from: 0,
            };
            for i in (0..k).chain(picked).chain(middle.end..a.len()) {
                let from = runs.from;
                self.run_marker(a, info, runs.until(i), from..i, at)?;
                self.item_gap(a, i, at)?;
                self.value(&a[i])?;
                runs.from = i + 1;
            }
            let from = runs.from;
            self.run_marker(a, info, runs.until(a.len()), from..a.len(), at)?;
        }
        self.gap(last.at.end as usize..at.end as usize - 1)?;
        self.raw(b"]")
    }

    /// The marker of the run of elements not shown `run`, if it has any,
    /// with the whitespace of its first item, naming its groups when the
    /// array's items have some.
    fn run_marker(
        &mut self,
        a: &[Node<'_>],
        info: Option<&ArrayInfo>,
        count: Option<u64>,
        run: Range<usize>,
        at: Span,
    ) -> Step {
        let Some(n) = count else {
            return Ok(());
        };
        self.item_gap(a, run.start, at)?;
        self.items = self.items.saturating_add(n);
        let groups = info.and_then(|info| {
            groups::run_groups(a, info.groups.as_ref(), &info.markers, run.start, run.end)
        });
        let shape = info.and_then(|info| info.shape.as_ref()?.of_run(run.start, run.end));
        self.str(&marker::items_text(n, shape, groups.as_ref()))
    }

    /// The whitespace before entry `i` of an object at `at`.
    fn entry_gap(&mut self, o: &[Entry<'_>], i: usize, at: Span) -> Step {
        let from = match i {
            0 => at.start as usize + 1,
            _ => o[i - 1].value.at.end as usize,
        };
        self.gap(from..o[i].key_at.start as usize)
    }

    /// An object.
    fn object(&mut self, o: &[Entry<'_>], at: Span) -> Step {
        self.raw(b"{")?;
        let Some(last) = o.last() else {
            self.gap(at.start as usize + 1..at.end as usize - 1)?;
            return self.raw(b"}");
        };
        let prior = keys_marker(o);
        let real = o.len() - usize::from(prior.is_some());
        let (shown, omitted) = if real <= self.lim.keys {
            (real, prior)
        } else {
            self.longest_cut_object = self.longest_cut_object.max(real);
            let omitted = prior
                .unwrap_or(0)
                .saturating_add((real - self.lim.keys) as u64);
            (self.lim.keys, Some(omitted))
        };
        self.widest_object = self.widest_object.max(shown);
        for (i, e) in o[..shown].iter().enumerate() {
            self.entry_gap(o, i, at)?;
            self.verbatim(e.key_at)?;
            self.gap(e.key_at.end as usize..e.value.at.start as usize)?;
            self.value(&e.value)?;
        }
        if let Some(n) = omitted {
            // The marker stands where the first entry not shown was.
            let e = &o[shown];
            self.entry_gap(o, shown, at)?;
            self.keys = self.keys.saturating_add(n);
            if shown == real {
                self.verbatim(e.key_at)?;
            } else {
                self.str(&marker::text(n, marker::KEYS))?;
            }
            self.gap(e.key_at.end as usize..e.value.at.start as usize)?;
            self.raw(b"null")?;
        }
        self.gap(last.value.at.end as usize..at.end as usize - 1)?;
        self.raw(b"}")
    }
}

/// The runs of elements an array does not show, in order.
struct Runs<'m> {
    /// The array's markers, `(index, count)`.
    markers: &'m [(u32, u64)],
    /// The first marker not in a run yet.
    next: usize,
    /// Where the current run starts.
    from: usize,
}

impl Runs<'_> {
    /// What the marker of the run from `from` to `to` (excluded) counts:
    /// its items and the counts of its markers; `None` when it is empty.
    fn until(&mut self, to: usize) -> Option<u64> {
        if to <= self.from {
            return None;
        }
        let mut items = (to - self.from) as u64;
        let mut omitted: u64 = 0;
        while let Some(&(at, n)) = self.markers.get(self.next)
            && (at as usize) < to
        {
            items -= 1;
            omitted = omitted.saturating_add(n);
            self.next += 1;
        }
        Some(omitted.saturating_add(items))
    }
}
