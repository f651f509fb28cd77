"""The type stubs (tool_intent/_tool_intent.pyi, py.typed) checked by mypy: the example server,
which calls every function of the module, type-checks under --strict; a wrong call does not;
and mypy's stubtest finds the stubs and the compiled module alike (every class, function,
parameter and default); results are typed by tool_intent.shapes (a wrong key does not type-check,
a returned state passes back as an argument); and each call's shown signature names what PyO3 reads from its
`signature`, and its list of known keywords, in python/src."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def mypy(path):
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True, text=True,
    )


def test_the_example_server_type_checks():
    out = mypy(ROOT / "examples/server.py")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_stubs_say_what_the_module_has():
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "tool_intent",
         "--allowlist", str(ROOT / "python/tests/stubtest-allowlist.txt")],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues found in 3 modules" in out.stdout, out.stdout


def test_wrong_calls_do_not_type_check(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import tool_intent
        tool_intent.Registry.embedded().plan_turn(mode="nativ")
        n: int = tool_intent.fingerprint("x")
        tool_intent.migrate(3)
        p: int = tool_intent.Registry.embedded().plan_turn().payload
        turn = tool_intent.Registry.embedded().turn()
        turn.search("x")["hitz"]
        b: str = turn.budget()["resident_tokens"]
        tool_intent.Registry.embedded().plan_turn().state["loaded"]
        q: int = tool_intent.Registry.embedded().plan_turn()["payload"]
    """))
    out = mypy(bad)
    assert out.returncode == 1, out.stdout
    # One error a line: the results' keys and types are tool_intent.shapes'.
    assert out.stdout.count("error:") == 8, out.stdout


def test_the_shapes_type_check_and_a_result_passes_back_as_an_argument(tmp_path):
    out = mypy(ROOT / "python/tool_intent/shapes.py")
    assert out.returncode == 0, out.stdout + out.stderr
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent("""
        import tool_intent
        from tool_intent.shapes import SearchOutcome, TurnState
        r = tool_intent.Registry.embedded()
        state: TurnState = r.begin_turn(None)
        turn = r.turn(None, state=state)
        found: SearchOutcome = turn.search("select:enter_plan_mode")
        state = r.begin_turn(found["state"])
        state = tool_intent.record_loaded(state, found["hits"])
        row = tool_intent.SessionRunConfig.from_override(None).to_row()
        tool_intent.SessionRunConfig.from_row(row)
        n: int = turn.budget()["rows"][0]["tokens"]
        plan = turn.plan()
        payload: str = plan["payload"]
        names: list[str] = plan["array"]
        loaded: list[str] = plan["state"]["loaded"]
    """))
    out = mypy(good)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_readme_example_type_checks(tmp_path):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Python") :]
    code = section[section.index("```python\n") + 10 : section.index("```", section.index("```python\n") + 10)]
    # The README's last lines are bare expressions (shown for the reader): mypy checks them too.
    example = tmp_path / "readme_example.py"
    example.write_text(code + "\npayload: str = plan.payload\nnames: list[str] = plan.array\n")
    out = mypy(example)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_example_server_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples/server.py")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "undo: 1 row restored" in out.stdout


def names(parameters):
    """The parameter names of a signature's text, `(a, b=f(x, y), *, c=None, **unknown)`: top-level
    commas split it, defaults, `*`, `$self` and the `**` catch-all are dropped."""
    parts, depth, part = [], 0, ""
    for c in parameters:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += c
    parts.append(part)
    found = [p.split("=")[0].strip() for p in parts]
    return [n for n in found if n and n not in ("*", "$self") and not n.startswith("**")]


def test_each_shown_signature_names_what_the_call_takes():
    # PyO3 reads the call from `signature` and shows `text_signature` (which stubtest holds to the
    # stubs); nothing else compares the two, and a keyword option lists its names a third time
    # for `refuse_unknown`.
    import re

    calls = 0
    for source in sorted((ROOT / "python/src").glob("*.rs")):
        text = source.read_text()
        for m in re.finditer(r'signature = \(([^\n]*)\),\s*text_signature = "\(([^"\n]*)\)"', text):
            taken, shown = names(m.group(1)), names(m.group(2))
            if m.group(1).endswith("**options"):
                # A turn's calls read their keyword options by name from `**options`
                # (registry.rs, turn_request): the shown keyword-only names are held to the
                # API table by test_arguments.py, which gives each one a wrong value and
                # expects the error to name it (a name the call did not read would not be).
                shown = names(m.group(2).split("*,", 1)[0])
            assert taken == shown, f"{source.name}: signature {taken} but shown {shown}"
            # The call's own body: up to the next call's attribute (or the file's end).
            following = text.find("#[pyo3(signature", m.end())
            body = text[m.end():following if following >= 0 else len(text)]
            known = re.search(r"refuse_unknown\(py, unknown, &\[(.*?)\]\)", body)
            if known:
                listed = re.findall(r'"(\w+)"', known.group(1))
                keywords = names(m.group(1).split("*", 1)[1])
                assert listed == keywords, f"{source.name}: refuse_unknown knows {listed}, the call takes {keywords}"
            calls += 1
    assert calls >= 10, f"{calls} shown signatures found in python/src"
