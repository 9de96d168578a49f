"""The call's search, taken by `toolcap mcp` from a tool's `pattern`
argument: server-filesystem's `search_files` (a glob) lists paths whose
matching directory lies deep inside each long line, past what a cut
preview shows of a line. The preview shows it because the proxy gives the
glob's literal (`/zebra-stripes/`) to the component as the call's search.

test_search_files_hits_are_shown_inside_long_paths needs the core's search
windows (branch search-core); the control with --no-search passes without."""

from pathlib import Path

import mcp.types as types
import pytest

from paths import filesystem_server
from proxy import Proxy, connect, dump, run

BUDGET = 8000
HIT = "zebra-stripes"


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    """A folder whose `**/zebra-stripes/**` entries have paths of about
    3.5 KB, `zebra-stripes` about 2.9 KB into each (a cut preview keeps
    about the first 2 KB of a long line)."""
    root = (tmp_path / "shared").resolve()
    prefix = root
    for i in range(14):
        prefix = prefix / (f"p{i:02d}-" + "a" * 196)
    hit = prefix / HIT
    for j in range(6):
        leaf = hit
        for k in range(3):
            leaf = leaf / (f"s{j}{k}-" + "b" * 196)
        leaf.mkdir(parents=True)
        (leaf / f"leaf-{j}.txt").write_text("x\n")
    return root


async def search_files(session, root: Path, pattern: str) -> dict:
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(
            name="search_files", arguments={"path": str(root), "pattern": pattern}
        )
    )
    return dump(await session.send_request(request, types.CallToolResult))


def preview_of(proxy: Proxy, root: Path, *options: str) -> str:
    async def body():
        argv = proxy.argv(filesystem_server(root), "--max-bytes", str(BUDGET), *options)
        async with connect(argv, proxy.logs / "proxy.log") as session:
            return await search_files(session, root, f"**/{HIT}/**")

    result = run(body)
    texts = [block["text"] for block in result["content"] if block["type"] == "text"]
    assert texts[0].startswith("[toolcap]"), texts[0][:300]
    return "\n".join(texts)


def test_search_files_hits_are_shown_inside_long_paths(proxy: Proxy, deep: Path):
    preview = preview_of(proxy, deep)
    assert len(preview.encode()) <= BUDGET
    assert f"/{HIT}/" in preview, preview[-1500:]


def test_without_a_search_the_hits_are_cut_out_of_the_long_paths(proxy: Proxy, deep: Path):
    # The control: what the preview shows of these lines holds no hit.
    preview = preview_of(proxy, deep, "--no-search")
    assert HIT not in preview, preview[-1500:]
