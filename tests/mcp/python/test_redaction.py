"""`toolcap mcp --redact` with server-filesystem (npm), driven by the
official Python SDK client: a file holding secrets is read through the
proxy, and no secret reaches the client: not in the capped preview, not in
the kept structuredContent, not in the read tool's pages or grep lines.
The saved file keeps the output as it was, unless `--redact-spill`; the
config file's `redact` key turns it on too."""

import json
from pathlib import Path

import mcp.types as types
import pytest

from paths import filesystem_server
from proxy import READ_TOOL, Proxy, connect, dump, run
from spill import refs_in

GITHUB_TOKEN = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
BEARER = "opaqueFAKEtoken0opaqueFAKEtoken0opaqueFA"
SECRETS = [GITHUB_TOKEN, AWS_SECRET, BEARER, "FAKE0fake1FAKE0", "opaqueFAKEtoken0"]

SECRET_LINES = (
    f"GITHUB_TOKEN={GITHUB_TOKEN}\n"
    f"aws_secret_access_key = {AWS_SECRET}\n"
    f"Authorization: Bearer {BEARER}\n"
)


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} in {text[:2000]}"


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """Files with secrets: one small enough to pass whole, one that is cut
    (its secrets in the head, which the preview shows, and in the middle)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "small.env").write_text("APP=demo\n" + SECRET_LINES)
    lines = [f"{n:05d} deploy step ok\n" for n in range(1, 4001)]
    lines.insert(2, SECRET_LINES)
    lines.insert(2000, SECRET_LINES)
    (folder / "big.log").write_text("".join(lines))
    return folder.resolve()


async def read_text_file(session, path: Path) -> dict:
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(name="read_text_file", arguments={"path": str(path)})
    )
    return dump(await session.send_request(request, types.CallToolResult))


async def read_tool(session, arguments: dict) -> str:
    result = await session.call_tool(READ_TOOL, arguments)
    assert not result.is_error, dump(result)
    return result.content[0].text


def test_redact_hides_secrets_in_previews_structured_content_and_read_tool(proxy: Proxy, shared: Path):
    original = (shared / "big.log").read_bytes()

    async def body():
        async with connect(proxy.argv(filesystem_server(shared), "--redact"), proxy.logs / "proxy.log") as s:
            # A result that fits: its text and its structuredContent redacted.
            small = await read_text_file(s, shared / "small.env")
            assert_clean(json.dumps(small))
            assert "GITHUB_TOKEN=[redacted: github-token]" in small["content"][0]["text"]
            assert "[redacted: github-token]" in small["structuredContent"]["content"]
            assert small["structuredContent"]["content"].startswith("APP=demo\n")

            # A result that is cut: the preview, the notice, the _meta.
            big = await read_text_file(s, shared / "big.log")
            assert_clean(json.dumps(big))
            notice = big["content"][0]["text"]
            assert notice.startswith("[toolcap]")
            assert "[redacted: github-token]" in big["content"][1]["text"]
            ref = {r.bytes: r for r in refs_in(notice)}[len(original)]
            # The saved file keeps the output as it was (no --redact-spill).
            assert Path(ref.path).read_bytes() == original

            # The read tool: grep, line pages and byte pages, all redacted,
            # with line numbers of the saved file.
            text = await read_tool(s, {"path": ref.path, "grep": "GITHUB_TOKEN"})
            assert_clean(text)
            assert "line 3: GITHUB_TOKEN=[redacted: github-token]" in text, text
            for guess in [GITHUB_TOKEN[:12], "opaqueFAKE"]:
                text = await read_tool(s, {"path": ref.path, "grep": guess})
                assert "no match" in text, text
            page = await read_tool(s, {"path": ref.path, "line": 2000, "lines": 6})
            assert_clean(page)
            assert "[redaction: 3 secrets are shown" in page, page
            assert "2003\tGITHUB_TOKEN=[redacted: github-token]" in page, page
            # Byte pages of every size, from inside a secret too: nothing leaks.
            secret_at = original.index(GITHUB_TOKEN.encode())
            for offset in range(secret_at - 40, secret_at + 40, 7):
                page = await read_tool(s, {"path": ref.path, "offset": offset, "max_bytes": 256})
                assert_clean(page)

    run(body)


def test_redact_spill_and_the_config_key(proxy: Proxy, shared: Path, tmp_path: Path):
    config = tmp_path / "toolcap.toml"
    config.write_text("redact_spill = true\n")

    async def body():
        argv = proxy.argv(filesystem_server(shared), "--config", str(config))
        async with connect(argv, proxy.logs / "proxy.log") as s:
            big = await read_text_file(s, shared / "big.log")
            assert_clean(json.dumps(big))
            notice = big["content"][0]["text"]
            for ref in refs_in(notice):
                saved = Path(ref.path).read_text()
                assert_clean(saved)
                assert "[redacted: aws-secret-key]" in saved

    run(body)


def test_without_redact_nothing_is_redacted(proxy: Proxy, shared: Path):
    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            small = await read_text_file(s, shared / "small.env")
            assert GITHUB_TOKEN in small["content"][0]["text"]

    run(body)
