//! One trial rendering of a document under [`Limits`].

use std::borrow::Cow;

use serde_json::Number;
use unicode_segmentation::GraphemeCursor;

use super::doc::{ArrayInfo, Node};
use super::{Limits, Room, marker};

/// Count of the key marker when it is the last entry of `entries`.
fn keys_marker(entries: &[(Cow<'_, str>, Node<'_>)]) -> Option<u64> {
    match entries.last() {
        Some((k, Node::Null)) => marker::count(k, marker::KEYS),
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

/// Writes the JSON of a document under [`Limits`], stopping as soon as it
/// does not fit its [`Room`], and notes what it cut. Strings, keys and numbers are written by
/// serde_json; the structure follows serde_json's compact and pretty
/// formatters (the tests check whole renderings against serde_json's).
pub(super) struct Renderer {
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
    /// most (at most [`super::doc::MAX_NOTABLE`]), shown or not.
    pub most_notable: usize,
}

impl Renderer {
    /// The finished rendering of `root`, or `None` when it does not fit
    /// `room`.
    pub fn run(root: &Node<'_>, lim: Limits, room: Room) -> Option<Renderer> {
        let mut r = Renderer {
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
        r.value(root, 0).ok()?;
        Some(r)
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

    /// `s` as a JSON string, escaped by serde_json.
    fn str(&mut self, s: &str) -> Step {
        self.check(s.len() + 2)?;
        serde_json::to_writer(&mut self.out, s).map_err(|_| Full)?;
        self.check(0)
    }

    fn number(&mut self, n: &Number) -> Step {
        serde_json::to_writer(&mut self.out, n).map_err(|_| Full)?;
        self.check(0)
    }

    /// What comes before an element of a container at `level`.
    fn separator(&mut self, first: &mut bool, level: usize) -> Step {
        if !std::mem::take(first) {
            self.raw(b",")?;
        }
        if self.room.pretty {
            self.line_break()?;
            self.indent(level)?;
        }
        Ok(())
    }

    fn close(&mut self, bracket: u8, empty: bool, level: usize) -> Step {
        if self.room.pretty && !empty {
            self.line_break()?;
            self.indent(level - 1)?;
        }
        self.raw(&[bracket])
    }

    /// A LF, the only one a rendering writes (strings escape theirs).
    fn line_break(&mut self) -> Step {
        self.breaks += 1;
        if self.breaks >= self.room.lines {
            return Err(Full);
        }
        self.raw(b"\n")
    }

    fn indent(&mut self, level: usize) -> Step {
        const SPACES: &[u8; 64] = &[b' '; 64];
        let mut left = 2 * level;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.raw(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    /// `v`, inside `depth` containers. The parser bounds the depth.
    fn value(&mut self, v: &Node<'_>, depth: usize) -> Step {
        match v {
            Node::Null => self.raw(b"null"),
            Node::Bool(true) => self.raw(b"true"),
            Node::Bool(false) => self.raw(b"false"),
            Node::Number(n) => self.number(n),
            Node::String(s) => self.string(s),
            Node::Array(a, info) => self.array(a, info.as_deref(), depth + 1),
            Node::Object(o) => self.object(o, depth + 1),
        }
    }

    fn string(&mut self, s: &str) -> Step {
        let (head, prior) = match marker::string_head(s) {
            Some((head, n)) => (head, Some(n)),
            None => (s, None),
        };
        if head.len() > self.lim.string {
            let cut = floor_grapheme(head, self.lim.string);
            self.check(cut + 2)?;
            let omitted = prior.unwrap_or(0).saturating_add((head.len() - cut) as u64);
            let cut = format!("{}{}", &head[..cut], marker::text(omitted, marker::STRING));
            if cut.len() < s.len() {
                self.strings += 1;
                self.longest_cut_string = self.longest_cut_string.max(head.len());
                return self.str(&cut);
            }
        }
        self.strings += u64::from(prior.is_some());
        self.str(s)
    }

    /// An array at nesting `level`. Cut, it shows its first and last items
    /// and the best notable items between them, in document order, and one
    /// marker for each run of elements not shown, counting the run's items
    /// and the counts of the markers in it.
    fn array(&mut self, a: &[Node<'_>], info: Option<&ArrayInfo>, level: usize) -> Step {
        let (markers, notable) = info.map_or((&[][..], &[][..]), |info| {
            (&info.markers[..], &info.notable[..])
        });
        let real = a.len() - markers.len();
        self.raw(b"[")?;
        let mut first = true;
        if real <= self.lim.items || real <= self.lim.whole_items {
            let mut markers = markers.iter().peekable();
            for (i, v) in a.iter().enumerate() {
                self.separator(&mut first, level)?;
                match (v, markers.next_if(|&&(at, _)| at as usize == i)) {
                    // A marker is shown as it is, never shortened.
                    (Node::String(s), Some(&(_, n))) => {
                        self.items = self.items.saturating_add(n);
                        self.str(s)?;
                    }
                    _ => self.value(v, level)?,
                }
            }
        } else {
            let head_pool = markers.first().map_or(a.len(), |&(at, _)| at as usize);
            let tail_pool = markers
                .last()
                .map_or(a.len(), |&(at, _)| a.len() - at as usize - 1);
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
                self.run_marker(runs.until(i), &mut first, level)?;
                self.separator(&mut first, level)?;
                self.value(&a[i], level)?;
                runs.from = i + 1;
            }
            self.run_marker(runs.until(a.len()), &mut first, level)?;
        }
        self.close(b']', first, level)
    }

    /// The marker of a run of elements not shown, if the run has any.
    fn run_marker(&mut self, run: Option<u64>, first: &mut bool, level: usize) -> Step {
        let Some(n) = run else {
            return Ok(());
        };
        self.separator(first, level)?;
        self.items = self.items.saturating_add(n);
        self.str(&marker::text(n, marker::ITEMS))
    }

    /// An object at nesting `level`.
    fn object(&mut self, o: &[(Cow<'_, str>, Node<'_>)], level: usize) -> Step {
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
        self.raw(b"{")?;
        let mut first = true;
        for (k, v) in &o[..shown] {
            self.entry(&mut first, k, level)?;
            self.value(v, level)?;
        }
        if let Some(n) = omitted {
            self.entry(&mut first, &marker::text(n, marker::KEYS), level)?;
            self.keys = self.keys.saturating_add(n);
            self.raw(b"null")?;
        }
        self.close(b'}', first, level)
    }

    /// The separator and key of an entry of an object at `level`.
    fn entry(&mut self, first: &mut bool, key: &str, level: usize) -> Step {
        self.separator(first, level)?;
        self.str(key)?;
        self.raw(if self.room.pretty { b": " } else { b":" })
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
