"""Fairy-Stockfish as a partner, against a fake UCI engine (`fake_uci.py`): the move it
gives is played only when our rules find it legal; a crash, a hang, an illegal move or a
variant it did not load is a PartnerError (the caller plays its own engine), and the next
search starts a new process; a variant beyond variants.ini never starts one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rules.fsf import uci_moves
from rules.game import Game
from rules.variant import load_variant
from search import partner as partner_module
from search import uci
from search.partner import (
    FairyStockfish,
    PartnerError,
    Unsupported,
    mate_score,
    section_for,
    uci_position,
)
from search.searcher import mate_in
from search.uci import parse_info, short_name
from tests.search.fake_uci import install


@pytest.fixture
def fake(tmp_path: Path) -> str:
    return install(tmp_path)


@pytest.fixture
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hang is noticed in a fraction of a second rather than seconds."""
    monkeypatch.setattr(partner_module, "TIMEOUT_MARGIN", 0.2)
    monkeypatch.setattr(uci, "STOP_GRACE_SECONDS", 0.2)


def chess(*moves: str) -> Game:
    return Game.replay_variant(load_variant("chess"), moves)


def agree(monkeypatch: pytest.MonkeyPatch, game: Game) -> Game:
    """The fake, started after this, finds our legal moves legal in `game`'s position."""
    monkeypatch.setenv("FAKE_UCI_LEGAL", " ".join(uci_moves(game.position)))
    return game


def test_a_legal_answer_is_the_move_with_its_score_and_the_engine_name(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MOVE", "g1f3")
    partner = FairyStockfish(fake, tmp_path / "variants")
    try:
        found = partner.best_move(agree(monkeypatch, chess("e2e4", "e7e5")), 0.05)
        assert found is not None
        assert (found.coordinates, found.score, found.depth, found.nodes) == ("g1f3", 31, 7, 1234)
        assert found.pv == (found.notation,)
        assert partner.name == "Fake-UCI 2.5"
        # The section it was given is on disk under its content's name.
        (written,) = (tmp_path / "variants").iterdir()
        assert written.name == section_for(load_variant("chess")).name + ".ini"
    finally:
        partner.stop()


def test_a_move_our_rules_refuse_is_an_error_not_a_move(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MOVE", "e2e5")
    partner = FairyStockfish(fake, tmp_path)
    try:
        with pytest.raises(PartnerError, match="e2e5, not a legal move") as caught:
            partner.best_move(agree(monkeypatch, chess()), 0.05)
        assert not isinstance(caught.value, Unsupported)
        # Its rules are not ours in this variant: it is not asked again.
        with pytest.raises(Unsupported, match="earlier in this process"):
            partner.best_move(chess(), 0.05)
    finally:
        partner.stop()


def test_a_crash_is_an_error_and_the_next_search_starts_a_new_process(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "crash-once")
    monkeypatch.setenv("FAKE_UCI_MARK", str(tmp_path / "crashed"))
    partner = FairyStockfish(fake, tmp_path)
    try:
        with pytest.raises(PartnerError, match="exited"):
            partner.best_move(agree(monkeypatch, chess()), 0.05)
        found = partner.best_move(chess(), 0.05)
        assert found is not None and found.coordinates == "e2e4"
    finally:
        partner.stop()


def test_a_variant_that_crashes_it_twice_is_not_given_again(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "crash")
    partner = FairyStockfish(fake, tmp_path)
    game = agree(monkeypatch, chess())
    try:
        with pytest.raises(PartnerError, match="has exited"):
            partner.best_move(game, 0.05)
        with pytest.raises(PartnerError, match="crashed 2 times") as second:
            partner.best_move(game, 0.05)
        assert not isinstance(second.value, Unsupported)
        with pytest.raises(Unsupported, match="crashed 2 times"):
            partner.best_move(game, 0.05)
    finally:
        partner.stop()


def test_other_legal_moves_mean_other_rules_and_no_search(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine older than the export ignores what it does not know (Debian's 11.1 and
    Shako's double steps from the third rank): its legal moves say so before it searches."""
    monkeypatch.setenv("FAKE_UCI_MODE", "crash")  # a search would be an error of its own
    monkeypatch.setenv("FAKE_UCI_LEGAL", "e2e4 d2d4")
    partner = FairyStockfish(fake, tmp_path)
    try:
        with pytest.raises(PartnerError, match=r"legal moves differ from ours \(2 against 20"):
            partner.best_move(chess(), 0.05)
        with pytest.raises(Unsupported, match="earlier in this process"):
            partner.best_move(chess(), 0.05)
    finally:
        partner.stop()


@pytest.mark.usefixtures("short_waits")
def test_a_hang_is_an_error_within_its_timeout_and_the_process_is_ended(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "hang")
    partner = FairyStockfish(fake, tmp_path)
    try:
        with pytest.raises(PartnerError, match="did not stop"):
            partner.best_move(agree(monkeypatch, chess()), 0.05)
        engine = partner._engine
        assert engine is None  # killed: the next search starts afresh
    finally:
        partner.stop()


def test_a_variant_the_engine_did_not_confirm_is_not_played(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without `info string variant NAME` it could be playing another game's rules."""
    monkeypatch.setenv("FAKE_UCI_MODE", "noload")
    partner = FairyStockfish(fake, tmp_path)
    try:
        with pytest.raises(PartnerError, match="did not load"):
            partner.best_move(chess(), 0.05)
    finally:
        partner.stop()


def test_called_off_while_thinking_gives_no_move(
    fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "think")
    partner = FairyStockfish(fake, tmp_path)
    try:
        game = agree(monkeypatch, chess())
        assert partner.best_move(game, 30.0, should_stop=lambda: True) is None
        # The same process goes on: it was stopped, not killed.
        engine = partner._engine
        assert partner.best_move(game, 30.0, should_stop=lambda: True) is None
        assert partner._engine is engine
    finally:
        partner.stop()


def test_a_variant_beyond_variants_ini_never_starts_a_process(tmp_path: Path) -> None:
    partner = FairyStockfish(str(tmp_path / "no-such-engine"), tmp_path)
    bigorra = Game(load_variant("bigorra"))
    with pytest.raises(Unsupported, match="16x16"):
        partner.best_move(bigorra, 1.0)
    with pytest.raises(PartnerError, match="cannot be started"):
        partner.best_move(chess(), 1.0)


def test_sections_are_named_by_content_so_two_variants_never_share_a_name() -> None:
    chess_section = section_for(load_variant("chess"))
    assert chess_section == section_for(load_variant("chess"))
    assert chess_section.name.startswith("chess-")
    assert f"[{chess_section.name}]" in chess_section.text
    other = section_for(load_variant("nocastle"))
    assert other.name != chess_section.name


def test_the_position_is_the_start_and_every_move_in_its_notation() -> None:
    text, pos = uci_position(chess("e2e4", "e7e5", "g1f3"))
    assert text == (
        "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5 g1f3"
    )
    assert pos.side == 1
    house = Game.replay_variant(load_variant("crazyhouse"), ["e2e4", "d7d5", "e4d5", "d8d5"])
    house.play("P@e4")
    assert uci_position(house)[0].endswith("e4d5 d8d5 P@e4")


def test_mate_scores_land_on_the_search_scale() -> None:
    assert [mate_in(mate_score(n)) for n in (1, 3, -1, -4)] == [1, 3, -1, -4]


def test_info_lines_and_names() -> None:
    info = parse_info("info depth 12 multipv 2 score mate -3 nodes 500 pv e7e5 g1f3")
    assert info is not None
    assert (info.depth, info.multipv, info.score, info.mate, info.nodes) == (12, 2, None, -3, 500)
    assert info.pv == ("e7e5", "g1f3")
    assert info.nps == 0
    timed = parse_info("info depth 9 score cp 31 nodes 90445 nps 499696 time 181 pv e2e4")
    assert timed is not None and (timed.score, timed.nodes, timed.nps) == (31, 90445, 499696)
    assert parse_info("info string variant chess files 8") is None
    assert short_name("Fairy-Stockfish 11.1 LB 64") == "Fairy-Stockfish 11.1"
    assert short_name("Stockfish 16") == "Stockfish 16"
    assert short_name("Mystery") == "Mystery"


def test_the_fake_is_an_executable_script(fake: str) -> None:
    assert os.access(fake, os.X_OK)
