"""A script without ``if __name__ == "__main__":`` fails at once with one clear message.

Issue 41: the README's Python examples pasted into a script made every parallel call raise
multiprocessing's "bootstrapping phase" error in each worker (which imports the script again
under the forkserver and spawn start methods) and the pool broke three times. Now the first
parallel call refuses, before any process starts; with the guard, with jobs=1, with the fork
start method or without a script file (python -c) the calls run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

GUARD = 'if __name__ == "__main__":'

ROLLOUT = 'tf.rollout("start", 200, players=("pubeval", "pubeval"), seed=1, jobs=2{extra})'
MATCHES = 'tf.play_matches(3, 20, ("pubeval", "pubeval"), seed=1, jobs=2)'


def run_script(tmp_path, body: str) -> subprocess.CompletedProcess:
    """Run `body` as a script file that imports tavli_fast as tf and says when it starts."""
    script = tmp_path / "script.py"
    script.write_text('import tavli_fast as tf\nprint("script started", flush=True)\n'
                      + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


def assert_refused(p: subprocess.CompletedProcess) -> None:
    assert p.returncode != 0
    assert p.stdout.count("script started") == 1  # no worker ran the script again
    assert "bootstrapping" not in p.stderr
    message = p.stderr.strip().splitlines()[-1]
    assert message.startswith("tavli_fast.run.executors.guard.MainGuardError: ")
    assert GUARD in message and "jobs=1" in message and "script.py, line " in message
    assert p.stderr.count(GUARD) == 1


@pytest.mark.parametrize("extra", ["", ', executor=tf.Executor(start_method="spawn")'])
def test_a_parallel_call_at_a_scripts_top_level_is_refused_at_once(tmp_path, extra):
    assert_refused(run_script(tmp_path, ROLLOUT.format(extra=extra)))


def test_a_call_from_a_function_that_the_top_level_calls_is_refused_too(tmp_path):
    assert_refused(run_script(tmp_path, f"""
        def main():
            {MATCHES}

        main()
    """))


@pytest.mark.parametrize("body", [
    f"""
    def main():
        print("equity", {ROLLOUT.format(extra="")}.equity)

    {GUARD}
        main()
    """,
    f'{GUARD}\n    print("equity", {ROLLOUT.format(extra="")}.equity)\n',
    f'print("equity", {ROLLOUT.format(extra="").replace("jobs=2", "jobs=1")}.equity)\n',
    f'print("equity", {ROLLOUT.format(extra=", executor=tf.Executor(start_method=" + repr("fork") + ")")}.equity)\n',
], ids=["guarded main()", "guarded call", "jobs=1", "fork"])
def test_a_guarded_script_or_one_without_worker_imports_runs(tmp_path, body):
    p = run_script(tmp_path, body)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("equity") == 1  # (workers import a guarded script's top level too)


def test_python_c_has_no_script_to_run_again_and_runs():
    code = f"import tavli_fast as tf; print('equity', {ROLLOUT.format(extra='')}.equity)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "equity" in p.stdout


def test_a_script_read_from_stdin_is_refused_with_advice():
    """``python - < script.py``: the workers could not import the script again (it is no file),
    guarded or not; the call stops at once with what to do, not after a crash loop of workers."""
    code = ('import tavli_fast as tf\nif __name__ == "__main__":\n'
            f'    print("equity", {ROLLOUT.format(extra="")}.equity)\n')
    p = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode != 0
    message = p.stderr.strip().splitlines()[-1]
    assert message.startswith("tavli_fast.run.executors.guard.MainGuardError: ")
    assert "<stdin>" in message and "jobs=1" in message and "died" not in p.stderr
