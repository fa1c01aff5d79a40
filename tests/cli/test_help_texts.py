"""Every option of every command says what it does in --help (issue 51): each parser of the
seven commands (and tavli-train's Plakoto/Fevga parser) is walked, and an option whose help
text is missing fails, by name."""

from __future__ import annotations

import argparse

import pytest

from tavli_fast.cli import bearoff, evaluate, match, openings, rollout, train, variant_train

PARSERS = {
    "tavli-rollout": rollout.build_parser,
    "tavli-openings": openings.build_parser,
    "tavli-match": match.build_parser,
    "tavli-eval": evaluate.build_eval_parser,
    "tavli-hint": evaluate.build_hint_parser,
    "tavli-bearoff": bearoff.build_parser,
    "tavli-train": train.build_parser,
    "tavli-train --game": variant_train.build_parser,
}


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    return ["/".join(a.option_strings) for a in parser._actions  # noqa: SLF001 - argparse's list
            if a.option_strings and not (a.help and a.help.strip())]


@pytest.mark.parametrize("command", PARSERS)
def test_every_option_of_the_command_has_help_text(command):
    parser = PARSERS[command]()
    assert len(parser._actions) > 3  # noqa: SLF001 - the walk sees the options
    assert options_without_help(parser) == []


def test_the_walk_finds_an_option_without_help():
    p = argparse.ArgumentParser()
    p.add_argument("--told", help="says what it does")
    p.add_argument("--silent")
    assert options_without_help(p) == ["--silent"]


def test_tavli_train_help_names_the_plakoto_and_fevga_options(capsys):
    with pytest.raises(SystemExit) as e:
        train.main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "--game" in text and "--refit" in text
