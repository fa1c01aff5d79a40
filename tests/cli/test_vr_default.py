"""One default for luck adjustment (variance reduction, VR) in every command (issue 51): on
whenever a neural player plays a cubeless Portes game, off otherwise, as the library decides
it (bench/vr_default.py measured the smaller SE per CPU-second with it for rollouts,
candidate plays, openings and replies; docs/performance.md).

Each command's run is stopped where it hands its settings to the library; the settings are
then made into the library's request, whose ``vr`` is what the run would use."""

from __future__ import annotations

import pytest

import tavli_fast.api as api
import tavli_fast.cli.plays as cli_plays
import tavli_fast.cli.rollout as cli_rollout
from tavli_fast.cli.evaluate import hint_main
from tavli_fast.cli.openings import main as openings_main
from tavli_fast.jobs.openings import make_openings_request
from tavli_fast.jobs.plays import make_plays_request
from tavli_fast.jobs.rollout_request import make_request


class Stop(Exception):
    pass


def _captured(monkeypatch, module, name: str, run) -> dict:
    seen: dict = {}

    def fake(*args, **kwargs):
        seen.update(kwargs, args=args)
        raise Stop

    monkeypatch.setattr(module, name, fake)
    with pytest.raises(Stop):
        run()
    return seen


def _vr_of_each_command(monkeypatch, players: list[str]) -> dict[str, bool]:
    """The VR each command's run would use, with `players` (e.g. ["--player", "pubeval"])."""
    out = {}
    s = _captured(monkeypatch, cli_rollout, "rollout",
                  lambda: cli_rollout.main([*players, "--no-progress"]))
    out["tavli-rollout"] = make_request(s["position"], 36, s["players"], vr=s["vr"]).vr
    s = _captured(monkeypatch, cli_plays, "rollout_plays",
                  lambda: cli_rollout.main(["--dice", "31", "--plays", "8/5 6/5", *players,
                                            "--no-progress"]))
    out["tavli-rollout --dice"] = make_plays_request(
        s["position"], s["dice"], 36, s.get("players"), plays=s["plays"], vr=s.get("vr")).vr
    if not players:  # tavli-hint --rollout plays the default players only
        s = _captured(monkeypatch, cli_plays, "rollout_plays",
                      lambda: hint_main(["--position", "start", "--dice", "31", "--rollout", "36",
                                         "--plays", "8/5 6/5", "--no-progress"]))
        out["tavli-hint --rollout"] = make_plays_request(
            s["position"], s["dice"], 36, s.get("players"), plays=s["plays"], vr=s.get("vr")).vr
    s = _captured(monkeypatch, api, "openings",
                  lambda: openings_main(["--rolls", "31", *players, "--no-progress"]))
    out["tavli-openings"] = make_openings_request(36, s["players"], rolls="31", vr=s["vr"]).vr
    s = _captured(monkeypatch, api, "replies",
                  lambda: openings_main(["--rolls", "31", "--replies", "8/5 6/5", *players,
                                         "--no-progress"]))
    out["tavli-openings --replies"] = make_openings_request(36, s["players"], rolls="31",
                                                            vr=s["vr"]).vr
    return out


def test_every_command_luck_adjusts_the_default_players():
    with pytest.MonkeyPatch.context() as m:
        used = _vr_of_each_command(m, [])
    assert len(used) == 5 and set(used.values()) == {True}, used


@pytest.mark.parametrize("players, expected", [(["--player", "pubeval"], False),
                                               (["--player", "neural"], True)])
def test_every_command_has_the_same_rule_for_named_players(players, expected):
    with pytest.MonkeyPatch.context() as m:
        used = _vr_of_each_command(m, players)
    assert len(used) == 4 and set(used.values()) == {expected}, used


def test_the_library_functions_have_the_same_default():
    # rollout, rollout_plays, openings and replies: on for the net, off for pubeval and cubeful
    assert make_request("start", 36, "neural").vr and not make_request("start", 36, "pubeval").vr
    assert not make_request("start", 36, "neural", cubeful=True).vr
    assert make_plays_request("start", "31", 36, "neural", plays="8/5 6/5").vr
    assert not make_plays_request("start", "31", 36, "neural", plays="8/5 6/5", cubeful=True).vr
    assert make_openings_request(36, "neural", rolls="31").vr
    assert not make_openings_request(36, "pubeval", rolls="31").vr
