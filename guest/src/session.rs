//! The `session` resource: one thread's capper and spill folder.

use std::cell::RefCell;
use std::rc::Rc;

use toolcap_core::readback::RedactedFile;
use toolcap_core::{Capper, RefScheme, batch, read_tool, readback};

use crate::bindings::exports::toolcap::tool_output_cap::capper::{self, GuestSession};
use crate::bindings::toolcap::tool_output_cap::types;
use crate::convert::{self, CapResult};
use crate::listing;
use crate::session_state::Inner;
use crate::spill_dir::{SpillDir, SpillFile};

/// Bytes of a random key drawn when the host gives none.
const RANDOM_KEY_BYTES: u64 = 32;

/// State behind one `session` handle, shared with its streams.
pub struct Session {
    inner: Rc<Inner>,
}

impl std::ops::Deref for Session {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.inner
    }
}

impl GuestSession for Session {
    fn open(mut settings: types::SessionSettings) -> CapResult<capper::Session> {
        let preview = convert::settings(&settings);
        let key = if settings.key.is_empty() {
            wasi::random::random::get_random_bytes(RANDOM_KEY_BYTES)
        } else {
            std::mem::take(&mut settings.key)
        };
        let scheme = RefScheme::new(&settings.display_root, &settings.thread_id, key)
            .map_err(convert::error)?;
        let mut capper = Capper::with_settings(scheme, preview).map_err(convert::error)?;
        if let Some(scale) = settings.token_scale {
            capper.set_token_scale(scale);
        }
        let session = Session {
            inner: Rc::new(Inner {
                capper: RefCell::new(capper),
                spill: SpillDir::find(&settings.spill_dir),
                checked: RefCell::default(),
            }),
        };
        Ok(capper::Session::new(session))
    }

    fn cap(
        &self,
        output: String,
        budget: types::Budget,
        call: types::Call,
    ) -> CapResult<types::Capped> {
        let budget = convert::budget(budget);
        self.capper
            .borrow()
            .cap_owned(output, &budget, &convert::call(call), &mut self.store())
            .map(convert::capped)
            .map_err(convert::error)
    }

    fn cap_parts(
        &self,
        parts: Vec<types::ContentPart>,
        budget: types::Budget,
        call: types::Call,
    ) -> CapResult<types::CappedParts> {
        let parts = parts.into_iter().map(convert::part_in).collect();
        let budget = convert::budget(budget);
        let call = convert::call(call);
        toolcap_core::cap_parts(
            &self.capper.borrow(),
            parts,
            &budget,
            &call,
            &mut self.store(),
        )
        .map(convert::capped_parts)
        .map_err(convert::error)
    }

    fn cap_mcp(
        &self,
        result: String,
        budget: types::Budget,
        call: types::Call,
        options: types::McpOptions,
    ) -> CapResult<types::CappedMcp> {
        toolcap_core::cap_mcp(
            &self.capper.borrow(),
            result,
            &convert::budget(budget),
            &convert::call(call),
            convert::mcp_options(options),
            &mut self.store(),
        )
        .map(convert::capped_mcp)
        .map_err(convert::error)
    }

    fn stream_mcp(
        &self,
        skeleton: String,
        block: u32,
        raw_bytes: u64,
        budget: types::Budget,
        call: types::Call,
        options: types::McpOptions,
    ) -> CapResult<capper::McpStream> {
        let start = crate::mcp_stream::Start {
            skeleton,
            block,
            raw_bytes,
            budget: convert::budget(budget),
            call: convert::call(call),
            options: convert::mcp_options(options),
        };
        crate::mcp_stream::Streamed::start(Rc::clone(&self.inner), start)
            .map(capper::McpStream::new)
    }

    fn plan(
        &self,
        results: Vec<types::PendingResult>,
        limits: types::RequestLimits,
    ) -> CapResult<Vec<types::Budget>> {
        let pending: Vec<_> = results.into_iter().map(convert::pending).collect();
        batch::plan_turn(
            &self.capper.borrow(),
            &pending,
            &convert::request_limits(limits),
        )
        .map(|budgets| budgets.into_iter().map(convert::budget_out).collect())
        .map_err(convert::error)
    }

    fn cap_batch(
        &self,
        results: Vec<(types::Call, types::PendingResult)>,
        limits: types::RequestLimits,
    ) -> CapResult<Vec<types::BatchResult>> {
        let turn: Vec<_> = results
            .into_iter()
            .map(|(call, p)| (convert::call(call), convert::pending(p)))
            .collect();
        batch::cap_batch(
            &self.capper.borrow(),
            &turn,
            &convert::request_limits(limits),
            &mut self.store(),
        )
        .map(|out| out.into_iter().map(convert::batch_result).collect())
        .map_err(convert::error)
    }

    fn estimate_tokens(&self, text: String) -> u64 {
        self.capper.borrow().estimator().estimate(&text)
    }

    fn calibrate(&self, text: String, actual_tokens: u64) -> f64 {
        self.capper.borrow_mut().calibrate(&text, actual_tokens)
    }

    fn find_refs(&self, text: String) -> Vec<types::OverflowRef> {
        self.capper
            .borrow()
            .scheme()
            .find_refs(&text)
            .into_iter()
            .map(convert::overflow_ref)
            .collect()
    }

    fn pruned_placeholder(&self, r: types::OverflowRef) -> CapResult<String> {
        self.capper
            .borrow()
            .scheme()
            .placeholder(&convert::overflow_ref_in(r))
            .map_err(convert::error)
    }

    fn relative_path(&self, path: String) -> Option<String> {
        self.capper.borrow().scheme().relative_path(&path)
    }

    fn read(&self, path: String, offset: u64, max_bytes: u32) -> CapResult<types::Page> {
        let mut file = self.open_shown(&path).map_err(convert::error)?;
        readback::read_page(&mut file, offset, max_bytes)
            .map(convert::page)
            .map_err(convert::error)
    }

    fn read_lines(
        &self,
        path: String,
        first_line: u64,
        count: u32,
        max_bytes: u32,
    ) -> CapResult<types::Page> {
        let mut file = self.open_shown(&path).map_err(convert::error)?;
        readback::read_lines(&mut file, first_line, count, max_bytes)
            .map(convert::page)
            .map_err(convert::error)
    }

    fn grep(
        &self,
        path: String,
        pattern: String,
        max_matches: u32,
    ) -> CapResult<types::GrepResult> {
        let mut file = self.open_shown(&path).map_err(convert::error)?;
        readback::grep(&mut file, &pattern, max_matches)
            .map(convert::grep_result)
            .map_err(convert::error)
    }

    fn prune(&self, messages: Vec<String>, policy: types::PrunePolicy) -> CapResult<types::Pruned> {
        let capper = self.capper.borrow();
        Ok(convert::pruned(toolcap_core::prune(
            capper.scheme(),
            &messages,
            convert::prune_policy(policy),
            capper.estimator(),
        )))
    }

    fn purge(&self) -> CapResult<u64> {
        self.spill
            .purge(self.capper.borrow().scheme().thread_dir())
            .map_err(convert::error)
    }

    fn thread_folder(&self) -> String {
        self.capper.borrow().scheme().thread_dir().to_owned()
    }

    fn read_tool(&self) -> types::ReadToolSpec {
        let capper = self.capper.borrow();
        let name = capper
            .settings()
            .notice
            .read_tool
            .as_deref()
            .unwrap_or(read_tool::DEFAULT_TOOL_NAME);
        convert::read_tool_spec(read_tool::spec(name))
    }

    fn run_read_tool(&self, arguments: String) -> types::ReadToolOutput {
        let mut files = SessionFiles {
            inner: &self.inner,
            capper: self.capper.borrow(),
        };
        convert::read_tool_output(read_tool::run(&arguments, &mut files))
    }

    fn list(&self) -> CapResult<Vec<types::SpillEntry>> {
        let capper = self.capper.borrow();
        let scheme = capper.scheme();
        let dir = match self.spill.thread_dir(scheme.thread_dir(), false) {
            Ok(dir) => dir,
            Err(toolcap_core::CapError::NotFound(_)) => return Ok(Vec::new()),
            Err(e) => return Err(convert::error(e)),
        };
        let shown = |mut e: listing::Entry| {
            // The model may be shown the list: its texts are redacted too.
            if let Some(r) = capper.redactor() {
                e.call_id = r.redact(&e.call_id).0.into_owned();
                e.tool = e.tool.map(|t| r.redact(&t).0.into_owned());
            }
            convert::spill_entry(e)
        };
        listing::catalog(&dir, scheme)
            .map(|entries| entries.into_iter().map(shown).collect())
            .map_err(convert::error)
    }

    fn stream(&self, budget: types::Budget, call: types::Call) -> CapResult<capper::CapStream> {
        crate::stream::Stream::start(Rc::clone(&self.inner), budget, call)
            .map(capper::CapStream::new)
    }
}

/// The read tool's view of this thread's spills.
struct SessionFiles<'a> {
    inner: &'a Inner,
    capper: std::cell::Ref<'a, Capper>,
}

impl read_tool::SpillFiles for SessionFiles<'_> {
    type File = RedactedFile<SpillFile>;

    fn scheme(&self) -> &RefScheme {
        self.capper.scheme()
    }

    fn open(&mut self, path: &str) -> Result<Self::File, toolcap_core::CapError> {
        let file = self.inner.open(path)?;
        RedactedFile::new(file, self.capper.redactor())
    }

    fn was_checked(&mut self, path: &str, bytes: u64) -> bool {
        self.inner
            .checked
            .borrow()
            .contains(&(path.to_owned(), bytes))
    }

    fn mark_checked(&mut self, path: &str, bytes: u64) {
        self.inner
            .checked
            .borrow_mut()
            .insert((path.to_owned(), bytes));
    }
}
