"""The training chain of a net (recipes.py, ``tavli-train --recipe``), issue 13: the recipe
docs/nets.md prints is the one the shipped files record."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT

from tavli_fast.play import neural
from tavli_fast.training.recipes import format_chain, training_chain

NETS_DOC = ROOT / "docs" / "nets.md"
# The default's chain: every shipped default, and v16-320 (shipped as v17-320's start).
SHIPPED = ("v2", "v3", "v4", "v5", "v6", "v7-256", "v8-320", "v10-320", "v12-320", "v13-320", "v15-320",
           "v16-320", "v17-320")


def _net(seed: int):
    rng = np.random.default_rng(seed)
    return neural.net_from_arrays((rng.normal(size=(203, 4)), rng.normal(size=4),
                                   rng.normal(size=(5, 4)), rng.normal(size=5)))


def _save(path: Path, net_seed: int, version: str, start: Path | None = None, **training) -> None:
    """Save a small net; its start (if any) named with that file's checksum."""
    if start is not None:
        training["start"] = {"file": start.name, "sha256": neural.load_net(start)[1]["sha256"]}
    neural.save_net(path, _net(net_seed), version, training=training)


def test_the_default_chain_runs_from_v2_through_every_shipped_default_in_order():
    chain = training_chain()
    assert [s.version for s in chain] == list(SHIPPED)
    assert chain[0].start is None and chain[0].commands == ()
    assert "TD self-play" in chain[0].method and "12 checkpoints" in chain[0].method
    # Each net starts from the one before it, and every later net records its commands.
    for before, after in zip(chain, chain[1:]):
        assert after.start == before.file
        assert after.commands and all(c.startswith("tavli-train ") for c in after.commands)
    # The last command of the default's step exports the default.
    assert "--export v17-320.npz" in chain[-1].commands[-1]
    assert training_chain("neural-v5.npz") == chain[:4]


def _without_earlier_nets(monkeypatch) -> None:
    """As if tavli_fast_nets were not installed: the package's data holds the default alone."""
    monkeypatch.setattr(neural, "nets_folder", lambda: None)


def test_the_default_alone_gives_the_whole_chain_as_the_earlier_files_record_it(monkeypatch):
    whole = training_chain()  # from the files of tavli_fast_nets, checked against the default's
    assert [s.file for s in whole[:-1]] == list(neural.history_nets())
    assert len({s.sha256 for s in whole}) == len(whole)
    _without_earlier_nets(monkeypatch)
    assert neural.installed_net("neural-v16-320.npz") is None
    assert training_chain() == training_chain(neural.DEFAULT_WEIGHTS) == whole
    assert format_chain(training_chain()) == format_chain(whole)


def test_an_earlier_net_without_its_package_is_one_line_that_says_how_to_install_it(
        monkeypatch, capsys):
    from tavli_fast.cli.train import main

    _without_earlier_nets(monkeypatch)
    with pytest.raises(neural.NeuralNetError, match=r"^neural-v5.npz: an earlier net, kept in the "
                       r"tavli_fast_nets package, .*pip install ./nets\)$"):
        training_chain("neural-v5.npz")
    assert main(["--recipe", "neural-v5.npz"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tavli_fast_nets" in err[0] and "pip install ./nets" in err[0]
    assert main(["--recipe"]) == 0 and capsys.readouterr().out == format_chain(training_chain())


def _rewrite_records(source: Path, target: Path, change) -> None:
    """Copy the weights file `source` to `target`, `change` applied to its training.ancestors
    (the arrays as they are)."""
    with np.load(source) as z:
        arrays = {k: z[k] for k in z.files if k != "meta"}
        meta = json.loads(str(z["meta"]))
    change(meta["training"]["ancestors"])
    with open(target, "wb") as f:
        np.savez(f, **arrays, meta=np.array(json.dumps(meta)))


def test_the_records_stand_in_for_missing_files_and_must_agree_with_installed_ones(
        tmp_path, monkeypatch):
    changed = tmp_path / neural.DEFAULT_WEIGHTS

    def other_method(records):
        records[3]["method"] = "another method"

    _rewrite_records(neural.default_weights_path(), changed, other_method)
    with pytest.raises(neural.NeuralNetError, match="neural-v5.npz: its recipe differs from "
                                                    "the one neural-v17-320.npz records"):
        training_chain(changed)
    _without_earlier_nets(monkeypatch)
    chain = training_chain(changed)  # the file alone: its records, as they are
    assert chain[3].method == "another method" and len(chain) == len(SHIPPED)

    def broken(records):
        del records[5]  # v7-256: the chain cannot be followed past v8-320

    _rewrite_records(neural.default_weights_path(), changed, broken)
    with pytest.raises(neural.NeuralNetError, match="neural-v7-256.npz: an earlier net"):
        training_chain(changed)


def test_the_documented_recipe_is_the_chain_the_shipped_files_record():
    blocks = re.findall(r"```sh\n(.*?)```", NETS_DOC.read_text(encoding="utf-8"), re.S)
    printed = format_chain(training_chain("neural-v17-320.npz"))
    assert printed in blocks, "docs/nets.md's recipe block differs from `tavli-train --recipe`"


def test_a_start_file_is_found_beside_its_successor_and_its_checksum_checked(tmp_path):
    first = tmp_path / "a.npz"
    _save(first, 1, "a", games_done=1000, seed=5)
    _save(tmp_path / "b.npz", 2, "b", start=first, method="b from a", recipe=["tavli-train x"])
    chain = training_chain(tmp_path / "b.npz")
    assert [(s.version, s.start, s.commands) for s in chain] == [
        ("a", None, ()), ("b", "a.npz", ("tavli-train x",))]
    assert chain[0].method == "TD self-play: 1,000 games, seed 5"
    text = format_chain(chain)
    assert text.splitlines() == ["# a (a.npz): TD self-play: 1,000 games, seed 5",
                                 "# b (b.npz, from a.npz): b from a", "tavli-train x"]
    # Another net saved under the start's name is not the start.
    _save(first, 3, "a2")
    with pytest.raises(neural.NeuralNetError, match="a.npz: not the net its successor"):
        training_chain(tmp_path / "b.npz")


def test_a_chain_that_comes_back_on_itself_or_loses_a_file_is_an_error(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    _save(a, 1, "a")
    _save(b, 2, "b", start=a)
    _save(a, 1, "a", start=b)  # the same weights (so the same checksum), now starting from b
    with pytest.raises(neural.NeuralNetError, match="comes back"):
        training_chain(b)
    _save(b, 2, "b", start=a)
    a.unlink()
    with pytest.raises(neural.NeuralNetError, match="a.npz: no such weights file"):
        training_chain(b)


def _run_in(directory: Path, commands: list[str], monkeypatch, made: str = "f.npz") -> str:
    """Run `commands` (tavli-train command lines) in a new `directory`; the SHA-256 of the
    weights file `made` they leave there."""
    from tavli_fast.cli.train import main

    directory.mkdir()
    monkeypatch.chdir(directory)
    for command in commands:
        prog, *argv = shlex.split(command)
        assert prog == "tavli-train" and main(argv) == 0
    return neural.load_net(directory / made)[1]["sha256"]


def test_an_exported_fit_is_described_by_its_record(tmp_path):
    _save(tmp_path / "f.npz", 1, "fit-8", supervised={"targets": ["r1", "r2"], "epochs": 8,
                                                      "rate": 0.0001})
    (step,) = training_chain(tmp_path / "f.npz")
    assert step.method == ("fitted to the targets in r1, r2 (8 epochs, the last at rate 0.0001); "
                           "no commands recorded")


def test_a_fit_records_the_commands_that_repeat_it_from_the_file_it_started_from(
        tmp_path, monkeypatch):
    """--targets and --fit record their command lines and --fit its start file, so that the
    exported net's chain reaches the first net, and its commands, run again elsewhere, make
    the same weights."""
    from tavli_fast.cli.train import main

    typed = ["tavli-train --targets t --games 3 --seed 1 -j 1 -q",
             "tavli-train --fit t --epochs 1 --batch 32 --checkpoint c.npz -q",
             "tavli-train --fit t --epochs 2 --batch 32 --fit-rate 1e-4 --checkpoint c.npz "
             "--export f.npz --net-version f --method 'the default, fitted to t' -q"]
    made = _run_in(tmp_path / "first", typed, monkeypatch)
    chain = training_chain(tmp_path / "first" / "f.npz")
    assert [s.version for s in chain] == [*SHIPPED, "f"]
    step = chain[-1]
    assert step.start == neural.default_weights_path().name
    assert step.method == "the default, fitted to t" and step.commands == tuple(typed)
    # The file records its whole chain too, so that it alone gives it.
    ancestors = neural.load_net(tmp_path / "first" / "f.npz")[1]["training"]["ancestors"]
    assert [r["version"] for r in ancestors] == list(SHIPPED)
    with monkeypatch.context() as hidden:
        _without_earlier_nets(hidden)
        assert training_chain(tmp_path / "first" / "f.npz") == chain
    assert _run_in(tmp_path / "again", list(step.commands), monkeypatch) == made
    assert main(["--targets", "t", "--games", "3", "--method", "m", "-q"]) == 2  # not a fit


def test_td_runs_and_their_average_record_the_commands_that_repeat_them(tmp_path, monkeypatch):
    """A TD run records its command lines in its checkpoint (across --resume) and the file
    it started from; --average records its checkpoints' runs and itself; replayed elsewhere,
    the commands make the same weights."""
    td = ["tavli-train --games 30 --seed 3 --init-from neural-v2.npz --checkpoint a.npz -q",
          "tavli-train --games 60 --resume a.npz --checkpoint a.npz -q",
          "tavli-train --games 30 --seed 4 --init-from neural-v2.npz --checkpoint b.npz -q",
          "tavli-train --average a.npz b.npz --export f.npz --net-version f -q"]
    made = _run_in(tmp_path / "first", td, monkeypatch)
    chain = training_chain(tmp_path / "first" / "f.npz")
    assert [(s.version, s.start) for s in chain] == [("v2", None), ("f", "neural-v2.npz")]
    assert chain[-1].commands == tuple(td) and chain[-1].method.startswith("TD self-play: the mean")
    assert _run_in(tmp_path / "again", td, monkeypatch) == made
    # A TD run's own export: its command, from its start file.
    one = ["tavli-train --games 20 --seed 5 --init-from neural-v2.npz --export g.npz "
           "--net-version g -q"]
    _run_in(tmp_path / "td", one, monkeypatch, made="g.npz")
    _, step = training_chain(tmp_path / "td" / "g.npz")
    assert (step.start, step.commands) == ("neural-v2.npz", tuple(one))
    assert step.method == "TD self-play: 20 games, seed 5"
    # Both record the chain of their start file (v2's, which is v2 alone).
    for made in (tmp_path / "first" / "f.npz", tmp_path / "td" / "g.npz"):
        records = neural.load_net(made)[1]["training"]["ancestors"]
        assert [(r["version"], r["file"]) for r in records] == [("v2", "neural-v2.npz")]


def test_the_command_prints_the_chain_and_refuses_training_options(tmp_path):
    cmd = [sys.executable, "-m", "tavli_fast.cli.train", "--recipe"]
    done = subprocess.run(cmd + ["neural-v6.npz"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == format_chain(training_chain("neural-v6.npz"))
    for extra in (["neural-v6.npz", "--games", "10"], [str(tmp_path / "none.npz")]):
        bad = subprocess.run(cmd + extra, capture_output=True, text=True)
        assert bad.returncode == 2 and bad.stdout == ""
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_the_variant_nets_recipes_print_from_their_own_files(game):
    """tavli-train --recipe works for the Plakoto and Fevga nets too: one step, from random
    weights, whose commands train that game and export the shipped file."""
    (step,) = training_chain(f"{game}-v1.npz")
    assert step.file == f"{game}-v1.npz" and step.start is None
    assert step.commands and all(c.startswith(f"tavli-train --game {game} ") for c in step.commands)
    assert f"--export {game}-v1.npz" in step.commands[-1]
    assert format_chain([step]).startswith(f"# v1 ({game}-v1.npz)")
