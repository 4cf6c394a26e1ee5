"""The stand-in's world in a SQLite file, so local mode resumes where it stopped.

The bot keeps its games in its own database, which names users, channels and threads by
their ids; if the stand-in forgot them at every start, a restarted local mode would show an
empty guild while the bot still knows the games. So the world (users, guilds, channels,
threads, messages and their files) is saved as it changes and loaded at the next start.

Only what a person sees is kept: ephemeral messages and unfinished "thinking" answers are
not (Discord forgets them too when the app reloads), nor the test records (requests,
interactions, violations). Rows are JSON plus the files' bytes, written with the standard
library's ``sqlite3``; only what changed since the last save is written.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from .models import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionRecord,
)
from .server import LocalDiscord

log = logging.getLogger("localdiscord.persist")

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS guilds (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS channels (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL, data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attachments (
    id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL, data TEXT NOT NULL, bytes BLOB NOT NULL
);
"""


class WorldFileError(Exception):
    """The file is not a world this version can read; the message says what to do."""


def _dump(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


class WorldFile:
    """Load a :class:`LocalDiscord`'s world from ``path`` and keep it saved there."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._saved: dict[tuple[str, int], str] = {}
        self._message_keys: dict[int, tuple[int, int, bool]] = {}
        self._db: sqlite3.Connection | None = None

    # ------------------------------------------------------------------ connection
    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.executescript(SCHEMA)
                row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            except sqlite3.DatabaseError as exc:
                db.close()
                raise WorldFileError(
                    f"{self.path} is not a local-mode world file ({exc}); move it aside to start"
                    " with a new world"
                ) from exc
            if row is not None and int(row[0]) != SCHEMA_VERSION:
                db.close()
                raise WorldFileError(
                    f"{self.path} was written by another version (schema {row[0]}); move it"
                    " aside to start with a new world"
                )
            self._db = db
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # ------------------------------------------------------------------ load
    def load(self, fake: LocalDiscord) -> bool:
        """Fill a fresh, unstarted ``fake`` from the file; False when the file holds no world."""
        db = self._connect()
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if "application_id" not in meta:
            return False
        users = {int(i): _user(json.loads(d)) for i, d in db.execute("SELECT id, data FROM users")}
        app_id = int(meta["application_id"])
        fake.application_id = app_id
        fake.bot_user = users[app_id]
        fake.owner = users[int(meta["owner_id"])]
        fake.users = users
        channels: dict[int, FakeChannel] = {}
        guild_rows = [json.loads(d) for (d,) in db.execute("SELECT data FROM guilds ORDER BY id")]
        for g in guild_rows:
            guild = FakeGuild(int(g["id"]), g["name"], int(g["owner_id"]), joined_at=g["joined_at"])
            for r in g["roles"]:
                guild.roles[int(r["id"])] = FakeRole(
                    int(r["id"]), r["name"], int(r["permissions"]), r["position"], r["managed"]
                )
            for m in g["members"]:
                user = users[int(m["user"])]
                guild.members[user.id] = FakeMember(
                    user, guild, [int(x) for x in m["roles"]], m["nick"], m["joined_at"]
                )
            fake.guilds[guild.id] = guild
        for (d,) in db.execute("SELECT data FROM channels ORDER BY id"):
            c = json.loads(d)
            home = fake.guilds.get(c["guild"]) if c["guild"] else None
            channel = FakeChannel(
                int(c["id"]),
                c["type"],
                c["name"],
                home,
                parent_id=c["parent_id"],
                owner_id=c["owner_id"],
                topic=c["topic"],
                position=c["position"],
                recipient=users.get(c["recipient"]) if c["recipient"] else None,
                archived=c["archived"],
                locked=c["locked"],
                invitable=c["invitable"],
                auto_archive_duration=c["auto_archive_duration"],
                archive_timestamp=c["archive_timestamp"],
                create_timestamp=c["create_timestamp"],
                member_ids=list(c["member_ids"]),
                starter_message_id=c["starter_message_id"],
                total_message_sent=c["total_message_sent"],
            )
            channels[channel.id] = channel
            fake.channels[channel.id] = channel
            if home is not None:
                (home.threads if channel.is_thread else home.channels)[channel.id] = channel
        files: dict[int, list[FakeAttachment]] = {}
        for mid, d, blob in db.execute(
            "SELECT message_id, data, bytes FROM attachments ORDER BY id"
        ):
            a = json.loads(d)
            att = FakeAttachment(
                int(a["id"]),
                a["filename"],
                bytes(blob),
                a["content_type"],
                f"/attachments/{a['channel']}/{a['id']}/{a['filename']}",  # see attach_urls
                description=a["description"],
                width=a["width"],
                height=a["height"],
            )
            files.setdefault(int(mid), []).append(att)
            fake.attachments_by_id[att.id] = att
        for mid, cid, d in db.execute("SELECT id, channel_id, data FROM messages ORDER BY id"):
            where = channels.get(int(cid))
            if where is None:
                continue
            m = json.loads(d)
            msg = FakeMessage(
                int(mid),
                where,
                users.get(int(m["author"])) or fake.bot_user,
                content=m["content"],
                embeds=m["embeds"],
                components=m["components"],
                attachments=files.get(int(mid), []),
                flags=m["flags"],
                type=m["type"],
                timestamp=m["timestamp"],
                edited_timestamp=m["edited_timestamp"],
                mentions=[users[u] for u in m["mentions"] if u in users],
                mention_roles=m["mention_roles"],
                mention_everyone=m["mention_everyone"],
                webhook_id=m["webhook_id"],
                application_id=m["application_id"],
                reference_id=m["reference_id"],
                thread=channels.get(m["thread"]) if m["thread"] else None,
                reactions=m["reactions"],
            )
            used = m.get("interaction")
            if used and int(used["user"]) in users:
                msg.interaction = InteractionRecord(
                    fake,
                    int(used["id"]),
                    "",
                    int(used["type"]),
                    users[int(used["user"])],
                    where,
                    {},
                    name=used["name"],
                )
            where.messages.append(msg)
            fake.messages_by_id[msg.id] = msg
        fake.ids._last = max([fake.ids._last, *users, *channels, *fake.messages_by_id])
        self.save(fake)  # remember what is on disk, so the next save writes only changes
        return True

    @staticmethod
    def attach_urls(fake: LocalDiscord) -> None:
        """Give loaded files their full URL once the server listens (its port was unknown
        while loading, and may differ from the last run's)."""
        for att in fake.attachments_by_id.values():
            if att.url.startswith("/"):
                att.url = fake.base_url + att.url

    # ------------------------------------------------------------------ save
    def save(self, fake: LocalDiscord) -> int:
        """Write what changed since the last save, in one transaction; the rows written."""
        db = self._connect()
        writes: list[tuple[str, tuple[Any, ...]]] = []
        seen: set[tuple[str, int]] = set()

        def put(table: str, key: int, data: dict[str, Any], extra: tuple[Any, ...] = ()) -> None:
            seen.add((table, key))
            text = _dump(data)
            if self._saved.get((table, key)) == text:
                return
            self._saved[(table, key)] = text
            if table == "messages":
                writes.append(
                    (
                        "INSERT OR REPLACE INTO messages (id, channel_id, data) VALUES (?, ?, ?)",
                        (key, *extra, text),
                    )
                )
            else:
                writes.append(
                    (f"INSERT OR REPLACE INTO {table} (id, data) VALUES (?, ?)", (key, text))
                )

        for user in fake.users.values():
            put("users", user.id, _user_json(user))
        for guild in fake.guilds.values():
            put("guilds", guild.id, _guild_json(guild))
        for channel in fake.channels.values():
            put("channels", channel.id, _channel_json(channel))
        for msg in fake.messages_by_id.values():
            if msg.ephemeral or msg.loading or msg.deleted or msg.channel.id not in fake.channels:
                continue
            state = (len(msg.history), msg.flags, msg.thread is not None)
            if self._message_keys.get(msg.id) == state and ("messages", msg.id) in self._saved:
                seen.add(("messages", msg.id))
                continue
            self._message_keys[msg.id] = state
            put("messages", msg.id, _message_json(msg), (msg.channel.id,))
            for a in msg.attachments:
                if ("attachments", a.id) in self._saved:
                    continue
                self._saved[("attachments", a.id)] = ""
                writes.append(
                    (
                        "INSERT OR REPLACE INTO attachments (id, message_id, data, bytes)"
                        " VALUES (?, ?, ?, ?)",
                        (a.id, msg.id, _dump(_attachment_json(a, msg.channel.id)), a.data),
                    )
                )
        gone = [k for k in self._saved if k not in seen and k[0] != "attachments"]
        for table, row_id in gone:
            del self._saved[(table, row_id)]
            self._message_keys.pop(row_id, None)
            writes.append((f"DELETE FROM {table} WHERE id = ?", (row_id,)))
            if table == "messages":
                writes.append(("DELETE FROM attachments WHERE message_id = ?", (row_id,)))
        if not writes:
            return 0
        with db:
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?),"
                " ('application_id', ?), ('owner_id', ?)",
                (str(SCHEMA_VERSION), str(fake.application_id), str(fake.owner.id)),
            )
            for sql, args in writes:
                db.execute(sql, args)
        return len(writes)

    async def keep_saved(self, fake: LocalDiscord) -> None:
        """Save after every change until cancelled (then once more)."""
        version = fake.version
        try:
            while True:
                version = await fake.next_change(version)
                try:
                    self.save(fake)
                except sqlite3.Error:
                    log.exception("could not save the local world to %s", self.path)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.save(fake)


def _user_json(u: FakeUser) -> dict[str, Any]:
    return {
        "id": u.id,
        "name": u.name,
        "bot": u.bot,
        "global_name": u.global_name,
        "accepts_dms": u.accepts_dms,
    }


def _user(d: dict[str, Any]) -> FakeUser:
    return FakeUser(int(d["id"]), d["name"], d["bot"], d["global_name"], d["accepts_dms"])


def _guild_json(g: FakeGuild) -> dict[str, Any]:
    return {
        "id": g.id,
        "name": g.name,
        "owner_id": g.owner_id,
        "joined_at": g.joined_at,
        "roles": [
            {
                "id": r.id,
                "name": r.name,
                "permissions": r.permissions,
                "position": r.position,
                "managed": r.managed,
            }
            for r in g.roles.values()
        ],
        "members": [
            {"user": m.user.id, "roles": m.roles, "nick": m.nick, "joined_at": m.joined_at}
            for m in g.members.values()
        ],
    }


def _channel_json(c: FakeChannel) -> dict[str, Any]:
    return {
        "id": c.id,
        "type": c.type,
        "name": c.name,
        "guild": c.guild.id if c.guild else None,
        "parent_id": c.parent_id,
        "owner_id": c.owner_id,
        "topic": c.topic,
        "position": c.position,
        "recipient": c.recipient.id if c.recipient else None,
        "archived": c.archived,
        "locked": c.locked,
        "invitable": c.invitable,
        "auto_archive_duration": c.auto_archive_duration,
        "archive_timestamp": c.archive_timestamp,
        "create_timestamp": c.create_timestamp,
        "member_ids": c.member_ids,
        "starter_message_id": c.starter_message_id,
        "total_message_sent": c.total_message_sent,
    }


def _message_json(m: FakeMessage) -> dict[str, Any]:
    used = None
    if m.interaction is not None:
        used = {
            "id": m.interaction.id,
            "type": m.interaction.type,
            "user": m.interaction.user.id,
            "name": m.interaction.name,
        }
    return {
        "author": m.author.id,
        "content": m.content,
        "embeds": m.embeds,
        "components": m.components,
        "flags": m.flags,
        "type": m.type,
        "timestamp": m.timestamp,
        "edited_timestamp": m.edited_timestamp,
        "mentions": [u.id for u in m.mentions],
        "mention_roles": m.mention_roles,
        "mention_everyone": m.mention_everyone,
        "webhook_id": m.webhook_id,
        "application_id": m.application_id,
        "reference_id": m.reference_id,
        "thread": m.thread.id if m.thread else None,
        "reactions": m.reactions,
        "interaction": used,
        "attachments": [a.id for a in m.attachments],
    }


def _attachment_json(a: FakeAttachment, channel_id: int) -> dict[str, Any]:
    return {
        "id": a.id,
        "filename": a.filename,
        "content_type": a.content_type,
        "description": a.description,
        "width": a.width,
        "height": a.height,
        "channel": channel_id,
    }
