"""The README's Python example, run as written in a scratch directory: its relative paths reach
the repository's tests/data through a symlink, and its sessions.db is a session table holding
one legacy snapshot row, which the example's last line audits, migrates and restores."""

import os
import sqlite3
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_python_example_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Python") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    db = sqlite3.connect(tmp_path / "sessions.db")
    db.execute("CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT)")
    db.execute("INSERT INTO sessions VALUES (1, ?)", ('["web_search","memory"]',))
    db.commit()
    db.close()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: dict = {}
        exec(compile(code, "README.md", "exec"), scope)
    finally:
        os.chdir(old)
    assert scope["plan"].fingerprint.startswith("sha256:")
    assert scope["tool"]["name"] == scope["result"]["hits"][0]
    assert scope["result"]["hits"][0].startswith("mcp__github__")
    rows = sqlite3.connect(tmp_path / "sessions.db").execute("SELECT tools_override FROM sessions").fetchall()
    assert rows == [('["web_search","memory"]',)]  # undone byte for byte
