"""A variant travels between two servers through the stand-in: /variant define and
/variant share on one, /variant import on the other (its announcement, the provenance in
/variant list), and the refusals a member sees."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.conftest import TINY_CHESS
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, posted

WAIT = 60.0  # a bound for a loaded machine, not a speed requirement


async def test_a_variant_is_shared_and_imported_on_another_server(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    other = fake.add_guild("Other Club")
    hall = fake.add_channel(other, "hall")
    fake.add_member(other, world.bob)
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        data = TINY_CHESS.encode()
        rec = await fake.slash(world.alice, world.lobby, "variant define", file=("t.toml", data))
        assert "version 1 is defined" in (await rec.reply(WAIT)).text
        shared = await (
            await fake.slash(world.alice, world.lobby, "variant share", variant="tiny")
        ).reply(WAIT)
        found = re.search(r"code `([a-z0-9]{10})`", shared.text)
        assert found, shared.text
        code = found.group(1)
        unknown = await (
            await fake.slash(world.bob, hall, "variant import", code="zzzzzzzzzz")
        ).reply(WAIT)
        assert unknown.ephemeral and "No variant is shared under the code" in unknown.text
        since = len(hall.messages)
        imported = await (await fake.slash(world.bob, hall, "variant import", code=code)).reply(
            WAIT
        )
        assert imported.ephemeral and "by alice, v1 from another server" in imported.text
        announcement = await posted(
            fake, hall, since, lambda m: any("Imported: by alice" in str(e) for e in m.embeds)
        )
        assert announcement.embeds
        listing = await (await fake.slash(world.bob, hall, "variant list")).reply(WAIT)
        assert "imported: by alice, v1 from another server" in str(listing.embeds)
        again = await (await fake.slash(world.bob, hall, "variant import", code=code)).reply(WAIT)
        assert "has that definition already: `tiny`" in again.text
        gallery = await (await fake.slash(world.bob, hall, "variant gallery")).reply(WAIT)
        assert code in str(gallery.embeds)
