//! The client's requests the server has not answered yet, and their deadlines.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

/// Most requests waiting at once (and most settled ids remembered): a
/// client cannot grow the proxy's memory without bound by asking a server
/// that never answers.
pub const MAX_PENDING: usize = 10_000;

/// One client request on its way through the server.
#[derive(Debug)]
pub struct Request {
    /// Its id, exactly as the client sent it.
    pub id: Box<RawValue>,
    pub method: String,
    /// For `tools/call`: the tool called.
    pub tool: Option<String>,
    /// For `tools/call`: what it searched for, from its arguments.
    pub search: Option<String>,
    /// A listing (`tools/list`, `resources/list`, `resources/templates/list`)
    /// without a cursor: its answer gets the proxy's additions.
    pub first_page: bool,
    /// The progress token it asked progress under, as a key.
    pub progress_token: Option<String>,
    /// When the server's time to answer runs out.
    pub deadline: Option<Instant>,
    /// Every key a client could read its id as (see `message::aliases_of`).
    pub aliases: Vec<String>,
    /// Its protocol version has `resultType` (2026-07-28 and later): the
    /// proxy's own answers to it carry one.
    pub result_type: bool,
}

#[derive(Debug)]
pub struct Pending {
    requests: HashMap<String, Request>,
    timeout: Option<Duration>,
    /// Requests settled without the server's answer (timed out, cancelled):
    /// a late answer is dropped, once.
    settled: HashSet<String>,
}

impl Pending {
    /// `timeout`: how long the server has to answer; `None`, for ever.
    pub fn new(timeout: Option<Duration>) -> Self {
        Self {
            requests: HashMap::new(),
            timeout,
            settled: HashSet::new(),
        }
    }

    pub fn insert(&mut self, key: String, mut request: Request) {
        request.deadline = self.timeout.map(|t| Instant::now() + t);
        self.settled.remove(&key);
        self.requests.insert(key, request);
    }

    /// The request waiting for an answer with the id `key`, left waiting.
    pub fn get(&self, key: &str) -> Option<&Request> {
        self.requests.get(key)
    }

    /// The request the server just answered with the id `key`.
    pub fn answered(&mut self, key: &str) -> Option<Request> {
        self.requests.remove(key)
    }

    /// The request an answer whose id has the keys `aliases` could be read
    /// as answering by some client, when its id is not exactly a pending
    /// one (`5.0` or `"5"` for 5).
    pub fn answered_as(&mut self, aliases: &[String]) -> Option<Request> {
        let key = self
            .requests
            .iter()
            .find(|(_, r)| r.aliases.iter().any(|a| aliases.contains(a)))
            .map(|(key, _)| key.clone())?;
        self.requests.remove(&key)
    }

    /// Whether a pending request has an id a client could confuse with one
    /// of `aliases`.
    pub fn clashes(&self, aliases: &[String]) -> bool {
        self.requests
            .values()
            .any(|r| r.aliases.iter().any(|a| aliases.contains(a)))
    }

    /// How many requests are waiting.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// The request the client cancelled: no error and no answer for it any more.
    pub fn cancelled(&mut self, key: &str) {
        if self.requests.remove(key).is_some() {
            self.settle(key.to_owned());
        }
    }

    /// Remembers `key` as settled, forgetting all older ones past the bound
    /// (their late answers are then dropped as answers to no request).
    fn settle(&mut self, key: String) {
        if self.settled.len() >= MAX_PENDING {
            self.settled.clear();
        }
        self.settled.insert(key);
    }

    /// Whether an answer for `key` is late (its request timed out or was
    /// cancelled) and must be dropped.
    pub fn is_late(&mut self, key: &str) -> bool {
        self.settled.remove(key)
    }

    /// Progress was reported under `token`: its request's clock starts again.
    pub fn progressed(&mut self, token: &str) {
        let Some(timeout) = self.timeout else { return };
        for request in self.requests.values_mut() {
            if request.progress_token.as_deref() == Some(token) {
                request.deadline = Some(Instant::now() + timeout);
            }
        }
    }

    /// The requests whose time ran out: removed, their late answers to be dropped.
    pub fn expired(&mut self, now: Instant) -> Vec<Request> {
        let mut due: Vec<(Instant, String)> = self
            .requests
            .iter()
            .filter_map(|(key, r)| r.deadline.filter(|&d| d <= now).map(|d| (d, key.clone())))
            .collect();
        due.sort();
        due.into_iter()
            .filter_map(|(_, key)| {
                let request = self.requests.remove(&key)?;
                self.settle(key);
                Some(request)
            })
            .collect()
    }

    /// Every request still waiting, removed (the server is gone).
    pub fn drain(&mut self) -> Vec<Request> {
        self.requests.drain().map(|(_, request)| request).collect()
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.requests.values().filter_map(|r| r.deadline).min()
    }

    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
}
