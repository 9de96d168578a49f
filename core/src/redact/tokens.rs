//! Tokens of a fixed format, found by their prefix: the whole token is the
//! secret.

use super::class::{alnum, b64url, ends_word, run, starts_word};
use super::{Span, kind};

/// A fixed token format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    /// `AKIA` + 16 of `[A-Z0-9]`.
    Aws,
    /// `AIza` + 35 of `[A-Za-z0-9_-]`.
    Google,
    /// `ghp_` + 36 or more letters and digits.
    Github,
    /// `github_pat_` + 82 or more of `[A-Za-z0-9_]`.
    GithubPat,
    /// `glpat-` + 20 or more of `[A-Za-z0-9_-]`.
    Gitlab,
    /// `sk-`: OpenAI or Anthropic.
    Sk,
    /// `xoxb-` + 20 or more of `[A-Za-z0-9-]`, with a digit.
    Slack,
    /// `hooks.slack.com/services/` + `T…/B…/…`: the path is the secret.
    SlackHook,
    /// `eyJ…` `.eyJ…` `.…`: a JSON Web Token.
    Jwt,
    /// `sk_live_`, `rk_test_`… + 20 or more letters and digits.
    Stripe,
    /// `hf_` + 34 or more letters and digits.
    HuggingFace,
    /// `npm_` + 36 letters and digits.
    Npm,
    /// `pypi-AgEIcHlwaS5vcmc` (a pypi.org macaroon) + 50 or more of
    /// `[A-Za-z0-9_-]`.
    Pypi,
    /// `dckr_pat_` + 27 or more of `[A-Za-z0-9_-]`.
    Docker,
    /// `gsk_` + 52 letters and digits.
    Groq,
    /// `xai-` + 80 or more of `[A-Za-z0-9_]`.
    Xai,
    /// `dop_v1_` (`doo_`, `dor_`) + 64 hex digits.
    DigitalOcean,
}

/// Every prefix, with its format. Matched case-sensitively.
pub(super) const PREFIXES: &[(&str, Token)] = &[
    // AWS unique-id prefixes of keys that can sign requests, and of the ids
    // that often sit beside them (users, roles, groups...).
    ("AKIA", Token::Aws),
    ("ASIA", Token::Aws),
    ("AGPA", Token::Aws),
    ("AIDA", Token::Aws),
    ("AROA", Token::Aws),
    ("AIPA", Token::Aws),
    ("ANPA", Token::Aws),
    ("ANVA", Token::Aws),
    ("APKA", Token::Aws),
    ("ABIA", Token::Aws),
    ("ACCA", Token::Aws),
    ("AIza", Token::Google),
    ("ghp_", Token::Github),
    ("gho_", Token::Github),
    ("ghu_", Token::Github),
    ("ghs_", Token::Github),
    ("ghr_", Token::Github),
    ("github_pat_", Token::GithubPat),
    ("glpat-", Token::Gitlab),
    ("gldt-", Token::Gitlab),
    ("glrt-", Token::Gitlab),
    ("glptt-", Token::Gitlab),
    ("glcbt-", Token::Gitlab),
    ("sk-", Token::Sk),
    ("xoxb-", Token::Slack),
    ("xoxp-", Token::Slack),
    ("xoxa-", Token::Slack),
    ("xoxr-", Token::Slack),
    ("xoxs-", Token::Slack),
    ("xoxe-", Token::Slack),
    ("xapp-", Token::Slack),
    ("hooks.slack.com/services/", Token::SlackHook),
    ("eyJ", Token::Jwt),
    // Keys an agent's tools often hold (MCP server configs, `.env` files,
    // command lines echoed in logs): their formats, as the vendors publish
    // them and secret scanners (gitleaks) match them.
    ("sk_live_", Token::Stripe),
    ("sk_test_", Token::Stripe),
    ("rk_live_", Token::Stripe),
    ("rk_test_", Token::Stripe),
    ("hf_", Token::HuggingFace),
    ("npm_", Token::Npm),
    ("pypi-AgEIcHlwaS5vcmc", Token::Pypi),
    ("pypi-AgENdGVzdC5weXBpLm9yZw", Token::Pypi),
    ("dckr_pat_", Token::Docker),
    ("gsk_", Token::Groq),
    ("xai-", Token::Xai),
    ("dop_v1_", Token::DigitalOcean),
    ("doo_v1_", Token::DigitalOcean),
    ("dor_v1_", Token::DigitalOcean),
];

/// The token of format `t` whose prefix is `unit[start..body]`, if valid.
pub(super) fn detect(t: Token, unit: &str, start: usize, body: usize) -> Option<Span> {
    let b = unit.as_bytes();
    if t != Token::SlackHook && !starts_word(b, start) {
        return None;
    }
    let (end, kind) = match t {
        Token::Aws => (
            exact(b, body, 16, |c| {
                c.is_ascii_uppercase() || c.is_ascii_digit()
            })?,
            kind::AWS_ACCESS_KEY,
        ),
        Token::Google => (exact(b, body, 35, b64url)?, kind::GOOGLE_API_KEY),
        Token::Github => (at_least(b, body, 36, alnum)?, kind::GITHUB_TOKEN),
        Token::GithubPat => (
            at_least(b, body, 82, |c| alnum(c) || c == b'_')?,
            kind::GITHUB_TOKEN,
        ),
        Token::Gitlab => (at_least(b, body, 20, b64url)?, kind::GITLAB_TOKEN),
        Token::Sk => sk(b, body)?,
        Token::Slack => {
            let end = at_least(b, body, 20, |c| alnum(c) || c == b'-')?;
            b[body..end].iter().any(u8::is_ascii_digit).then_some(())?;
            (end, kind::SLACK_TOKEN)
        }
        Token::SlackHook => return slack_hook(b, body),
        Token::Jwt => (jwt(b, start)?, kind::JWT),
        Token::Stripe => (at_least(b, body, 20, alnum)?, kind::STRIPE_KEY),
        Token::HuggingFace => (at_least(b, body, 34, alnum)?, kind::HUGGINGFACE_TOKEN),
        Token::Npm => (exact(b, body, 36, alnum)?, kind::NPM_TOKEN),
        Token::Pypi => (at_least(b, body, 50, b64url)?, kind::PYPI_TOKEN),
        Token::Docker => (at_least(b, body, 27, b64url)?, kind::DOCKER_TOKEN),
        Token::Groq => (exact(b, body, 52, alnum)?, kind::GROQ_KEY),
        Token::Xai => (
            at_least(b, body, 80, |c| alnum(c) || c == b'_')?,
            kind::XAI_KEY,
        ),
        Token::DigitalOcean => (exact(b, body, 64, lower_hex)?, kind::DIGITALOCEAN_TOKEN),
    };
    ends_word(b, end).then_some(Span { start, end, kind })
}

/// End of a run of exactly `n` bytes of `class` from `from`.
fn exact(b: &[u8], from: usize, n: usize, class: fn(u8) -> bool) -> Option<usize> {
    let end = run(b, from, class);
    (end - from == n).then_some(end)
}

/// End of a run of at least `n` bytes of `class` from `from`.
fn at_least(b: &[u8], from: usize, n: usize, class: fn(u8) -> bool) -> Option<usize> {
    let end = run(b, from, class);
    (end - from >= n).then_some(end)
}

/// Digits and `a-f`.
fn lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}

/// After `sk-`: `ant-api03-…` (Anthropic), `or-v1-` and 64 hex digits
/// (OpenRouter), `proj-…`, `svcacct-…`, `admin-…` or 48 letters and digits
/// (OpenAI).
fn sk(b: &[u8], body: usize) -> Option<(usize, &'static str)> {
    let rest = &b[body..];
    if rest.starts_with(b"or-v1-") {
        return Some((exact(b, body + 6, 64, lower_hex)?, kind::OPENROUTER_KEY));
    }
    if let Some(after) = rest.strip_prefix(b"ant-") {
        // `api03-`, `admin01-`: lowercase letters, digits, a dash.
        let letters = after.iter().take_while(|c| c.is_ascii_lowercase()).count();
        let digits = after[letters..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let dash = body + 4 + letters + digits;
        if letters == 0 || digits == 0 || b.get(dash) != Some(&b'-') {
            return None;
        }
        return Some((at_least(b, dash + 1, 32, b64url)?, kind::ANTHROPIC_KEY));
    }
    for project in [&b"proj-"[..], b"svcacct-", b"admin-"] {
        if rest.starts_with(project) {
            return Some((
                at_least(b, body + project.len(), 40, b64url)?,
                kind::OPENAI_KEY,
            ));
        }
    }
    let end = exact(b, body, 48, alnum)?;
    // `sk-` + 48 then `-more` is some longer name, not a key.
    (b.get(end) != Some(&b'-')).then_some((end, kind::OPENAI_KEY))
}

/// `T…/B…/secret` after `hooks.slack.com/services/`: the span of that path.
fn slack_hook(b: &[u8], body: usize) -> Option<Span> {
    let upper = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let mut at = body;
    for lead in [b'T', b'B'] {
        if b.get(at) != Some(&lead) {
            return None;
        }
        let end = at_least(b, at + 1, 6, upper)?;
        if b.get(end) != Some(&b'/') {
            return None;
        }
        at = end + 1;
    }
    let end = at_least(b, at, 16, alnum)?;
    ends_word(b, end).then_some(Span {
        start: body,
        end,
        kind: kind::SLACK_WEBHOOK,
    })
}

/// End of a JWT starting at `start` (on its `eyJ`): three base64url
/// segments, the first two JSON objects (`eyJ`), the signature maybe empty.
fn jwt(b: &[u8], start: usize) -> Option<usize> {
    let header = run(b, start, b64url);
    if header - start < 10 || b.get(header) != Some(&b'.') || !b[header + 1..].starts_with(b"eyJ") {
        return None;
    }
    let payload = run(b, header + 1, b64url);
    if payload - header - 1 < 10 || b.get(payload) != Some(&b'.') {
        return None;
    }
    Some(run(b, payload + 1, b64url))
}
