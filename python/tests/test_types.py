"""The type stubs (tool_intent/_tool_intent.pyi, py.typed) checked by mypy: the example server,
which calls every function of the module, type-checks under --strict; a wrong call does not;
and mypy's stubtest finds the stubs and the compiled module alike (every class, function,
parameter and default)."""

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
    assert "no issues found in 2 modules" in out.stdout, out.stdout


def test_wrong_calls_do_not_type_check(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import tool_intent
        tool_intent.Registry.embedded().plan_turn(mode="nativ")
        n: int = tool_intent.fingerprint("x")
        tool_intent.migrate(3)
        p: int = tool_intent.Registry.embedded().plan_turn().payload
    """))
    out = mypy(bad)
    assert out.returncode == 1, out.stdout
    assert out.stdout.count("error:") == 4, out.stdout


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
