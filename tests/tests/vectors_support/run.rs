//! Running one vector through the real component: a fresh temp dir, one
//! session, its steps in order.

use std::collections::HashMap;

use tool_output_cap::{
    Budget, Call, OverflowRef,
    types::{BatchResult, ContentPart, McpOptions, PendingResult},
};

use super::check::Checker;
use super::convert;
use super::format::{
    CalibrateStep, CapBatchStep, CapExpect, CapMcpStep, CapPartsStep, CapStep, ClassifyStep,
    EstimateStep, FindRefsStep, GrepStep, HostPathStep, ListStep, PageExpect, PendingSpec,
    PlaceholderStep, PlanStep, Preopen, PruneStep, PurgeStep, ReadLinesStep, ReadStep,
    ReadToolStep, RunReadToolStep, StatsStep, Step, StreamStep, SweepStep, TextExpect, Vector,
};
use super::host::Host;
use super::inputs::{Recorded, build, substitute};
use super::invariants::{self, CapView, Disk, MediaCosts};
use super::mcp;
use crate::common::tree;

/// What running a vector found.
#[derive(Debug, Default)]
pub struct Report {
    /// One line per failed check, naming the file and step.
    pub failures: Vec<String>,
    /// True when BLESS rewrote an expectation of the vector.
    pub blessed: bool,
}

/// Runs `vector` (from `file`, for messages) in `host`. With `bless`, exact
/// expectations that differ are rewritten in `vector` instead of failing.
pub fn run_vector(host: &mut dyn Host, file: &str, vector: &mut Vector, bless: bool) -> Report {
    let mut report = Report::default();
    let dir = tempfile::tempdir().expect("a temp dir");
    if let Err(why) = host.open(&vector.session, dir.path()) {
        report
            .failures
            .push(format!("{file}: cannot open the session: {why}"));
        host.close();
        return report;
    }
    let has_dir = vector.session.preopen != Some(Preopen::None);
    let mut runner = Runner {
        costs: MediaCosts {
            image: vector.session.image_tokens.map_or(1600, u64::from),
            audio: vector.session.audio_tokens.map_or(1000, u64::from),
        },
        session: host,
        dir: has_dir.then(|| dir.path().to_owned()),
        calls: HashMap::new(),
        refs: HashMap::new(),
        // Only a session that redacts its spills keeps literals off the disk
        // (`spill: false` saves the output as it was).
        literals: vector
            .session
            .redaction
            .as_ref()
            .filter(|r| r.spill)
            .map(|r| r.literals.clone())
            .unwrap_or_default(),
    };
    for (index, step) in vector.steps.iter_mut().enumerate() {
        let label = format!("{file} step {index} ({})", step.op());
        let mut chk = Checker::new(label, &mut report.failures, bless);
        if let Err(why) = runner.step(&mut chk, step) {
            chk.fail(format!("bad vector: {why}"));
        }
        report.blessed |= chk.blessed;
        if chk.trapped {
            chk.fail("the component trapped; the remaining steps were not run");
            break;
        }
    }
    runner.session.close();
    report
}

struct Runner<'h> {
    /// The host the vector runs in (named for what it serves: one session).
    session: &'h mut dyn Host,
    /// The session's token costs of image and audio parts.
    costs: MediaCosts,
    /// The host directory granted as the preopen, if any.
    dir: Option<std::path::PathBuf>,
    /// Earlier cap steps by call id, for `$spill:` and `$capped:`.
    calls: HashMap<String, Recorded>,
    /// Their spill references, for `pruned-placeholder`.
    refs: HashMap<String, OverflowRef>,
    /// The redaction literals of a session that redacts spills: no spill
    /// file may hold one.
    literals: Vec<String>,
}

impl Runner<'_> {
    fn step(&mut self, chk: &mut Checker<'_>, step: &mut Step) -> Result<(), String> {
        match step {
            Step::Cap(s) => self.cap(chk, s),
            Step::CapParts(s) => self.cap_parts(chk, s),
            Step::CapMcp(s) => self.cap_mcp(chk, s),
            Step::FindRefs(s) => self.find_refs(chk, s),
            Step::PrunedPlaceholder(s) => self.placeholder(chk, s),
            Step::Read(s) => self.read(chk, s),
            Step::ReadLines(s) => self.read_lines(chk, s),
            Step::Grep(s) => self.grep(chk, s),
            Step::Prune(s) => self.prune(chk, s),
            Step::Purge(s) => self.purge(chk, s),
            Step::Classify(s) => self.classify(chk, s),
            Step::HostPath(s) => self.host_path(chk, s),
            Step::EstimateTokens(s) => self.estimate(chk, s),
            Step::Calibrate(s) => self.calibrate(chk, s),
            Step::Plan(s) => self.plan(chk, s),
            Step::CapBatch(s) => self.cap_batch(chk, s),
            Step::Stream(s) => self.stream(chk, s),
            Step::ReadTool(s) => self.read_tool(chk, s),
            Step::RunReadTool(s) => self.run_read_tool(chk, s),
            Step::List(s) => self.list(chk, s),
            Step::Sweep(s) => self.sweep(chk, s),
            Step::Stats(s) => self.stats(chk, s),
        }
    }

    fn disk(&self) -> Disk {
        Disk {
            root: self.dir.clone(),
            before: self.dir.as_deref().map(tree).unwrap_or_default(),
        }
    }

    fn cap(&mut self, chk: &mut Checker<'_>, s: &mut CapStep) -> Result<(), String> {
        if s.expect.parts.is_some() {
            return Err("`parts` is an expectation of cap-parts only".into());
        }
        let input = build(&s.input)?;
        let budget = convert::budget(&s.budget);
        let disk = self.disk();
        let call = super::format::call_of(&s.call_id, &s.call)?;
        let result = self.session.cap(&input, &budget, convert::call(&call));
        let Some(capped) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        let view = CapView::from(capped);
        invariants::check_cap(chk, &mut *self.session, &disk, &input, &budget, &view);
        invariants::check_tokens(chk, &mut *self.session, &input, 0, &budget, &view);
        self.check_capped(chk, &mut s.expect, &view)?;
        self.record(&call.id, &view);
        Ok(())
    }

    fn cap_parts(&mut self, chk: &mut Checker<'_>, s: &mut CapPartsStep) -> Result<(), String> {
        let parts = s
            .parts
            .iter()
            .map(convert::part)
            .collect::<Result<Vec<ContentPart>, String>>()?;
        let joined = invariants::joined_text(&parts);
        let budget = convert::budget(&s.budget);
        let disk = self.disk();
        let call = super::format::call_of(&s.call_id, &s.call)?;
        let result = self
            .session
            .cap_parts(&parts, &budget, convert::call(&call));
        let Some(capped) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        let view = CapView::from(&capped);
        invariants::check_cap(chk, &mut *self.session, &disk, &joined, &budget, &view);
        let (fixed, _) = invariants::fixed_cost(&mut *self.session, self.costs, &parts);
        invariants::check_tokens(chk, &mut *self.session, &joined, fixed, &budget, &view);
        invariants::check_parts(chk, &parts, &capped);
        self.check_capped(chk, &mut s.expect, &view)?;
        let got_parts = capped.parts.iter().map(convert::part_spec).collect();
        chk.exact("parts", &mut s.expect.parts, &got_parts);
        self.record(&call.id, &view);
        Ok(())
    }

    fn cap_mcp(&mut self, chk: &mut Checker<'_>, s: &mut CapMcpStep) -> Result<(), String> {
        let sent = mcp::input_of(&s.result)?;
        let budget = convert::budget(&s.budget);
        let disk = self.disk();
        let call = super::format::call_of(&s.call_id, &s.call)?;
        let resource_link = s.options.is_some_and(|o| o.resource_link);
        let options = McpOptions { resource_link };
        let result = self
            .session
            .cap_mcp(&sent.text, &budget, convert::call(&call), &options);
        let Some(capped) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        let Some(output) = mcp::check_invariants(
            chk,
            &mut *self.session,
            &disk,
            &sent,
            &budget,
            resource_link,
            &capped,
        ) else {
            return Ok(());
        };
        // Recorded first: the expectations may name this step's spills.
        // `$spill:<id>` names the text's spill, `$spill:<id>-structured` the
        // structured content's; `$capped:` the notice block.
        let notice = mcp::output_text(&output);
        for (id, spill) in [
            (call.id.clone(), capped.report.spill.clone()),
            (
                format!("{}-structured", call.id),
                capped.structured_spill.clone(),
            ),
        ] {
            self.calls.insert(
                id.clone(),
                Recorded {
                    spill_path: spill.as_ref().map(|r| r.path.clone()),
                    text: notice.clone(),
                },
            );
            match spill {
                Some(r) => self.refs.insert(id, r),
                None => self.refs.remove(&id),
            };
        }
        let text_contains = self.resolve_all(&s.expect.text_contains)?;
        let text_not_contains = self.resolve_all(&s.expect.text_not_contains)?;
        let notice_contains = self.resolve_all(&s.expect.notice_contains)?;
        let meta_record = match &s.expect.meta_record {
            Some(Some(v)) => Some(Some(self.resolve_json(v)?)),
            other => other.clone(),
        };
        mcp::check_expect(
            chk,
            &mut s.expect,
            &sent.text,
            sent.value.as_ref(),
            &capped,
            &output,
            (&text_contains, &text_not_contains),
            &notice_contains,
            &meta_record,
        );
        Ok(())
    }

    fn record(&mut self, call_id: &str, view: &CapView) {
        self.calls.insert(
            call_id.to_owned(),
            Recorded {
                spill_path: view.spill.as_ref().map(|r| r.path.clone()),
                text: view.text.clone(),
            },
        );
        match &view.spill {
            Some(r) => self.refs.insert(call_id.to_owned(), r.clone()),
            None => self.refs.remove(call_id),
        };
    }

    fn resolve(&self, text: &str) -> Result<String, String> {
        let host_dir = self
            .dir
            .as_deref()
            .map(|dir| dir.canonicalize().expect("the temp dir exists"));
        let host_dir = host_dir.as_deref().map(|dir| dir.to_string_lossy());
        substitute(text, &self.calls, host_dir.as_deref())
    }

    fn resolve_json(&self, value: &serde_json::Value) -> Result<serde_json::Value, String> {
        use serde_json::Value;
        Ok(match value {
            Value::String(text) => Value::String(self.resolve(text)?),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.resolve_json(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.resolve_json(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    fn resolve_all(&self, texts: &Option<Vec<String>>) -> Result<Vec<String>, String> {
        texts.iter().flatten().map(|t| self.resolve(t)).collect()
    }

    fn find_refs(&mut self, chk: &mut Checker<'_>, s: &mut FindRefsStep) -> Result<(), String> {
        let text = self.resolve(&build(&s.text)?)?;
        let want_paths = s
            .expect
            .paths
            .as_ref()
            .map(|paths| paths.iter().map(|p| self.resolve(p)).collect())
            .transpose()?;
        let Some(refs) = chk.outcome(None, self.session.find_refs(&text)) else {
            return Ok(());
        };
        chk.exact("count", &mut s.expect.count, &(refs.len() as u64));
        let paths: Vec<String> = refs.into_iter().map(|r| r.path).collect();
        chk.fixed("paths", want_paths.as_ref(), &paths);
        Ok(())
    }

    fn placeholder(
        &mut self,
        chk: &mut Checker<'_>,
        s: &mut PlaceholderStep,
    ) -> Result<(), String> {
        let mut reference = self
            .refs
            .get(&s.call_id)
            .cloned()
            .ok_or_else(|| format!("call {:?} has no spill reference", s.call_id))?;
        if let Some(t) = &s.tamper {
            if let Some(path) = &t.path {
                reference.path = self.resolve(path)?;
            }
            if let Some(digest) = &t.digest {
                reference.digest = digest.clone();
            }
            if let Some(tag) = &t.tag {
                reference.tag = tag.clone();
            }
            reference.bytes = t.bytes.unwrap_or(reference.bytes);
            reference.lines = t.lines.unwrap_or(reference.lines);
        }
        let result = self.session.pruned_placeholder(&reference);
        if let Some(text) = chk.outcome(s.expect.error.as_deref(), result) {
            self.check_text(chk, &mut s.expect, &text)?;
            let found = self.session.find_refs(&text).unwrap_or_default();
            let want = [invariants::ref_key(&reference)];
            let keys: Vec<_> = found.iter().map(invariants::ref_key).collect();
            chk.ensure(keys == want, || {
                format!("find-refs of the placeholder found {found:?}, not {reference:?}")
            });
        }
        Ok(())
    }

    fn check_text(
        &self,
        chk: &mut Checker<'_>,
        expect: &mut TextExpect,
        got: &str,
    ) -> Result<(), String> {
        let contains = self.resolve_all(&expect.text_contains)?;
        let not_contains = self.resolve_all(&expect.text_not_contains)?;
        chk.substrings(&contains, &not_contains, got);
        chk.text("text", &mut expect.text, got);
        Ok(())
    }

    fn read(&mut self, chk: &mut Checker<'_>, s: &mut ReadStep) -> Result<(), String> {
        let path = self.resolve(&s.path)?;
        let result = self.session.read(&path, s.offset, s.max_bytes);
        if let Some(page) = chk.outcome(s.expect.error.as_deref(), result) {
            chk.ensure(page.text.len() <= s.max_bytes as usize, || {
                format!(
                    "the page has {} bytes, over {}",
                    page.text.len(),
                    s.max_bytes
                )
            });
            self.check_page(chk, &mut s.expect, &page)?;
        }
        Ok(())
    }

    fn read_lines(&mut self, chk: &mut Checker<'_>, s: &mut ReadLinesStep) -> Result<(), String> {
        let path = self.resolve(&s.path)?;
        let result = self
            .session
            .read_lines(&path, s.first_line, s.count, s.max_bytes);
        if let Some(page) = chk.outcome(s.expect.error.as_deref(), result) {
            let lines = page.text.split_inclusive('\n').count();
            chk.ensure(
                page.text.len() <= s.max_bytes as usize && lines <= s.count as usize,
                || {
                    format!(
                        "the page exceeds {} lines or {} bytes",
                        s.count, s.max_bytes
                    )
                },
            );
            self.check_page(chk, &mut s.expect, &page)?;
        }
        Ok(())
    }

    fn check_page(
        &self,
        chk: &mut Checker<'_>,
        e: &mut PageExpect,
        page: &tool_output_cap::types::Page,
    ) -> Result<(), String> {
        chk.exact("offset", &mut e.offset, &page.offset);
        chk.exact("first_line", &mut e.first_line, &page.first_line);
        chk.exact("next_offset", &mut e.next_offset, &page.next_offset);
        chk.exact("next_line", &mut e.next_line, &page.next_line);
        chk.exact("total_bytes", &mut e.total_bytes, &page.total_bytes);
        let contains = self.resolve_all(&e.text_contains)?;
        let not_contains = self.resolve_all(&e.text_not_contains)?;
        chk.substrings(&contains, &not_contains, &page.text);
        chk.text("text", &mut e.text, &page.text);
        Ok(())
    }

    fn grep(&mut self, chk: &mut Checker<'_>, s: &mut GrepStep) -> Result<(), String> {
        let path = self.resolve(&s.path)?;
        let result = self.session.grep(&path, &s.pattern, s.max_matches);
        let Some(found) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        chk.ensure(found.matches.len() <= s.max_matches as usize, || {
            format!("{} matches, over max_matches", found.matches.len())
        });
        chk.exact(
            "total_matches",
            &mut s.expect.total_matches,
            &found.total_matches,
        );
        let Some(want) = &mut s.expect.matches else {
            return Ok(());
        };
        if want.len() != found.matches.len() {
            chk.fail(format!(
                "matches: expected {} entries, got {}: {:?}",
                want.len(),
                found.matches.len(),
                found.matches
            ));
            return Ok(());
        }
        for (i, (w, g)) in want.iter_mut().zip(&found.matches).enumerate() {
            chk.exact(&format!("matches[{i}].line"), &mut w.line, &g.line);
            chk.exact(&format!("matches[{i}].offset"), &mut w.offset, &g.offset);
            chk.text(&format!("matches[{i}].excerpt"), &mut w.excerpt, &g.excerpt);
            chk.exact(
                &format!("matches[{i}].excerpt_offset"),
                &mut w.excerpt_offset,
                &g.excerpt_offset,
            );
        }
        Ok(())
    }

    fn prune(&mut self, chk: &mut Checker<'_>, s: &mut PruneStep) -> Result<(), String> {
        let messages = s
            .messages
            .iter()
            .map(|m| build(m).and_then(|text| self.resolve(&text)))
            .collect::<Result<Vec<String>, String>>()?;
        let result = self.session.prune(&messages, &convert::policy(&s.policy));
        let Some(pruned) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        invariants::check_prune(chk, &mut *self.session, &messages, &pruned);
        let e = &mut s.expect;
        chk.exact("replaced", &mut e.replaced, &pruned.replaced);
        chk.exact("bytes_saved", &mut e.bytes_saved, &pruned.bytes_saved);
        chk.exact("total_bytes", &mut e.total_bytes, &pruned.total_bytes);
        chk.exact("total_tokens", &mut e.total_tokens, &pruned.total_tokens);
        chk.exact("messages", &mut e.messages, &pruned.messages);
        Ok(())
    }

    fn purge(&mut self, chk: &mut Checker<'_>, s: &mut PurgeStep) -> Result<(), String> {
        let result = self.session.purge();
        if let Some(freed) = chk.outcome(s.expect.error.as_deref(), result) {
            chk.exact("freed", &mut s.expect.freed, &freed);
        }
        Ok(())
    }

    fn classify(&mut self, chk: &mut Checker<'_>, s: &mut ClassifyStep) -> Result<(), String> {
        let body = build(&s.body)?;
        if let Some(overflow) = chk.outcome(None, self.session.classify(s.status, &body)) {
            let e = &s.expect;
            chk.fixed(
                "kind",
                e.kind.as_ref(),
                &overflow.as_ref().map(|o| convert::kind(o.kind)),
            );
            let (limit, requested, unit) = match &overflow {
                Some(o) => (o.limit, o.requested, o.unit.map(convert::unit)),
                None => (None, None, None),
            };
            chk.fixed("limit", e.limit.as_ref(), &limit);
            chk.fixed("requested", e.requested.as_ref(), &requested);
            chk.fixed("unit", e.unit.as_ref(), &unit);
        }
        Ok(())
    }

    fn host_path(&mut self, chk: &mut Checker<'_>, s: &mut HostPathStep) -> Result<(), String> {
        let path = self.resolve(&s.path)?;
        let Some(mapped) = chk.outcome(None, self.session.host_path(&path)) else {
            return Ok(());
        };
        let granted = self.session.spill_dir();
        let expected = match (&s.expect.relative, granted) {
            (Some(Some(relative)), Some(dir)) => Some(dir.join(relative)),
            (Some(Some(_)), None) => {
                return Err("a mapping is expected but no dir was granted".into());
            }
            (Some(None), _) => None,
            (None, _) => return Err("`relative` is required".into()),
        };
        chk.ensure(mapped == expected, || {
            format!("host_path({path:?}) is {mapped:?}, expected {expected:?}")
        });
        Ok(())
    }

    fn estimate(&mut self, chk: &mut Checker<'_>, s: &mut EstimateStep) -> Result<(), String> {
        let text = build(&s.text)?;
        if let Some(tokens) = chk.outcome(None, self.session.estimate_tokens(&text)) {
            chk.exact("tokens", &mut s.expect.tokens, &tokens);
        }
        Ok(())
    }

    fn calibrate(&mut self, chk: &mut Checker<'_>, s: &mut CalibrateStep) -> Result<(), String> {
        let text = build(&s.text)?;
        let result = self.session.calibrate(&text, s.actual_tokens);
        if let Some(scale) = chk.outcome(None, result) {
            chk.ensure((0.5..=2.0).contains(&scale), || {
                format!("scale {scale} is outside 0.5..=2")
            });
            if let Some(want) = s.expect.scale {
                chk.ensure((scale - want).abs() < 1e-9, || {
                    format!("scale: expected {want}, got {scale}")
                });
            }
        }
        Ok(())
    }

    fn plan(&mut self, chk: &mut Checker<'_>, s: &mut PlanStep) -> Result<(), String> {
        let results = s
            .results
            .iter()
            .map(|p| {
                if p.call_id.is_some() || p.call.is_some() {
                    return Err("a plan result has no call".to_owned());
                }
                convert::pending(p)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let limits = convert::limits(&s.limits);
        let result = self.session.plan(&results, &limits);
        let Some(budgets) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        chk.ensure(budgets.len() == results.len(), || {
            format!("{} budgets for {} results", budgets.len(), results.len())
        });
        let specs: Vec<_> = budgets.iter().map(convert::budget_spec).collect();
        chk.exact("budgets", &mut s.expect.budgets, &specs);
        // Every budget is one the session accepts: the empty text fits any
        // valid budget, so capping it checks the budget and writes nothing.
        for (i, budget) in budgets.iter().enumerate() {
            if let Err(err) = self.session.cap("", budget, "plan-check".into()) {
                chk.fail(format!("budget {i} is refused by cap: {err}"));
            }
        }
        Ok(())
    }

    fn cap_batch(&mut self, chk: &mut Checker<'_>, s: &mut CapBatchStep) -> Result<(), String> {
        let turn = s
            .results
            .iter()
            .map(|p: &PendingSpec| {
                let call = super::format::call_of(&p.call_id, &p.call)?;
                Ok((convert::call(&call), convert::pending(p)?))
            })
            .collect::<Result<Vec<(Call, PendingResult)>, String>>()?;
        let limits = convert::limits(&s.limits);
        let disk = self.disk();
        let result = self.session.cap_batch(&turn, &limits);
        let Some(out) = chk.outcome(s.expect.error.as_deref(), result) else {
            return Ok(());
        };
        if out.len() != turn.len() {
            chk.fail(format!("{} results for {} pending", out.len(), turn.len()));
            return Ok(());
        }
        if let Some(want) = &s.expect.results
            && want.len() != out.len()
        {
            return Err(format!(
                "{} expectations for {} results",
                want.len(),
                out.len()
            ));
        }
        // Each result may add its own spill file; the others' are expected.
        let spilled: Vec<std::path::PathBuf> = out
            .iter()
            .filter_map(|r| match r {
                BatchResult::Text(c) => c.report.spill.clone(),
                BatchResult::Parts(c) => c.report.spill.clone(),
            })
            .filter_map(|r| {
                let file = self.session.host_path(&r.path).ok().flatten()?;
                let root = self.dir.as_deref()?.canonicalize().ok()?;
                file.strip_prefix(root).ok().map(std::path::Path::to_owned)
            })
            .collect();
        let (mut tokens, mut body) = (0u64, 0u64);
        for (i, ((call, pending), got)) in turn.iter().zip(&out).enumerate() {
            let (view, input, fixed) = match (pending, got) {
                (PendingResult::Text(t), BatchResult::Text(c)) => {
                    body += invariants::json_string_len(&c.text);
                    (CapView::from(c.clone()), t.clone(), 0)
                }
                (PendingResult::Parts(p), BatchResult::Parts(c)) => {
                    body += invariants::parts_body(&mut *self.session, self.costs, &c.parts);
                    invariants::check_parts(chk, p, c);
                    let (fixed, _) = invariants::fixed_cost(&mut *self.session, self.costs, p);
                    (CapView::from(c), invariants::joined_text(p), fixed)
                }
                _ => {
                    chk.fail(format!("result {i} is not of the kind given"));
                    continue;
                }
            };
            tokens += u64::from(view.tokens);
            // Each result is a cap under a budget within the ceiling: its own
            // accounting, spill file and reference hold as for `cap`.
            let unbounded = Budget {
                max_bytes: 0,
                ..limits.ceiling
            };
            invariants::check_tokens(chk, &mut *self.session, &input, fixed, &unbounded, &view);
            let own = view
                .spill
                .as_ref()
                .and_then(|r| self.session.host_path(&r.path).ok().flatten());
            let others = Disk {
                root: disk.root.clone(),
                before: disk
                    .before
                    .iter()
                    .cloned()
                    .chain(
                        spilled
                            .iter()
                            .filter(|p| own.as_ref().is_none_or(|o| !o.ends_with(p)))
                            .flat_map(|p| [p.clone(), invariants::catalog_note(p)]),
                    )
                    .collect(),
            };
            invariants::check_batch_result(
                chk,
                &mut *self.session,
                &others,
                &input,
                &limits.ceiling,
                &view,
            );
            if let Some(want) = s.expect.results.as_mut() {
                self.check_capped(chk, &mut want[i], &view)?;
            }
            self.record(&call.id, &view);
        }
        if let Some(max) = limits.max_tokens {
            chk.ensure(tokens <= max, || {
                format!("the results take {tokens} tokens, over max_tokens {max}")
            });
        }
        if let Some(max) = limits.max_body_bytes {
            chk.ensure(body <= max, || {
                format!("the results take {body} body bytes, over max_body_bytes {max}")
            });
        }
        Ok(())
    }

    /// The expectations of `cap` and `cap-parts` on their shared accounting.
    fn check_capped(
        &self,
        chk: &mut Checker<'_>,
        e: &mut CapExpect,
        got: &CapView,
    ) -> Result<(), String> {
        chk.fixed("truncated", e.truncated.as_ref(), &got.truncated);
        chk.fixed("spilled", e.spilled.as_ref(), &got.spill.is_some());
        chk.exact("original_bytes", &mut e.original_bytes, &got.original_bytes);
        chk.exact("original_lines", &mut e.original_lines, &got.original_lines);
        chk.exact("omitted_bytes", &mut e.omitted_bytes, &got.omitted_bytes);
        chk.exact("omitted_lines", &mut e.omitted_lines, &got.omitted_lines);
        chk.exact("gap_line", &mut e.gap_line, &got.gap_line);
        chk.exact("notable_lines", &mut e.notable_lines, &got.notable_lines);
        chk.exact("folded_lines", &mut e.folded_lines, &got.folded_lines);
        chk.exact(
            "original_tokens",
            &mut e.original_tokens,
            &got.original_tokens,
        );
        chk.exact("tokens", &mut e.tokens, &got.tokens);
        if let Some(needle) = &e.spill_error_contains {
            match &got.spill_error {
                Some(error) => chk.ensure(error.contains(needle.as_str()), || {
                    format!("spill_error {error:?} does not contain {needle:?}")
                }),
                None => chk.fail(format!(
                    "expected a spill_error containing {needle:?}, got none"
                )),
            }
        }
        // `$spill:`/`$capped:` name earlier steps, as in every other op.
        let contains = self.resolve_all(&e.text_contains)?;
        let not_contains = self.resolve_all(&e.text_not_contains)?;
        chk.substrings(&contains, &not_contains, &got.text);
        chk.text("text", &mut e.text, &got.text);
        let redactions: std::collections::BTreeMap<String, u32> =
            got.redactions.iter().cloned().collect();
        chk.exact("redactions", &mut e.redactions, &redactions);
        self.check_spill_text(chk, e, got)?;
        Ok(())
    }

    /// A redacted spill holds none of the literals, and `spill_text` when given.
    fn check_spill_text(
        &self,
        chk: &mut Checker<'_>,
        e: &CapExpect,
        got: &CapView,
    ) -> Result<(), String> {
        let (Some(dir), Some(spill)) = (&self.dir, &got.spill) else {
            return Ok(());
        };
        let bytes = std::fs::read(dir.join(&spill.relative_path)).map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&bytes);
        if !got.redactions.is_empty() {
            for literal in &self.literals {
                chk.ensure(!text.contains(literal.as_str()), || {
                    format!("the spill file holds the literal {literal:?}")
                });
            }
        }
        if let Some(want) = &e.spill_text {
            let want = build(want)?;
            chk.ensure(text == want, || {
                format!(
                    "the spill file is not spill_text: {}",
                    super::check::excerpt(&text)
                )
            });
        }
        Ok(())
    }

    fn stream(&mut self, chk: &mut Checker<'_>, s: &mut StreamStep) -> Result<(), String> {
        if s.chunk_bytes.is_empty() || s.chunk_bytes.contains(&0) {
            return Err("chunk_bytes needs sizes of at least 1".into());
        }
        let input = build(&s.input)?;
        let budget = convert::budget(&s.budget);
        let disk = self.disk();
        let call = super::format::call_of(&s.call_id, &s.call)?;
        let streamed = self.session.stream(
            &input,
            &s.chunk_bytes,
            s.exit_code_at_end,
            &budget,
            convert::call(&call),
        );
        let Some((capped, written)) = chk.outcome(s.expect.error.as_deref(), streamed) else {
            return Ok(());
        };
        chk.ensure(written == input.len() as u64, || {
            format!("bytes-written is {written} after {} bytes", input.len())
        });
        // The call as it ended: what the stream was told last.
        let mut ended = convert::call(&call);
        if let Some(code) = s.exit_code_at_end {
            ended.exit_code = Some(code);
        }
        let whole = self.session.cap(&input, &budget, ended);
        match &whole {
            Ok(whole) => chk.ensure(*whole == capped, || {
                format!(
                    "the stream's result differs from cap's: {} / {}",
                    super::check::excerpt(&capped.text),
                    super::check::excerpt(&whole.text)
                )
            }),
            Err(err) => chk.fail(format!("cap of the same input failed: {err}")),
        }
        let view = CapView::from(capped);
        invariants::check_cap(chk, &mut *self.session, &disk, &input, &budget, &view);
        invariants::check_tokens(chk, &mut *self.session, &input, 0, &budget, &view);
        self.check_capped(chk, &mut s.expect, &view)?;
        self.record(&call.id, &view);
        Ok(())
    }

    fn read_tool(&mut self, chk: &mut Checker<'_>, s: &mut ReadToolStep) -> Result<(), String> {
        let Some(spec) = chk.outcome(None, self.session.read_tool()) else {
            return Ok(());
        };
        chk.exact("name", &mut s.expect.name, &spec.name);
        for needle in s.expect.description_contains.iter().flatten() {
            chk.ensure(spec.description.contains(needle.as_str()), || {
                format!("the description does not contain {needle:?}")
            });
        }
        let schema: serde_json::Value = match serde_json::from_str(&spec.input_schema) {
            Ok(schema) => schema,
            Err(err) => {
                chk.fail(format!("the input schema is not JSON: {err}"));
                return Ok(());
            }
        };
        let mut properties: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        properties.sort();
        if let Some(want) = &s.expect.schema_properties {
            let mut want = want.clone();
            want.sort();
            chk.fixed("schema_properties", Some(&want), &properties);
        }
        Ok(())
    }

    fn run_read_tool(
        &mut self,
        chk: &mut Checker<'_>,
        s: &mut RunReadToolStep,
    ) -> Result<(), String> {
        // `$spill:`/`$capped:` inside each string of the JSON value, so a
        // text with line breaks stays a valid JSON string.
        let arguments = match &s.arguments {
            serde_json::Value::String(raw) => self.resolve(raw)?,
            value => self.resolve_json(value)?.to_string(),
        };
        let Some(out) = chk.outcome(None, self.session.run_read_tool(&arguments)) else {
            return Ok(());
        };
        chk.fixed("is_error", s.expect.is_error.as_ref(), &out.is_error);
        let contains = self.resolve_all(&s.expect.text_contains)?;
        let not_contains = self.resolve_all(&s.expect.text_not_contains)?;
        chk.substrings(&contains, &not_contains, &out.text);
        chk.text("text", &mut s.expect.text, &out.text);
        Ok(())
    }

    fn list(&mut self, chk: &mut Checker<'_>, s: &mut ListStep) -> Result<(), String> {
        let Some(entries) = chk.outcome(s.expect.error.as_deref(), self.session.list()) else {
            return Ok(());
        };
        for entry in &entries {
            let placeholder = self.session.pruned_placeholder(&entry.reference);
            let found = placeholder
                .and_then(|p| self.session.find_refs(&p))
                .map_err(|e| e.to_string());
            chk.ensure(
                found.as_deref() == Ok(std::slice::from_ref(&entry.reference)),
                || {
                    format!(
                        "the catalog's reference is not genuine: {:?}",
                        entry.reference
                    )
                },
            );
        }
        if let Some(want) = &s.expect.entries {
            chk.ensure(want.len() == entries.len(), || {
                format!("{} entries, expected {}", entries.len(), want.len())
            });
            for (w, got) in want.iter().zip(&entries) {
                chk.fixed("call_id", w.call_id.as_ref(), &got.call_id);
                chk.fixed("tool", w.tool.as_ref(), &got.tool);
                chk.fixed("bytes", w.bytes.as_ref(), &got.reference.bytes);
                chk.fixed("lines", w.lines.as_ref(), &got.reference.lines);
                chk.fixed(
                    "relative_path",
                    w.relative_path.as_ref(),
                    &got.reference.relative_path,
                );
                chk.fixed("digest", w.digest.as_ref(), &got.reference.digest);
            }
        }
        Ok(())
    }

    fn store_dir(&self) -> Result<std::path::PathBuf, String> {
        self.dir
            .clone()
            .ok_or_else(|| "sweep and stats need a preopen".into())
    }

    fn sweep(&mut self, chk: &mut Checker<'_>, s: &mut SweepStep) -> Result<(), String> {
        let policy = tool_output_cap::types::RetentionPolicy {
            max_age_seconds: s.policy.max_age_seconds,
            max_total_bytes: s.policy.max_total_bytes,
            max_files: s.policy.max_files,
        };
        let dir = self.store_dir()?;
        let swept = self.session.sweep(&dir, &policy);
        let Some(report) = chk.outcome(s.expect.error.as_deref(), swept) else {
            return Ok(());
        };
        if let Some(want) = &s.expect.deleted {
            chk.ensure(want.len() == report.deleted.len(), || {
                format!(
                    "deleted {:?}, expected {} files",
                    report.deleted,
                    want.len()
                )
            });
            for (w, got) in want.iter().zip(&report.deleted) {
                chk.fixed(
                    "relative_path",
                    w.relative_path.as_ref(),
                    &got.relative_path,
                );
                chk.fixed("bytes", w.bytes.as_ref(), &got.bytes);
                let reason = convert::sweep_reason(got.reason).to_owned();
                chk.fixed("reason", w.reason.as_ref(), &reason);
            }
        }
        chk.fixed(
            "kept_files",
            s.expect.kept_files.as_ref(),
            &report.kept_files,
        );
        chk.fixed(
            "kept_bytes",
            s.expect.kept_bytes.as_ref(),
            &report.kept_bytes,
        );
        for needle in s.expect.skipped_contains.iter().flatten() {
            chk.ensure(
                report.skipped.iter().any(|k| k.contains(needle.as_str())),
                || format!("no skipped entry contains {needle:?}: {:?}", report.skipped),
            );
        }
        Ok(())
    }

    fn stats(&mut self, chk: &mut Checker<'_>, s: &mut StatsStep) -> Result<(), String> {
        let dir = self.store_dir()?;
        let Some(stats) = chk.outcome(None, self.session.stats(&dir)) else {
            return Ok(());
        };
        chk.fixed("threads", s.expect.threads.as_ref(), &stats.threads);
        chk.fixed("files", s.expect.files.as_ref(), &stats.files);
        chk.fixed("bytes", s.expect.bytes.as_ref(), &stats.bytes);
        Ok(())
    }
}
