"""Run tavli-* command lines one after another in one process, each through the function
its console script calls, for tests/test_readme_commands.py: Python, numpy, the package and
its nets load once per document instead of once per line.

    python command_runner.py RESULTS.json < LINES.json     # LINES: a JSON list of argv lists

Each line's exit status and the end of what it wrote on stderr (a traceback included, if one
escaped) go to RESULTS.json, in the order of the lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from importlib.metadata import entry_points


def run_line(argv: list[str]) -> dict:
    (script,) = entry_points(group="console_scripts", name=argv[0])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = script.load()(argv[1:])  # what the console script calls, then exits with
        except SystemExit as e:                # argparse's own exits (e.g. --help)
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - a traceback is the line's failure, reported
            traceback.print_exc(file=err)
            status = "traceback"
    return {"status": status, "stderr": err.getvalue()[-2000:]}


def main() -> None:
    lines = json.load(sys.stdin)
    results = [run_line(argv) for argv in lines]
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
