"""Rules mechanisms of chess, Patchanka and Heavy Shako, each on a position built for it."""

from __future__ import annotations

import pytest

from rules import Game, IllegalMoveError, Termination


def moves_of(game: Game, origin: str) -> set[str]:
    return {
        m.notation for m in game.legal_moves() if m.move.origin and m.move.origin.name == origin
    }


def test_soldier_steps_sideways_and_double_steps_anywhere() -> None:
    g = Game.from_position_text("patchanka", "4k5/10/10/10/10/4S5/10/10/10/4K5 w - - 0 1")
    assert moves_of(g, "e5") == {"Se5-e6", "Se5-d5", "Se5-f5", "Se5-e7"}


def test_soldier_taken_en_passant_and_taking_en_passant() -> None:
    # Black's Pawn takes a Soldier that double-stepped from e4 (the book's 15... f6xe5 e.p.).
    g = Game.from_position_text("patchanka", "4k5/10/10/10/5p4/10/4S5/10/10/4K5 w - - 0 1")
    g.play("Se4-e6")
    assert g.play("f6xe5 e.p.").notation == "f6xe5 e.p."
    # A Soldier takes a Pawn en passant.
    g = Game.from_position_text("patchanka", "4k5/10/3p6/10/4S5/10/10/10/10/4K5 b - - 0 1")
    g.play("d8-d6")
    assert g.play("e6xd7").notation == "Se6xd7 e.p."


def test_compulsory_single_promotions_print_their_letter() -> None:
    g = Game.from_position_text("patchanka", "4k5/10/10/10/10/10/10/1i8/10/9K b - - 0 1")
    assert g.play("b3-b1").notation == "Ib3-b1B"


def test_heavy_shako_promotion_choices() -> None:
    g = Game.from_position_text("heavy-shako", "5k4/1P8/10/10/10/10/10/10/10/5K4 w - - 0 1")
    choices = {m.notation for m in g.legal_moves() if m.move.promotion}
    assert len(choices) == 11
    assert "b9-b10F" in choices and "b9-b10V" in choices


def test_heavy_shako_castling_on_rank_two() -> None:
    g = Game.replay("heavy-shako", (), ["f3f5", "f8f6", "h2g4", "a8a7", "g2f3", "a7a6"])
    assert g.play("O-O").notation == "O-O"
    assert g.position_text.split()[0].split("/")[8] == "ERNBQ1RK1E"
    g.undo()
    with pytest.raises(IllegalMoveError, match="must be empty"):
        g.play("O-O-O")


def test_castling_through_an_attacked_square_is_refused() -> None:
    g = Game.from_position_text("chess", "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1")
    with pytest.raises(IllegalMoveError):
        g.play("O-O")
    g = Game.from_position_text("chess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert g.play("O-O").notation == "O-O"


def test_cannon_moves_like_a_rook_and_captures_over_a_screen() -> None:
    g = Game.from_position_text("heavy-shako", "5k4/10/4p5/10/4P5/10/10/10/10/4C1K3 w - - 0 1")
    cannon = moves_of(g, "e1")
    assert "Ce1xe8" in cannon  # over the White Pawn on e6
    assert "Ce1-e5" in cannon and "Ce1-e6" not in cannon and "Ce1-a1" in cannon


def test_cannon_check_through_a_screen_must_be_met() -> None:
    g = Game.from_position_text("heavy-shako", "5k4/10/10/5p4/10/10/10/10/10/4KC4 b - - 0 1")
    assert g.is_check()
    assert all(m.move.origin is None or m.move.origin.name != "f7" for m in g.legal_moves())
    g = Game.from_position_text("heavy-shako", "5k4/10/10/5p4/10/10/10/10/5P4/4KC4 b - - 0 1")
    assert not g.is_check()


def test_threefold_repetition_is_a_draw() -> None:
    g = Game.new("chess")
    for _ in range(2):
        for mv in ("g1f3", "g8f6", "f3g1", "f6g8"):
            g.play(mv)
    outcome = g.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION


def test_fifty_move_rule_counts_plies_without_reset() -> None:
    g = Game.from_position_text("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    g.play("Ra1-a2")
    outcome = g.outcome()
    assert outcome is not None and outcome.result_text == "draw by the 50-move rule"


def test_mate_on_the_hundredth_ply_is_mate() -> None:
    g = Game.from_position_text("chess", "6k1/5ppp/8/8/8/8/8/R3K3 w - - 99 80")
    g.play("Ra1-a8")
    outcome = g.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE


@pytest.mark.parametrize(
    ("text", "drawn"),
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
        ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", True),
        ("4k3/8/8/8/8/8/8/3NK3 w - - 0 1", True),
        ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", True),
        ("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", False),
        ("4k3/8/8/8/8/8/8/2NNK3 w - - 0 1", False),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", False),
    ],
)
def test_insufficient_material(text: str, drawn: bool) -> None:
    outcome = Game.from_position_text("chess", text).outcome()
    assert (
        outcome is not None and outcome.termination is Termination.INSUFFICIENT_MATERIAL
    ) == drawn


def test_stalemate_is_a_draw() -> None:
    g = Game.from_position_text("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    outcome = g.outcome()
    assert outcome is not None and outcome.result_text == "draw by stalemate"


def test_no_move_after_the_end() -> None:
    g = Game.replay("chess", (), ["f2f3", "e7e5", "g2g4", "d8h4"])
    from rules import GameOverError

    with pytest.raises(GameOverError, match="black wins by checkmate"):
        g.play("a2a3")


def test_undo_restores_the_exact_position() -> None:
    g = Game.replay("patchanka", (), ["e3e5", "e8e6", "i2g4", "g10f7", "g4e6"])
    text, key = g.position_text, g.position.hash
    g.play("f7e5")
    g.undo()
    assert (g.position_text, g.position.hash) == (text, key)
