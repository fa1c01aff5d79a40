"""tavli-analyse on the Portes and tavli matches tavli-match --save writes (RULES.md R20's
Portes option: no backgammons; T1-T3: no cube, Portes, Plakoto and Fevga games in turn).

The Portes checks are independent of the analysis code: each checker decision's equities
are recomputed here from the net's probabilities of the board after the play (``evaluate``,
the opponent on roll) with a backgammon scored as a gammon, by the formula written out
below, not by the kernel's priced equity the analysis uses.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.cli.analyse import main as analyse_main
from tavli_fast.game.resolve import resolve_position
from tavli_fast.matchfile.mat import read_mat
from tavli_fast.play.met import load_met
from tavli_fast.play.neural import evaluator


@pytest.fixture(scope="module")
def portes_match(tmp_path_factory):
    path = tmp_path_factory.mktemp("portes") / "portes.mat"
    tf.play_matches(3, 1, ("greedy", "random"), seed=4, jobs=1, rules="portes", save=path)
    return path


@pytest.fixture(scope="module")
def tavli_match(tmp_path_factory):
    path = tmp_path_factory.mktemp("tavli") / "tavli.mat"
    tf.play_matches(3, 1, ("greedy", "random"), seed=2, jobs=1, rules="tavli", save=path)
    return path


def portes_equity(board_after: np.ndarray, score: tuple[int, int], length: int) -> float:
    """The mover's cubeless equity after a play, a backgammon counted as a gammon (R20's
    Portes option), gammons at the match score's price (cube 1: tavli-match's Portes has no
    cube)."""
    # the analysis values positions by the default evaluator; the opponent on roll
    p = evaluator().evaluate(np.ascontiguousarray(board_after[::-1]))
    win, win_gammon, lose_gammon = 1.0 - p[0], p[3], p[1]
    me, opp = length - score[0], length - score[1]
    price_win, price_lose = _core.gammon_prices_of(1, me, opp, load_met().kernel)[:2]
    return 2.0 * win - 1.0 + price_win * win_gammon - price_lose * lose_gammon


def test_portes_record_is_analysed_with_checker_decisions_only(portes_match):
    analysis = tf.analyse_match(portes_match)
    record = read_mat(portes_match)
    doc = analysis.to_dict()
    assert doc["match"]["final_score"] == list(record.final_score)
    assert doc["decisions"], "a whole match has unforced checker plays"
    assert {d["kind"] for d in doc["decisions"]} == {"checker"}   # T1 / Portes: no cube


def test_portes_equities_count_a_backgammon_as_a_gammon(portes_match):
    analysis = tf.analyse_match(portes_match)
    checked = 0
    for d in analysis.to_dict()["decisions"][:40]:
        pos, _ = resolve_position(d["position_id"])
        ctx = pos.context
        dice = (int(d["dice"][0]), int(d["dice"][1]))
        values = {}
        for play in pos.plays(*dice):
            board = play.position.board
            if board[0][0] == 15:            # the game ends: no net to ask
                break
            values[play.notation] = portes_equity(board, ctx.score, ctx.match_length)
        else:
            assert values[d["played"]] == pytest.approx(d["equity_played"], abs=1e-4)
            assert values[d["best"]] == pytest.approx(d["equity_best"], abs=1e-4)
            assert max(values.values()) == pytest.approx(d["equity_best"], abs=1e-4)
            checked += 1
    assert checked >= 10


def test_gammon_prices_without_backgammons_zero_the_backgammon_prices():
    from tavli_fast.game.context import GameContext
    from tavli_fast.play.cube import gammon_prices
    money = gammon_prices(GameContext(), backgammons=False)
    assert [list(side) for side in money] == [[1.0, 1.0, 0.0, 0.0]] * 2
    ctx = GameContext(score=(1, 3), match_length=7)
    full, portes = gammon_prices(ctx), gammon_prices(ctx, backgammons=False)
    for a, b in zip(full, portes):
        assert list(b[:2]) == list(a[:2]) and list(b[2:]) == [0.0, 0.0]


def test_tavli_record_analyses_every_game_by_its_own_game(tavli_match):
    record = read_mat(tavli_match)
    kinds = {g.game for g in record.games}
    assert {"portes", "plakoto"} <= kinds                 # T2: the games rotate
    analysis = tf.analyse_match(tavli_match)
    doc = analysis.to_dict()
    assert len(doc["match"]["games"]) == len(record.games)
    games_with_decisions = {d["game"] for d in doc["decisions"]}
    assert games_with_decisions == {g.number for g in record.games if g.actions}
    assert {d["kind"] for d in doc["decisions"]} == {"checker"}
    for player in doc["players"]:
        assert player["checker_decisions"] > 0 and np.isfinite(player["error_rate"])


def test_tavli_analyse_cli_reads_portes_and_tavli_records(portes_match, tavli_match, capsys):
    for path in (portes_match, tavli_match):
        assert analyse_main([str(path), "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["decisions"] == tf.analyse_match(path).to_dict()["decisions"]


def test_the_text_report_names_each_game_of_a_tavli_record(tavli_match, capsys):
    assert analyse_main([str(tavli_match)]) == 0
    out = capsys.readouterr().out
    for g in read_mat(tavli_match).games:
        assert f"Game {g.number} ({g.game.capitalize()}):" in out


def test_tavli_record_at_2_ply_is_refused_in_one_line(tavli_match, capsys):
    with pytest.raises(ValueError, match="0 or 1 ply"):
        tf.analyse_match(tavli_match, ply=2)
    assert analyse_main([str(tavli_match), "--ply", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "0 or 1 ply" in err and len(err.splitlines()) == 1
