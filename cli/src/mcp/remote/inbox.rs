//! What a remote server sends, handed to the router as the lines a stdio
//! server would have written: one message per line, bounded by the message
//! limit and by the flow of bytes in flight, so a client that does not read
//! stops the proxy reading from the server.

use std::sync::Arc;
use std::sync::mpsc::Sender;

use crate::mcp::lines::{Event, Flow, Line, TOO_LONG_START_BYTES};

pub struct Inbox {
    events: Sender<Event>,
    flow: Arc<Flow>,
    max_line: usize,
}

impl Inbox {
    pub fn new(events: Sender<Event>, flow: Arc<Flow>, max_line: usize) -> Self {
        Self {
            events,
            flow,
            max_line,
        }
    }

    pub fn max_line(&self) -> usize {
        self.max_line
    }

    /// Passes one message on. A JSON text holds line breaks only as
    /// whitespace (inside strings they are escaped), so removing them keeps
    /// the message and makes it one line.
    pub async fn message(&self, payload: &[u8]) {
        let mut line: Vec<u8> = Vec::with_capacity(payload.len() + 1);
        let mut rest = payload;
        while let Some(at) = memchr::memchr2(b'\n', b'\r', rest) {
            line.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
        }
        line.extend_from_slice(rest);
        if line.trim_ascii().is_empty() {
            return;
        }
        line.push(b'\n');
        let too_long = (line.len() > self.max_line).then(|| {
            let length = line.len() as u64;
            line.truncate(TOO_LONG_START_BYTES);
            length
        });
        self.deliver(line, too_long).await;
    }

    /// Passes on the start of a message that was longer than the limit.
    pub async fn too_long(&self, start: Vec<u8>, length: u64) {
        self.deliver(start, Some(length)).await;
    }

    async fn deliver(&self, bytes: Vec<u8>, too_long: Option<u64>) {
        if !self.flow.has_room() {
            let flow = Arc::clone(&self.flow);
            let _ = tokio::task::spawn_blocking(move || flow.wait_for_room()).await;
        }
        let credit = self.flow.take(bytes.len());
        let _ = self.events.send(Event::Server(Line {
            bytes,
            too_long,
            credit,
        }));
    }

    pub fn closed(&self) {
        let _ = self.events.send(Event::ServerClosed);
    }
}

/// Counts the bytes of the SSE event being read, so that one event longer
/// than the message limit is refused before it is held whole. An event
/// ends at a blank line; lines end at CRLF, LF or CR.
#[derive(Default)]
pub struct EventSize {
    /// Bytes since the last blank line.
    bytes: usize,
    /// Nothing but line ends since the last line end.
    line_empty: bool,
    /// The last byte seen was a CR (its LF, if next, ends no other line).
    after_cr: bool,
}

impl EventSize {
    /// Takes in `chunk`; the largest event size seen in it.
    pub fn feed(&mut self, chunk: &[u8]) -> usize {
        let mut largest = 0;
        let mut from = 0;
        for at in memchr::memchr2_iter(b'\n', b'\r', chunk) {
            let content = at > from;
            self.bytes += at + 1 - from;
            from = at + 1;
            if content {
                self.line_empty = false;
                self.after_cr = false;
            }
            let byte = chunk[at];
            if byte == b'\n' && self.after_cr && !content {
                // The LF of a CRLF: the line already ended at its CR.
                self.after_cr = false;
                continue;
            }
            largest = largest.max(self.bytes);
            if self.line_empty {
                self.bytes = 0;
            }
            self.line_empty = true;
            self.after_cr = byte == b'\r';
        }
        if from < chunk.len() {
            self.bytes += chunk.len() - from;
            self.line_empty = false;
            self.after_cr = false;
        }
        largest.max(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_size_restarts_at_each_blank_line_whatever_the_line_ends() {
        for end in ["\n", "\r\n", "\r"] {
            let mut size = EventSize::default();
            let event = format!("data: {}{end}{end}", "x".repeat(100));
            for _ in 0..50 {
                assert!(size.feed(event.as_bytes()) <= event.len(), "{end:?}");
            }
            // Split anywhere, the count is the same.
            let mut size = EventSize::default();
            let all = event.repeat(3);
            let largest = all
                .as_bytes()
                .chunks(7)
                .map(|c| size.feed(c))
                .max()
                .unwrap();
            assert!(largest <= event.len() + 7, "{end:?}: {largest}");
        }
        let mut size = EventSize::default();
        let long = format!("data: {}\ndata: {}\n", "y".repeat(500), "z".repeat(500));
        assert!(size.feed(long.as_bytes()) >= 1000);
    }
}
