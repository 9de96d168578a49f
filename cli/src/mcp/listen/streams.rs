//! One client session's SSE streams: each POST that carries requests gets
//! a stream that ends after their answers; the GET stream carries what the
//! server starts itself. Every event is numbered (`<stream>-<n>`) and kept
//! until its stream is done and a few newer ones are, so that a client
//! whose stream dropped resumes it with `Last-Event-ID`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::mcp::lines::Outgoing;
use crate::mcp::message;

/// Finished streams kept for a late resumption.
const FINISHED_KEPT: usize = 32;
/// Messages for the GET stream held while no GET stream is open.
const HELD_FOR_GET: usize = 256;

#[derive(Default)]
pub struct Streams {
    next: u64,
    streams: HashMap<u64, Stream>,
    /// The stream that waits for each request's answer, by id key.
    by_request: HashMap<String, u64>,
    /// The stream of each request's progress token.
    by_progress: HashMap<String, u64>,
    /// The GET stream, when one is open.
    standalone: Option<u64>,
    held: VecDeque<Bytes>,
    finished: VecDeque<u64>,
    /// The id key of an `initialize` request still waiting for its answer.
    initialize: Option<String>,
    /// The protocol version the server's `initialize` answer agreed on.
    protocol_version: Option<String>,
}

struct Stream {
    events: Vec<Bytes>,
    live: Option<UnboundedSender<Sent>>,
    /// Answers still to come on this stream; `None` for the GET stream.
    waiting: Option<usize>,
}

/// What a POST's requests are, to route their answers and progress.
#[derive(Default)]
pub struct Asked {
    pub ids: Vec<String>,
    pub progress_tokens: Vec<String>,
    /// The id key of the `initialize` request among them.
    pub initialize: Option<String>,
}

impl Asked {
    /// The requests in a message (or a batch of them).
    pub fn of(body: &[u8]) -> Self {
        let mut asked = Asked::default();
        let messages: Vec<Box<RawValue>> = match serde_json::from_slice::<Vec<Box<RawValue>>>(body)
        {
            Ok(batch) => batch,
            Err(_) => serde_json::from_slice::<Box<RawValue>>(body)
                .into_iter()
                .collect(),
        };
        for raw in messages {
            let Ok(peek) = serde_json::from_str::<Peek>(raw.get()) else {
                continue;
            };
            if let (Some(id), Some(method)) = (&peek.id, &peek.method) {
                if method == "initialize" {
                    asked.initialize = Some(message::key_of(id));
                }
                asked.ids.push(message::key_of(id));
                if let Some(token) = peek.progress_token() {
                    asked.progress_tokens.push(token);
                }
            }
        }
        asked
    }
}

#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: Option<String>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

impl Peek<'_> {
    fn progress_token(&self) -> Option<String> {
        let params: serde_json::Value = serde_json::from_str(self.params?.get()).ok()?;
        let token = params
            .get("progressToken")
            .or_else(|| params.get("_meta")?.get("progressToken"))?;
        let raw = serde_json::value::to_raw_value(token).ok()?;
        Some(message::key_of(&raw))
    }
}

/// One event on a live stream.
pub struct Sent {
    pub event: Bytes,
    /// The stream ends after it (its last answer).
    pub last: bool,
}

/// A live SSE stream: the events to write, as they come.
pub type Live = UnboundedReceiver<Sent>;

impl Streams {
    /// A stream for the answers to `asked`.
    pub fn open(&mut self, asked: &Asked) -> (u64, Live) {
        let id = self.new_stream(Some(asked.ids.len()));
        for key in &asked.ids {
            self.by_request.insert(key.clone(), id);
        }
        for token in &asked.progress_tokens {
            self.by_progress.insert(token.clone(), id);
        }
        if asked.initialize.is_some() {
            self.initialize.clone_from(&asked.initialize);
        }
        let (sender, live) = unbounded_channel();
        self.streams.get_mut(&id).expect("just made").live = Some(sender);
        (id, live)
    }

    /// The protocol version the session's `initialize` agreed on, once known.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// The GET stream; `None` if one is open already.
    pub fn open_standalone(&mut self) -> Option<Live> {
        if let Some(id) = self.standalone
            && self
                .streams
                .get(&id)
                .is_some_and(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
        {
            return None;
        }
        let id = self.new_stream(None);
        self.standalone = Some(id);
        let (sender, live) = unbounded_channel();
        for held in std::mem::take(&mut self.held) {
            let event = self.record(id, held);
            let _ = sender.send(Sent { event, last: false });
        }
        self.streams.get_mut(&id).expect("just made").live = Some(sender);
        Some(live)
    }

    /// The events after `last_event_id`, and the stream's live rest if it
    /// is not done; `None` for an id of no stream kept.
    pub fn resume(&mut self, last_event_id: &str) -> Option<(Vec<Bytes>, Option<Live>)> {
        let (stream, number) = last_event_id.split_once('-')?;
        let (stream, number): (u64, usize) = (stream.parse().ok()?, number.parse().ok()?);
        let entry = self.streams.get_mut(&stream)?;
        let replay = entry.events.get(number..).unwrap_or_default().to_vec();
        let done = entry.waiting == Some(0);
        let live = (!done).then(|| {
            let (sender, live) = unbounded_channel();
            entry.live = Some(sender);
            live
        });
        if entry.waiting.is_none() {
            self.standalone = Some(stream);
        }
        Some((replay, live))
    }

    /// Whether a client holds a stream open (a request in flight, or the
    /// GET stream).
    pub fn any_open(&self) -> bool {
        self.streams
            .values()
            .any(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    /// Routes one message from the router to its stream.
    pub fn deliver(&mut self, line: &[u8]) {
        let data = Bytes::copy_from_slice(line.trim_ascii_end());
        let Ok(peek) = serde_json::from_slice::<Peek>(&data) else {
            return self.for_standalone(data);
        };
        match (&peek.id, peek.method.as_deref()) {
            (Some(id), None) => {
                let key = message::key_of(id);
                if self.initialize.as_ref() == Some(&key) {
                    self.initialize = None;
                    self.protocol_version = message::protocol_version(&data);
                }
                match self.by_request.remove(&key) {
                    Some(stream) => self.answer(stream, data),
                    None => self.for_standalone(data),
                }
            }
            (None, Some("notifications/progress")) => {
                let stream = peek
                    .progress_token()
                    .and_then(|token| self.by_progress.get(&token).copied())
                    .filter(|s| self.streams.get(s).is_some_and(|s| s.waiting != Some(0)));
                match stream {
                    Some(stream) => self.push(stream, data),
                    None => self.for_standalone(data),
                }
            }
            _ => self.for_standalone(data),
        }
    }

    fn answer(&mut self, stream: u64, data: Bytes) {
        let Some(entry) = self.streams.get_mut(&stream) else {
            return;
        };
        let last = match entry.waiting.as_mut() {
            Some(waiting) => {
                *waiting = waiting.saturating_sub(1);
                *waiting == 0
            }
            None => false,
        };
        self.send(stream, data, last);
        if last {
            // The stream ends after its last answer.
            if let Some(entry) = self.streams.get_mut(&stream) {
                entry.live = None;
            }
            self.by_progress.retain(|_, s| *s != stream);
            self.finish(stream);
        }
    }

    fn for_standalone(&mut self, data: Bytes) {
        match self.standalone {
            Some(stream) if self.streams.contains_key(&stream) => self.push(stream, data),
            _ => {
                if self.held.len() == HELD_FOR_GET {
                    self.held.pop_front();
                }
                self.held.push_back(data);
            }
        }
    }

    fn push(&mut self, stream: u64, data: Bytes) {
        self.send(stream, data, false);
    }

    fn send(&mut self, stream: u64, data: Bytes, last: bool) {
        let event = self.record(stream, data);
        if let Some(entry) = self.streams.get_mut(&stream)
            && let Some(live) = &entry.live
        {
            let _ = live.send(Sent { event, last });
        }
    }

    /// Numbers `data` as the stream's next event and keeps it.
    fn record(&mut self, stream: u64, data: Bytes) -> Bytes {
        let entry = self.streams.get_mut(&stream).expect("a stream of ours");
        let number = entry.events.len() + 1;
        let mut event = Vec::with_capacity(data.len() + 32);
        event.extend_from_slice(format!("id: {stream}-{number}\ndata: ").as_bytes());
        event.extend_from_slice(&data);
        event.extend_from_slice(b"\n\n");
        let event = Bytes::from(event);
        entry.events.push(event.clone());
        event
    }

    fn new_stream(&mut self, waiting: Option<usize>) -> u64 {
        self.next += 1;
        self.streams.insert(
            self.next,
            Stream {
                events: Vec::new(),
                live: None,
                waiting,
            },
        );
        self.next
    }

    fn finish(&mut self, stream: u64) {
        self.finished.push_back(stream);
        while self.finished.len() > FINISHED_KEPT {
            if let Some(old) = self.finished.pop_front() {
                self.streams.remove(&old);
            }
        }
    }
}

/// The message an SSE event of ours carries.
pub fn data_of(event: &Bytes) -> Bytes {
    let start = memchr::memmem::find(event, b"data: ").map_or(0, |at| at + b"data: ".len());
    let end = event.len().saturating_sub(2).max(start);
    event.slice(start..end)
}

/// Moves the router's messages to their streams until the router is done.
pub fn dispatch(from_router: std::sync::mpsc::Receiver<Outgoing>, streams: Arc<Mutex<Streams>>) {
    for (line, credit) in from_router {
        streams
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .deliver(&line);
        drop(credit);
    }
    // The session is over: every stream ends.
    let mut streams = streams.lock().unwrap_or_else(|e| e.into_inner());
    for stream in streams.streams.values_mut() {
        stream.live = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(event: &Bytes) -> String {
        String::from_utf8(event.to_vec()).unwrap()
    }

    fn live_text(live: &mut Live) -> (String, bool) {
        let sent = live.try_recv().unwrap();
        (text(&sent.event), sent.last)
    }

    #[test]
    fn answers_and_progress_go_to_their_stream_and_it_ends_after_the_answer() {
        let mut streams = Streams::default();
        let asked = Asked::of(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p"}}}"#,
        );
        assert_eq!(asked.ids, ["7"]);
        let (_, mut live) = streams.open(&asked);
        streams.deliver(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#);
        streams.deliver(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#);
        streams.deliver(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
        let (first, last) = live_text(&mut live);
        assert!(
            first.starts_with("id: 1-1\ndata: {") && first.contains("progress"),
            "{first}"
        );
        assert!(!last);
        let (answer, last) = live_text(&mut live);
        assert_eq!(
            answer,
            "id: 1-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"
        );
        assert!(last);
        assert_eq!(
            &data_of(&Bytes::from(answer))[..],
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
        // The stream ended; the log message waits for a GET stream.
        assert!(live.try_recv().is_err() && live.is_closed());
        let mut standalone = streams.open_standalone().unwrap();
        assert!(
            live_text(&mut standalone)
                .0
                .contains("notifications/message")
        );
        assert!(
            streams.open_standalone().is_none(),
            "one GET stream at a time"
        );
    }

    #[test]
    fn a_dropped_stream_resumes_after_its_last_event() {
        let mut streams = Streams::default();
        let asked = Asked::of(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"progressToken":1}}"#,
        );
        let (_, live) = streams.open(&asked);
        streams.deliver(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#);
        streams.deliver(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#);
        drop(live); // the client's connection dropped
        let (replay, rest) = streams.resume("1-1").unwrap();
        assert_eq!(replay.len(), 1);
        assert!(text(&replay[0]).starts_with("id: 1-2\n"));
        let mut rest = rest.unwrap();
        streams.deliver(br#"{"jsonrpc":"2.0","id":"a","result":{"content":[]}}"#);
        assert!(live_text(&mut rest).0.starts_with("id: 1-3\n"));
        assert!(streams.resume("9-1").is_none());
        assert!(streams.resume("garbage").is_none());
        // A finished stream replays what is left, and nothing is live.
        let (replay, rest) = streams.resume("1-2").unwrap();
        assert_eq!(replay.len(), 1);
        assert!(rest.is_none());
    }
}
