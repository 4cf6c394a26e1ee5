"""Fairy-Stockfish as a partner, at the service: the search pool asks it for the strongest
level's moves and for reviews where it can play the variant, and Fairy Post's engine
everywhere else or when it fails; the answer says who played. With the real engine (Debian's
fairy-stockfish, required by `.ci/run` through FAIRYPOST_REQUIRE_FAIRY_STOCKFISH=1): a game
against level 8 in chess is played by it, in Bigorra by Fairy Post's engine, and a review of
a chess game is its own."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.announce import headline
from bot.service import GameService, ManualClock, consequences
from bot.service.analysis import AnalysisService
from bot.service.consequences import GameEvent
from bot.service.effects import EffectRegistry, EffectRun, EffectRunner
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.opponent import EngineConfig, OpponentService, install, install_handler
from bot.service.pictures import RendererPictures
from bot.service.searchpool import SearchJob, SearchPool
from rules.fsf import uci_moves
from rules.game import Game
from rules.variant import load_variant
from search.levels import MAX_LEVEL
from search.partner import OWN_ENGINE
from storage import Storage
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, start_game
from tests.fairy_stockfish import fairy_stockfish
from tests.search.fake_uci import install as install_fake

FAIRY = UserRef(777, "Fairy Post", bot=True)
NODES = 4000  # Fairy Post's engine's budget where it plays: what happens, not how well


def agree(monkeypatch: pytest.MonkeyPatch, variant: str, *moves: str) -> None:
    """The fake, started after this, finds our legal moves legal after `moves`."""
    game = Game.replay_variant(load_variant(variant), moves)
    monkeypatch.setenv("FAKE_UCI_LEGAL", " ".join(uci_moves(game.position)))


def job(variant: str, *, partner: bool = True, moves: tuple[str, ...] = ()) -> SearchJob:
    return SearchJob(
        load_variant(variant), moves, MAX_LEVEL, movetime=0.2, nodes=NODES, partner=partner
    )


async def test_the_pool_asks_the_partner_only_for_what_it_can_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "play")
    monkeypatch.setenv("FAKE_UCI_MOVE", "b1c3")
    agree(monkeypatch, "chess")
    pool = SearchPool(1, table_megabytes=1, partner=install_fake(tmp_path))
    try:
        found = await pool.search(job("chess"))
        assert found is not None
        assert (found.coordinates, found.engine, found.fallback) == ("b1c3", "Fake-UCI 2.5", "")
        assert await pool.partner_for(load_variant("chess")) == "Fake-UCI 2.5"
        assert await pool.partner_for(load_variant("bigorra")) == OWN_ENGINE
        # Not asked for it (below the top level): Fairy Post's engine.
        own = await pool.search(job("chess", partner=False))
        assert own is not None and own.engine == OWN_ENGINE
        # A variant variants.ini cannot say: Fairy Post's engine, and nothing to report.
        bigorra = await pool.search(job("bigorra"))
        assert bigorra is not None and (bigorra.engine, bigorra.fallback) == (OWN_ENGINE, "")
    finally:
        pool.close()


async def test_an_illegal_answer_is_replaced_by_fairy_posts_move_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "play")
    monkeypatch.setenv("FAKE_UCI_MOVE", "e2e5")
    agree(monkeypatch, "chess")
    pool = SearchPool(1, table_megabytes=1, partner=install_fake(tmp_path))
    try:
        found = await pool.search(job("chess"))
        assert found is not None and found.engine == OWN_ENGINE
        assert "e2e5, not a legal move" in found.fallback
        assert found.coordinates != "e2e5"
    finally:
        pool.close()


async def test_a_partner_with_other_rules_is_not_announced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the challenge's reply names is what plays: the probe compares the legal moves
    at the start, as every search does."""
    monkeypatch.setenv("FAKE_UCI_LEGAL", "e2e4 d2d4")
    pool = SearchPool(1, table_megabytes=1, partner=install_fake(tmp_path))
    try:
        assert await pool.partner_for(load_variant("chess")) == OWN_ENGINE
        found = await pool.search(job("chess"))
        assert found is not None and found.engine == OWN_ENGINE
        assert "legal moves differ from ours" in found.fallback
    finally:
        pool.close()


async def test_a_crashing_partner_never_stalls_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MODE", "crash")
    agree(monkeypatch, "chess", "e2e4")
    pool = SearchPool(1, table_megabytes=1, partner=install_fake(tmp_path))
    try:
        for _ in range(2):  # and again: each search tries a new process
            found = await pool.search(job("chess", moves=("e2e4",)))
            assert found is not None and found.engine == OWN_ENGINE
            assert "exited" in found.fallback
    finally:
        pool.close()


async def test_each_engine_move_post_names_who_chose_it(
    service: GameService,
    clock: ManualClock,
    effects: EffectRunner,
    db_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Level 8 in chess: the partner's move, its post says `played by Fairy-Stockfish 11.1`;
    in Bigorra (beyond variants.ini) and below level 8, Fairy Post's engine is named. The
    name is stored with the move in its write, so a bot restarted before the post was sent
    (another process, the same database) posts the same words; /history's record says it
    beside Fairy Post's name."""
    monkeypatch.setenv("FAKE_UCI_NAME", "Fairy-Stockfish 11.1 LB 64 by Fabian Fichter")
    monkeypatch.setenv("FAKE_UCI_MODE", "play")
    monkeypatch.setenv("FAKE_UCI_MOVE", "g1f3")
    agree(monkeypatch, "chess")
    pool = SearchPool(1, table_megabytes=1, partner=install_fake(tmp_path))
    opponent = OpponentService(service, pool, EngineConfig(pause=0, nodes=NODES, movetime=0.2))
    install(EffectRegistry(service.storage), opponent)
    try:
        games = {}
        for variant, number in (("chess", MAX_LEVEL), ("bigorra", MAX_LEVEL), ("chess", 3)):
            view = await opponent.challenge(
                guild_id=GUILD,
                channel_id=CHANNEL,
                challenger=ANN,
                engine=FAIRY,
                variant=variant,
                level_number=number,
                color="black",
            )
            assert await engine_moves(opponent, clock) == 1
            games[(variant, number)] = view.game.id
    finally:
        pool.close()
    moves = await service.storage.games.moves(games[("chess", MAX_LEVEL)])
    assert [m.engine for m in moves] == ["Fairy-Stockfish 11.1"]
    for (variant, number), credit in {
        ("chess", MAX_LEVEL): "level 8, played by Fairy-Stockfish 11.1",
        ("chess", 3): "level 3, played by Fairy Post's engine",
    }.items():
        record = await service.history(
            channel_id=0, game_id=games[(variant, number)], guild_id=GUILD, user_id=ANN.id
        )
        assert f"# white: Fairy Post ({credit})\n" in record.text, record.text

    # The bot restarts before the posts go out: the new process reads the names from the moves.
    async with await Storage.open(db_target, engine=STORAGE_ENGINE) as again:
        later = GameService(again, clock=clock)
        registry = EffectRegistry(again)
        consequences.install(registry, later)
        posted: list[GameEvent] = []

        async def game_post(run: EffectRun) -> None:
            event = await consequences.game_event(later, run)
            if event is not None and event.kind == consequences.MOVED:
                posted.append(event)

        for kind in consequences.GAME_POSTS:
            registry.register(kind, game_post)
        await EffectRunner(registry, clock, owner="restarted").run_due()
    heads = {e.view.game.id: headline(e) or "" for e in posted}
    assert heads[games[("chess", MAX_LEVEL)]] == (
        "Fairy Post played **Ng1-f3** *(level 8, played by Fairy-Stockfish 11.1)*"
    )
    assert heads[games[("bigorra", MAX_LEVEL)]].endswith(
        "*(level 8, played by Fairy Post's engine)*"
    )
    assert heads[games[("chess", 3)]].endswith("*(level 3, played by Fairy Post's engine)*")


# --- the real Fairy-Stockfish -----------------------------------------------------------------


@pytest.fixture(scope="module")
def fsf_pool() -> Iterator[SearchPool]:
    pool = SearchPool(1, table_megabytes=1, partner=fairy_stockfish())
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def opponent(service: GameService, fsf_pool: SearchPool, effects: EffectRunner) -> OpponentService:
    engine = OpponentService(service, fsf_pool, EngineConfig(pause=0, nodes=NODES, movetime=0.2))
    install(EffectRegistry(service.storage), engine)
    return engine


async def engine_opens(opponent: OpponentService, clock: ManualClock, variant: str) -> int:
    view = await opponent.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=ANN,
        engine=FAIRY,
        variant=variant,
        level_number=MAX_LEVEL,
        color="black",
    )
    assert await engine_moves(opponent, clock) == 1
    return view.game.id


async def engine_moves(opponent: OpponentService, clock: ManualClock) -> int:
    """Runs the engine's owed moves; how many."""
    registry = EffectRegistry(opponent.storage)
    install_handler(registry, opponent)
    return await EffectRunner(registry, clock, owner="engine", batch=1).run_due()


async def test_level_8_is_fairy_stockfish_in_chess_and_fairy_posts_engine_in_bigorra(
    opponent: OpponentService, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    name = await opponent.pool.partner_for(load_variant("chess"))
    assert name.startswith("Fairy-Stockfish ")
    with caplog.at_level(logging.INFO, logger="fairypost.opponent"):
        chess = await engine_opens(opponent, clock, "chess")
        for _ in range(3):  # Ann answers (her first legal move), the engine replies
            rules_game = await opponent.games.rules(await opponent.storage.games.get(chess))
            text = rules_game.legal_moves()[0].coordinates
            await opponent.games.play(channel_id=0, user=ANN, text=text, game_id=chess)
            assert await engine_moves(opponent, clock) == 1
        bigorra = await engine_opens(opponent, clock, "bigorra")
    played = [r.getMessage() for r in caplog.records if " played " in r.getMessage()]
    assert len(played) == 5
    assert all(line.startswith(f"game {chess}: {name} played ") for line in played[:4])
    assert played[4].startswith(f"game {bigorra}: {OWN_ENGINE} played ")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    for game_id, who, plies in ((chess, name, 7), (bigorra, OWN_ENGINE, 1)):
        game = await opponent.storage.games.get(game_id)
        assert game.ply_count == plies
        assert await opponent.engine_for(game) == who
    # Below the top level there is no choice to tell.
    lower = replace(await opponent.storage.games.get(chess), engine_level=7)
    assert await opponent.engine_for(lower) is None


async def test_a_chess_review_is_fairy_stockfishs_and_says_so(
    storage: Storage, clock: ManualClock, fsf_pool: SearchPool
) -> None:
    games = GameService(storage, clock=clock, pictures=RendererPictures())
    await start_game(games, "chess", thread=5000)
    # 3... Ng8-f6?? lets White mate at once (4. Qh5xf7++).
    for i, move in enumerate(["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]):
        await games.play(channel_id=5000, user=(ANN, BOB)[i % 2], text=move)
    service = AnalysisService(games, partner_nodes=800_000, pool=fsf_pool)
    review = await service.review(channel_id=5000)
    name = await fsf_pool.partner_for(load_variant("chess"))
    assert review.engine == name
    assert "3... Ng8-f6??" in review.record.text
    assert f"analysed by {name}" in review.record.text
    assert "100,000 nodes each" in review.footer
