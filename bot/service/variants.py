"""A server's own variants, and the one place that says which variant a player means.

`resolve(guild_id, text)` finds a built-in variant or one this guild defined (by id or
name, options after `+`) and returns what a challenge, a tournament or an engine game needs
to pin it: the storage key (`chess`, or `mine@<guild>` for a server's variant, the same for
all its versions: ratings and leaderboards gather by it) and the digest of the definition.
`for_game(game)` and `for_challenge(challenge)` load the definition a game pinned, so editing
or deleting the variant never changes a game in progress, a finished game's record or its
replay. Definitions are untrusted text: `define` validates them (`rules.variant`,
`rules.sanity`) in a worker thread, one at a time. Everything here that costs CPU (loading
a definition, piece values, rules summaries) runs off the event loop (`offload`), and a
server's loaded variants are kept by digest, so their piece values and move tables are
computed once, not at every /variant show.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.service import limits
from bot.service.catalogue import (
    Rank,
    all_variants,
    find_piece,
    match_rank,
    piece_info,
    piece_suggestions,
    ranked_variants,
    rules_view,
)
from bot.service.clock import Clock
from bot.service.effects import EffectRegistry
from bot.service.engine import piece_infos, variant_info
from bot.service.errors import BadRequestError, ServiceError
from bot.service.inputs import player_name
from bot.service.models import (
    DefinedFile,
    DefinedVariant,
    GalleryLine,
    GuildVariantLine,
    PieceInfo,
    RulesView,
    Suggestion,
    UserRef,
    VariantFile,
    VariantInfo,
)
from bot.service.offload import in_process, off_loop
from rules import shuffle
from rules.errors import UnknownVariantError, VariantError
from rules.ini import IniRefusal, convert_ini, export_ini
from rules.ini import variant_id as variant_id_of
from rules.sanity import sanity_check
from rules.summary import new_pieces
from rules.variant import (
    Variant,
    decode_definition,
    definition_digest,
    load_definition,
    load_variant,
    normalize_name,
    resolve_variant_id,
    variant_ids,
)
from search.values import PieceValue, piece_values
from storage import Storage
from storage.crashpoints import crashpoint
from storage.errors import VariantChangedError
from storage.models import (
    Challenge,
    EventKind,
    Game,
    GuildVariant,
    NewEffect,
    StorageEvent,
    VariantShare,
)
from storage.variants import SHARE_ALPHABET, SHARE_CODE_LENGTH

MAX_GUILD_VARIANTS = 50
"""Variants one server may hold at once (deleted ones do not count)."""
_KEY_RE = re.compile(r"([a-z][a-z0-9-]*)@(\d+)")
_CODE_RE = re.compile(f"[{SHARE_ALPHABET}]{{{SHARE_CODE_LENGTH}}}")


def variant_key(guild_id: int, variant_id: str) -> str:
    """How storage names a server's variant: the same key for all its versions."""
    return f"{variant_id}@{guild_id}"


def split_key(key: str) -> tuple[str, int | None]:
    """`mine@123` -> ("mine", 123); a built-in id -> (id, None)."""
    m = _KEY_RE.fullmatch(key)
    return (m.group(1), int(m.group(2))) if m else (key, None)


@dataclass(frozen=True, slots=True)
class ResolvedVariant:
    """The variant a player named, with its options, as a game would pin it."""

    variant: Variant
    key: str
    """`variant_id` in storage: the built-in id, or `<id>@<guild id>`."""
    digest: str | None
    """The definition a game of it pins (None for a built-in variant)."""
    own: GuildVariant | None = None
    """The server's record of it, for a server's variant."""

    @property
    def info(self) -> VariantInfo:
        return variant_info(self.variant, self.own)


class VariantService:
    """Resolving variants for every command, and /variant define|show|export|list|delete|
    share|import|gallery."""

    def __init__(self, storage: Storage, clock: Clock, *, cache_size: int = 64) -> None:
        self.storage = storage
        self.clock = clock
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._builtin: dict[tuple[str, tuple[str, ...]], Variant] = {}
        self._loaded: OrderedDict[tuple[str, tuple[str, ...]], Variant] = OrderedDict()
        self._values: OrderedDict[tuple[str, str, tuple[str, ...]], tuple[PieceValue, ...]] = (
            OrderedDict()
        )
        self._cache_size = cache_size
        self.rng = random.Random()  # the random setups' draw (tests seed it)
        self._defining = asyncio.Lock()  # one validation at a time: bounded CPU for everyone
        self._definitions = limits.RateWindow(limits.VARIANT_DEFINITIONS_PER_HOUR, 3600)

    # ------------------------------------------------------------------ resolving

    async def resolve(
        self, guild_id: int | None, text: str, options_text: str = ""
    ) -> ResolvedVariant:
        """A built-in variant or one of this server's, by id, name or key, with options
        (`id+option` or `options_text`, comma-separated). Refusals list what exists."""
        base, *opts = text.strip().split("+")
        extra = [normalize_name(o) for o in options_text.replace("+", ",").split(",")]
        options = sorted(
            {*(normalize_name(o) for o in opts if o.strip()), *(o for o in extra if o)}
        )
        try:
            # A built-in id, this server's id or key, a built-in name, this server's name.
            own = None
            if guild_id is not None and normalize_name(base) not in variant_ids():
                own = await self._find_own(guild_id, base, by_name=False)
                if own is None and not _is_builtin_name(base):
                    own = await self._find_own(guild_id, base, by_name=True)
            if own is not None:
                variant = await self._load(own.digest, options)
                key = variant_key(own.guild_id, own.variant_id)
                return ResolvedVariant(variant, key, own.digest, own)
            variant_id, _ = resolve_variant_id(base)
            return ResolvedVariant(load_variant(variant_id, options), variant_id, None)
        except UnknownVariantError as exc:
            theirs = ""
            if guild_id is not None and (mine := await self.storage.variants.in_guild(guild_id)):
                theirs = " This server's: " + ", ".join(v.variant_id for v in mine) + "."
            raise BadRequestError(f"{exc}.{theirs} Try /variants for the list.") from None

    async def _find_own(
        self, guild_id: int, text: str, *, by_name: bool = True
    ) -> GuildVariant | None:
        """This server's variant by id or key, or (`by_name`) by name; never another
        server's, never a deleted one."""
        wanted = normalize_name(text)
        variant_id, key_guild = split_key(wanted)
        if key_guild is not None and key_guild != guild_id:
            return None
        if re.fullmatch(r"[a-z][a-z0-9-]*", variant_id):
            found = await self.storage.variants.get(guild_id, variant_id)
            if found is not None and not found.deleted:
                return found
        if by_name:
            for own in await self.storage.variants.in_guild(guild_id):
                if normalize_name(own.name) == wanted:
                    return own
        return None

    async def pinned(self, key: str, options: tuple[str, ...], digest: str | None) -> Variant:
        """The variant a challenge or game pinned: a built-in one by id, a server's by the
        definition it started with (whatever happened to the variant since)."""
        if digest is None:
            # A built-in variant's first load reads and checks its file (tens of ms for a
            # large one): off the loop, once per process.
            builtin = self._builtin.get((key, options))
            if builtin is None:
                builtin = await off_loop(load_variant, key, options)
                self._builtin[(key, options)] = builtin
            return builtin
        return await self._load(digest, list(options))

    async def with_drawn_setup(
        self, variant: Variant, key: str, options: tuple[str, ...], digest: str | None
    ) -> tuple[Variant, tuple[str, ...]]:
        """A game about to start: a variant with a random setup (`[setup.random]`) gets its
        array drawn now, once, pinned as the option `setup-<letters>` (stored with the
        game's options, so every replay starts from it); others are unchanged."""
        option = shuffle.draw_option(variant, self.rng)
        if option is None:
            return variant, options
        pinned = (*options, option)
        return await self.pinned(key, pinned, digest), pinned

    async def for_game(self, game: Game) -> Variant:
        return await self.pinned(game.variant_id, game.options, game.definition_digest)

    async def for_challenge(self, challenge: Challenge) -> Variant:
        return await self.pinned(
            challenge.variant_id, challenge.options, challenge.definition_digest
        )

    async def _load(self, digest: str, options: list[str]) -> Variant:
        """A server's variant by its definition's digest: one object per definition and
        options (the piece values and move tables cached on it are computed once)."""
        key = (digest, tuple(options))
        loaded = self._loaded.get(key)
        if loaded is not None:
            self._loaded.move_to_end(key)
            return loaded
        text = self._texts.get(digest)
        if text is None:
            found = await self.storage.variants.definition(digest)
            if found is None:
                raise BadRequestError(f"The definition {digest[:12]} is missing from the database.")
            text = found
            self._texts[digest] = text
            while len(self._texts) > self._cache_size:
                self._texts.popitem(last=False)
        self._texts.move_to_end(digest)
        loaded = await off_loop(load_definition, text, options)
        self._loaded[key] = loaded
        while len(self._loaded) > self._cache_size:
            self._loaded.popitem(last=False)
        return loaded

    async def values_of(self, variant: Variant, text: str | None = None) -> tuple[PieceValue, ...]:
        """The variant's piece values, computed in the bot's worker process (a second or
        two for a 16x16 variant) and kept per variant, definition and options. `text`: a
        server variant's definition, if not loaded through `_load`."""
        options = tuple(sorted(variant.options))
        key = (variant.id, variant.digest, options)
        found = self._values.get(key)
        if found is not None:
            self._values.move_to_end(key)
            return found
        if variant.digest:
            text = text or self._texts.get(variant.digest)
            if text is None:
                text = await self.storage.variants.definition(variant.digest)
            if text is None:  # not stored yet: computed here, off the loop
                return await off_loop(piece_values, variant)
            values = await in_process(_values_job, None, text, options)
        else:
            values = await in_process(_values_job, variant.id, None, options)
        self._values[key] = values
        while len(self._values) > self._cache_size:
            self._values.popitem(last=False)
        return values

    async def name_of_key(self, key: str) -> str:
        """A variant's name from its storage key (ratings, leaderboards)."""
        variant_id, guild_id = split_key(key)
        if guild_id is None:
            try:
                return load_variant(variant_id).name
            except UnknownVariantError:
                return variant_id
        own = await self.storage.variants.get(guild_id, variant_id)
        return own.name if own is not None else variant_id

    # ------------------------------------------------------------------ browsing

    async def catalogue(self, guild_id: int | None) -> list[VariantInfo]:
        """Every variant a player here may choose: the built-in ones, then the server's."""
        out = list(all_variants())
        if guild_id is not None:
            for own in await self.storage.variants.in_guild(guild_id):
                out.append(variant_info(await self._load(own.digest, []), own))
        return out

    async def suggestions(
        self, guild_id: int | None, typed: str, limit: int = 25, *, own_only: bool = False
    ) -> list[Suggestion]:
        """Autocomplete for a variant option: the best matches first (an exact id or name
        before the rest, `catalogue.match_rank`), and within each rank the server's variants
        (marked) before the built-in ones (unless `own_only`)."""
        out: list[tuple[Rank, Suggestion]] = []
        if guild_id is not None:
            for own in await self.storage.variants.in_guild(guild_id):
                rank = match_rank(typed, own.variant_id, own.name)
                if rank is not None and not typed.strip():
                    rank = (rank[0], -1)  # nothing typed: the server's own games first
                if rank is not None:
                    label = f"{own.name} · this server's (v{own.version})"
                    out.append((rank, Suggestion(label[:100], own.variant_id)))
        if not own_only:
            out += ranked_variants(typed)
        return [s for _, s in sorted(out, key=lambda pair: pair[0])][:limit]

    async def rules_view(self, guild_id: int | None, text: str) -> RulesView:
        found = await self.resolve(guild_id, text)
        # Off the loop: the piece values of a large variant take a second the first time.
        values = await self.values_of(found.variant)
        return await off_loop(rules_view, found.variant, found.own, values)

    async def piece_info(
        self, guild_id: int | None, variant_text: str, piece_text: str
    ) -> tuple[Variant, PieceInfo]:
        found = await self.resolve(guild_id, variant_text)
        values = await self.values_of(found.variant)
        return found.variant, await off_loop(piece_info, found.variant, piece_text, values)

    async def piece_suggestions(
        self, guild_id: int | None, variant_text: str, typed: str
    ) -> list[Suggestion]:
        try:
            found = await self.resolve(guild_id, variant_text)
        except BadRequestError:
            return []
        return piece_suggestions(found.variant, typed)

    # ------------------------------------------------------------------ /variant

    async def define(
        self,
        guild_id: int,
        author: UserRef,
        *,
        can_manage: bool,
        filename: str,
        data: bytes,
        channel_id: int | None = None,
    ) -> DefinedVariant:
        """Validate an uploaded definition and store it as this server's variant (a new
        version when its id exists: only its author or a manager may replace it). The
        announcement in `channel_id` is recorded with the new version (an effect: see
        `install`). The same file as the current version is refused as changing nothing
        (`UnchangedVariantError`), before any work."""
        source = _safe_name(filename)
        if not source.lower().endswith(".toml"):
            raise BadRequestError(
                f"Attach the variant as a .toml file (not {source!r}); docs/variants.md shows how."
            )
        text = decode_definition(data, source)
        digest = definition_digest(text)
        for own in await self.storage.variants.in_guild(guild_id):
            if own.digest == digest:
                raise UnchangedVariantError(own)
        wait = self._definitions.take((guild_id, author.id), self.clock.now())
        if wait is not None:
            raise limits.LimitError(
                f"That is {limits.VARIANT_DEFINITIONS_PER_HOUR} definitions in an hour, the most "
                f"one member may give: define this one {limits.wait_words(wait)}. Meanwhile "
                "`python -m rules check` checks a file on your own computer, as the bot does."
            )
        async with self._defining:
            # The static checks in a thread (their errors as they are), the sanity run and
            # the piece values, which take seconds on 16x16, in the worker process.
            variant = await off_loop(load_definition, text, source=source, new=True)
            report = await in_process(_sanity_job, text, source)
            values = await self.values_of(variant, text)
        current = await self.storage.variants.get(guild_id, variant.id)
        replacing = current is not None and not current.deleted
        if current is not None and replacing:
            self._check_may_change(current, author, can_manage, "replace")
        elif len(await self.storage.variants.in_guild(guild_id)) >= MAX_GUILD_VARIANTS:
            raise BadRequestError(
                f"This server already has {MAX_GUILD_VARIANTS} variants; delete one first "
                "(/variant delete)."
            )
        await self.storage.players.upsert(author.id, author.name, self.clock.now())
        try:
            own = await self.storage.variants.define(
                guild_id,
                variant.id,
                name=variant.name,
                content=text,
                digest=digest,
                author_id=author.id,
                expected_version=current.version if current else 0,
                now=self.clock.now(),
                channel_id=channel_id,
            )
        except VariantChangedError:
            raise BadRequestError(
                f"Someone changed the variant `{variant.id}` at the same moment; look at it "
                "with /variant show and define it again."
            ) from None
        crashpoint("event.committed:variant")
        if current is not None and own.version == current.version:
            raise UnchangedVariantError(own)  # the same file, defined a moment before
        self._texts[digest] = text
        replaced = current.version if current and replacing else 0
        return await off_loop(_defined, variant, own, report, replaced, values)

    async def define_file(
        self,
        guild_id: int,
        author: UserRef,
        *,
        can_manage: bool,
        filename: str,
        data: bytes,
        channel_id: int | None = None,
    ) -> DefinedFile:
        """`define` for a `.toml` file, and for a Fairy-Stockfish `variants.ini`: each of its
        sections is converted (`rules.ini`) and defined as a variant of its own; refused
        sections are reported by name with the reason, and if none converts the file is
        refused with them all."""
        source = _safe_name(filename)
        if not source.lower().endswith(".ini"):
            one = await self.define(
                guild_id,
                author,
                can_manage=can_manage,
                filename=filename,
                data=data,
                channel_id=channel_id,
            )
            return DefinedFile((one,), ())
        text = decode_definition(data, source)
        items = await off_loop(convert_ini, text, source)
        defined: list[DefinedVariant] = []
        refused: list[str] = []
        for item in items:
            if item.toml is None:
                refused.append(str(item.error))
                continue
            try:
                defined.append(
                    await self.define(
                        guild_id,
                        author,
                        can_manage=can_manage,
                        filename=f"{variant_id_of(item.name)}.toml",
                        data=item.toml.encode("utf-8"),
                        channel_id=channel_id,
                    )
                )
            except UnchangedVariantError as exc:
                refused.append(f"[{item.name}]: {exc}")
            except (ServiceError, VariantError) as exc:
                refused.append(f"[{item.name}]: {exc}")
        if not defined:
            shown = "\n".join(refused[:10]) or "the file has no [section]"
            raise BadRequestError(f"No section of {source} could be defined:\n{shown}")
        return DefinedFile(tuple(defined), tuple(refused))

    async def announcement(self, guild_id: int, variant_id: str, version: int) -> DefinedVariant:
        """A version of a server's variant as its announcement shows it (the variant's
        rules, its new pieces), whatever came after it; `LookupError` if that version does
        not exist."""
        found = await self.storage.variants.get(guild_id, variant_id)
        versions = {
            v.version: v for v in await self.storage.variants.versions(guild_id, variant_id)
        }
        if found is None or version not in versions:
            raise LookupError(f"no version {version} of {variant_id} in guild {guild_id}")
        digest = versions[version].digest
        own = replace(found, version=version, digest=digest, deleted_at=None)
        variant = await self._load(digest, [])
        values = await self.values_of(variant)
        origin, imported = await self._origin(own)
        # The imported version itself replaces nothing here (even over a deleted id).
        replaced = 0 if imported == digest else version - 1
        defined = await off_loop(_defined, variant, own, (), replaced, values)
        return replace(defined, origin=origin)

    async def show(self, guild_id: int, text: str) -> RulesView:
        own = await self._own_or_refuse(guild_id, text)
        variant = await self._load(own.digest, [])
        return await off_loop(rules_view, variant, own, await self.values_of(variant))

    async def export(self, guild_id: int, text: str, fmt: str = "toml") -> VariantFile:
        """A server variant's file (`toml`, as defined), or any variant, built-in ones too,
        as a Fairy-Stockfish variants.ini section (`ini`; refused with what that format
        cannot say)."""
        if fmt == "ini":
            own = await self._find_own(guild_id, text.strip())
            if own is not None:
                variant = await self._load(own.digest, [])
                name, version = own.name, own.version
                filename = f"{own.variant_id}-v{own.version}.ini"
            else:
                try:
                    variant = load_variant(*resolve_variant_id(text))
                except UnknownVariantError:
                    await self._own_or_refuse(guild_id, text)
                    raise
                name, version, filename = variant.name, 0, f"{variant.id}.ini"
            try:
                section = await off_loop(export_ini, variant)
            except IniRefusal as exc:
                raise BadRequestError(
                    f"Fairy-Stockfish's variants.ini cannot say {variant.name}: {exc.reason}."
                ) from None
            return VariantFile(filename, section, version, name)
        own = await self._own_or_refuse(guild_id, text)
        content = await self.storage.variants.definition(own.digest)
        assert content is not None, "a stored variant's definition is never deleted"
        return VariantFile(f"{own.variant_id}-v{own.version}.toml", content, own.version, own.name)

    async def listing(self, guild_id: int) -> list[GuildVariantLine]:
        played = await self.storage.variants.games_played(guild_id)
        out = []
        for own in await self.storage.variants.in_guild(guild_id):
            player = await self.storage.players.find(own.author_id)
            author = player_name(own.author_id, player.display_name if player else "")
            out.append(
                GuildVariantLine(
                    variant_info(await self._load(own.digest, []), own),
                    author,
                    played.get(variant_key(guild_id, own.variant_id), 0),
                    await self.origin_of(own),
                )
            )
        return out

    async def delete(
        self, guild_id: int, user: UserRef, *, can_manage: bool, text: str
    ) -> VariantInfo:
        """Take the variant off the server's list; its games keep their definition."""
        own = await self._own_or_refuse(guild_id, text)
        self._check_may_change(own, user, can_manage, "delete")
        try:
            deleted = await self.storage.variants.delete(
                guild_id, own.variant_id, expected_version=own.version, now=self.clock.now()
            )
        except VariantChangedError:
            raise BadRequestError(
                f"The variant `{own.variant_id}` changed at the same moment; try again."
            ) from None
        return variant_info(await self._load(deleted.digest, []), deleted)

    # ------------------------------------------------------------------ sharing

    async def share(
        self, guild_id: int, user: UserRef, *, can_manage: bool, text: str
    ) -> VariantShare:
        """A code for the current version of one of this server's variants, which another
        server imports with /variant import. Only its author or a manager may share it (the
        author's name travels with it); the same version shared again has the same code."""
        own = await self._own_or_refuse(guild_id, text)
        self._check_may_change(own, user, can_manage, "share")
        await self.storage.players.upsert(user.id, user.name, self.clock.now())
        try:
            return await self.storage.variants.share(
                guild_id, own.variant_id, shared_by=user.id, now=self.clock.now()
            )
        except VariantChangedError:
            raise BadRequestError(
                f"The variant `{own.variant_id}` was deleted at the same moment."
            ) from None

    async def import_share(
        self, guild_id: int, user: UserRef, *, code: str, channel_id: int | None = None
    ) -> DefinedVariant:
        """Copy a shared variant to this server as a new variant (version 1 here, the
        importer its owner), its origin kept (`origin_of`). Refused when the code is unknown,
        or the id or the name is taken here. Counts as a definition for the member's hourly
        limit; announced in `channel_id` as a definition is."""
        wanted = re.sub(r"[\s\-]", "", code).lower()
        share = await self.storage.variants.shared(wanted) if _CODE_RE.fullmatch(wanted) else None
        if share is None:
            raise BadRequestError(
                f"No variant is shared under the code {code.strip()[:40]!r}. A code is "
                f"{SHARE_CODE_LENGTH} letters and digits from /variant share on the server "
                "that has the variant; check it with whoever gave it to you."
            )
        if share.guild_id == guild_id:
            raise BadRequestError(
                f"That code is this server's own `{share.variant_id}` (v{share.version}): "
                "nothing to import."
            )
        mine = await self.storage.variants.in_guild(guild_id)
        for own in mine:
            if own.digest == share.digest:
                raise BadRequestError(
                    f"This server has that definition already: `{own.variant_id}` (v{own.version})."
                )
            if own.variant_id == share.variant_id:
                raise BadRequestError(
                    f"The id `{share.variant_id}` is taken on this server by **{own.name}** "
                    f"(v{own.version}). Delete that one first (/variant delete), or export the "
                    "shared one from its server, change its `id` and define it here."
                )
            if normalize_name(own.name) == normalize_name(share.name):
                raise BadRequestError(
                    f"The name **{own.name}** is taken on this server by `{own.variant_id}`. "
                    "Delete that one first (/variant delete), or export the shared one from "
                    "its server, change its `name` and define it here."
                )
        if len(mine) >= MAX_GUILD_VARIANTS:
            raise BadRequestError(
                f"This server already has {MAX_GUILD_VARIANTS} variants; delete one first "
                "(/variant delete)."
            )
        wait = self._definitions.take((guild_id, user.id), self.clock.now())
        if wait is not None:
            raise limits.LimitError(
                f"That is {limits.VARIANT_DEFINITIONS_PER_HOUR} definitions and imports in an "
                f"hour, the most one member may make: import this one {limits.wait_words(wait)}."
            )
        text = await self.storage.variants.definition(share.digest)
        assert text is not None, "a shared definition is never deleted"
        current = await self.storage.variants.get(guild_id, share.variant_id)  # deleted, if any
        await self.storage.players.upsert(user.id, user.name, self.clock.now())
        try:
            own = await self.storage.variants.define(
                guild_id,
                share.variant_id,
                name=share.name,
                content=text,
                digest=share.digest,
                author_id=user.id,
                expected_version=current.version if current else 0,
                now=self.clock.now(),
                channel_id=channel_id,
                origin_code=share.code,
            )
        except VariantChangedError:
            raise BadRequestError(
                f"Someone defined `{share.variant_id}` here at the same moment; "
                "look at it with /variant show."
            ) from None
        self._texts[share.digest] = text
        variant = await self._load(share.digest, [])
        values = await self.values_of(variant)
        defined = await off_loop(_defined, variant, own, (), 0, values)
        return replace(defined, origin=await self.origin_of(own))

    async def origin_of(self, own: GuildVariant) -> str:
        """Where an imported variant came from, `by alice, v3 from another server` (the
        author's name as stored now: "Anonymous 7" after /forget-me); "" if defined here."""
        return (await self._origin(own))[0]

    async def _origin(self, own: GuildVariant) -> tuple[str, str | None]:
        """`origin_of`, and the digest of the imported definition."""
        if own.origin_code is None:
            return "", None
        share = await self.storage.variants.shared(own.origin_code)
        if share is None:
            return "", None
        name = await self._name(share.author_id)
        return f"by {name}, v{share.version} from another server", share.digest

    async def gallery(self, limit: int = 10) -> list[GalleryLine]:
        """The shared variants imported most often, on every server."""
        return [
            GalleryLine(
                s.code, s.variant_id, s.name, s.version, await self._name(s.author_id), s.imports
            )
            for s in await self.storage.variants.most_imported(limit)
        ]

    async def _name(self, user_id: int) -> str:
        player = await self.storage.players.find(user_id)
        return player_name(user_id, player.display_name if player else "")

    async def _own_or_refuse(self, guild_id: int, text: str) -> GuildVariant:
        own = await self._find_own(guild_id, text.strip())
        if own is None:
            mine = await self.storage.variants.in_guild(guild_id)
            known = ", ".join(f"`{v.variant_id}`" for v in mine) or "none yet (/variant define)"
            raise BadRequestError(
                f"This server has no variant {text.strip()!r}. Its variants: {known}."
            )
        return own

    @staticmethod
    def _check_may_change(own: GuildVariant, user: UserRef, can_manage: bool, what: str) -> None:
        if user.id != own.author_id and not can_manage:
            raise BadRequestError(
                f"Only the author of `{own.variant_id}` (<@{own.author_id}>) or someone with "
                f"Manage Server may {what} it."
            )


class UnchangedVariantError(ServiceError):
    """The file is the one a server's variant has now: nothing to define."""

    def __init__(self, own: GuildVariant) -> None:
        self.own = own
        super().__init__(
            f"This file is already version {own.version} of `{own.variant_id}` "
            f"(**{own.name}**): nothing changed. Edit it and define it again for a new version."
        )


def _defined(
    variant: Variant,
    own: GuildVariant,
    sanity: Sequence[str],
    replaced: int,
    values: Sequence[PieceValue] | None = None,
) -> DefinedVariant:
    fresh = {p.id for p in new_pieces(variant)}
    return DefinedVariant(
        variant=variant,
        rules=rules_view(variant, own, values),
        new_pieces=tuple(i for i in piece_infos(variant, values) if i.id in fresh),
        sanity=tuple(sanity),
        replaced_version=replaced,
    )


ANNOUNCE = "variant.announce"
"""The effect posting a new version of a server's variant where it was defined."""


def on_defined(event: StorageEvent) -> list[NewEffect]:
    """The announcement of a new version, recorded in the definition's own transaction, so
    a stop right after it cannot lose it (and a repeat cannot double it)."""
    own, channel_id = event.variant, event.channel_id
    if own is None or channel_id is None:
        return []
    where = f"{own.guild_id}:{own.variant_id}"
    return [
        NewEffect(
            ANNOUNCE,
            {
                "guild_id": own.guild_id,
                "variant_id": own.variant_id,
                "version": own.version,
                "channel_id": channel_id,
                "author_id": event.actor_id,
            },
            queue=f"variant:{where}",
            dedupe_key=f"{ANNOUNCE}:{where}:{own.version}",
        )
    ]


def install(registry: EffectRegistry) -> None:
    """The rule recording a variant's announcement (its handler is the Discord side's:
    `bot.announce_variants`)."""
    registry.on(EventKind.VARIANT_DEFINED, on_defined)


def _is_builtin_name(text: str) -> bool:
    try:
        resolve_variant_id(text)
    except UnknownVariantError:
        return False
    return True


def _validate(text: str, source: str) -> tuple[Variant, list[str]]:
    """Static checks, then the sanity run (a few seconds at most)."""
    variant = load_definition(text, source=source, new=True)
    report = sanity_check(variant)
    return variant, report.lines()


def _sanity_job(text: str, source: str) -> list[str]:
    """In the worker process: the sanity run's report of a definition (already checked)."""
    return _validate(text, source)[1]


def _values_job(
    variant_id: str | None, text: str | None, options: tuple[str, ...]
) -> tuple[PieceValue, ...]:
    """In the worker process: the piece values of a built-in variant (`variant_id`) or a
    server's (its definition `text`), with `options`."""
    if text is not None:
        return piece_values(load_definition(text, list(options)))
    assert variant_id is not None
    return piece_values(load_variant(variant_id, options))


def _safe_name(filename: str) -> str:
    """The attachment's file name for messages: printable, short, no path."""
    name = re.sub(r"[^\w.\- ]", "_", filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1])[:60]
    return name or "your file"


__all__ = [
    "MAX_GUILD_VARIANTS",
    "ResolvedVariant",
    "VariantError",
    "VariantService",
    "find_piece",
    "split_key",
    "variant_key",
]
