"""A server's own variants through the service: define, version, permissions, resolution
(this server's only), games that keep the definition they started with through edits and
deletion, records, ratings and `python -m storage check`."""

from __future__ import annotations

import pytest

from bot.replies import refusal
from bot.service import GameService
from bot.service.effects import EffectRunner
from bot.service.errors import BadRequestError
from bot.service.variants import split_key, variant_key
from rules.errors import GameRecordError, VariantError
from rules.record import read_record, replay_record
from storage import Storage
from storage.check import check_database
from tests.bot.conftest import (
    ANN,
    BOB,
    CHANNEL,
    EVE,
    GUILD,
    TINY_CHESS,
    TINY_CHESS_V2,
    start_game,
)

THREAD = 5000
# A 5x5 game whose Rook moves like a Wazir in version 2.
V1, V2 = TINY_CHESS, TINY_CHESS_V2


async def define(
    service: GameService, text: str, *, by: object = ANN, manager: bool = False, guild: int = GUILD
) -> object:
    return await service.variants.define(
        guild,
        by,  # type: ignore[arg-type]
        can_manage=manager,
        filename="tiny.toml",
        data=text.encode(),
    )


async def test_define_answers_with_the_rules_and_the_sanity_run(service: GameService) -> None:
    result = await service.variants.define(
        GUILD, ANN, can_manage=False, filename="tiny.toml", data=V1.encode()
    )
    assert result.rules.variant.own and result.rules.variant.version == 1
    assert result.rules.variant.label == "Tiny Chess · this server's v1"
    assert result.replaced_version == 0
    assert "Checkmate wins." in result.rules.summary
    assert any(line.startswith("perft 2:") for line in result.sanity)
    assert result.new_pieces == ()  # King, Rook and Pawn are the catalogue's
    again = await service.variants.define(
        GUILD, ANN, can_manage=False, filename="tiny.toml", data=V2.encode()
    )
    assert again.replaced_version == 1 and again.rules.variant.version == 2
    assert [p.id for p in again.new_pieces] == []  # a Wazir is not new either


async def test_a_bad_file_gets_the_key_the_line_and_an_example(service: GameService) -> None:
    with pytest.raises(VariantError) as info:
        await define(service, V1.replace('"R . . . K"', '"R . . K"'))
    text = refusal(info.value) or ""
    assert "tiny.toml, line 13: setup.1: has 4 squares; the board has 5 files" in text
    assert "Example:" in text
    with pytest.raises(BadRequestError, match=r"\.toml file"):
        await service.variants.define(GUILD, ANN, can_manage=False, filename="x.txt", data=b"")
    with pytest.raises(VariantError, match="not UTF-8"):
        await service.variants.define(
            GUILD, ANN, can_manage=False, filename="t.toml", data=b"id = '\xff'"
        )


async def test_only_the_author_or_a_manager_may_replace_or_delete(service: GameService) -> None:
    await define(service, V1)
    with pytest.raises(BadRequestError, match="Only the author of `tiny`"):
        await define(service, V2, by=BOB)
    with pytest.raises(BadRequestError, match="Only the author"):
        await service.variants.delete(GUILD, BOB, can_manage=False, text="tiny")
    assert (await define(service, V2, by=BOB, manager=True)).replaced_version == 1  # type: ignore[attr-defined]
    info = await service.variants.delete(GUILD, BOB, can_manage=True, text="Tiny Chess")
    assert info.id == "tiny"
    with pytest.raises(BadRequestError, match="has no variant 'tiny'"):
        await service.variants.show(GUILD, "tiny")
    # After a deletion, anyone may define the id again; versions continue.
    assert (await define(service, V1, by=EVE)).rules.variant.version == 3  # type: ignore[attr-defined]


async def test_a_server_sees_only_its_own_variants(service: GameService) -> None:
    await define(service, V1)
    found = await service.variants.resolve(GUILD, "tiny")
    assert (found.key, found.digest) == (variant_key(GUILD, "tiny"), found.variant.digest)
    assert (await service.variants.resolve(GUILD, "Tiny Chess")).key == found.key
    assert (await service.variants.resolve(GUILD, found.key)).key == found.key
    with pytest.raises(BadRequestError, match="unknown variant 'tiny'"):
        await service.variants.resolve(GUILD + 1, "tiny")
    with pytest.raises(BadRequestError, match="unknown variant"):
        await service.variants.resolve(GUILD + 1, found.key)
    chess = await service.variants.resolve(GUILD, "chess")
    assert (chess.key, chess.digest) == ("chess", None)
    names = [s.name for s in await service.variants.suggestions(GUILD, "")]
    assert names[0] == "Tiny Chess · this server's (v1)" and len(names) == 25
    assert [s.value for s in await service.variants.suggestions(GUILD, "", own_only=True)] == [
        "tiny"
    ]
    assert [i.id for i in await service.variants.catalogue(GUILD) if i.own] == ["tiny"]
    assert split_key(found.key) == ("tiny", GUILD)


async def test_edit_mid_game_changes_nothing_for_the_game(
    service: GameService, storage: Storage
) -> None:
    await define(service, V1)
    game_id = await start_game(service, "tiny", thread=THREAD)
    await service.play(channel_id=THREAD, user=ANN, text="a2-a3")
    await service.play(channel_id=THREAD, user=BOB, text="b4-b3")
    await define(service, V2)  # the Rook becomes a Wazir in new games
    service.cache.drop(game_id)  # as after a restart: the game is rebuilt from storage
    moves = [
        m.value for m in await service.suggest_moves(channel_id=THREAD, user_id=ANN.id, typed="R")
    ]
    assert "Ra1-d1" in moves, "the Rook still rides (version 1)"
    await service.play(channel_id=THREAD, user=ANN, text="Ra1-d1")
    await service.variants.delete(GUILD, ANN, can_manage=False, text="tiny")
    service.cache.drop(game_id)
    board = await service.board(channel_id=THREAD, user_id=ANN.id)
    assert board.game.ply_count == 3 and board.variant.name == "Tiny Chess"
    record = await service.history(channel_id=THREAD)
    assert "# variant: tiny" in record.text and "Ra1-d1" in record.text
    assert record.filename == f"fairypost-{game_id}-tiny.txt"
    # The record replays with the file the game started with, and only with it.
    assert replay_record(read_record(record.text, V1)).ply == 3
    with pytest.raises(GameRecordError, match="--definition"):
        read_record(record.text)
    with pytest.raises(GameRecordError, match="a Rook cannot move from a1 to d1"):
        replay_record(read_record(record.text, V2))
    summaries = await service.my_games(ANN.id)
    assert [s.variant_name for s in summaries] == ["Tiny Chess"]
    report = await check_database(storage, storage.engine)  # type: ignore[arg-type]
    assert report.ok and report.games_checked == 1
    # A new game of the same id now starts from version 2.
    await define(service, V2, by=BOB)
    new = await start_game(service, "tiny", thread=THREAD + 1)
    moves = [
        m.value
        for m in await service.suggest_moves(channel_id=THREAD + 1, user_id=ANN.id, typed="R")
    ]
    assert "Ra1-b1" in moves and "Ra1-c1" not in moves  # now a Wazir
    assert new != game_id


async def test_ratings_gather_all_versions_under_the_key(
    service: GameService, effects: EffectRunner
) -> None:
    await define(service, V1)
    await start_game(service, "tiny", thread=THREAD)
    ended = await service.resign(channel_id=THREAD, user=BOB)
    await effects.run_due()  # ratings are a consequence carried out after the commit
    assert ended.view.game.variant_id == variant_key(GUILD, "tiny")
    board = await service.storage.ratings.leaderboard(variant_key(GUILD, "tiny"), 20)
    assert [e.user_id for e in board] == [ANN.id, BOB.id]
    assert await service.variants.name_of_key(variant_key(GUILD, "tiny")) == "Tiny Chess"
    lines = await service.variants.listing(GUILD)
    assert [(line.info.id, line.games, line.author_name) for line in lines] == [("tiny", 1, "Ann")]
    exported = await service.variants.export(GUILD, "tiny")
    assert (exported.filename, exported.text, exported.version) == ("tiny-v1.toml", V1, 1)


async def test_a_challenge_offers_the_version_of_its_time(service: GameService) -> None:
    await define(service, V1)
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, opponent=BOB, variant="tiny"
    )
    assert view.variant.own
    await define(service, V2)
    game = await service.accept_challenge(view.challenge.id, BOB)
    assert game.game.definition_digest == view.challenge.definition_digest


async def test_rules_show_the_values_the_engine_derives(service: GameService) -> None:
    from bot.ui.embeds import rules_embed

    chess = await service.variants.rules_view(GUILD, "chess")
    values = {p.name: p.value for p in chess.pieces}
    assert values["Queen"] == 943 and values["Knight"] == 320 and values["King"] == 0
    legend = next(f for f in rules_embed(chess).fields if f.name == "Pieces (value in Pawns)")
    assert "` Q` Queen `9.4` —" in str(legend.value) and "` K` King `royal` —" in str(legend.value)
    # A server's own piece gets its value at once, from its movement alone: the Wazir-Rook
    # of version 2 is worth little more than half a Rook.
    await define(service, V1)
    rook = next(
        p for p in (await service.variants.rules_view(GUILD, "tiny")).pieces if p.letters == "R"
    )
    await define(service, V2)
    wazir = next(
        p for p in (await service.variants.rules_view(GUILD, "tiny")).pieces if p.letters == "R"
    )
    assert rook.value is not None and wazir.value is not None and wazir.value < rook.value * 0.6


def test_the_closest_start_comes_first_in_the_variant_suggestions() -> None:
    """Enter takes the first suggestion: `ch` is Chess (not Chancellor or Chigorin Chess,
    which start the same way with more letters after), `ches` too (not ASEAN Chess), and
    the start of a name before the start of a later word."""
    from bot.service.catalogue import ranked_variants

    def first(typed: str, n: int = 1) -> list[str]:
        return [s.value for _, s in ranked_variants(typed)[:n]]

    ch = first("ch", 100)
    assert ch.index("chess") < ch.index("chigorin") < ch.index("chancellor")
    assert first("ches") == first("chess") == ["chess"]
    assert first("sho") == ["shogi"] and first("x") == ["xiangqi"]


def test_nothing_typed_offers_chess_and_the_most_played_games_first() -> None:
    """An empty variant option (a newcomer opening /challenge) lists Chess first, then the
    games most played on the variant servers, then every other built-in game once."""
    from bot.service.catalogue import FIRST_OFFERED, ranked_variants
    from rules.variant import variant_ids

    offered = [s.value for _, s in ranked_variants("")]
    assert offered[0] == "chess"
    known = [v for v in FIRST_OFFERED if v in variant_ids()]
    assert offered[: len(known)] == known
    assert sorted(offered) == sorted(variant_ids())


async def test_rules_name_the_traditional_characters(service: GameService) -> None:
    """A player reading 俥 or 飛 in the pictures finds the letter to type (issue 27)."""
    from bot.ui.embeds import rules_embed

    xiangqi = await service.variants.rules_view(GUILD, "xiangqi")
    legend = next(f for f in rules_embed(xiangqi).fields if f.name == "Pieces (value in Pawns)")
    assert "` R` 俥/車 Chariot `" in str(legend.value)
    shogi = await service.variants.rules_view(GUILD, "shogi")
    assert {p.letters: p.characters for p in shogi.pieces}["R"] == "飛"
    chess = await service.variants.rules_view(GUILD, "chess")
    assert all(p.characters == "" for p in chess.pieces)


INI = b"""# Two games in Fairy-Stockfish's format: one Fairy Post plays, one it refuses.
[tiny-ini:chess]
maxFile = e
maxRank = 5
startFen = rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1
promotionRegionWhite = *5
promotionRegionBlack = *1
doubleStep = false
castling = false

[tictac]
maxRank = 3
maxFile = 3
immobile = p
startFen = 3/3/3 w - - 0 1
connectN = 3
"""


async def test_a_variants_ini_defines_a_variant_a_section(service: GameService) -> None:
    result = await service.variants.define_file(
        GUILD, ANN, can_manage=False, filename="mine.ini", data=INI
    )
    assert [d.rules.variant.id for d in result.defined] == ["tiny-ini"]
    assert len(result.refused) == 1
    assert (
        "connectN (connecting pieces in a row (a connection game)) is not a chess rule"
        in (result.refused[0])
    )
    exported = await service.variants.export(GUILD, "tiny-ini", "ini")
    assert exported.filename == "tiny-ini-v1.ini"
    assert "[tiny-ini]" in exported.text and "startFen = rnbqk/ppppp/5/PPPPP/RNBQK" in (
        exported.text
    )
    with pytest.raises(BadRequestError, match=r"No section of only\.ini could be defined"):
        await service.variants.define_file(
            GUILD, ANN, can_manage=False, filename="only.ini", data=INI.split(b"[tictac]")[0][:60]
        )


async def test_export_as_ini_takes_built_in_variants_and_says_what_cannot_be_said(
    service: GameService,
) -> None:
    chess = await service.variants.export(GUILD, "chess", "ini")
    assert chess.filename == "chess.ini" and "[chess-fairypost]" in chess.text
    with pytest.raises(BadRequestError, match="cannot say Bigorra: a board of 16x16"):
        await service.variants.export(GUILD, "bigorra", "ini")
