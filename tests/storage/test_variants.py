"""Players' own variants in storage: versions by compare-and-set, deletion that keeps the
definitions, challenges and games that pin a definition, and replays (verification after an
engine change, `check`) that use the pinned text."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from storage import Storage
from storage.check import check_database
from storage.engine import Engine
from storage.errors import InvalidValueError, VariantChangedError
from storage.models import ColorChoice, NewChallenge, NewGame, NewMove
from tests.storage.conftest import BLACK, CHANNEL, GUILD, T0, THREE_DAYS, WHITE
from tests.storage.fakes import fake_hash, fake_replay

V1 = 'id = "mine"\nname = "Mine"\nextends = "chess"\n'
V2 = V1 + "[rules]\nmove-rule = 25\n"
KEY = f"mine@{GUILD}"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def define(store: Storage, text: str, *, expected: int, author: int = WHITE) -> int:
    found = await store.variants.define(
        GUILD,
        "mine",
        name="Mine",
        content=text,
        digest=digest(text),
        author_id=author,
        expected_version=expected,
        now=T0 + expected,
    )
    return found.version


async def test_versions_count_up_and_every_one_is_kept(store: Storage) -> None:
    assert await define(store, V1, expected=0) == 1
    assert await define(store, V2, expected=1, author=BLACK) == 2
    current = await store.variants.get(GUILD, "mine")
    assert current is not None and current.digest == digest(V2)
    assert current.author_id == WHITE, "the owner stays the first author"
    versions = await store.variants.versions(GUILD, "mine")
    assert [(v.version, v.digest, v.author_id) for v in versions] == [
        (1, digest(V1), WHITE),
        (2, digest(V2), BLACK),
    ]
    assert await store.variants.definition(digest(V1)) == V1
    assert [v.variant_id for v in await store.variants.in_guild(GUILD)] == ["mine"]
    assert await store.variants.in_guild(GUILD + 1) == []


async def test_a_stale_version_is_refused(store: Storage) -> None:
    await define(store, V1, expected=0)
    with pytest.raises(VariantChangedError, match="version 1, not 0"):
        await define(store, V2, expected=0)
    with pytest.raises(VariantChangedError):
        await store.variants.delete(GUILD, "mine", expected_version=2, now=T0)


async def test_a_deleted_variant_leaves_the_list_and_a_new_definition_continues(
    store: Storage,
) -> None:
    await define(store, V1, expected=0)
    deleted = await store.variants.delete(GUILD, "mine", expected_version=1, now=T0 + 5)
    assert deleted.deleted and await store.variants.in_guild(GUILD) == []
    assert await store.variants.definition(digest(V1)) == V1, "games still need the text"
    assert await define(store, V2, expected=1, author=BLACK) == 2
    again = await store.variants.get(GUILD, "mine")
    assert again is not None and not again.deleted and again.author_id == BLACK


async def test_bad_values_are_refused(store: Storage) -> None:
    with pytest.raises(InvalidValueError):
        await store.variants.define(
            GUILD, "Mine!", name="M", content=V1, digest=digest(V1), author_id=WHITE,
            expected_version=0, now=T0,
        )  # fmt: skip
    with pytest.raises(InvalidValueError):
        await store.variants.define(
            GUILD, "mine", name="M", content=V1, digest="abc", author_id=WHITE,
            expected_version=0, now=T0,
        )  # fmt: skip


def pinned_text(moves: Sequence[str], definition: str) -> str:
    """What the fake engine computes for a game pinned to `definition`."""
    return fake_replay(KEY, (), moves, definition)


async def test_a_challenge_and_its_game_pin_the_definition(store: Storage) -> None:
    await define(store, V1, expected=0)
    challenge = await store.challenges.create(
        NewChallenge(
            GUILD, CHANNEL, WHITE, BLACK, KEY, color=ColorChoice.WHITE,
            definition_digest=digest(V1),
        ),
        T0,
    )  # fmt: skip
    assert challenge.definition_digest == digest(V1)
    await define(store, V2, expected=1)  # the author edits the variant meanwhile
    _, game = await store.challenges.accept(
        challenge.id, BLACK, T0 + 10, start_position=pinned_text([], V1)
    )
    assert (game.variant_id, game.definition_digest) == (KEY, digest(V1))
    played = await store.games.append_move(
        game.id,
        WHITE,
        0,
        NewMove("e2-e4", "e2e4", fake_hash(["e2e4"]), pinned_text(["e2e4"], V1)),
        T0 + 20,
    )
    assert played.game.definition_digest == digest(V1)
    counts = await store.variants.games_played(GUILD)
    assert counts == {KEY: 1}


async def test_replays_use_the_pinned_definition(db_target: str) -> None:
    engine = Engine("fake-1", fake_replay)
    async with await Storage.open(db_target, engine=engine) as store:
        await define(store, V1, expected=0)
        game = await store.games.create(
            NewGame(
                GUILD, CHANNEL, WHITE, BLACK, KEY, pinned_text([], V1), clock=THREE_DAYS,
                definition_digest=digest(V1),
            ),
            T0,
        )  # fmt: skip
        await store.games.append_move(
            game.id,
            WHITE,
            0,
            NewMove("e2-e4", "e2e4", fake_hash(["e2e4"]), pinned_text(["e2e4"], V1)),
            T0 + 1,
        )
        await define(store, V2, expected=1)
        report = await check_database(store, engine)
        assert report.ok and report.games_checked == 1
    # A new engine version verifies the cache by replaying with the pinned text, not V2.
    async with await Storage.open(db_target, engine=Engine("fake-2", fake_replay)) as store:
        loaded = await store.games.get(game.id)
        assert loaded.engine_version == "fake-2"
        assert loaded.position_text == pinned_text(["e2e4"], V1)
