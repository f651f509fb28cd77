"""Real MCP servers over stdio with the `mcp` PyPI client (mcp-server-time, mcp-server-git,
pinned in python/requirements-dev.txt): the registry follows each server's tools/list
(every page, and again on every list_changed), a server joining mid-turn waits for the next
turn, and the turn's fingerprint equals the native CLI's on the same lists."""

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp.types as mcp_types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import tool_intent

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "debug" / "tool-intent"
INTENT = {"enabled": True}


async def list_all_tools(session: ClientSession) -> dict:
    """Every page of tools/list as one {"tools": [...]} result."""
    tools, cursor = [], None
    while True:
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return {"tools": tools}


class Live:
    """The newest registry, replaced on each server's tools/list (one update at a time)."""

    def __init__(self, registry):
        self.registry = registry
        self.changes = []
        self.lock = anyio.Lock()

    async def update(self, name: str, session: ClientSession) -> None:
        async with self.lock:
            listed = await list_all_tools(session)
            change = self.registry.set_mcp_server(name, listed)
            self.registry = change["registry"]
            self.changes.append((name, change["diff"], listed))


def run_servers(tmp_path: Path) -> dict:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    live = Live(tool_intent.Registry.embedded())
    out = {}

    async def serve(name, args, started, stop):
        params = StdioServerParameters(command=sys.executable, args=args)
        async with anyio.create_task_group() as updates:

            async def on_message(message):
                # The handler must not wait on the session itself (it would hold up the
                # session's reader): the update runs as its own task.
                if isinstance(message, mcp_types.ToolListChangedNotification):
                    updates.start_soon(live.update, name, session)

            with open(Path("/dev/null"), "w") as quiet:
                async with stdio_client(params, errlog=quiet) as (read, write):
                    async with ClientSession(read, write, message_handler=on_message) as session:
                        await session.initialize()
                        await live.update(name, session)
                        started.set()
                        await stop.wait()
                        out[name] = await list_all_tools(session)

    async def main():
        stop = anyio.Event()
        time_up, git_up = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve, "time", ["-m", "mcp_server_time", "--local-timezone", "UTC"], time_up, stop)
            await time_up.wait()
            state = live.registry.begin_turn(None)
            out["before"] = live.registry.plan_turn(INTENT, state=state)
            # Mid-turn: the git server connects.
            tg.start_soon(serve, "git", ["-m", "mcp_server_git", "--repository", str(repo)], git_up, stop)
            await git_up.wait()
            out["mid"] = live.registry.plan_turn(INTENT, state=state)
            state = live.registry.begin_turn(state)
            out["next"] = live.registry.plan_turn(INTENT, state=state)
            stop.set()

    anyio.run(main)
    out["live"] = live
    return out


def test_servers_join_at_the_next_turn_and_match_the_native_cli(tmp_path):
    assert CLI.exists(), "the native CLI is built by cargo test (scripts/test.sh runs it first)"
    out = run_servers(tmp_path)
    before, mid, nxt = out["before"], out["mid"], out["next"]
    assert any(n.startswith("mcp__time__") for n in before["catalog"])
    assert not any(n.startswith("mcp__git__") for n in before["catalog"])
    # The rest of the turn: the same bytes.
    assert mid.payload == before.payload and mid.catalog_text == before.catalog_text
    assert mid["fingerprint"] == before["fingerprint"]
    # The next turn has every tool the git server lists.
    git = [t["name"] for t in out["git"]["tools"]]
    assert len(git) >= 5, git
    assert [n for n in nxt["catalog"] if n.startswith("mcp__git__")] == [f"mcp__git__{n}" for n in git]
    assert nxt.catalog_text != before.catalog_text
    # Each update's diff: the first adds the server's tools, later ones only what changed.
    for name, diff, listed in out["live"].changes:
        assert not diff["removed"], diff
    # The native CLI on the same lists plans the same turn.
    args = [str(CLI), "expand", "--override", json.dumps(INTENT)]
    for name in ("time", "git"):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(out[name]))
        args += ["--mcp", f"{name}={path}"]
    native = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert native["fingerprint"] == nxt["fingerprint"]
    assert native["catalog"] == list(nxt["catalog"])


def test_list_changed_notifications_keep_the_registry_in_step():
    """The reference `server-everything` (Node, installed by npm ci) registers more tools for a
    client declaring roots, sampling and elicitation, and announces them with list_changed: each
    notification lists the tools again and sets them, one update at a time."""
    script = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    assert script.exists(), "npm ci installs @modelcontextprotocol/server-everything"
    live = Live(tool_intent.Registry.embedded())
    out = {}

    async def roots(_context):
        return mcp_types.ListRootsResult(roots=[])

    async def refuse(_context, _params):
        raise RuntimeError("not in this test")

    async def main():
        params = StdioServerParameters(command="node", args=[str(script), "stdio"])
        async with anyio.create_task_group() as updates:

            async def on_message(message):
                if isinstance(message, mcp_types.ToolListChangedNotification):
                    updates.start_soon(live.update, "everything", session)

            with open(Path("/dev/null"), "w") as quiet:
                async with stdio_client(params, errlog=quiet) as (read, write):
                    async with ClientSession(
                        read, write, message_handler=on_message, list_roots_callback=roots,
                        sampling_callback=refuse, elicitation_callback=refuse,
                    ) as session:
                        await session.initialize()
                        await live.update("everything", session)
                        with anyio.fail_after(10):
                            while len(live.changes) < 2:
                                await anyio.sleep(0.05)
                        await anyio.sleep(0.3)
                        out["final"] = await list_all_tools(session)

    anyio.run(main)
    names = [t["name"] for t in out["final"]["tools"]]
    held = [t["name"] for t in live.registry.tool_infos() if t["name"].startswith("mcp__everything__")]
    assert held == [f"mcp__everything__{n}" for n in names]
    assert len(live.changes) >= 2, "list_changed reached the registry"
    added = [n for _, diff, _ in live.changes for n in diff["added"]]
    assert sorted(added) == sorted(held), "each tool added once, however many notifications"
