"""tool_intent.shapes against what the module returns: every result of every call, made in the
cases that fill its optional keys (tool_changes="messages", native-client, a refused tool, a
migration with an unreadable row and a row edited before the undo, a version another process
published), is checked key by key against its TypedDict: a key the shape lacks, a required
key the result lacks, a value of another type, or keys out of the shape's order (the order JS
shows them in) fails. The Literal lists are the
TypeScript declarations' lists."""

import json
import re
import sqlite3
from pathlib import Path
from typing import Any, List, Literal, Union, get_args, get_origin, get_type_hints

import pytest

import tool_intent
from tool_intent import shapes

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def faults(value: Any, shape: Any, path: str = "$") -> List[str]:
    """Where `value` differs from `shape` (a TypedDict, a Literal, List, Dict, Optional, a
    class, or Any), as "path: what" lines."""
    if shape is Any:
        return []
    if hasattr(shape, "__required_keys__"):  # a TypedDict
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not a dict"]
        hints = get_type_hints(shape, localns={"Registry": tool_intent.Registry})
        found = [f"{path}: required key {k!r} missing" for k in sorted(shape.__required_keys__ - value.keys())]
        found += [f"{path}: key {k!r} not in {shape.__name__}" for k in sorted(value.keys() - hints.keys())]
        # The keys come in the order JS objects and the CLI's JSON show them (dicts keep the
        # core's order), which is the shape's: among its required keys and among its optional
        # ones (a TypedDict declares the optional keys after the required).
        for keys in (shape.__required_keys__, shape.__optional_keys__):
            declared = [k for k in hints if k in keys and k in value]
            if [k for k in value if k in keys] != declared:
                found.append(f"{path}: keys in the order {list(value)}, declared {declared}")
        for key in sorted(value.keys() & hints.keys()):
            found += faults(value[key], hints[key], f"{path}.{key}")
        return found
    origin, args = get_origin(shape), get_args(shape)
    if origin is Union:
        tries = [faults(value, arg, path) for arg in args]
        return [] if any(not t for t in tries) else tries[0]
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, not a list"]
        return [f for i, v in enumerate(value) for f in faults(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not a dict"]
        return [f for k, v in value.items() for f in faults(k, args[0], f"{path} key") + faults(v, args[1], f"{path}.{k}")]
    if shape is type(None):
        return [] if value is None else [f"{path}: {value!r}, not None"]
    if shape is int and isinstance(value, bool):
        return [f"{path}: a bool, not an int"]
    return [] if isinstance(value, shape) else [f"{path}: {type(value).__name__}, not {shape.__name__}"]


def fits(value: Any, shape: Any) -> None:
    found = faults(value, shape)
    assert not found, "\n".join(found)


def test_the_checker_finds_a_missing_key_an_unknown_key_and_a_wrong_literal():
    # The checker itself: a result a shape does not describe fails.
    state = {"loaded": [], "frozen": [], "turn": 0}
    assert faults(state, shapes.TurnState) == []
    assert faults({"loaded": [], "turn": 0}, shapes.TurnState) == ["$: required key 'frozen' missing"]
    assert faults({**state, "loads": []}, shapes.TurnState) == ["$: key 'loads' not in TurnState"]
    assert faults({**state, "turn": True}, shapes.TurnState) == ["$.turn: a bool, not an int"]
    assert faults(dict(sorted(state.items())), shapes.TurnState) == [
        "$: keys in the order ['frozen', 'loaded', 'turn'], declared ['loaded', 'frozen', 'turn']"
    ]
    warning = {"code": "unknown_tol", "origin": "override", "message": "m"}
    assert faults([warning], List[shapes.ExpansionWarning])[0].startswith("$[0].code: 'unknown_tol' not one of")


def github() -> str:
    return (DATA / "mcp" / "github.json").read_text()


def test_registry_results_fit_their_shapes():
    r = tool_intent.Registry.embedded()
    change = r.set_mcp_server("github", github())
    fits(change, shapes.RegistryChange)
    assert change["diff"]["added"]
    registry = change["registry"]
    fits(registry.remove_mcp_server("github"), shapes.RegistryChange)
    fits(r.set_mcp_servers([{"name": "time", "tools": (DATA / "mcp" / "time.json").read_text()}]), shapes.RegistryChange)
    # A preset selecting by annotation moves with a trusted server's read-only tool.
    trusted = tool_intent.Registry.from_json(json.dumps({**json.loads(r.to_json()), "trusted_servers": ["t"]}))
    moved = trusted.set_mcp_server("t", {"tools": [{"name": "now", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]})
    fits(moved, shapes.RegistryChange)
    assert moved["diff"]["presets"], moved["diff"]
    fits(r.begin_turn(None), shapes.TurnState)
    fits(registry.tool_infos(), List[shapes.ToolInfo])
    fits(registry.tool_definition("mcp__github__create_issue"), shapes.ToolDefinition)
    # A tool left out warns at load; a name providers refuse gets a wire name.
    quarantined = r.set_mcp_server("s", {"tools": [{"name": "a"}]})["registry"]
    fits(quarantined.warnings(), List[shapes.ExpansionWarning])
    assert quarantined.warnings()[0]["code"] == "quarantined_tool"
    renamed = r.set_mcp_server("s", {"tools": [{"name": "a b", "inputSchema": {"type": "object"}}]})["registry"]
    fits(renamed.tool_infos(), List[shapes.ToolInfo])
    assert any("source_name" in t for t in renamed.tool_infos())
    check = registry.check("openai-chat")
    fits(check, shapes.ProviderCheck)
    assert check["findings"]
    refused = r.set_mcp_server("bad", {"tools": [{"name": "f", "inputSchema": {"type": "object", "properties": {"x": {"type": "float"}}}}]})["registry"]
    assert any(f["refused"] for f in refused.check("anthropic")["findings"])
    fits(refused.check("anthropic"), shapes.ProviderCheck)
    script = (DATA / "cache-session.json").read_text()
    fits(r.cache_report(script), shapes.CacheReport)
    report = r.cache_report(script, tool_changes="messages")
    fits(report, shapes.CacheReport)
    assert report["tool_changes"] == "messages"


def test_turn_results_fit_their_shapes():
    r = tool_intent.Registry.embedded().set_mcp_server("github", github())["registry"]
    turn = r.turn({"enabled": True, "x": 1}, source="webui")
    found = turn.search("select:enter_plan_mode")
    fits(found, shapes.SearchOutcome)
    fits(turn.search("zzzz qqqq"), shapes.SearchOutcome)
    nothing = r.turn({"enabled": True, "disabled": ["*"]}).search("x")
    fits(nothing, shapes.SearchOutcome)
    assert nothing["warnings"][0]["code"] == "nothing_deferred"
    fits(turn.resolve("read_file"), shapes.ToolDefinition)
    fits(turn.budget(), shapes.Budget)
    fits(turn.state, shapes.TurnState)
    fits(turn.warnings(), List[shapes.ExpansionWarning])
    assert turn.warnings()
    native = r.turn({"enabled": True}, mode="native-client").search("select:enter_plan_mode")
    fits(native, shapes.SearchOutcome)
    assert "provider_output" in native
    state = r.begin_turn(found["state"])
    plan = r.plan_turn({"enabled": True}, state=state, provider="openai-responses")
    fits(plan.to_dict(), shapes.TurnPlanDict)
    assert plan.promoted == ["enter_plan_mode"]
    spaced = r.set_mcp_server("s", {"tools": [{"name": "a b", "inputSchema": {"type": "object"}}]})["registry"]
    renamed = spaced.plan_turn({"enabled": True, "allowed": ["mcp__*", "tool_search"]}).renamed
    fits(renamed, List[shapes.Renamed])
    assert renamed and renamed[0]["source"] == "a b"
    fits(plan.warnings, List[shapes.ExpansionWarning])
    messages = r.turn({"enabled": True}, tool_changes="messages")
    fits(messages.budget(), shapes.Budget)
    assert "declared_tokens" in messages.budget()
    plan = messages.plan()
    fits(plan.to_dict(), shapes.TurnPlanDict)
    fits(plan.state, shapes.TurnState)
    assert plan.state is not None and "conversation" in plan.state
    # The next turn, with the record and a change: the state the plan hands back fits too.
    later = r.plan_turn({"enabled": True, "web_search": True}, state=r.begin_turn(plan.state), tool_changes="messages")
    fits(later.to_dict(), shapes.TurnPlanDict)
    assert later.changes


def test_session_functions_fit_their_shapes():
    config = tool_intent.SessionRunConfig.from_override({"enabled": True})
    fits(config.to_row(), shapes.SessionRow)
    fits(tool_intent.SessionRunConfig.from_row(config.to_row()).to_row(), shapes.SessionRow)
    fits(tool_intent.normalize_tools_value('["a"]'), shapes.SessionRow)
    fits(tool_intent.record_loaded(None, ["a"]), shapes.TurnState)


V1 = ["read_file", "write_file", "edit_file", "shell", "grep", "glob", "tool_search",
      "playwright_browser", "enter_plan_mode", "exit_plan_mode"]


def test_migration_results_fit_their_shapes(tmp_path):
    path = str(tmp_path / "sessions.db")
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT)")
    db.executemany("INSERT INTO sessions VALUES (?, ?)", [
        (None, json.dumps(V1)), (None, json.dumps(V1 + ["web_search"])), (None, "{not json"),
    ])
    db.commit()
    audit = tool_intent.audit(path)
    fits(audit, List[shapes.AuditRow])
    assert len(audit) == 2
    report = tool_intent.migrate(path)
    fits(report, shapes.MigrationReport)
    assert report["unreadable_rows"] and report["snapshots_rewritten"]
    db.execute("UPDATE sessions SET tools_override = '[\"grep\"]' WHERE rowid = 1")
    db.commit()
    db.close()
    undone = tool_intent.undo(path)
    fits(undone, shapes.MigrationReport)
    assert undone["rows_not_restored"] and undone["rows_not_restored"][0]["reason"] == "changed"


def test_shared_registry_results_fit_their_shapes(tmp_path):
    store = str(tmp_path / "versions.sqlite")
    r = tool_intent.Registry.embedded()
    first = tool_intent.SharedRegistry(store, r)
    other = tool_intent.SharedRegistry(store, r)
    fits(first.begin_turn(None), shapes.TurnState)
    published = other.publish(r.set_mcp_server("github", github())["registry"])
    fits(published, shapes.VersionRow)
    followed = first.follow()
    fits(followed, shapes.VersionRow)
    assert followed is not None and followed["sequence"] == published["sequence"]
    fits(first.follow(), Union[shapes.VersionRow, None])
    fits(first.change(lambda x: x.remove_mcp_server("github")["registry"]), shapes.VersionRow)
    fits(first.versions(), List[shapes.VersionRow])
    fits(first.gc(keep_newest=1), shapes.GcReport)


def typescript_union(name: str) -> List[str]:
    text = (ROOT / "bindings" / "wasm" / "src" / "types.d.ts").read_text()
    body = re.search(rf"export type {name} =([^;]*);", text)
    assert body, name
    return re.findall(r'"([^"]+)"', body.group(1))


@pytest.mark.parametrize("python, typescript", [
    (shapes.WarningCode, "WarningCode"),
    (shapes.ErrorCode, "ToolIntentErrorCode"),
    (shapes.Provider, "Provider"),
    (shapes.Mode, "DeferralMode"),
    (shapes.ToolChanges, "ToolChanges"),
    (shapes.View, "TurnView"),
])
def test_the_literal_lists_are_the_typescript_declarations(python, typescript):
    assert list(get_args(python)) == typescript_union(typescript)


def test_an_error_code_is_one_the_shapes_name():
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.Registry.embedded().turn(None, provider="openai")  # type: ignore[arg-type]
    assert e.value.code in get_args(shapes.ErrorCode)


def test_every_shape_is_exported():
    declared = {n for n in dir(shapes) if not n.startswith("_") and n[0].isupper()}
    declared -= {"Any", "Dict", "List", "Literal", "Optional", "TypedDict", "TYPE_CHECKING"}
    assert declared == set(shapes.__all__)
    assert all(isinstance(getattr(shapes, n), type) or get_origin(getattr(shapes, n)) in (Literal, dict) for n in shapes.__all__)


def test_keys_are_snake_case_as_every_result_is():
    for name in shapes.__all__:
        shape = getattr(shapes, name)
        if hasattr(shape, "__required_keys__"):
            for key in get_type_hints(shape, localns={"Registry": tool_intent.Registry}):
                assert key == key.lower(), (name, key)
