"""Checkpoints and outputs never destroy a file (issue 51): only a regular file or a new name
is written, atomically beside it; a symbolic link is followed and kept; a checkpoint carries
a checksum and a changed one is refused; a run overwrites only its own checkpoint unless
forced. The commands' refusals (one line, exit 2) are in tests/test_bad_inputs.py."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat

import pytest

import tavli_fast
from tavli_fast.api import read_checkpoint
from tavli_fast.cli import openings as openings_cli
from tavli_fast.cli import rollout as rollout_cli
from tavli_fast.run.atomic import atomic_file, output_target
from tavli_fast.run.checkpoint import write_checkpoint

PUBEVAL = ["--player", "pubeval", "--trials", "20", "--seed", "1", "--jobs", "1", "--no-progress"]


def _sha256_of_body(doc: dict) -> str:
    """The checksum as the format describes it: SHA-256 of the document without its checksum,
    keys sorted, no spaces."""
    body = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# ------------------------------------------------------------------------- atomic_file

@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_device_is_refused_and_stays_a_device_through_a_link(tmp_path, device):
    link = tmp_path / "link"
    link.symlink_to(device)
    with pytest.raises(ValueError, match="character device"):
        with atomic_file(link) as f:
            f.write(b"{}")
    assert stat.S_ISCHR(os.stat(device).st_mode) and os.readlink(link) == device
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link"]  # no temporary file left


def test_a_pipe_and_a_directory_are_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for name, kind in (("fifo", "pipe"), ("dir", "directory")):
        with pytest.raises(ValueError, match=kind):
            output_target(tmp_path / name)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode) and (tmp_path / "dir").is_dir()


def test_a_link_to_a_regular_file_replaces_that_file_and_keeps_the_link(tmp_path):
    target, link = tmp_path / "real.txt", tmp_path / "link.txt"
    target.write_text("old")
    link.symlink_to(target)
    with atomic_file(link, text=True) as f:
        f.write("new")
    assert link.is_symlink() and target.read_text() == "new"


def test_an_error_inside_the_block_leaves_the_old_file(tmp_path):
    path = tmp_path / "keep.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_file(path, text=True) as f:
            f.write("half")
            raise RuntimeError("stop")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        output_target(tmp_path / "no" / "such" / "file.json")


# ------------------------------------------------------------------------- checksums

def test_a_checkpoint_carries_the_sha256_of_its_canonical_body(tmp_path):
    path = tmp_path / "c.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=3, executor=1, checkpoint=path)
    doc = json.loads(path.read_text())
    assert doc["checksum"] == _sha256_of_body(doc)


def test_a_changed_checkpoint_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "c.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=3, executor=1, checkpoint=path)
    doc = json.loads(path.read_text())
    doc["request"]["trials"] = 20  # a hand edit that would still be a valid request
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=f"{path}.*checksum"):
        read_checkpoint(path)


def test_a_checkpoint_with_nan_is_refused_even_without_a_checksum(tmp_path):
    path = tmp_path / "c.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=3, executor=1, checkpoint=path)
    doc = json.loads(path.read_text())
    del doc["checksum"]
    key = next(iter(doc["chunks"]))
    doc["chunks"][key][0] = float("nan")
    path.write_text(json.dumps(doc))  # json writes NaN
    assert "NaN" in path.read_text()
    with pytest.raises(ValueError, match="NaN"):
        tavli_fast.resume_rollout(path, executor=1)


def test_an_older_checkpoint_without_a_checksum_resumes_with_a_warning(tmp_path, caplog):
    path = tmp_path / "c.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=3, executor=1, checkpoint=path)
    whole = tavli_fast.rollout("start", 20, "pubeval", seed=3, executor=1)
    doc = json.loads(path.read_text())
    del doc["checksum"]
    path.write_text(json.dumps(doc))
    with caplog.at_level(logging.WARNING, logger="tavli_fast"):
        resumed = tavli_fast.resume_rollout(path, trials=20, executor=1)
    assert resumed.equity == whole.equity and resumed.trials == 20
    assert any("no checksum" in r.getMessage() and str(path) in r.getMessage()
               for r in caplog.records)
    assert json.loads(path.read_text())["checksum"]  # saved again, with its checksum now


def test_write_checkpoint_refuses_nan_and_writes_nothing(tmp_path):
    path = tmp_path / "c.json"
    with pytest.raises(ValueError):
        write_checkpoint(path, {"format": "x", "value": float("nan")})
    assert not path.exists()


# ------------------------------------------------------------------------- whose checkpoint

def _rollout(argv, capsys) -> tuple[int, str]:
    status = rollout_cli.main(argv)
    return status, capsys.readouterr().err


def test_the_same_run_may_rewrite_and_resume_its_checkpoint(tmp_path, capsys):
    path = str(tmp_path / "c.json")
    assert _rollout([*PUBEVAL, "--checkpoint", path], capsys)[0] == 0
    first = json.loads((tmp_path / "c.json").read_text())
    assert _rollout([*PUBEVAL, "--checkpoint", path], capsys)[0] == 0  # the same run again
    assert _rollout(["--resume", path, "--trials", "40", "--no-progress", "--jobs", "1"],
                    capsys)[0] == 0
    resumed = json.loads((tmp_path / "c.json").read_text())
    assert resumed["request"]["seed"] == first["request"]["seed"] == 1
    assert resumed["request"]["trials"] == 40


def test_another_runs_checkpoint_is_kept_unless_forced(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert _rollout([*PUBEVAL, "--checkpoint", str(path)], capsys)[0] == 0
    before = path.read_bytes()
    other = [*PUBEVAL, "--seed", "2"]  # the last --seed counts
    status, err = _rollout([*other, "--checkpoint", str(path)], capsys)
    assert status == 2 and "not a checkpoint of this run" in err and "--force" in err
    assert path.read_bytes() == before
    assert _rollout([*other, "--checkpoint", str(path), "--force"], capsys)[0] == 0
    assert json.loads(path.read_text())["request"]["seed"] == 2


def test_a_file_that_is_no_checkpoint_is_kept_unless_forced(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    status, err = _rollout([*PUBEVAL, "--checkpoint", str(path)], capsys)
    assert status == 2 and path.read_text() == "my notes\n"
    assert _rollout([*PUBEVAL, "--checkpoint", str(path), "--force"], capsys)[0] == 0
    assert read_checkpoint(path)["request"]["seed"] == 1


def test_the_api_refuses_another_runs_checkpoint_too(tmp_path):
    path = tmp_path / "c.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=3, executor=1, checkpoint=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="not a checkpoint of this run"):
        tavli_fast.play_matches(3, 2, "pubeval", seed=3, executor=1, checkpoint=path)
    assert path.read_bytes() == before


# ------------------------------------------------------------------------- plots

def test_a_plot_is_written_to_the_path_as_given(tmp_path, capsys):
    path = tmp_path / "plot"  # no extension: matplotlib alone would write plot.png
    status = openings_cli.main(["--player", "pubeval", "--rolls", "31", "--trials", "20",
                                "--seed", "1", "--jobs", "1", "--no-progress", "--no-screen",
                                "--plot", str(path)])
    assert status == 0, capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot"]
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_plot_named_svg_is_an_svg_file_of_that_name(tmp_path, capsys):
    path = tmp_path / "plot.svg"
    status = openings_cli.main(["--player", "pubeval", "--rolls", "31", "--trials", "20",
                                "--seed", "1", "--jobs", "1", "--no-progress", "--no-screen",
                                "--plot", str(path)])
    assert status == 0, capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.svg"]
    assert b"<svg" in path.read_bytes()[:1000]
