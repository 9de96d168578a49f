//! The proxy's component session: caps `tools/call` results with each
//! tool's budget, and runs the read tool.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use tool_output_cap::{
    Budget, Call, Error, OverflowRef, Session, SessionConfig, ToolCap,
    types::{McpOptions, Page, ReadToolOutput},
};

use super::{message, spill_uri};
use crate::config::{BudgetTable, ToolTable};
use crate::events::{self, EventLog};
use crate::log;
use crate::settings;
use crate::spills::{self, Listed};

/// How each tool's results are treated.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The budget of tools without their own.
    pub default_budget: Budget,
    pub default_table: BudgetTable,
    /// Tools with their own budget or switch (config file and `--tool-budget`).
    pub tools: BTreeMap<String, ToolTable>,
    /// Forward every result untouched.
    pub passthrough: bool,
    pub resource_link: bool,
    /// Secrets are redacted: a tool that passes through is still redacted
    /// (under a budget of 0, which cuts nothing).
    pub redact: bool,
    /// The `tools/call` argument keys a call's search is taken from.
    pub search_keys: Vec<String>,
}

impl Policy {
    /// The budget for `tool`'s results; `None` when they pass untouched.
    pub fn budget(&self, tool: &str) -> Option<Budget> {
        let passthrough = self.tools.get(tool).map_or(self.passthrough, |own| {
            own.passthrough.unwrap_or(self.passthrough)
        });
        if passthrough {
            // Nothing is cut; with redaction on, secrets are still replaced.
            return self.redact.then_some(Budget {
                max_bytes: 0,
                ..self.default_budget
            });
        }
        let Some(own) = self.tools.get(tool) else {
            return Some(self.default_budget);
        };
        let table = BudgetTable {
            max_bytes: own.max_bytes,
            max_lines: own.max_lines,
            max_tokens: own.max_tokens,
        };
        Some(settings::budget(&table, &self.default_table))
    }

    /// The argument keys `tool`'s calls give their search from: none for
    /// a tool with `search = false`.
    pub fn search_keys(&self, tool: &str) -> &[String] {
        match self.tools.get(tool).and_then(|own| own.search) {
            Some(false) => &[],
            _ => &self.search_keys,
        }
    }

    /// Every budget in use, each with whose it is, to check them at start.
    pub fn budgets(&self) -> Vec<(String, Budget)> {
        let mut all = vec![("the default budget".to_owned(), self.default_budget)];
        for tool in self.tools.keys() {
            if let Some(budget) = self.budget(tool) {
                all.push((format!("the budget of tool `{tool}`"), budget));
            }
        }
        all
    }
}

/// What capping did to a result.
#[derive(Debug)]
pub enum Capping {
    /// It goes to the client as it came: it fits, or the tool passes through.
    Unchanged,
    /// The capped result's JSON.
    Capped(String),
    /// Capping failed; why.
    Failed(String),
}

pub struct Capper {
    tool_cap: ToolCap,
    config: SessionConfig,
    session: Session,
    policy: Policy,
    events: EventLog,
}

impl Capper {
    pub fn open(
        tool_cap: ToolCap,
        config: SessionConfig,
        policy: Policy,
        events: EventLog,
    ) -> Result<Self, Error> {
        let session = tool_cap.open_session(config.clone())?;
        Ok(Self {
            tool_cap,
            config,
            session,
            policy,
            events,
        })
    }

    /// Whether every budget is one the component accepts; if not, which and why.
    pub fn check_budgets(&mut self) -> Result<(), String> {
        for (whose, budget) in self.policy.budgets() {
            if let Err(e) = self.session.stream(&budget, "budget-check") {
                return Err(format!("{whose} cannot be used: {e}"));
            }
        }
        Ok(())
    }

    /// Whether `tool`'s results may be cut (it does not pass through; one
    /// that passes through only to be redacted is never cut).
    pub fn caps(&self, tool: &str) -> bool {
        self.cap_bytes(tool).is_some()
    }

    /// The byte budget of `tool`'s results, when they may be cut.
    pub fn cap_bytes(&self, tool: &str) -> Option<u32> {
        self.policy
            .budget(tool)
            .map(|b| b.max_bytes)
            .filter(|&bytes| bytes > 0)
    }

    /// What a call of `tool` with `arguments` searched for, when its
    /// results may be cut (a preview can then show the first hits).
    pub fn search_of(&self, tool: &str, arguments: Option<&RawValue>) -> Option<String> {
        if !self.caps(tool) {
            return None;
        }
        crate::search::arguments::search_of(arguments?, self.policy.search_keys(tool))
    }

    /// The read tool's `tools/list` entry.
    pub fn read_tool_entry(&mut self) -> Result<String, String> {
        let spec = self
            .session
            .read_tool()
            .map_err(|e| format!("cannot describe the read tool: {e}"))?;
        super::answers::read_tool_entry(&spec)
    }

    /// `result` (a `CallToolResult`'s JSON) of `tool`'s call `call_id`,
    /// which searched for `search`, capped to the tool's budget. A failure
    /// is logged.
    pub fn cap(
        &mut self,
        result: &str,
        tool: &str,
        call_id: String,
        search: Option<String>,
    ) -> Capping {
        let capping = self.cap_quietly(result, tool, call_id.clone(), search);
        if let Capping::Failed(why) = &capping {
            log::line(&format!(
                "could not cap the result of `{tool}` (call {call_id}): {why}"
            ));
        }
        capping
    }

    /// [`Capper::cap`] without logging a failure, for a caller that then
    /// tries the result another way.
    pub fn cap_quietly(
        &mut self,
        result: &str,
        tool: &str,
        call_id: String,
        search: Option<String>,
    ) -> Capping {
        let Some(budget) = self.policy.budget(tool) else {
            return Capping::Unchanged;
        };
        let call = Call {
            search,
            id: call_id,
            tool: Some(tool.to_owned()),
            exit_code: None,
            is_error: false,
        };
        let options = McpOptions {
            resource_link: self.policy.resource_link,
        };
        match self
            .session
            .cap_mcp(result, &budget, call.clone(), &options)
        {
            Ok(capped) if capped.result == result => Capping::Unchanged,
            Ok(capped) => {
                let result = if self.policy.resource_link {
                    self.link_resources(capped.result)
                } else {
                    capped.result
                };
                self.events.capped(&events::Capped {
                    tool,
                    call_id: &call.id,
                    report: &capped.report,
                    sent_bytes: result.len() as u64,
                });
                Capping::Capped(result)
            }
            Err(e) => {
                self.renew_if_poisoned();
                Capping::Failed(e.to_string())
            }
        }
    }

    /// Whether `text` is within `tool`'s budget as it is (or the tool
    /// passes through): what may reach the client uncapped.
    pub fn within_budget(&mut self, tool: &str, text: &str) -> bool {
        match self.policy.budget(tool) {
            Some(budget) => self.within(&budget, text),
            None => true,
        }
    }

    /// Whether `text` is within the default budget: the bound for messages
    /// the proxy cannot attribute to a tool.
    pub fn within_default_budget(&mut self, text: &str) -> bool {
        let budget = self.policy.default_budget;
        self.within(&budget, text)
    }

    /// Whether `text` keeps every limit of `budget` without capping.
    fn within(&mut self, budget: &Budget, text: &str) -> bool {
        if budget.max_bytes == 0 {
            return true;
        }
        let lines = || memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64 + 1;
        text.len() as u64 <= u64::from(budget.max_bytes)
            && budget.max_lines.is_none_or(|l| lines() <= u64::from(l))
            && budget.max_tokens.is_none_or(|t| {
                self.session
                    .estimate_tokens(text)
                    .is_ok_and(|n| n <= u64::from(t))
            })
    }

    /// Runs the read tool; its text goes to the model as it is, never capped.
    /// A `path` that is a spill's `toolcap://spill/` URI reads that spill.
    pub fn read_tool(&mut self, arguments: &str) -> ReadToolOutput {
        let arguments = self.spill_uri_as_path(arguments);
        match self.session.run_read_tool(&arguments) {
            Ok(output) => output,
            Err(e) => {
                self.renew_if_poisoned();
                ReadToolOutput {
                    text: format!("The read tool failed inside the proxy: {e}"),
                    is_error: true,
                }
            }
        }
    }

    /// `arguments` with a `path` that is a spill URI (the name a client
    /// shows for a capped result's `resource_link`) written as the path it
    /// names; any other arguments as they are.
    fn spill_uri_as_path<'a>(&self, arguments: &'a str) -> Cow<'a, str> {
        let path = serde_json::from_str::<serde_json::Value>(arguments)
            .ok()
            .and_then(|args| args.get("path")?.as_str().map(str::to_owned))
            .and_then(|path| spill_uri::display_path_of(&path, self.session.display_root()));
        let rewritten = path.and_then(|path| {
            let value = serde_json::Value::String(path).to_string();
            message::replace_member(arguments, "path", &value)
        });
        rewritten.map_or(Cow::Borrowed(arguments), Cow::Owned)
    }

    /// A capped result whose `resource_link` blocks to its spills name
    /// their `toolcap://spill/` resource, which every client can read
    /// through the proxy, instead of a `file://` URI only a client on this
    /// machine could open. The references are the genuine ones it holds.
    fn link_resources(&mut self, result: String) -> String {
        let refs = self.session.find_refs(&result).unwrap_or_default();
        spill_uri::link_resources(&result, &refs).unwrap_or(result)
    }

    /// This thread's saved outputs, oldest first, with their expiry.
    pub fn spills(&mut self) -> Result<Vec<Listed>, String> {
        let Some(dir) = self.config.spill_dir.clone() else {
            return Ok(Vec::new());
        };
        let listed = spills::listed(&mut self.session, &dir);
        if listed.is_err() {
            self.renew_if_poisoned();
        }
        listed.map_err(|e| e.to_string())
    }

    /// Whether the session was granted its spill directory.
    pub fn has_spill_dir(&self) -> bool {
        self.session.spill_dir().is_some()
    }

    /// The spill directory as references name it.
    pub fn display_root(&self) -> String {
        self.session.display_root().to_owned()
    }

    /// The bytes of a saved output one `resources/read` page holds: the
    /// default budget, so a page is never more than a capped result may
    /// be, within 4 KiB and 1 MiB (64 KiB when the default cuts nothing).
    pub fn page_bytes(&self) -> u32 {
        match self.policy.default_budget.max_bytes {
            0 => 64 << 10,
            bytes => bytes.clamp(4 << 10, 1 << 20),
        }
    }

    /// The pruned placeholder of `reference`, which holds its reference
    /// token; fails with `invalid-argument` unless the reference is genuine.
    pub fn placeholder(&mut self, reference: &OverflowRef) -> Result<String, Error> {
        let placeholder = self.session.pruned_placeholder(reference);
        if placeholder.is_err() {
            self.renew_if_poisoned();
        }
        placeholder
    }

    /// A page of the saved output `path`, as the model would be shown it
    /// (redacted when the session redacts).
    pub fn read_page(&mut self, path: &str, offset: u64, max_bytes: u32) -> Result<Page, Error> {
        let page = self.session.read(path, offset, max_bytes);
        if page.is_err() {
            self.renew_if_poisoned();
        }
        page
    }

    /// A call that trapped leaves the session unusable: open a fresh one
    /// (same key and folder, so references stay valid).
    fn renew_if_poisoned(&mut self) {
        if !self.session.is_poisoned() {
            return;
        }
        match self.tool_cap.open_session(self.config.clone()) {
            Ok(session) => self.session = session,
            Err(e) => log::line(&format!("cannot open a fresh session: {e}")),
        }
    }
}
