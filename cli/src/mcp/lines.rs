//! The proxy's pipes: one thread reads each input into events, line by
//! line, and one thread writes each output, whole lines only, flushed per
//! message, so a slow reader never holds the router up.
//!
//! Everything in flight is bounded. A line longer than the message limit is
//! not kept: only its start (enough to find its `id`) and its length go on.
//! Each line read carries a [`Credit`] of its size from its input's
//! [`Flow`]; the credit travels with the line (or what the router makes of
//! it) to the writer and is given back once that is written or dropped. A
//! reader waits for its flow to have room before it reads the next line, so
//! a peer that does not read stops the side that feeds it: nothing piles up.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};

use crate::log;
use crate::signals::Signal;

/// Bytes of a too-long line kept to find its `id`.
pub const TOO_LONG_START_BYTES: usize = 64 * 1024;

/// What happened on one of the proxy's inputs.
#[derive(Debug)]
pub enum Event {
    /// A line from the client.
    Client(Line),
    /// The client closed its end: standard input reached its end.
    ClientClosed,
    /// A line from the server's stdout.
    Server(Line),
    /// The server's stdout reached its end.
    ServerClosed,
    /// The proxy was asked to stop.
    Signal(Signal),
}

/// One line read (terminator included, if it had one).
#[derive(Debug)]
pub struct Line {
    /// The whole line, or only its start when it was too long.
    pub bytes: Vec<u8>,
    /// The line's full length when it was longer than the message limit.
    pub too_long: Option<u64>,
    /// Given back to the input's flow once the line is written or dropped.
    pub credit: Credit,
}

/// The bytes read from one input and not yet written (or dropped), and
/// how many may be before its reader waits.
#[derive(Debug)]
pub struct Flow {
    in_flight: Mutex<usize>,
    room: Condvar,
    limit: usize,
}

impl Flow {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            in_flight: Mutex::new(0),
            room: Condvar::new(),
            limit,
        })
    }

    /// Whether fewer than the limit's bytes are in flight.
    pub fn has_room(&self) -> bool {
        *self.in_flight.lock().unwrap_or_else(|e| e.into_inner()) < self.limit
    }

    /// Waits until fewer than the limit's bytes are in flight.
    pub fn wait_for_room(&self) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        while *in_flight >= self.limit {
            in_flight = self.room.wait(in_flight).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub fn take(self: &Arc<Self>, bytes: usize) -> Credit {
        *self.in_flight.lock().unwrap_or_else(|e| e.into_inner()) += bytes;
        Credit {
            flow: Some(Arc::clone(self)),
            bytes,
        }
    }

    /// Bytes in flight now.
    #[cfg(test)]
    fn in_flight(&self) -> usize {
        *self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes taken from a [`Flow`], given back when dropped.
#[derive(Debug, Default)]
pub struct Credit {
    flow: Option<Arc<Flow>>,
    bytes: usize,
}

impl Credit {
    /// No bytes of any flow: for messages the proxy makes itself.
    pub fn none() -> Self {
        Self::default()
    }
}

impl Drop for Credit {
    fn drop(&mut self) {
        if let Some(flow) = self.flow.take() {
            let mut in_flight = flow.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            *in_flight = in_flight.saturating_sub(self.bytes);
            flow.room.notify_all();
        }
    }
}

/// A message on its way to a writer, with the credit of the line it came from.
pub type Outgoing = (Vec<u8>, Credit);

/// Sends every line of `input` as `line(..)`, then `closed`. Lines longer
/// than `max_line` bytes arrive cut to their start, with `too_long` set.
pub fn read_lines(
    input: impl Read + Send + 'static,
    events: Sender<Event>,
    flow: Arc<Flow>,
    max_line: usize,
    line: fn(Line) -> Event,
    closed: Event,
) {
    thread::spawn(move || {
        let mut input = BufReader::with_capacity(1 << 16, input);
        loop {
            flow.wait_for_room();
            match read_line(&mut input, max_line) {
                Ok(None) => break,
                Ok(Some((bytes, too_long))) => {
                    let credit = flow.take(bytes.len());
                    let event = line(Line {
                        bytes,
                        too_long,
                        credit,
                    });
                    if events.send(event).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    log::line(&format!("reading failed, taking it as the end: {e}"));
                    break;
                }
            }
        }
        let _ = events.send(closed);
    });
}

/// The next line, LF included, and its full length if it was longer than
/// `max_line` (then only its first bytes are kept); `None` at the end.
fn read_line(
    input: &mut impl BufRead,
    max_line: usize,
) -> io::Result<Option<(Vec<u8>, Option<u64>)>> {
    let mut line = Vec::new();
    let mut length: u64 = 0;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let (take, ended) = match memchr::memchr(b'\n', buf) {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        length += take as u64;
        let keep = if length > max_line as u64 {
            TOO_LONG_START_BYTES.saturating_sub(line.len()).min(take)
        } else {
            take
        };
        line.extend_from_slice(&buf[..keep]);
        if length > max_line as u64 && line.len() > TOO_LONG_START_BYTES {
            line.truncate(TOO_LONG_START_BYTES);
            line.shrink_to_fit();
        }
        input.consume(take);
        if ended {
            break;
        }
    }
    if length == 0 {
        return Ok(None);
    }
    let too_long = (length > max_line as u64).then_some(length);
    Ok(Some((line, too_long)))
}

/// A writer thread for `output`: each message sent is written whole and
/// flushed, and its credit given back. It ends when every sender is
/// dropped (closing `output`), or when `output` fails (said once on
/// stderr; later messages are dropped, their credits given back).
pub fn write_lines(
    what: &'static str,
    mut output: impl Write + Send + 'static,
) -> (Sender<Outgoing>, JoinHandle<()>) {
    let (sender, messages): (Sender<Outgoing>, Receiver<Outgoing>) = mpsc::channel();
    let handle = thread::spawn(move || {
        for (mut message, credit) in messages.iter() {
            if message.last() != Some(&b'\n') {
                message.push(b'\n');
            }
            let written = output.write_all(&message).and_then(|()| output.flush());
            drop(message);
            drop(credit);
            if let Err(e) = written {
                log::line(&format!("cannot write to the {what}: {e}"));
                // Drain, so senders never block or error; nothing more is written.
                for _ in messages.iter() {}
                return;
            }
        }
    });
    (sender, handle)
}

/// Passes `input` (a server's stderr) on to ours a line at a time, each
/// line given to `each`. A line ends at LF or CR (progress bars redraw with
/// CR), and only its first `max_line` bytes are kept: memory stays bounded
/// whatever the server writes. `each` gets the line and how many bytes of
/// it were left out.
pub fn read_text_lines(
    input: impl Read,
    max_line: usize,
    mut each: impl FnMut(&[u8], u64),
) -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 14, input);
    let mut line = Vec::with_capacity(max_line.min(1 << 12));
    let mut left_out: u64 = 0;
    let mut pending = false;
    let mut after_cr = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if pending {
                each(&line, left_out);
            }
            return Ok(());
        }
        let end = memchr::memchr2(b'\n', b'\r', buf);
        let terminator = end.map(|at| buf[at]);
        let content = &buf[..end.unwrap_or(buf.len())];
        let kept = max_line.saturating_sub(line.len()).min(content.len());
        line.extend_from_slice(&content[..kept]);
        left_out += (content.len() - kept) as u64;
        pending = true;
        let take = end.map_or(buf.len(), |at| at + 1);
        input.consume(take);
        let Some(terminator) = terminator else {
            continue;
        };
        // CR LF ends one line, not two.
        let empty = line.is_empty() && left_out == 0;
        if !(terminator == b'\n' && after_cr && empty) {
            each(&line, left_out);
        }
        after_cr = terminator == b'\r';
        line.clear();
        left_out = 0;
        pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_keeps_only_its_start_and_its_length() {
        let mut input =
            io::Cursor::new([b"short\n".as_slice(), &vec![b'x'; 200_000], b"\nlast"].concat());
        let (line, too_long) = read_line(&mut input, 1000).unwrap().unwrap();
        assert_eq!((line.as_slice(), too_long), (b"short\n".as_slice(), None));
        let (line, too_long) = read_line(&mut input, 1000).unwrap().unwrap();
        assert_eq!(too_long, Some(200_001));
        assert_eq!(line.len(), TOO_LONG_START_BYTES);
        let (line, too_long) = read_line(&mut input, 1000).unwrap().unwrap();
        assert_eq!((line.as_slice(), too_long), (b"last".as_slice(), None));
        assert!(read_line(&mut input, 1000).unwrap().is_none());
    }

    #[test]
    fn credits_come_back_when_dropped() {
        let flow = Flow::new(10);
        let a = flow.take(7);
        let b = flow.take(5);
        assert_eq!(flow.in_flight(), 12);
        drop(a);
        assert_eq!(flow.in_flight(), 5);
        drop(b);
        assert_eq!(flow.in_flight(), 0);
        flow.wait_for_room();
    }

    #[test]
    fn text_lines_end_at_cr_or_lf_and_are_bounded() {
        let input = [b"a\rbb\r\n".as_slice(), &vec![b'z'; 10_000], b"\rend"].concat();
        let mut seen = Vec::new();
        read_text_lines(input.as_slice(), 100, |line, left_out| {
            seen.push((String::from_utf8_lossy(line).into_owned(), left_out));
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                ("a".to_owned(), 0),
                ("bb".to_owned(), 0),
                ("z".repeat(100), 9_900),
                ("end".to_owned(), 0)
            ]
        );
    }
}
