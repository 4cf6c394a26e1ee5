"""The layer between the bot and Discord's limits (`bot.ui.fit`) and the way players' names
are shown (`bot.ui.format.shown`)."""

from __future__ import annotations

import discord

from bot.ui.fit import DESCRIPTION, FIELD_VALUE, TITLE, TOTAL, fit_embed, fit_embeds
from bot.ui.format import pings, shown


def huge_embed(n: int = 30) -> discord.Embed:
    embed = discord.Embed(title="t" * 1000, description="d" * 9000)
    for i in range(n):
        embed.add_field(name=f"f{i}" * 200, value="v" * 3000)
    embed.set_footer(text="x" * 5000)
    return embed


def test_every_part_is_clipped_to_its_limit() -> None:
    embed = fit_embed(huge_embed())
    assert len(embed.title or "") == TITLE and (embed.title or "").endswith("…")
    assert len(embed.description or "") == DESCRIPTION
    assert len(embed.fields) == 25
    assert all(len(f.value or "") == FIELD_VALUE and len(f.name or "") <= 256 for f in embed.fields)
    assert len(embed.footer.text or "") == 2048


def test_a_message_keeps_to_the_total_by_cutting_the_longest_parts_first() -> None:
    embeds = [huge_embed(3) for _ in range(5)]
    for e in embeds:
        e.add_field(name="White", value="Ann")
    fitted = fit_embeds(embeds)
    assert sum(len(e) for e in fitted) <= TOTAL
    assert all(any(f.value == "Ann" for f in e.fields) for e in fitted)  # short parts stay


def test_empty_field_values_get_a_dash() -> None:
    embed = discord.Embed(title="x")
    embed.add_field(name="Inventor", value="")
    assert fit_embed(embed).fields[0].value == "—"


def test_names_cannot_ping_or_format() -> None:
    assert "@everyone" not in shown("@everyone Cup") and "Cup" in shown("@everyone Cup")
    assert "<@123>" not in shown("<@123>") and "<@&5>" not in shown("<@&5>")
    assert shown("**Cup**") == "\\*\\*Cup\\*\\*"
    assert shown("[free](https://x.example)").startswith("\\[")


def test_a_post_pings_exactly_its_players() -> None:
    allowed = pings(1, 2, None, 1).to_dict()
    assert allowed["users"] == [1, 2] and allowed["parse"] == []
    assert "roles" not in allowed or allowed["roles"] == []
