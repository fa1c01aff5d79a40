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
TOOLS = {"tavli-rollout", "tavli-openings", "tavli-hint", "tavli-eval", "tavli-train",
         "tavli-bearoff", "tavli-match", "tavli-analyse"}

#: Per option: the scaled-down value of the count a README line gives.
SCALE = {
    "--trials": lambda n: 20,
    "--matches": lambda n: min(n, 20),  # a line saving one match keeps it one file
    "--games": lambda n: min(20, max(6, n // 10_000)),  # keeps a resumed run's total above its first
    "--rollouts": lambda n: 2,
    "--rollout": lambda n: 20,  # tavli-hint --rollout TRIALS
    "--epochs": lambda n: 2,
}
#: Options added to a line that does not give them: a small count where it would take a long
#: default, one process where a pool would take longer to start than the work, and a small
#: batch for a fit on the few positions of the scaled-down targets (``tavli-match --save``
#: lines give their --matches, and one process is fast enough for them).
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
    kind = out[0] + "".join(f" {o}" for o in ("--fit", "--save") if o in out)
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
def test_the_section_has_the_commands_of_all_eight_tools(doc):
    assert {argv[0] for d, _, argv in LINES if d == doc} == TOOLS


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


# ---------------------------------------------------------------------------------------------
# Time notes (issue 51): a documented command that takes more than a minute on 2 cores says
# about how long beside it ("~2 min", "~16 h", "~300 CPU-hours").
# ---------------------------------------------------------------------------------------------

#: The documents whose code blocks hold commands to run, beyond the two DOCS above.
NOTED_DOCS = ("README.md", "docs/usage.md", "docs/variants.md", "docs/cluster.md")
TIME_NOTE = re.compile(r"~\s?\d[\d.,]*(-\d[\d.,]*)?\s?(s|min|h|CPU-hours)\b")
#: Players that play without the net (their games are never luck-adjusted, and fast).
PLAIN_PLAYERS = {"random", "pubeval", "greedy", "bearoff", "heuristic"}


def _option(argv: list[str], name: str) -> str | None:
    for i, arg in enumerate(argv[:-1]):
        if arg == name:
            return argv[i + 1]
    prefix = name + "="
    return next((a[len(prefix):] for a in argv if a.startswith(prefix)), None)


def _count(argv: list[str], name: str) -> float | None:
    value = _option(argv, name)
    return None if value is None else float(value.replace("_", ""))


def _luck_adjusted_net(argv: list[str]) -> bool:
    """Whether the line's games are the net's, luck-adjusted (the default of every command)."""
    names = set(",".join(filter(None, (_option(argv, "--players"), _option(argv, "--player"))))
                .split(",")) - {""}
    return not (names and names <= PLAIN_PLAYERS) and not any(
        o in argv for o in ("--no-vr", "--cubeful", "--game"))


def _with_dice(argv: list[str]) -> bool:
    position = _option(argv, "--position") or ""
    fields = position.removeprefix("XGID=").split(":")
    return "--dice" in argv or (len(fields) == 10 and fields[4] != "00")


def takes_minutes(argv: list[str]) -> bool:
    """A rule of thumb, from the speeds in docs/performance.md: luck-adjusted net games run at
    about 170 a second on 2 cores (plain ones 3,000-40,000), TD training about 1,000 games a
    second, supervised targets and fits minutes at the least."""
    tool = argv[0]
    if tool == "tavli-train":
        return any(o in argv for o in ("--targets", "--fit", "--refit")) or (
            (_count(argv, "--games") or 0) >= 1e5)
    if "--scheduler" in argv:
        return (_count(argv, "--trials") or 0) >= 1e5
    if tool not in ("tavli-rollout", "tavli-openings", "tavli-hint") or not _luck_adjusted_net(argv):
        return False
    trials = _count(argv, "--trials")
    if tool == "tavli-hint":
        return "--rollout" in argv
    if tool == "tavli-openings":
        return trials is None or trials >= 1296 or "--replies" in argv
    return _with_dice(argv) or (trials or 0) >= 5000


def noted_lines() -> list[tuple[str, str]]:
    out = []
    for doc in NOTED_DOCS:
        for block in code_blocks((ROOT / doc).read_text(encoding="utf-8")):
            out += [(doc, line) for line in block.splitlines() if line.startswith("tavli-")]
    return out


@pytest.mark.parametrize("doc, line", noted_lines(), ids=lambda v: v[:60] if isinstance(v, str) else v)
def test_a_command_that_takes_minutes_says_how_long(doc, line):
    argv = shlex.split(line, comments=True)
    if takes_minutes(argv):
        assert TIME_NOTE.search(line.partition("#")[2]), f"{doc}: no time note beside {line!r}"


def test_the_rule_of_thumb_tells_long_commands_from_short_ones():
    long = ["tavli-rollout --dice 43", "tavli-openings --rolls 31 --replies '8/5 6/5'",
            "tavli-rollout --trials 1e7", "tavli-train --games 1e6", "tavli-hint --dice 62 --rollout",
            "tavli-rollout --position XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"]
    short = ["tavli-rollout --trials 1e6 --player random", "tavli-rollout --player neural --cubeful",
             "tavli-openings --trials 5184 --player pubeval", "tavli-train --recipe x.npz",
             "tavli-rollout --position XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"]
    assert all(takes_minutes(shlex.split(c)) for c in long)
    assert not any(takes_minutes(shlex.split(c)) for c in short)


def test_the_quick_start_says_to_activate_the_environment():
    body = section((ROOT / "README.md").read_text(encoding="utf-8"), "## Quick start")
    prose = "\n".join(line for line in body.splitlines() if not line.startswith("tavli-"))
    assert ". .venv/bin/activate" in prose and ".venv/bin/tavli-rollout" in prose


def test_the_cubeful_plot_example_ranks_plays_that_differ():
    """usage.md's cubeful --plot example is a position whose plays have different cubeful
    equities (its first was a bear-off where every play was worth +1.000)."""
    import tavli_fast as tf

    (argv,) = [a for _, _, a in LINES if "--plot" in a and "--cubeful" in a]
    r = tf.rollout_plays(_option(argv, "--position"), _option(argv, "--dice"), 36, cubeful=True,
                         candidates=3, stop_when_decided=None, players="pubeval", seed=1, jobs=1)
    assert len({round(p.equity, 3) for p in r.plays}) > 1
