"""Variants that travel between servers: /variant share gives a code for one version,
/variant import copies it to another server (provenance kept, refusals by name, the hourly
definition limit, the announcement through the outbox), the gallery, and /forget-me."""

from __future__ import annotations

import pytest

from bot.service import GameService, ManualClock, limits
from bot.service.errors import BadRequestError
from bot.service.privacy import Privacy
from bot.ui.embeds import defined_embed, gallery_embed, variant_list_embed
from storage import Storage
from storage.check import check_database
from storage.variants import SHARE_ALPHABET, SHARE_CODE_LENGTH
from tests.bot.conftest import ANN, BOB, EVE, GUILD, TINY_CHESS, TINY_CHESS_V2, announcing_runner

OTHER, THIRD = 910, 920


async def define(service: GameService, text: str, *, by: object = ANN, guild: int = GUILD) -> None:
    await service.variants.define(
        guild,
        by,  # type: ignore[arg-type]
        can_manage=False,
        filename="tiny.toml",
        data=text.encode(),
    )


async def test_a_shared_version_is_imported_on_another_server(
    service: GameService, storage: Storage
) -> None:
    await define(service, TINY_CHESS)
    await define(service, TINY_CHESS_V2)
    shared = await service.variants.share(GUILD, ANN, can_manage=False, text="tiny")
    assert len(shared.code) == SHARE_CODE_LENGTH
    assert set(shared.code) <= set(SHARE_ALPHABET)
    assert (shared.variant_id, shared.version, shared.author_id, shared.imports) == (
        "tiny",
        2,
        ANN.id,
        0,
    )
    # The same version shared again: the same code.
    again = await service.variants.share(GUILD, ANN, can_manage=False, text="Tiny Chess")
    assert again.code == shared.code
    # Typed with capitals, spaces or a dash, it is the same code.
    typed = f" {shared.code[:5].upper()}-{shared.code[5:]} "
    result = await service.variants.import_share(OTHER, BOB, code=typed)
    v = result.rules.variant
    assert (v.id, v.version, v.author_id, v.name) == ("tiny", 1, BOB.id, "Tiny Chess")
    assert result.origin == "by Ann, v2 from another server"
    assert result.replaced_version == 0
    # The copy is version 2's definition, and is the other server's own variant now.
    own = await storage.variants.get(OTHER, "tiny")
    original = await storage.variants.get(GUILD, "tiny")
    assert own is not None and original is not None
    assert own.digest == original.digest and own.origin_code == shared.code
    found = await service.variants.resolve(OTHER, "tiny")
    assert found.key == "tiny@910" and found.digest == original.digest
    (line,) = await service.variants.listing(OTHER)
    assert line.author_name == "Bob" and line.origin == "by Ann, v2 from another server"
    assert "imported: by Ann, v2 from another server" in (
        variant_list_embed([line]).description or ""
    )
    assert "Imported: by Ann" in (defined_embed(result, with_image=False).description or "")
    (mine,) = await service.variants.listing(GUILD)
    assert mine.origin == ""
    # A new version defined on the importing server keeps the variant's origin.
    await define(service, TINY_CHESS.replace("5x5.", "5x5, edited."), by=BOB, guild=OTHER)
    edited = await storage.variants.get(OTHER, "tiny")
    assert edited is not None and edited.version == 2 and edited.origin_code == shared.code
    assert (await storage.variants.shared(shared.code)).imports == 1  # type: ignore[union-attr]
    report = await check_database(storage, storage.engine)  # type: ignore[arg-type]
    assert report.ok, report


async def test_unknown_codes_and_unshared_variants_are_refused(service: GameService) -> None:
    await define(service, TINY_CHESS)
    for code in ("abcdefghjk", "no", "x" * 200, ""):
        with pytest.raises(BadRequestError, match="No variant is shared under the code"):
            await service.variants.import_share(OTHER, BOB, code=code)
    # A variant that was never shared has no code: only its digest exists, and that is not
    # a code (nor is its id, key or name).
    own = await service.variants.storage.variants.get(GUILD, "tiny")
    assert own is not None
    for code in (own.digest, own.digest[:10], "tiny", "tiny@900", "Tiny Chess"):
        with pytest.raises(BadRequestError, match="No variant is shared"):
            await service.variants.import_share(OTHER, BOB, code=code)
    assert await service.variants.storage.variants.get(OTHER, "tiny") is None
    # A deleted variant cannot be shared; a server cannot import its own share.
    shared = await service.variants.share(GUILD, ANN, can_manage=False, text="tiny")
    with pytest.raises(BadRequestError, match="this server's own `tiny`"):
        await service.variants.import_share(GUILD, ANN, code=shared.code)
    with pytest.raises(BadRequestError, match="Only the author of `tiny`"):
        await service.variants.share(GUILD, BOB, can_manage=False, text="tiny")
    await service.variants.delete(GUILD, ANN, can_manage=False, text="tiny")
    with pytest.raises(BadRequestError, match="no variant 'tiny'"):
        await service.variants.share(GUILD, ANN, can_manage=False, text="tiny")
    # The share made before the deletion still imports (it is that version, kept).
    result = await service.variants.import_share(OTHER, BOB, code=shared.code)
    assert result.rules.variant.id == "tiny"


async def test_a_taken_id_or_name_is_refused_by_name(service: GameService) -> None:
    await define(service, TINY_CHESS)
    shared = await service.variants.share(GUILD, ANN, can_manage=False, text="tiny")
    # The same id, another definition.
    await define(service, TINY_CHESS_V2, by=BOB, guild=OTHER)
    with pytest.raises(BadRequestError, match="The id `tiny` is taken on this server"):
        await service.variants.import_share(OTHER, BOB, code=shared.code)
    # The same name under another id.
    renamed = TINY_CHESS.replace('id = "tiny"', 'id = "small"').replace("5x5.", "5x5!")
    await define(service, renamed, by=EVE, guild=THIRD)
    with pytest.raises(BadRequestError, match=r"The name \*\*Tiny Chess\*\* is taken"):
        await service.variants.import_share(THIRD, EVE, code=shared.code)
    # The very same definition under its id: already here.
    await service.variants.import_share(920 + 1, EVE, code=shared.code)
    with pytest.raises(BadRequestError, match="has that definition already"):
        await service.variants.import_share(920 + 1, EVE, code=shared.code)
    # Once the server's own is deleted, the import takes the id (continuing its versions).
    await service.variants.delete(OTHER, BOB, can_manage=False, text="tiny")
    result = await service.variants.import_share(OTHER, BOB, code=shared.code)
    assert result.rules.variant.version == 2 and result.replaced_version == 0
    assert (await service.variants.storage.variants.shared(shared.code)).imports == 2  # type: ignore[union-attr]


async def test_imports_count_as_definitions_and_are_announced(
    service: GameService, storage: Storage, clock: ManualClock
) -> None:
    runner, announced = announcing_runner(storage, clock)
    codes = []
    for i in range(limits.VARIANT_DEFINITIONS_PER_HOUR):
        text = TINY_CHESS.replace('"tiny"', f'"tiny{i}"').replace("Tiny Chess", f"Tiny {i}")
        await define(service, text, guild=GUILD + 100 + i)
        codes.append(
            await service.variants.share(GUILD + 100 + i, ANN, can_manage=False, text=f"tiny{i}")
        )
    # Bob defines once here, then imports: 19 imports fit in his hour, the 20th does not.
    await define(service, TINY_CHESS, by=BOB, guild=OTHER)
    for shared in codes[:-1]:
        await service.variants.import_share(OTHER, BOB, code=shared.code, channel_id=77)
    with pytest.raises(limits.LimitError, match="definitions and imports in an hour"):
        await service.variants.import_share(OTHER, BOB, code=codes[-1].code, channel_id=77)
    assert await storage.variants.get(OTHER, codes[-1].variant_id) is None
    clock.advance(3600)
    await service.variants.import_share(OTHER, BOB, code=codes[-1].code, channel_id=77)
    # Each import's announcement was written with it, as a definition's is.
    await runner.run_due()
    assert len(announced) == limits.VARIANT_DEFINITIONS_PER_HOUR
    assert announced[0] == {
        "guild_id": OTHER,
        "variant_id": "tiny0",
        "version": 1,
        "channel_id": 77,
        "author_id": BOB.id,
    }
    shown = await service.variants.announcement(OTHER, "tiny0", 1)
    assert shown.origin == "by Ann, v1 from another server" and shown.replaced_version == 0
    # The gallery: imported shares, the most imported first.
    await service.variants.import_share(THIRD, EVE, code=codes[3].code)
    gallery = await service.variants.gallery()
    assert len(gallery) == 10  # the first ten of 20 imported shares
    assert (gallery[0].variant_id, gallery[0].imports, gallery[0].author_name) == (
        "tiny3",
        2,
        "Ann",
    )
    assert f"/variant import code:{codes[3].code}" in (gallery_embed(gallery).description or "")


async def test_names_from_other_servers_cannot_ping(service: GameService) -> None:
    mallory = type(ANN)(105, "@everyone <@102>")
    await define(service, TINY_CHESS, by=mallory)
    shared = await service.variants.share(GUILD, mallory, can_manage=False, text="tiny")
    result = await service.variants.import_share(OTHER, BOB, code=shared.code)
    text = defined_embed(result, with_image=False).description or ""
    assert "@everyone" not in text and "<@102>" not in text
    (line,) = await service.variants.gallery()
    text = gallery_embed([line]).description or ""
    assert "@everyone" not in text and "<@102>" not in text


async def test_forget_me_anonymizes_a_shares_author(
    service: GameService, storage: Storage, clock: ManualClock
) -> None:
    await define(service, TINY_CHESS)
    shared = await service.variants.share(GUILD, ANN, can_manage=False, text="tiny")
    await service.variants.import_share(OTHER, BOB, code=shared.code)
    forgotten = await Privacy(storage, clock).forget(ANN)
    assert forgotten is not None
    # As for a definition: the share stays, its author is the anonymous label.
    found = await storage.variants.shared(shared.code)
    assert found is not None and found.author_id == forgotten.anonymous_id
    assert found.shared_by == forgotten.anonymous_id
    (line,) = await service.variants.listing(OTHER)
    assert line.origin == f"by {forgotten.label}, v1 from another server"
    assert "Ann" not in line.origin
    (mine,) = await service.variants.listing(GUILD)
    assert mine.author_name == forgotten.label
    result = await service.variants.import_share(THIRD, EVE, code=shared.code)
    assert result.origin == f"by {forgotten.label}, v1 from another server"
