"""The README's commands stay true: every command line of its "Command line" section runs.

Each ``tavli-*`` line of the section's code blocks is run as written, in the README's order
and in one directory (a later line may use a file an earlier one wrote), scaled down so that
all of them take about a minute: fewer trials, matches, games, rollout games and epochs
(counts the line leaves at a long default get a small one). Files the README takes as given
(the two checkpoints that ``--average`` averages) are made first. The README's first code
block, the install, is run by CI itself.

The Python section's script (its parallel calls under the main guard) is run too, with its
counts scaled down the same way.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

#: Per option: the scaled-down value of the count a README line gives.
SCALE = {
    "--trials": lambda n: 20,
    "--matches": lambda n: 20,
    "--games": lambda n: min(20, max(6, n // 10_000)),  # keeps a resumed run's total above its first
    "--rollouts": lambda n: 2,
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
    """The text of a README section, from its heading to the next heading of any level."""
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


def command_lines() -> list[tuple[int, list[str]]]:
    """(line number in the README, argv) of each tavli-* line of the Command line section."""
    text = README.read_text(encoding="utf-8")
    body = section(text, "### Command line")
    found = []
    for block in code_blocks(body):
        for line in block.splitlines():
            if line.startswith("tavli-"):
                number = text.splitlines().index(line) + 1
                found.append((number, shlex.split(line, comments=True)))
    return found


def scaled(argv: list[str]) -> list[str]:
    """The README line with its counts scaled down and the ADDED options it lacks."""
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


LINES = command_lines()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """The directory every line runs in, with the checkpoints the README averages."""
    path = tmp_path_factory.mktemp("readme")
    for name, seed in (("a.npz", "1"), ("b.npz", "2")):
        subprocess.run([executable("tavli-train"), "--games", "4", "--seed", seed,
                        "--checkpoint", name, "-q"], cwd=path, check=True, timeout=120,
                       capture_output=True)
    return path


def test_the_section_has_the_commands_of_all_seven_tools():
    assert {argv[0] for _, argv in LINES} == {
        "tavli-rollout", "tavli-openings", "tavli-hint", "tavli-eval", "tavli-train",
        "tavli-bearoff", "tavli-match"}


@pytest.mark.slow
@pytest.mark.parametrize("argv", [argv for _, argv in LINES],
                         ids=[f"README line {n}" for n, _ in LINES])
def test_a_readme_command_runs(argv, workdir):
    cmd = scaled(argv)
    p = subprocess.run([executable(cmd[0]), *cmd[1:], *(["--no-progress"] if _has_progress(cmd) else [])],
                       cwd=workdir, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, f"{shlex.join(cmd)}\n{p.stderr[-2000:]}"


def _has_progress(cmd: list[str]) -> bool:
    return cmd[0] in ("tavli-rollout", "tavli-openings", "tavli-match")


def python_script() -> str:
    """The README's Python example that is a script (the one with the main guard)."""
    body = section(README.read_text(encoding="utf-8"), "### Python")
    scripts = [b for b in code_blocks(body) if 'if __name__ == "__main__":' in b]
    assert len(scripts) == 1, "the Python section shows one script, with the main guard"
    return scripts[0]


def test_the_python_section_shows_its_parallel_calls_under_the_main_guard():
    script = python_script()
    guard = script.index('if __name__ == "__main__":')
    calls = [m.start() for m in re.finditer(r"tf\.(rollout|openings|play_matches)\(", script)]
    assert calls and all(_inside_function(script, at) for at in calls) and guard > max(calls)


def _inside_function(script: str, at: int) -> bool:
    """Whether the line at offset `at` is indented (inside the script's function)."""
    line = script[script.rfind("\n", 0, at) + 1:at]
    return line.startswith((" ", "\t"))


@pytest.mark.slow
def test_the_python_sections_script_runs(tmp_path):
    # Counts of 1,000 and more become 200: a few seconds in all.
    script = re.sub(r"\b\d[\d_]{3,}\b", "200", python_script())
    (tmp_path / "example.py").write_text(script)
    p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
