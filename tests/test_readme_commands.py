"""The documented commands stay true: every command line of the README's quick start and of
the full command reference (docs/usage.md, "Command line") runs.

Each ``tavli-*`` line of those sections' code blocks is run as written, in the document's
order and in one directory per document (a later line may use a file an earlier one wrote),
all of a document's lines in one Python process (tests/command_runner.py: each through the
function its console script calls, so the start-up is paid once; the console scripts
themselves are run by CI's first command and by the CLI tests),
scaled down so that all of them take a minute or two: fewer trials, matches, games, rollout
games and epochs (counts the line leaves at a long default get a small one). Files a
document takes as given (the two checkpoints that ``--average`` averages) are made first.
The README's first code block, the install, is run by CI itself.

The Python section's script of each document (its parallel calls under the main guard) is
run too, with its counts scaled down the same way.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

#: Each document with commands: its path in the checkout, the heading of its command
#: section, and the heading of its Python section.
DOCS = {
    "README.md": ("## Quick start", "## Python"),
    "docs/usage.md": ("## Command line", "## Python"),
}
SEVEN_TOOLS = {"tavli-rollout", "tavli-openings", "tavli-hint", "tavli-eval", "tavli-train",
               "tavli-bearoff", "tavli-match"}

#: Per option: the scaled-down value of the count a README line gives.
SCALE = {
    "--trials": lambda n: 20,
    "--matches": lambda n: 20,
    "--games": lambda n: min(20, max(6, n // 10_000)),  # keeps a resumed run's total above its first
    "--rollouts": lambda n: 2,
    "--rollout": lambda n: 20,  # tavli-hint --rollout TRIALS
    "--epochs": lambda n: 2,
}
#: Options added to a line that does not give them: a small count where it would take a long
#: default, one process where a pool would take longer to start than the work, and a small
#: batch for a fit on the few positions of the scaled-down targets.
ADDED = {
    "tavli-rollout": (("--trials", "20"), ("--jobs", "1")),
    "tavli-openings": (("--trials", "20"), ("--jobs", "1")),
    "tavli-match": (("--matches", "20"), ("--jobs", "1")),
    "tavli-train --fit": (("--batch", "16"),),
}
ALIASES = {"--jobs": ("--jobs", "-j")}


def section(text: str, heading: str) -> str:
    """The text of a document's section, from its heading to the next heading of any level."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    out, in_code = [], False
    for line in lines[start:]:
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            break
        out.append(line)
    return "\n".join(out)


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```\w*\n(.*?)^```", text, flags=re.S | re.M)


def command_lines(doc: str) -> list[tuple[int, list[str]]]:
    """(line number in the document, argv) of each tavli-* line of its command section."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    body = section(text, DOCS[doc][0])
    found = []
    for block in code_blocks(body):
        for line in block.splitlines():
            if line.startswith("tavli-"):
                number = text.splitlines().index(line) + 1
                found.append((number, shlex.split(line, comments=True)))
    return found


def scaled(argv: list[str]) -> list[str]:
    """The documented line with its counts scaled down and the ADDED options it lacks."""
    out = list(argv)
    for i, arg in enumerate(out[:-1]):
        if arg in SCALE:
            out[i + 1] = str(SCALE[arg](int(float(out[i + 1]))))
    kind = out[0] + (" --fit" if "--fit" in out else "")
    for option, value in ADDED.get(kind, ()):
        if not any(name in out for name in ALIASES.get(option, (option,))):
            out += [option, value]
    return out


def executable(name: str) -> str:
    """A command of this environment (the one running the tests), else of PATH."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name) or name


LINES = [(doc, number, argv) for doc in DOCS for number, argv in command_lines(doc)]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Each document's lines, scaled down, run in order in a directory of their own (with the
    checkpoints that its ``--average`` line averages): their results, by line number."""
    done: dict[str, dict[int, dict]] = {}

    def results(doc: str) -> dict[int, dict]:
        if doc not in done:
            path = tmp_path_factory.mktemp(Path(doc).stem)
            for name, seed in (("a.npz", "1"), ("b.npz", "2")):
                subprocess.run([executable("tavli-train"), "--games", "4", "--seed", seed,
                                "--checkpoint", name, "-q"], cwd=path, check=True, timeout=120,
                               capture_output=True)
            lines = [(n, argv) for d, n, argv in LINES if d == doc]
            argvs = [scaled(argv) + (["--no-progress"] if _has_progress(argv) else [])
                     for _, argv in lines]
            subprocess.run([sys.executable, str(ROOT / "tests" / "command_runner.py"),
                            "results.json"], input=json.dumps(argvs), text=True, cwd=path,
                           check=True, timeout=900, capture_output=True)
            got = json.loads((path / "results.json").read_text())
            done[doc] = {n: dict(r, argv=a) for (n, _), a, r in zip(lines, argvs, got)}
        return done[doc]

    return results


@pytest.mark.parametrize("doc", DOCS)
def test_the_section_has_the_commands_of_all_seven_tools(doc):
    assert {argv[0] for d, _, argv in LINES if d == doc} == SEVEN_TOOLS


@pytest.mark.slow
@pytest.mark.parametrize("doc, number", [(doc, n) for doc, n, _ in LINES],
                         ids=[f"{doc} line {n}" for doc, n, _ in LINES])
def test_a_documented_command_runs(doc, number, ran):
    result = ran(doc)[number]
    assert result["status"] == 0, f"{doc}: {shlex.join(result['argv'])}\n{result['stderr']}"


def _has_progress(cmd: list[str]) -> bool:
    return cmd[0] in ("tavli-rollout", "tavli-openings", "tavli-match")


def python_script(doc: str) -> str:
    """The document's Python example that is a script (the one with the main guard)."""
    body = section((ROOT / doc).read_text(encoding="utf-8"), DOCS[doc][1])
    scripts = [b for b in code_blocks(body) if 'if __name__ == "__main__":' in b]
    assert len(scripts) == 1, f"{doc}: the Python section shows one script, with the main guard"
    return scripts[0]


@pytest.mark.parametrize("doc", DOCS)
def test_the_python_section_shows_its_parallel_calls_under_the_main_guard(doc):
    script = python_script(doc)
    guard = script.index('if __name__ == "__main__":')
    calls = [m.start() for m in re.finditer(r"tf\.(rollout|rollout_plays|openings|play_matches)\(", script)]
    assert calls and all(_inside_function(script, at) for at in calls) and guard > max(calls)


def _inside_function(script: str, at: int) -> bool:
    """Whether the line at offset `at` is indented (inside the script's function)."""
    line = script[script.rfind("\n", 0, at) + 1:at]
    return line.startswith((" ", "\t"))


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS)
def test_the_python_sections_script_runs(doc, tmp_path):
    # Counts of 1,000 and more become 36 (the first rolls once each): a few seconds in all.
    script = re.sub(r"\b\d[\d_]{3,}\b", "36", python_script(doc))
    (tmp_path / "example.py").write_text(script)
    p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, f"{doc}: {p.stderr[-2000:]}"
