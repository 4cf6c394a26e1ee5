"""The world the stand-in keeps: users, guilds, channels, messages and interactions.

Everything here is plain data a test can read directly; the server mutates it and turns it
into Discord-shaped JSON with the ``*_payload`` helpers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import LocalDiscord

DISCORD_EPOCH_MS = 1420070400000

# Channel types (https://discord.com/developers/docs/resources/channel#channel-object-channel-types)
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
GUILD_ANNOUNCEMENT = 5
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (10, PUBLIC_THREAD, PRIVATE_THREAD)

# Message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_HAS_THREAD = 1 << 5
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# Interaction types
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Interaction callback types
CB_PONG = 1
CB_CHANNEL_MESSAGE = 4
CB_DEFERRED_CHANNEL_MESSAGE = 5
CB_DEFERRED_UPDATE_MESSAGE = 6
CB_UPDATE_MESSAGE = 7
CB_AUTOCOMPLETE_RESULT = 8
CB_MODAL = 9

# Permission bits used for the defaults
P_CREATE_INSTANT_INVITE = 1 << 0
P_ADD_REACTIONS = 1 << 6
P_VIEW_CHANNEL = 1 << 10
P_SEND_MESSAGES = 1 << 11
P_MANAGE_MESSAGES = 1 << 13
P_EMBED_LINKS = 1 << 14
P_ATTACH_FILES = 1 << 15
P_READ_MESSAGE_HISTORY = 1 << 16
P_MENTION_EVERYONE = 1 << 17
P_USE_EXTERNAL_EMOJIS = 1 << 18
P_CHANGE_NICKNAME = 1 << 26
P_USE_APPLICATION_COMMANDS = 1 << 31
P_MANAGE_THREADS = 1 << 34
P_CREATE_PUBLIC_THREADS = 1 << 35
P_CREATE_PRIVATE_THREADS = 1 << 36
P_SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_EVERYONE_PERMISSIONS = (
    P_CREATE_INSTANT_INVITE
    | P_ADD_REACTIONS
    | P_VIEW_CHANNEL
    | P_SEND_MESSAGES
    | P_EMBED_LINKS
    | P_ATTACH_FILES
    | P_READ_MESSAGE_HISTORY
    | P_USE_EXTERNAL_EMOJIS
    | P_CHANGE_NICKNAME
    | P_USE_APPLICATION_COMMANDS
    | P_CREATE_PUBLIC_THREADS
    | P_CREATE_PRIVATE_THREADS
    | P_SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_ROLE_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | P_MANAGE_MESSAGES | P_MANAGE_THREADS


class FakeDiscordUsageError(Exception):
    """The test asked for something a Discord user could not do (a bug in the test)."""


class CommandNotPermittedError(FakeDiscordUsageError):
    """Discord does not offer this command to this member: they lack the command's
    `default_member_permissions` (server admins can change who may use it in Server Settings
    > Integrations)."""


def iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat()


class SnowflakeFactory:
    """Real-looking, strictly increasing snowflakes (discord.py reads their timestamps)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    accepts_dms: bool = True

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data

    def __repr__(self) -> str:
        return f"<FakeUser {self.name!r} id={self.id}{' bot' if self.bot else ''}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    color: int = 0

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def to_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=lambda: iso(time.time()))

    @property
    def permissions(self) -> int:
        if self.guild.owner_id == self.user.id:
            return ALL_PERMISSIONS
        value = self.guild.everyone_role.permissions
        for role_id in self.roles:
            role = self.guild.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        return value

    def to_payload(
        self, *, with_user: bool = True, with_permissions: bool = False
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in self.roles],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    threads: dict[int, FakeChannel] = field(default_factory=dict)
    joined_at: str = field(default_factory=lambda: iso(time.time()))

    @property
    def everyone_role(self) -> FakeRole:
        return self.roles[self.id]

    def member(self, user: FakeUser | int) -> FakeMember | None:
        return self.members.get(user if isinstance(user, int) else user.id)

    def channel(self, name: str) -> FakeChannel:
        """A text channel or active thread by name (raises if absent or ambiguous)."""
        found = [c for c in [*self.channels.values(), *self.threads.values()] if c.name == name]
        if len(found) != 1:
            raise FakeDiscordUsageError(f"{len(found)} channels named {name!r} in {self.name!r}")
        return found[0]

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name!r} id={self.id}>"


@dataclass(eq=False)
class FakeChannel:
    id: int
    type: int
    name: str | None
    guild: FakeGuild | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    topic: str | None = None
    position: int = 0
    recipient: FakeUser | None = None  # DMs only
    messages: list[FakeMessage] = field(default_factory=list)
    # threads only
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    archive_timestamp: str = field(default_factory=lambda: iso(time.time()))
    create_timestamp: str = field(default_factory=lambda: iso(time.time()))
    member_ids: list[int] = field(default_factory=list)
    starter_message_id: int | None = None
    total_message_sent: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def last_message_id(self) -> int | None:
        visible = [m for m in self.messages if not m.ephemeral and not m.deleted]
        return visible[-1].id if visible else None

    def to_payload(self, *, for_user: FakeMember | None = None) -> dict[str, Any]:
        last = self.last_message_id
        if self.type == DM:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": str(last) if last else None,
                "recipients": [self.recipient.to_payload()],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id) if self.guild else None,
            "name": self.name,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "last_message_id": str(last) if last else None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            data.update(
                {
                    "owner_id": str(self.owner_id),
                    "message_count": len([m for m in self.messages if not m.ephemeral]),
                    "member_count": min(len(self.member_ids), 50),
                    "total_message_sent": self.total_message_sent,
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.archive_timestamp,
                        "locked": self.locked,
                        "invitable": self.invitable,
                        "create_timestamp": self.create_timestamp,
                    },
                }
            )
        else:
            data.update(
                {
                    "position": self.position,
                    "permission_overwrites": [],
                    "topic": self.topic,
                    "nsfw": False,
                    "default_auto_archive_duration": 1440,
                }
            )
        if for_user is not None:
            data["permissions"] = str(for_user.permissions)
        return data

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} id={self.id} type={self.type}>"


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None
    width: int | None = None
    height: int | None = None
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def is_png(self) -> bool:
        return self.data.startswith(b"\x89PNG\r\n\x1a\n")

    def to_payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description:
            data["description"] = self.description
        if self.width is not None:
            data["width"] = self.width
            data["height"] = self.height
        if self.ephemeral:
            data["ephemeral"] = True
        return data


@dataclass(eq=False)
class FakeMessage:
    """A message as Discord stores it; ``history`` keeps earlier versions (one per edit)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    timestamp: str = field(default_factory=lambda: iso(time.time()))
    edited_timestamp: str | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    mention_roles: list[int] = field(default_factory=list)
    mention_everyone: bool = False
    tts: bool = False
    pinned: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: InteractionRecord | None = None
    reference_id: int | None = None
    thread: FakeChannel | None = None
    deleted: bool = False
    reactions: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    nonce: str | None = None
    """The nonce the bot sent it with (returned by the create call only, as on Discord)."""

    # -- convenience for assertions -------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "... is thinking"."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def edited(self) -> bool:
        return self.edited_timestamp is not None

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    @property
    def embed(self) -> dict[str, Any] | None:
        return self.embeds[0] if self.embeds else None

    @property
    def files(self) -> list[bytes]:
        return [a.data for a in self.attachments]

    @property
    def mention_ids(self) -> list[int]:
        return [u.id for u in self.mentions]

    def iter_components(self) -> Iterator[dict[str, Any]]:
        def walk(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
            for item in items:
                yield item
                yield from walk(item.get("components", []))
                if isinstance(item.get("component"), dict):
                    yield from walk([item["component"]])
                if isinstance(item.get("accessory"), dict):
                    yield from walk([item["accessory"]])

        return walk(self.components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> dict[str, Any]:
        """The one button with this label (or custom_id); raises if there is not exactly one."""
        found = [
            b
            for b in self.buttons
            if (label is None or b.get("label") == label)
            and (custom_id is None or b.get("custom_id") == custom_id)
        ]
        if len(found) != 1:
            labels = [b.get("label") for b in self.buttons]
            raise AssertionError(f"expected one button {label or custom_id!r}, buttons: {labels}")
        return found[0]

    @property
    def text(self) -> str:
        """Content plus every embed text, for "does the user read X" assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts.append(embed.get("author", {}).get("name", ""))
            parts.append(embed.get("title", ""))
            parts.append(embed.get("description", ""))
            for f in embed.get("fields", []):
                parts.extend([f.get("name", ""), f.get("value", "")])
            parts.append(embed.get("footer", {}).get("text", ""))
        return "\n".join(p for p in parts if p)

    def attachment(self, filename: str) -> FakeAttachment:
        for a in self.attachments:
            if a.filename == filename:
                return a
        raise AssertionError(
            f"no attachment {filename!r} in {[a.filename for a in self.attachments]}"
        )

    def embed_image(self, index: int = 0, key: str = "image") -> FakeAttachment:
        """The attached file an embed shows as its image (``attachment://`` reference)."""
        url = (self.embeds[index].get(key) or {}).get("url")
        for a in self.attachments:
            if a.url == url:
                return a
        raise AssertionError(f"embed {index} {key} {url!r} is not one of the attached files")

    def snapshot(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "embeds": self.embeds,
            "components": self.components,
            "attachments": list(self.attachments),
            "flags": self.flags,
            "edited_timestamp": self.edited_timestamp,
        }

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        where = f"#{self.channel.name}" if self.channel.name else "DM"
        text = self.content[:40]
        return f"<FakeMessage {self.id} in {where} by {self.author.name}{flags}: {text!r}>"


@dataclass(frozen=True)
class Choice:
    name: str
    value: str | int | float


@dataclass
class Violation:
    """Something the bot sent that Discord would refuse (``rejected``) or that is surely a bug."""

    code: str
    message: str
    method: str = ""
    path: str = ""
    rejected: bool = True
    interaction_id: int | None = None

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.path else ""
        verdict = "rejected" if self.rejected else "accepted but wrong"
        return f"{self.code}: {self.message}{where} ({verdict})"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    files: list[tuple[str, str, int]]
    status: int = 0
    response: Any = None
    at: float = field(default_factory=time.monotonic)


@dataclass
class Callback:
    type: int
    data: dict[str, Any] | None
    accepted: bool
    error_code: int | None
    at: float


@dataclass(eq=False)
class InteractionRecord:
    """One interaction a fake user started, and everything the bot did with it."""

    fake: LocalDiscord
    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: dict[str, Any]
    name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    custom_id: str | None = None
    message: FakeMessage | None = None  # the message holding the clicked component
    created_at: float = 0.0
    callbacks: list[Callback] = field(default_factory=list)
    response_type: int | None = None
    acknowledged_at: float | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[Choice] | None = None
    modal: dict[str, Any] | None = None
    failed: bool = False  # not acknowledged in time: the user saw "This interaction failed"
    edits_after_defer: int = 0  # edits of the component's message after a type 6 callback
    _deadline_handle: asyncio.TimerHandle | None = None

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        return self.response_type in (CB_DEFERRED_CHANNEL_MESSAGE, CB_DEFERRED_UPDATE_MESSAGE)

    @property
    def ephemeral(self) -> bool:
        return self.original is not None and self.original.ephemeral

    def describe(self) -> str:
        what = f"/{self.name}" if self.name else f"click {self.custom_id!r}"
        if self.type == AUTOCOMPLETE:
            what = f"autocomplete of /{self.name}"
        return f"{what} by {self.user.name} in #{self.channel.name}"

    async def response(self, timeout: float = 5.0) -> InteractionRecord:
        """Wait until the bot acknowledged the interaction (any callback type)."""
        await self.fake.wait_until(
            lambda: self.acknowledged or self.failed,
            timeout,
            f"the bot to acknowledge {self.describe()}",
        )
        if not self.acknowledged:
            raise AssertionError(self.fake.explain_failure(self))
        return self

    async def reply(self, timeout: float = 5.0) -> FakeMessage:
        """The message the user sees as the answer, once it has real content.

        Type 4: the new message. Type 5: the deferred message once filled by an edit of the
        original or the first follow-up (or, if the bot deleted the deferred message, the
        first follow-up after it). Type 7: the updated message. Type 6: the component's
        message after its next edit, or the first follow-up if that comes first.
        """
        await self.response(timeout)
        if self.response_type in (CB_AUTOCOMPLETE_RESULT, CB_MODAL):
            raise AssertionError(
                f"{self.describe()} was answered with callback {self.response_type}"
            )
        if self.response_type == CB_DEFERRED_UPDATE_MESSAGE:
            assert self.message is not None

            def ready() -> bool:
                return bool(self.followups) or self.edits_after_defer > 0

            await self.fake.wait_until(ready, timeout, f"a result for deferred {self.describe()}")
            if self.edits_after_defer > 0:
                return self.message
            return self.followups[0]

        def answered() -> bool:
            if self.original is None:
                return False
            if self.original.deleted:  # the "thinking" message was removed: the answer
                return bool(self.followups)  # is the follow-up (a private refusal, say)
            return not self.original.loading

        await self.fake.wait_until(answered, timeout, f"the deferred answer to {self.describe()}")
        assert self.original is not None
        if self.original.deleted:
            return self.followups[0]
        return self.original

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        await self.fake.wait_until(
            lambda: len(self.followups) >= count,
            timeout,
            f"{count} follow-up(s) to {self.describe()}",
        )
        return list(self.followups)


Predicate = Callable[[], bool]
