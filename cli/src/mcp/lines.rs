//! The proxy's pipes: one thread reads each input into events, line by
//! line, and one thread writes each output, whole lines only, flushed per
//! message, so a slow reader never holds the router up.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, JoinHandle};

use crate::log;

/// What happened on one of the proxy's inputs.
#[derive(Debug)]
pub enum Event {
    /// A line from the client (terminator included, if it had one).
    Client(Vec<u8>),
    /// The client closed its end: standard input reached its end.
    ClientClosed,
    /// A line from the server's stdout.
    Server(Vec<u8>),
    /// The server's stdout reached its end.
    ServerClosed,
}

/// Sends every line of `input` as `line(..)`, then `closed`.
pub fn read_lines(
    input: impl Read + Send + 'static,
    events: Sender<Event>,
    line: fn(Vec<u8>) -> Event,
    closed: Event,
) {
    thread::spawn(move || {
        let mut input = BufReader::with_capacity(1 << 16, input);
        loop {
            let mut buf = Vec::new();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {
                    if events.send(line(buf)).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    log::line(&format!("reading failed, taking it as the end: {e}"));
                    break;
                }
            }
        }
        let _ = events.send(closed);
    });
}

/// A writer thread for `output`: each message sent is written whole and
/// flushed. It ends when every sender is dropped (closing `output`), or
/// when `output` fails (said once on stderr; later messages are dropped).
pub fn write_lines(
    what: &'static str,
    mut output: impl Write + Send + 'static,
) -> (Sender<Vec<u8>>, JoinHandle<()>) {
    let (sender, messages): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::channel();
    let handle = thread::spawn(move || {
        for mut message in messages.iter() {
            if message.last() != Some(&b'\n') {
                message.push(b'\n');
            }
            if let Err(e) = output.write_all(&message).and_then(|()| output.flush()) {
                log::line(&format!("cannot write to the {what}: {e}"));
                // Drain, so senders never block or error; nothing more is written.
                for _ in messages.iter() {}
                return;
            }
        }
    });
    (sender, handle)
}
