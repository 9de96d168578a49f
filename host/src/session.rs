//! One conversation thread's session: a store, an instance and the `session` resource.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use wasmtime::Store;
use wasmtime::component::ResourceAny;
use wasmtime_wasi::FsPerms;

use crate::bindings::{GuestSession, ToolOutputCap};
use crate::limits::Limits;
use crate::mcp_pieces;
use crate::sandbox::{SPILL_GUEST_PATH, Sandbox};
use crate::{
    Budget, Call, CapError, Capped, Error, OverflowRef, ToolCap, private_dir,
    types::{
        BatchResult, CappedMcp, CappedParts, ContentPart, EmbeddedResource, GrepResult, McpOptions,
        Media, Page, PendingResult, PrunePolicy, Pruned, ReadToolOutput, ReadToolSpec,
        RedactionPolicy, RequestLimits, SessionSettings, SpillEntry,
    },
};

/// Bytes of the random key drawn for a session configured without one.
const RANDOM_KEY_BYTES: u64 = 32;

/// What a host grants one session.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The conversation this session serves; spills go to `<spill_dir>/<thread>/`.
    pub thread_id: String,
    /// Host directory granted to the component as its spill directory.
    /// `None`, an empty path, or a path that is not an existing directory
    /// grants nothing: cut results then say the output could not be saved.
    pub spill_dir: Option<PathBuf>,
    /// Grant `spill_dir` read-only (to test the "could not be saved" path).
    pub read_only: bool,
    /// The spill directory as the model sees it, at the start of every path in
    /// a notice. `None`: the canonical absolute path of `spill_dir` (just
    /// its absolute path if it does not exist), or `/spill` without one.
    pub display_root: Option<String>,
    /// Key for the references' verification tags, at least 16 bytes. Empty: a
    /// random 32-byte key is drawn for this session, so references do not
    /// outlive it.
    pub key: Vec<u8>,
    /// Name of the host's read tool (for example `read_spilled_output`):
    /// notices tell the model to call it. `None`: "the read tool".
    pub read_tool: Option<String>,
    /// Show `grep`/`sed` commands in notices (default true); a host whose
    /// agent has no shell turns them off.
    pub shell_hints: bool,
    /// The host's own notable-line patterns (literal substrings), added to
    /// the built-in failure patterns.
    pub notable_patterns: Vec<String>,
    /// Tokens the estimator counts for an image part; `None`: 1600.
    pub image_tokens: Option<u32>,
    /// Tokens the estimator counts for an audio part; `None`: 1000.
    pub audio_tokens: Option<u32>,
    /// The estimator's starting scale, as [`Session::calibrate`] returned it
    /// in an earlier session; `None`: 1.
    pub token_scale: Option<f64>,
    /// How long the host keeps spills (the age its [`SpillStore::sweep`]
    /// deletes at), in seconds: notices say "kept for 7 days", and each
    /// spill's note records that promise, so that no sweep (of any process
    /// or policy) deletes the file sooner; an identical output capped again
    /// renews it. `None`: not stated, nothing promised.
    pub retention_seconds: Option<u64>,
    /// Opt-in secret redaction; `None` redacts nothing.
    pub redaction: Option<RedactionPolicy>,
    /// Accept a spill directory (or thread folder) that another user owns
    /// or that its group or others can write (see [`crate::sandbox::shared_dir_problem`]).
    /// `false` (the default): [`ToolCap::open_session`] refuses one, since
    /// whoever can write there can read the spilled outputs and replace a
    /// file behind a valid reference.
    pub allow_shared_spill_dir: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            thread_id: String::new(),
            spill_dir: None,
            read_only: false,
            display_root: None,
            key: Vec::new(),
            read_tool: None,
            shell_hints: true,
            notable_patterns: Vec::new(),
            image_tokens: None,
            audio_tokens: None,
            token_scale: None,
            retention_seconds: None,
            redaction: None,
            allow_shared_spill_dir: false,
        }
    }
}

impl SessionConfig {
    /// A thread's config that spills into `spill_dir`, read-write, with the defaults.
    pub fn new(thread_id: impl Into<String>, spill_dir: impl Into<PathBuf>) -> Self {
        Self {
            thread_id: thread_id.into(),
            spill_dir: Some(spill_dir.into()),
            ..Self::default()
        }
    }
}

/// One conversation thread's view of the spill directory.
///
/// Each session owns a store and an instance of the component, so sessions
/// are independent and can live on different threads. Methods take
/// `&mut self` because every call enters the store.
///
/// Every call runs under the session's [`Limits`]. A call that traps (a limit
/// hit inside the component, or a bug in it) poisons the session: later
/// calls fail at once with an error that says why, and the host opens a new
/// session, which starts from a fresh instance.
///
/// Wasm memory never shrinks, so after a call that leaves the instance larger
/// than the runtime's [`Recycling`](crate::limits::Recycling) threshold (16 MiB by
/// default) the session replaces it with a fresh one, opened with the same
/// settings and key: references stay valid and nothing else changes.
pub struct Session {
    // Field order matters for Drop: the resource is released before the store goes.
    pub(crate) resource: Option<ResourceAny>,
    exports: ToolOutputCap,
    store: Store<Sandbox>,
    tool_cap: ToolCap,
    limits: Limits,
    /// Why the instance can no longer be entered, once a call trapped.
    poisoned: Option<String>,
    /// What the instance was opened with, to open a replacement the same way.
    settings: SessionSettings,
    perms: FsPerms,
    /// Instances replaced to give memory back.
    recycled: u64,
    spill_dir: Option<PathBuf>,
    display_root: String,
}

/// Refuses `dir` if another user owns it or others can write it.
fn refuse_shared(dir: &Path) -> Result<(), Error> {
    match private_dir::shared_dir_problem(dir) {
        None => Ok(()),
        Some(problem) => Err(Error::runtime(anyhow::anyhow!(
            "refusing the spill directory: {problem} (allow_shared_spill_dir accepts it anyway)"
        ))),
    }
}

impl Session {
    pub(crate) fn open(tool_cap: &ToolCap, config: SessionConfig) -> Result<Self, Error> {
        let perms = if config.read_only {
            FsPerms::ReadOnly
        } else {
            FsPerms::ReadWrite
        };
        // An empty path would mean the working directory: it grants nothing,
        // like `None`, in every host.
        let requested = config.spill_dir.filter(|dir| !dir.as_os_str().is_empty());
        // A directory that does not exist yet is created, readable by its
        // owner only; one that cannot be created (or a read-only grant of a
        // missing one) is granted as nothing, like the JS and Python wrappers
        // do: the session opens and every cut result says why its full output
        // could not be saved.
        if let Some(dir) = &requested
            && !config.read_only
        {
            let _ = private_dir::create(dir);
        }
        if let Some(dir) = &requested
            && !config.allow_shared_spill_dir
        {
            refuse_shared(dir)?;
        }
        let granted = match &requested {
            Some(dir) if dir.is_dir() => Some(
                dir.canonicalize()
                    .with_context(|| format!("spill directory {}", dir.display()))
                    .map_err(Error::runtime)?,
            ),
            _ => None,
        };
        let display_root = match (config.display_root, &requested, &granted) {
            (Some(root), _, _) => root,
            (None, _, Some(dir)) => dir.to_string_lossy().into_owned(),
            (None, Some(missing), None) => std::path::absolute(missing)
                .with_context(|| format!("spill directory {}", missing.display()))
                .map_err(Error::runtime)?
                .to_string_lossy()
                .into_owned(),
            (None, None, None) => SPILL_GUEST_PATH.to_owned(),
        };
        let spill_dir = granted;
        let limits = tool_cap.limits();
        let key = if config.key.is_empty() {
            // Drawn here, not in the component, so that a recycled instance
            // gets the same key.
            Sandbox::new(None)?.random_bytes(RANDOM_KEY_BYTES)?
        } else {
            config.key
        };
        let settings = SessionSettings {
            thread_id: config.thread_id,
            spill_dir: SPILL_GUEST_PATH.to_owned(),
            display_root: display_root.clone(),
            key,
            read_tool: config.read_tool,
            shell_hints: config.shell_hints,
            notable_patterns: config.notable_patterns,
            image_tokens: config.image_tokens,
            audio_tokens: config.audio_tokens,
            token_scale: config.token_scale,
            retention_seconds: config.retention_seconds,
            redaction: config.redaction,
        };
        let grant = spill_dir.as_deref().map(|dir| (dir, perms));
        let (store, exports, resource) = open_instance(tool_cap, &limits, grant, &settings)?;
        let mut session = Self {
            resource: Some(resource),
            exports,
            store,
            tool_cap: tool_cap.clone(),
            limits,
            poisoned: None,
            settings,
            perms,
            recycled: 0,
            spill_dir,
            display_root,
        };
        // The thread folder too is the owner's only: the component would
        // create it with the process's default mode.
        if let Some(dir) = session.spill_dir.clone() {
            let folder = dir.join(session.thread_folder()?);
            if !config.read_only {
                let _ = private_dir::create(&folder);
            }
            if !config.allow_shared_spill_dir {
                refuse_shared(&folder)?;
            }
        }
        Ok(session)
    }

    /// The limits this session's calls run under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Changes the limits of this session's next calls, for example a longer
    /// deadline for one known-large output. Memory already grown stays.
    pub fn set_limits(&mut self, limits: Limits) {
        self.store.data_mut().memory.set_limit(limits.memory_bytes);
        self.limits = limits;
    }

    /// Bytes of linear memory the component holds now. Wasm memory never
    /// shrinks, so this is also the most it has used since its instance was
    /// last recycled: measure it to choose [`Limits::memory_bytes`].
    pub fn memory_size(&self) -> usize {
        self.store.data().memory.size()
    }

    /// How many times this session replaced its instance to give memory back
    /// (see [`RuntimeOptions::recycling`](crate::RuntimeOptions::recycling)).
    pub fn recycled(&self) -> u64 {
        self.recycled
    }

    /// Whether this session runs the optimizing compiler's code: false on
    /// the baseline of a tiered start until its first call once the
    /// optimized code is ready ([`crate::Start`]).
    pub fn is_optimized(&self) -> bool {
        self.tool_cap.is_optimized() && self.tool_cap.is_best(self.store.engine())
    }

    /// Whether an earlier call trapped, so that every call now fails: drop
    /// this session and open a new one.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// The prefix of every path in this session's notices.
    pub fn display_root(&self) -> &str {
        &self.display_root
    }

    /// The host directory granted as the spill directory (canonical), if any.
    pub fn spill_dir(&self) -> Option<&Path> {
        self.spill_dir.as_deref()
    }

    /// Where a spilled file of this thread lies on the host, for a host that
    /// reads it directly: `path` is a reference's `path` or a path the model
    /// wrote. `None` unless it is exactly `<display root>/<thread>/<file>`
    /// with this session's thread and a spill file name (the component's
    /// `relative-path` decides), or when no directory was granted. The
    /// answer is always inside [`Session::spill_dir`].
    pub fn host_path(&mut self, path: &str) -> Result<Option<PathBuf>, Error> {
        let relative = self.call(path.len(), |api, store, session| {
            api.call_relative_path(store, session, path).map(Ok)
        })?;
        let (Some(dir), Some(relative)) = (self.spill_dir.as_ref(), relative) else {
            return Ok(None);
        };
        Ok(inside(dir, &relative))
    }

    /// Fits one tool result to `budget`, spilling the full output if it is cut.
    ///
    /// `call` is the tool call it came from: its id names the spill file
    /// (a `&str` is a call with only an id), and a failed call (non-zero
    /// `exit_code` or `is_error`) is stated first in the notice.
    pub fn cap(
        &mut self,
        output: &str,
        budget: &Budget,
        call: impl Into<Call>,
    ) -> Result<Capped, Error> {
        let call = call.into();
        let input = output.len() + call_bytes(&call);
        self.call(input, |api, store, session| {
            api.call_cap(store, session, output, *budget, &call)
        })
    }

    /// Fits a structured (MCP-like) result: media parts pass through untouched.
    pub fn cap_parts(
        &mut self,
        parts: &[ContentPart],
        budget: &Budget,
        call: impl Into<Call>,
    ) -> Result<CappedParts, Error> {
        let call = call.into();
        let input = parts.iter().map(part_bytes).sum::<usize>() + call_bytes(&call);
        self.call(input, |api, store, session| {
            api.call_cap_parts(store, session, parts, *budget, &call)
        })
    }

    /// Fits an MCP `CallToolResult`, given as its JSON, to `budget`: the
    /// texts of its `text` and embedded `resource` blocks share the budget,
    /// every other block passes through byte for byte, and the notice is
    /// its own first `text` block (see the WIT's `cap-mcp`). A result that
    /// fits comes back as the very same string. `isError: true` marks the
    /// call failed. Input that is not a result object with a list of object
    /// blocks fails with [`CapError::InvalidArgument`].
    ///
    /// A result over 1 MiB whose largest text is sure to be cut (a `text`
    /// block's or an embedded resource's, over six times `max_bytes` as
    /// JSON) is handed over in pieces ([`Session::stream_mcp`]), with the
    /// same result: the component then holds what the preview needs, not
    /// the result, whatever its size. Any other result goes whole: the
    /// component then holds a copy of it.
    pub fn cap_mcp(
        &mut self,
        result: &str,
        budget: &Budget,
        call: impl Into<Call>,
        options: &McpOptions,
    ) -> Result<CappedMcp, Error> {
        let call = call.into();
        if let Some(lifted) = mcp_pieces::largest_text(result, budget) {
            match self.cap_mcp_in_pieces(&lifted, budget, &call, options) {
                // What the skeleton could not settle (texts that fit once
                // redacted) is settled by the whole result.
                Err(Error::Cap(CapError::InvalidArgument(_))) => {}
                answer => return answer,
            }
        }
        let input = result.len() + call_bytes(&call);
        self.call(input, |api, store, session| {
            api.call_cap_mcp(store, session, result, *budget, &call, *options)
        })
    }

    /// [`Session::cap_mcp`] of a result with its huge text lifted out.
    fn cap_mcp_in_pieces(
        &mut self,
        lifted: &mcp_pieces::Lifted<'_>,
        budget: &Budget,
        call: &Call,
        options: &McpOptions,
    ) -> Result<CappedMcp, Error> {
        let body_bytes = lifted.body.len() as u64;
        let mut stream = self.stream_mcp(
            &lifted.skeleton,
            lifted.block,
            body_bytes,
            budget,
            call.clone(),
            options,
        )?;
        for piece in mcp_pieces::pieces(lifted.body) {
            stream.write(piece)?;
        }
        stream.finish()
    }

    /// One budget per pending result of a turn, so that together they fit
    /// what the next request has left (max-min fair; see the WIT's `plan`).
    pub fn plan(
        &mut self,
        results: &[PendingResult],
        limits: &RequestLimits,
    ) -> Result<Vec<Budget>, Error> {
        let input = results.iter().map(pending_bytes).sum();
        self.call(input, |api, store, session| {
            api.call_plan(store, session, results, *limits)
        })
    }

    /// Plans and caps a whole turn: the results come back in order, each
    /// capped (and spilled) as [`Session::cap`] or [`Session::cap_parts`]
    /// would, together within every limit of `limits`.
    pub fn cap_batch(
        &mut self,
        results: &[(Call, PendingResult)],
        limits: &RequestLimits,
    ) -> Result<Vec<BatchResult>, Error> {
        let input = results
            .iter()
            .map(|(call, p)| call_bytes(call) + pending_bytes(p))
            .sum();
        self.call(input, |api, store, session| {
            api.call_cap_batch(store, session, results, *limits)
        })
    }

    /// The session's token estimate of `text` (calibrated by
    /// [`Session::calibrate`]).
    pub fn estimate_tokens(&mut self, text: &str) -> Result<u64, Error> {
        self.call(text.len(), |api, store, session| {
            api.call_estimate_tokens(store, session, text).map(Ok)
        })
    }

    /// Tells the estimator what a provider counted for `text`; returns the
    /// new scale, which a replacement instance (after recycling) starts
    /// from, and which [`SessionConfig::token_scale`] carries to a later
    /// session.
    pub fn calibrate(&mut self, text: &str, actual_tokens: u64) -> Result<f64, Error> {
        let scale = self.call(text.len(), |api, store, session| {
            api.call_calibrate(store, session, text, actual_tokens)
                .map(Ok)
        })?;
        self.settings.token_scale = Some(scale);
        Ok(scale)
    }

    /// Every genuine reference in `text`, in order; forged ones are skipped.
    pub fn find_refs(&mut self, text: &str) -> Result<Vec<OverflowRef>, Error> {
        self.call(text.len(), |api, store, session| {
            api.call_find_refs(store, session, text).map(Ok)
        })
    }

    /// The pruned placeholder for a genuine reference.
    pub fn pruned_placeholder(&mut self, reference: &OverflowRef) -> Result<String, Error> {
        let input = reference.path.len() + reference.digest.len() + reference.tag.len();
        self.call(input, |api, store, session| {
            api.call_pruned_placeholder(store, session, reference)
        })
    }

    /// A page of a spilled file by bytes, from `offset`.
    pub fn read(&mut self, path: &str, offset: u64, max_bytes: u32) -> Result<Page, Error> {
        self.call(path.len(), |api, store, session| {
            api.call_read(store, session, path, offset, max_bytes)
        })
    }

    /// A page of `count` lines of a spilled file, from 1-based `first_line`.
    pub fn read_lines(
        &mut self,
        path: &str,
        first_line: u64,
        count: u32,
        max_bytes: u32,
    ) -> Result<Page, Error> {
        self.call(path.len(), |api, store, session| {
            api.call_read_lines(store, session, path, first_line, count, max_bytes)
        })
    }

    /// The first `max_matches` occurrences of the literal `pattern` in a spilled file.
    pub fn grep(
        &mut self,
        path: &str,
        pattern: &str,
        max_matches: u32,
    ) -> Result<GrepResult, Error> {
        self.call(path.len() + pattern.len(), |api, store, session| {
            api.call_grep(store, session, path, pattern, max_matches)
        })
    }

    /// Replaces stale tool message bodies (oldest first) by placeholders or markers.
    pub fn prune(&mut self, messages: &[String], policy: &PrunePolicy) -> Result<Pruned, Error> {
        let input = messages.iter().map(String::len).sum();
        self.call(input, |api, store, session| {
            api.call_prune(store, session, messages, *policy)
        })
    }

    /// Deletes this thread's spill folder; returns the bytes of content freed.
    pub fn purge(&mut self) -> Result<u64, Error> {
        self.call(0, |api, store, session| api.call_purge(store, session))
    }

    /// This thread's folder name inside the spill directory.
    pub fn thread_folder(&mut self) -> Result<String, Error> {
        self.call(0, |api, store, session| {
            api.call_thread_folder(store, session).map(Ok)
        })
    }

    /// The model-facing read tool (name, description, JSON Schema of its
    /// arguments), to register with the model as it is.
    pub fn read_tool(&mut self) -> Result<ReadToolSpec, Error> {
        self.call(0, |api, store, session| {
            api.call_read_tool(store, session).map(Ok)
        })
    }

    /// Runs one call of the read tool from the JSON arguments the model
    /// sent (its `path`: the notice's path, the notice text, the file's
    /// name alone, the path's `file://` URI as `resource_link` blocks give
    /// it, or a Markdown link to it). A model mistake is `is_error` with a sentence, never an `Err`;
    /// give the text to the model as it is, never capped again.
    pub fn run_read_tool(&mut self, arguments: &str) -> Result<ReadToolOutput, Error> {
        self.call(arguments.len(), |api, store, session| {
            api.call_run_read_tool(store, session, arguments).map(Ok)
        })
    }

    /// This thread's spilled outputs, oldest first, each with a genuine
    /// reference: name them to the model again after compacting.
    pub fn list(&mut self) -> Result<Vec<SpillEntry>, Error> {
        self.call(0, |api, store, session| api.call_list(store, session))
    }

    /// Drops a resource of this instance (a finished or abandoned stream),
    /// then recycles the instance if it grew large.
    pub(crate) fn release(&mut self, resource: ResourceAny) {
        if self.poisoned.is_none()
            && let Ok(_running) = self.tool_cap.arm(&mut self.store, &self.limits)
        {
            let _ = resource.resource_drop(&mut self.store);
        }
        self.recycle_if_large();
    }

    /// Calls one of the `session` resource's functions, whose arguments hold
    /// `input_bytes`; a `cap-error` becomes [`Error::Cap`].
    fn call<R>(
        &mut self,
        input_bytes: usize,
        call: impl FnOnce(
            GuestSession<'_>,
            &mut Store<Sandbox>,
            ResourceAny,
        ) -> wasmtime::Result<Result<R, CapError>>,
    ) -> Result<R, Error> {
        self.move_to_best();
        let session = self.resource.expect("present until drop");
        let answer = self.enter(input_bytes, |exports, store| {
            call(
                exports.toolcap_tool_output_cap_capper().session(),
                store,
                session,
            )
        })?;
        self.recycle_if_large();
        Ok(answer?)
    }

    /// Replaces the instance by a fresh one if the call just made left it
    /// larger than the runtime's recycling threshold, or if it runs the
    /// baseline code and the optimized code is ready ([`crate::Start`]).
    /// Best effort: if no fresh instance can be had (a full instance pool),
    /// the session keeps the old one, which still works, and tries again
    /// after its next call.
    fn recycle_if_large(&mut self) {
        let large = self.tool_cap.recycling().wants(self.memory_size());
        if large || !self.tool_cap.is_best(self.store.engine()) {
            self.renew(large);
        }
    }

    /// Moves to the optimized code before a call, when it became ready
    /// since the last: the call then runs on it, and the baseline's code
    /// is freed once no store runs it. Best effort, as recycling is.
    pub(crate) fn move_to_best(&mut self) {
        if !self.tool_cap.is_best(self.store.engine()) {
            self.renew(false);
        }
    }

    /// A fresh instance in place of this one (counted as recycled when the
    /// old grew `large`); if none can be had, the old one stays.
    fn renew(&mut self, large: bool) {
        let grant = self.spill_dir.as_deref().map(|dir| (dir, self.perms));
        let fresh = open_instance(&self.tool_cap, &self.limits, grant, &self.settings);
        let Ok((store, exports, resource)) = fresh else {
            return;
        };
        let old_store = std::mem::replace(&mut self.store, store);
        self.exports = exports;
        let old_resource = self.resource.replace(resource);
        close_instance(&self.tool_cap, &self.limits, old_store, old_resource);
        self.recycled += u64::from(large);
    }

    /// Enters the instance once, under the session's limits: refuses an input
    /// the memory limit cannot hold, and poisons the session if the call traps.
    /// Never recycles: a stream's calls come here directly, since the stream
    /// lives in this instance.
    pub(crate) fn enter<R>(
        &mut self,
        input_bytes: usize,
        call: impl FnOnce(&ToolOutputCap, &mut Store<Sandbox>) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned {
                reason: why.clone(),
            });
        }
        self.store.data().memory.check_input(input_bytes as u64)?;
        let running = self.tool_cap.arm(&mut self.store, &self.limits)?;
        let result = call(&self.exports, &mut self.store);
        drop(running);
        result.map_err(|trap| {
            let err = self.store.data().memory.explain(trap, &self.limits);
            self.poisoned = Some(gist(&err));
            err
        })
    }
}

/// A fresh store and instance with this grant and these limits, and the
/// `session` resource opened in it with `settings`: the first instance of a
/// session and every replacement are made the same way.
fn open_instance(
    tool_cap: &ToolCap,
    limits: &Limits,
    grant: Option<(&Path, FsPerms)>,
    settings: &SessionSettings,
) -> Result<(Store<Sandbox>, ToolOutputCap, ResourceAny), Error> {
    let (mut store, exports) = tool_cap.instantiate(Sandbox::new(grant)?, limits)?;
    store
        .data()
        .memory
        .check_input(settings_bytes(settings) as u64)?;
    let running = tool_cap.arm(&mut store, limits)?;
    let opened = exports
        .toolcap_tool_output_cap_capper()
        .session()
        .call_open(&mut store, settings);
    drop(running);
    let opened = opened.map_err(|err| store.data().memory.explain(err, limits));
    Ok((store, exports, opened??))
}

/// `dir` joined with `relative` if that is exactly two plain names
/// (`<thread>/<file>`): a second check, so that no answer of the component
/// can lead out of the granted directory.
fn inside(dir: &Path, relative: &str) -> Option<PathBuf> {
    use std::path::Component;
    let parts: Vec<_> = Path::new(relative).components().collect();
    let plain = parts.len() == 2
        && parts
            .iter()
            .all(|part| matches!(part, Component::Normal(_)));
    (plain && !relative.contains('\\')).then(|| dir.join(relative))
}

/// The gist of why a call failed: the limit it hit or the trap it raised,
/// without the wasm backtrace.
fn gist(err: &Error) -> String {
    let message = match err {
        Error::Runtime(err) => err.root_cause(),
        Error::LimitExceeded(limit) => limit.to_string(),
        _ => err.to_string(),
    };
    message.lines().next().unwrap_or_default().to_owned()
}

/// Bytes a call record puts into the component's memory.
pub(crate) fn call_bytes(call: &Call) -> usize {
    call.id.len() + call.tool.as_ref().map_or(0, String::len)
}

/// Bytes a content part puts into the component's memory.
fn part_bytes(part: &ContentPart) -> usize {
    let media = |m: &Media| m.data.len() + m.mime_type.len();
    match part {
        ContentPart::Text(text) | ContentPart::Other(text) => text.len(),
        ContentPart::Image(m) | ContentPart::Audio(m) => media(m),
        ContentPart::Resource(EmbeddedResource {
            uri,
            mime_type,
            text,
            blob,
        }) => {
            uri.len()
                + mime_type.as_ref().map_or(0, String::len)
                + text.as_ref().map_or(0, String::len)
                + blob.as_ref().map_or(0, String::len)
        }
    }
}

/// Bytes a pending result puts into the component's memory.
fn pending_bytes(p: &PendingResult) -> usize {
    match p {
        PendingResult::Text(text) => text.len(),
        PendingResult::Parts(parts) => parts.iter().map(part_bytes).sum(),
    }
}

/// Bytes the `open` settings put into the component's memory.
fn settings_bytes(settings: &SessionSettings) -> usize {
    settings.thread_id.len()
        + settings.display_root.len()
        + settings.key.len()
        + settings.read_tool.as_ref().map_or(0, String::len)
        + settings
            .redaction
            .as_ref()
            .map_or(0, |r| r.literals.iter().map(String::len).sum::<usize>())
        + settings
            .notable_patterns
            .iter()
            .map(String::len)
            .sum::<usize>()
}

/// Runs the guest's destructor of `resource`, under `limits`, then frees the
/// store. Errors are moot: the store goes either way.
fn close_instance(
    tool_cap: &ToolCap,
    limits: &Limits,
    mut store: Store<Sandbox>,
    resource: Option<ResourceAny>,
) {
    if let Some(resource) = resource
        && let Ok(_running) = tool_cap.arm(&mut store, limits)
    {
        let _ = resource.resource_drop(&mut store);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Runs the guest's destructor, under the session's limits. A poisoned
        // instance refuses to be entered; the store is freed either way.
        if let Some(resource) = self.resource.take()
            && self.poisoned.is_none()
            && let Ok(_running) = self.tool_cap.arm(&mut self.store, &self.limits)
        {
            let _ = resource.resource_drop(&mut self.store);
        }
    }
}
