"""A Plakoto or Fevga id given where a backgammon position belongs says which game it is.

Issue 41: such an id (to tavli-rollout without --game, to tavli-hint or tavli-eval, or to the
Python API) used to be refused as a Position ID with "padding bits set", which tells the user
nothing. Now the error names the game, and says what to do where that is known.
"""

from __future__ import annotations

import pytest

from tavli_fast import rollout, simulate
from tavli_fast.cli import evaluate
from tavli_fast.cli import rollout as rollout_cli
from tavli_fast.errors import InvalidPositionError, VariantIdError
from tavli_fast.game.position import Position
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.position import variant_position

GAMES = ("plakoto", "fevga")


def variant_ids(game: str) -> list[str]:
    """The game's starting id and a few ids from the middle of random games."""
    later = random_game_positions(game, 2, seed=41)[5::20]
    return [variant_position(game).variant_id(), *(p.variant_id() for p in later)]


CASES = [(game, text) for game in GAMES for text in variant_ids(game)]


@pytest.mark.parametrize("game,text", CASES)
def test_position_from_id_names_the_game_of_a_variant_id(game, text):
    with pytest.raises(VariantIdError) as caught:
        Position.from_id(text)
    assert caught.value.game == game
    assert f"{game.capitalize()} position id" in str(caught.value)
    assert "padding" not in str(caught.value)


def test_an_id_of_no_game_keeps_its_own_reason():
    with pytest.raises(InvalidPositionError) as caught:
        Position.from_id("4HPwATDgc/ABM!")
    assert not isinstance(caught.value, VariantIdError)
    assert "non-base64" in str(caught.value)


@pytest.mark.parametrize("game", GAMES)
def test_the_api_says_which_game_argument_to_pass(game):
    text = variant_ids(game)[0]
    for call in (lambda: rollout(text, 10, jobs=1), lambda: simulate(text, games=10)):
        with pytest.raises(VariantIdError, match=f"game={game!r}"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_tavli_rollout_says_add_the_game_option(game, capsys):
    assert rollout_cli.main(["--position", variant_ids(game)[0], "--trials", "10"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"add --game {game}" in err, err


@pytest.mark.parametrize("main,extra", [(evaluate.eval_main, []), (evaluate.hint_main, ["--dice", "31"])])
@pytest.mark.parametrize("game", GAMES)
def test_tavli_eval_and_hint_say_the_net_does_not_play_the_game(main, extra, game, capsys):
    assert main(["--position", variant_ids(game)[0], *extra]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert f"{game.capitalize()} position id" in err and f"tavli-rollout --game {game}" in err, err
