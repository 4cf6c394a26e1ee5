"""The stand-in proven with a tiny purpose-built bot, driven through discord.py's real client."""

from __future__ import annotations

import asyncio
import io
import re
import struct
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from localdiscord import BotRunner, FakeDiscord, run_bot
from tests.e2e.conftest import World

SQUARES = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]


def tiny_png(width: int, height: int, rgb: tuple[int, int, int] = (200, 160, 90)) -> bytes:
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class AcceptButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"probe:accept:(?P<challenger>\d+):(?P<opponent>\d+)",
):
    """A button that keeps working across restarts: its state lives in its custom_id."""

    def __init__(self, challenger: int, opponent: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Accept",
                style=discord.ButtonStyle.success,
                custom_id=f"probe:accept:{challenger}:{opponent}",
            )
        )
        self.challenger = challenger
        self.opponent = opponent

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> AcceptButton:
        return cls(int(match["challenger"]), int(match["opponent"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.opponent:
            await interaction.response.send_message(
                "This challenge is not addressed to you.", ephemeral=True
            )
            return
        assert interaction.guild is not None and interaction.message is not None
        challenger = interaction.guild.get_member(self.challenger)  # needs member chunking
        assert challenger is not None
        await interaction.response.edit_message(
            content=f"{challenger.mention} vs {interaction.user.mention}: accepted", view=None
        )
        thread = await interaction.message.create_thread(
            name=f"{challenger.name} vs {interaction.user.name}"
        )
        await thread.send(
            f"{challenger.mention} {interaction.user.mention} the game starts",
            file=discord.File(io.BytesIO(tiny_png(64, 64)), filename="board.png"),
        )


class ProbeCog(commands.Cog):
    def __init__(self, bot: ProbeBot) -> None:
        self.bot = bot

    @app_commands.command(description="Show a board picture in an embed")
    async def render(self, interaction: discord.Interaction, title: str = "Board") -> None:
        embed = discord.Embed(title=title, description="the position", color=0x3366AA)
        embed.add_field(name="Turn", value="white").set_image(url="attachment://board.png")
        await interaction.response.send_message(
            embed=embed, file=discord.File(io.BytesIO(tiny_png(96, 64)), filename="board.png")
        )

    @app_commands.command(description="Whisper to the caller")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you can read this", ephemeral=True)

    @app_commands.command(description="Defer, work, then follow up twice")
    async def slow(self, interaction: discord.Interaction, private: bool = False) -> None:
        await interaction.response.defer(ephemeral=private, thinking=True)
        await asyncio.sleep(0.1)
        await interaction.followup.send(
            "done", file=discord.File(io.BytesIO(tiny_png(8, 8)), filename="small.png")
        )
        await interaction.followup.send("and one more thing")

    @app_commands.command(description="Pick a square")
    async def square(self, interaction: discord.Interaction, name: str) -> None:
        await interaction.response.send_message(f"picked {name}")

    @square.autocomplete("name")
    async def square_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if current == "all":  # a deliberate bug: no cap at 25
            matches = SQUARES
        else:
            matches = [s for s in SQUARES if s.startswith(current)][:25]
        return [app_commands.Choice(name=f"Square {s}", value=s) for s in matches]

    @app_commands.command(description="Challenge someone")
    async def challenge(self, interaction: discord.Interaction, opponent: discord.Member) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(AcceptButton(interaction.user.id, opponent.id))
        await interaction.response.send_message(
            f"{interaction.user.mention} challenges {opponent.mention}", view=view
        )

    @app_commands.command(description="DM someone")
    async def dm(self, interaction: discord.Interaction, target: discord.User) -> None:
        try:
            await target.send("It is your move.")
        except discord.Forbidden as exc:
            await interaction.response.send_message(
                f"could not DM {target.name} ({exc.code})", ephemeral=True
            )
            return
        await interaction.response.send_message("sent", ephemeral=True)

    @app_commands.command(description="Answer too late")
    async def late(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(3.3)
        await interaction.response.send_message("too late")

    @app_commands.command(description="Echo a text")
    async def echo(self, interaction: discord.Interaction, text: str) -> None:
        await interaction.response.send_message(text)

    @app_commands.command(description="Wait for the test to release, then answer")
    async def hold(self, interaction: discord.Interaction) -> None:
        await self.bot.released.wait()
        await interaction.response.send_message("released")

    @app_commands.command(description="Send what Discord refuses, then report")
    @app_commands.choices(
        kind=[
            app_commands.Choice(name=n, value=n)
            for n in ("title", "content", "fields", "total", "png", "missing_image")
        ]
    )
    async def bad(self, interaction: discord.Interaction, kind: str) -> None:
        embed = discord.Embed(title="ok")
        content: str | None = None
        file = discord.utils.MISSING
        if kind == "title":
            embed.title = "t" * 257
        elif kind == "content":
            content = "c" * 2001
        elif kind == "fields":
            for i in range(26):
                embed.add_field(name=f"f{i}", value="v")
        elif kind == "total":
            embed.description = "d" * 4000
            embed.add_field(name="n", value="v" * 1024).add_field(name="m", value="w" * 1024)
        elif kind == "png":
            file = discord.File(io.BytesIO(b"definitely not a png"), filename="board.png")
        elif kind == "missing_image":
            embed.set_image(url="attachment://nowhere.png")
        try:
            await interaction.response.send_message(content, embed=embed, file=file)
        except discord.HTTPException as exc:
            await interaction.response.send_message(f"rejected {exc.code}", ephemeral=True)

    @app_commands.command(description="Offer a select menu")
    async def color(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pick a color", view=ColorView())

    @app_commands.command(description="Open a modal")
    async def note(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NoteModal())

    @app_commands.command(description="Post in a new thread without a starter message")
    async def lounge(self, interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        await interaction.response.defer(ephemeral=True)
        thread = await interaction.channel.create_thread(
            name="lounge", type=discord.ChannelType.public_thread
        )
        await thread.add_user(interaction.user)
        await thread.send("welcome")
        await interaction.followup.send(f"opened {thread.mention}")


class ColorView(discord.ui.View):
    @discord.ui.select(
        custom_id="probe:color",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "blue")],
    )
    async def pick(
        self, interaction: discord.Interaction, select: discord.ui.Select[ColorView]
    ) -> None:
        await interaction.response.defer()  # a component: deferred update (type 6)
        await interaction.edit_original_response(content=f"chose {select.values[0]}", view=None)


class NoteModal(discord.ui.Modal, title="A note"):
    text: discord.ui.TextInput[NoteModal] = discord.ui.TextInput(
        label="Note", custom_id="note-text"
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"noted: {self.text.value}", ephemeral=True)


class ProbeBot(commands.Bot):
    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = True
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents)
        self.released = asyncio.Event()
        self.resumed = 0

    async def setup_hook(self) -> None:
        self.add_dynamic_items(AcceptButton)
        await self.add_cog(ProbeCog(self))
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if message.author != self.user and message.content == "ping?":
            await message.channel.send("pong!")

    async def on_resumed(self) -> None:
        self.resumed += 1


@pytest.fixture
async def probe(world: World) -> AsyncIterator[BotRunner[ProbeBot]]:
    async with run_bot(world.fake, ProbeBot()) as runner:
        yield runner


# ------------------------------------------------------------------------------------------ tests


async def test_bot_connects_registers_commands_and_caches_the_world(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake, bot = world.fake, probe.client
    names = sorted(c["name"] for c in fake.commands())
    assert names == sorted(
        [
            "render",
            "secret",
            "slow",
            "square",
            "challenge",
            "dm",
            "late",
            "echo",
            "hold",
            "bad",
            "note",
            "lounge",
            "color",
        ]
    )
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Fairy Club"
    assert guild.get_channel(world.lobby.id) is not None
    assert {m.name for m in guild.members} >= {"alice", "bob", "carol"}  # chunked
    conn = fake.gateway_connections[0]
    assert conn.query["v"] == "10" and conn.query["encoding"] == "json"
    assert conn.received[0]["op"] in (1, 2)  # heartbeat right after HELLO, then IDENTIFY
    assert any(f["op"] == 2 for f in conn.received)
    assert bot.user is not None and bot.user.id == fake.bot_user.id


async def test_slash_round_trip_with_png_and_embed(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    rec = await fake.slash(world.alice, world.lobby, "render", title="Start position")
    msg = await rec.reply()
    assert rec.response_type == 4 and not msg.ephemeral
    assert msg.embed is not None and msg.embed["title"] == "Start position"
    assert msg.embed["fields"] == [{"name": "Turn", "value": "white", "inline": True}]
    board = msg.embed_image()
    assert board.filename == "board.png" and board.content_type == "image/png"
    assert (board.width, board.height) == (96, 64)
    assert board.data == tiny_png(96, 64)
    assert fake.last_message(world.lobby) is msg
    assert msg.interaction is rec and msg.author is fake.bot_user


async def test_ephemeral_reply_is_only_for_the_caller(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    msg = await (await fake.slash(world.bob, world.lobby, "secret")).reply()
    assert msg.ephemeral and msg.content == "only you can read this"
    assert msg not in fake.messages(world.lobby)
    assert fake.ephemeral_messages(world.bob) == [msg]
    assert fake.ephemeral_messages(world.alice) == []


@pytest.mark.parametrize("private", [False, True])
async def test_defer_then_follow_ups(
    world: World, probe: BotRunner[ProbeBot], private: bool
) -> None:
    fake = world.fake
    rec = await fake.slash(world.alice, world.lobby, "slow", private=private)
    await rec.response()
    assert rec.response_type == 5
    first = await rec.reply()
    assert first.content == "done" and first.ephemeral is private
    assert first.attachments[0].filename == "small.png" and first.attachments[0].width == 8
    followups = await rec.wait_followups(2)
    assert followups[0] is first is rec.original  # the first follow-up fills the deferral
    assert followups[1].content == "and one more thing" and not followups[1].ephemeral
    assert not first.edited


async def test_autocomplete_within_limits(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    choices = await fake.autocomplete(world.alice, world.lobby, "square", focused="name", value="e")
    assert [c.value for c in choices] == [f"e{r}" for r in range(1, 9)]
    assert choices[0].name == "Square e1"
    assert (
        len(await fake.autocomplete(world.alice, world.lobby, "square", focused="name", value=""))
        == 25
    )
    msg = await (await fake.slash(world.alice, world.lobby, "square", name="e4")).reply()
    assert msg.content == "picked e4"


async def test_autocomplete_over_25_is_rejected_and_recorded(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    choices = await fake.autocomplete(
        world.alice, world.lobby, "square", focused="name", value="all"
    )
    assert choices == []  # Discord refuses the answer: the user sees no options
    [violation] = fake.take_violations("autocomplete.too_many_choices")
    assert "25 or fewer" in violation.message and violation.rejected
    assert fake.requests[-1].status == 400 and fake.requests[-1].response["code"] == 50035
    await fake.wait_until(lambda: bool(probe.errors), 2, "the bot to log the failed autocomplete")
    assert probe.take_errors()
    fake.take_violations("interaction.not_acknowledged")  # if the test ran past 3 s


async def test_dynamic_button_edits_message_and_opens_a_thread(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    challenge = await (
        await fake.slash(world.alice, world.lobby, "challenge", opponent=world.bob)
    ).reply()
    assert challenge.mention_ids == [world.alice.id, world.bob.id]
    assert (
        challenge.button("Accept")["custom_id"] == f"probe:accept:{world.alice.id}:{world.bob.id}"
    )

    refused = await (await fake.click(world.carol, challenge, label="Accept")).reply()
    assert refused.ephemeral and "not addressed to you" in refused.content

    rec = await fake.click(world.bob, challenge, label="Accept")
    edited = await rec.reply()
    assert rec.response_type == 7 and edited is challenge
    assert edited.content.endswith("accepted") and edited.buttons == [] and edited.edited
    assert edited.history[0]["content"] == f"<@{world.alice.id}> challenges <@{world.bob.id}>"

    thread = await fake.wait_for_thread("alice vs bob", parent=world.lobby)
    first = await fake.wait_for_message(thread, include_existing=True)
    assert thread.id == challenge.id and thread.parent_id == world.lobby.id
    assert challenge.thread is thread
    assert first.mention_ids == [world.alice.id, world.bob.id]
    assert set(thread.member_ids) == {fake.bot_user.id, world.alice.id, world.bob.id}
    assert first.attachments[0].is_png and first.attachments[0].width == 64
    cached = probe.client.get_channel(thread.id)
    assert isinstance(cached, discord.Thread) and cached.name == "alice vs bob"


async def test_old_buttons_work_after_a_restart(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    challenge = await (
        await fake.slash(world.alice, world.lobby, "challenge", opponent=world.bob)
    ).reply()
    await probe.stop()
    async with run_bot(fake, ProbeBot()):
        edited = await (await fake.click(world.bob, challenge, label="Accept")).reply()
        assert edited.content.endswith("accepted")
        thread = await fake.wait_for_thread("alice vs bob")
        await fake.wait_for_message(thread, include_existing=True)
    assert len(fake.sessions) == 2 and all(s.ended for s in fake.sessions.values())


async def test_thread_without_starter_message(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    reply = await (await fake.slash(world.carol, world.lobby, "lounge")).reply()
    thread = fake.thread("lounge")
    assert reply.ephemeral and reply.content == f"opened <#{thread.id}>"
    assert world.carol.id in thread.member_ids
    assert [m.content for m in fake.messages(thread)] == ["welcome"]
    assert fake.last_message(world.lobby).type == 18  # "started a thread" system message


async def test_dm_and_refused_dm(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    ok = await (await fake.slash(world.alice, world.lobby, "dm", target=world.bob)).reply()
    assert ok.content == "sent"
    assert [m.content for m in fake.dms(world.bob)] == ["It is your move."]

    fake.refuse_dms(world.carol)
    refused = await (await fake.slash(world.alice, world.lobby, "dm", target=world.carol)).reply()
    assert refused.content == "could not DM carol (50007)"
    assert fake.dms(world.carol) == []
    assert fake.refused_dms == [(world.carol, "recipient does not accept DMs")]


async def test_late_response_is_rejected_with_unknown_interaction(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    rec = await fake.slash(world.alice, world.lobby, "late")
    await fake.wait_until(lambda: bool(rec.callbacks), 6, "the late answer")
    assert rec.failed and not rec.acknowledged
    assert rec.callbacks[0].error_code == 10062
    codes = [v.code for v in fake.take_violations()]
    assert codes == ["interaction.not_acknowledged", "interaction.late_response"]
    await fake.wait_until(lambda: bool(probe.errors), 2, "the bot to log the failure")
    [error] = probe.take_errors()
    assert "late" in error.getMessage()


@pytest.mark.parametrize("mode", ["reconnect", "close"])
async def test_reconnect_resumes_and_replays_missed_events(
    world: World, probe: BotRunner[ProbeBot], mode: str
) -> None:
    fake = world.fake
    session = await fake.force_disconnect(mode)
    # Sent while the bot is away: buffered, then replayed after RESUME.
    rec = await fake.slash(world.alice, world.lobby, "echo", text="still here")
    await fake.wait_resumed(session, 1)
    assert (await rec.reply()).content == "still here"
    assert len(fake.sessions) == 1 and session.resumes == 1
    assert fake.gateway_connections[-1].path == "/gateway-resume"  # resume_gateway_url used
    assert any(f["op"] == 6 for f in fake.gateway_connections[-1].received)
    assert session.replayed  # the interaction was replayed
    await fake.wait_until(lambda: probe.client.resumed == 1, 2, "on_resumed")


async def test_validation_through_the_bot(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    expected = {
        "title": "embed.title_too_long",
        "content": "content.too_long",
        "fields": "embed.too_many_fields",
        "total": "embeds.total_too_long",
    }
    for kind, code in expected.items():
        msg = await (await fake.slash(world.alice, world.lobby, "bad", kind=kind)).reply()
        assert msg.content == "rejected 50035", kind
        assert [v.code for v in fake.take_violations()] == [code]
    # Accepted by Discord, but surely a bug: recorded, not rejected.
    msg = await (await fake.slash(world.alice, world.lobby, "bad", kind="png")).reply()
    [v] = fake.take_violations()
    assert v.code == "file.invalid" and "PNG signature" in v.message and not v.rejected
    assert msg.attachments[0].filename == "board.png"
    await (await fake.slash(world.alice, world.lobby, "bad", kind="missing_image")).reply()
    assert [v.code for v in fake.take_violations()] == ["embed.missing_attachment"]


async def test_modal_round_trip(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    opened = await (await fake.slash(world.alice, world.lobby, "note")).response()
    assert opened.response_type == 9 and opened.modal is not None
    assert opened.modal["title"] == "A note"
    answer = await (await fake.submit_modal(world.alice, opened, {"note-text": "hello"})).reply()
    assert answer.content == "noted: hello" and answer.ephemeral


async def test_user_message_reaches_on_message(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    await fake.send_message(world.alice, world.lobby, "ping?")
    pong = await fake.wait_for_message(world.lobby, lambda m: m.author is fake.bot_user)
    assert pong.content == "pong!"


async def test_second_response_and_early_follow_up_are_refused(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake = world.fake
    rec = await fake.slash(world.alice, world.lobby, "hold")
    async with aiohttp.ClientSession() as http:  # a misbehaving client
        url = f"{fake.api_base}/webhooks/{fake.application_id}/{rec.token}"
        async with http.post(url, json={"content": "too early"}) as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 10015
        probe.client.released.set()
        await rec.reply()
        url = f"{fake.api_base}/interactions/{rec.id}/{rec.token}/callback"
        async with http.post(url, json={"type": 4, "data": {"content": "again"}}) as resp:
            body = await resp.json()
            assert resp.status == 400 and body["code"] == 40060
    codes = [v.code for v in fake.take_violations()]
    assert codes == ["followup.before_acknowledge", "interaction.already_acknowledged"]


async def test_heartbeats_are_acknowledged(world: World) -> None:
    fake = world.fake
    fake.heartbeat_interval_ms = 100
    async with run_bot(fake, ProbeBot()) as runner:
        await fake.wait_until(
            lambda: fake.gateway_connections[0].heartbeats >= 3, 3, "3 heartbeats"
        )
        assert fake.gateway_connections[0].sent_ops.count(11) >= 3
        assert runner.client.latency < 1.0


async def test_optional_zlib_stream_compression(world: World) -> None:
    fake = world.fake
    fake.gateway_zlib = True
    async with run_bot(fake, ProbeBot()):
        assert fake.gateway_connections[0].compress  # discord.py asked for zlib-stream
        msg = await (await fake.slash(world.alice, world.lobby, "echo", text="zipped")).reply()
        assert msg.content == "zipped"


async def test_usage_errors_name_the_problem(world: World, probe: BotRunner[ProbeBot]) -> None:
    from localdiscord import FakeDiscordUsageError

    fake = world.fake
    with pytest.raises(FakeDiscordUsageError, match="not registered"):
        await fake.slash(world.alice, world.lobby, "nope")
    with pytest.raises(FakeDiscordUsageError, match="requires option 'name'"):
        await fake.slash(world.alice, world.lobby, "square")
    with pytest.raises(FakeDiscordUsageError, match="not one of the choices"):
        await fake.slash(world.alice, world.lobby, "bad", kind="other")
    outsider = fake.add_user("outsider")
    with pytest.raises(FakeDiscordUsageError, match="not a member"):
        await fake.slash(outsider, world.lobby, "secret")


def test_fake_is_reusable_from_sync_code() -> None:
    # FakeDiscord can be built outside a loop (fixtures), started inside one.
    fake = FakeDiscord()
    guild = fake.add_guild("g")
    assert fake.bot_user.id in guild.members


async def test_select_with_deferred_update(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    menu = await (await fake.slash(world.alice, world.lobby, "color")).reply()
    assert menu.custom_ids == ["probe:color"]
    rec = await fake.select(world.alice, menu, "probe:color", ["blue"])
    edited = await rec.reply()
    assert rec.response_type == 6 and edited is menu
    assert edited.content == "chose blue" and edited.components == []


async def test_slash_command_in_a_dm_with_the_bot(world: World, probe: BotRunner[ProbeBot]) -> None:
    fake = world.fake
    dm = fake.dm_channel(world.alice, create=True)
    assert dm is not None
    msg = await (await fake.slash(world.alice, dm, "echo", text="in private")).reply()
    assert msg.channel is dm and msg.guild is None
    assert fake.dms(world.alice) == [msg]


async def test_world_changes_reach_the_connected_bot(
    world: World, probe: BotRunner[ProbeBot]
) -> None:
    fake, bot = world.fake, probe.client
    arena = fake.add_channel(world.guild, "arena")
    dave = fake.add_user("dave", guild=world.guild)
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    await fake.wait_until(
        lambda: guild.get_channel(arena.id) is not None and guild.get_member(dave.id) is not None,
        2,
        "CHANNEL_CREATE and GUILD_MEMBER_ADD to reach the bot's cache",
    )
    msg = await (await fake.slash(dave, arena, "echo", text="new here")).reply()
    assert msg.channel is arena
