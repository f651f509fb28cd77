"""The rows of tests/golden/argument-errors.json, written by tests/js/argument-errors.test.mjs
from the JS surface, replayed in Python: every parameter and option given the same JSON value
fails with the same code, argument and JSON path (or succeeds) on both surfaces. Python spells
the argument, and a toggle's path, in snake_case, as the rows do."""

import json

import tool_intent
from api_table import ROOT, target

ROWS = json.loads((ROOT / "tests" / "golden" / "argument-errors.json").read_text())


def error(row):
    call = getattr(target(row["on"]), row["call"])
    try:
        if row["toggles"]:
            call(**row["args"][0])
        else:
            call(*row["args"], **row["options"])
    except tool_intent.ToolIntentError as e:
        # The message names the argument as Python spells it.
        assert e.argument is None or e.argument in str(e), (e.argument, str(e))
        return [e.code, e.argument, e.path]
    return None


def test_every_row_fails_in_python_as_in_js():
    assert len(ROWS) > 300, "the rows are missing: run tests/js/argument-errors.test.mjs"
    differ = [
        f"{row['call']}({row['args']!r}, {row['options']!r}): JS {row['error']}, Python {got}"
        for row in ROWS
        if (got := error(row)) != row["error"]
    ]
    assert not differ, "\n".join(differ)
    refused = sum(row["error"] is not None for row in ROWS)
    print(f"argument errors: {len(ROWS)} rows, {refused} refused alike")
