"""Discord's limits on what a bot sends, as pure functions over JSON payloads.

Each check returns a list of :class:`Problem`; the server turns problems with ``rejected=True``
into a 400 "Invalid Form Body" (code 50035) shaped like Discord's, and records every problem
as a violation.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from .models import FLAG_COMPONENTS_V2, FLAG_EPHEMERAL, FLAG_SUPPRESS_EMBEDS

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR_NAME = 256
MAX_EMBED_TOTAL = 6000
MAX_ACTION_ROWS = 5
MAX_ROW_ITEMS = 5
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_CHOICES = 25
MAX_CHOICE_NAME = 100
MAX_CHOICE_VALUE = 100
MAX_COMMANDS = 100
MAX_COMMAND_OPTIONS = 25
MAX_COMMAND_TOTAL = 4000
MAX_MODAL_TITLE = 45
MAX_V2_COMPONENTS = 40
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_DESCRIPTION = 1024  # alt text

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_NAME_RE = re.compile(r"^[-_\w]{1,32}$")
_URL_SCHEMES = ("http://", "https://", "attachment://")
_MESSAGE_FLAGS = FLAG_SUPPRESS_EMBEDS | (1 << 12) | FLAG_COMPONENTS_V2


@dataclass(frozen=True)
class Problem:
    code: str  # our violation code, e.g. "embed.title_too_long"
    field: str  # dotted JSON path, e.g. "embeds.0.title"
    message: str  # Discord's wording, e.g. "Must be 256 or fewer in length."
    discord_code: str = "BASE_TYPE_MAX_LENGTH"
    rejected: bool = True


def _too_long(code: str, path: str, limit: int) -> Problem:
    return Problem(code, path, f"Must be {limit} or fewer in length.")


def _required(code: str, path: str) -> Problem:
    return Problem(code, path, "This field is required", "BASE_TYPE_REQUIRED")


def form_errors(problems: list[Problem]) -> dict[str, Any]:
    """Nest problems the way Discord does: ``{"embeds": {"0": {"title": {"_errors": [...]}}}}``."""
    root: dict[str, Any] = {}
    for p in problems:
        node = root
        for part in [x for x in p.field.split(".") if x]:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": p.discord_code, "message": p.message})
    return root


# -- messages ---------------------------------------------------------------------------------


def check_message(
    payload: dict[str, Any],
    *,
    filenames: list[str],
    allow_ephemeral: bool,
    prefix: str = "",
    require_body: bool = True,
) -> list[Problem]:
    problems: list[Problem] = []
    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        problems.append(
            Problem("content.type", f"{prefix}content", "Must be a string.", "BASE_TYPE_STRING")
        )
    elif content and len(content) > MAX_CONTENT:
        problems.append(_too_long("content.too_long", f"{prefix}content", MAX_CONTENT))
    embeds = payload.get("embeds") or []
    problems += check_embeds(embeds, filenames=filenames, prefix=f"{prefix}embeds")
    flags = int(payload.get("flags") or 0)
    allowed = _MESSAGE_FLAGS | (FLAG_EPHEMERAL if allow_ephemeral else 0)
    if flags & ~allowed:
        problems.append(
            Problem(
                "message.flags",
                f"{prefix}flags",
                f"Flags {flags & ~allowed} cannot be set.",
                "MESSAGE_FLAGS_INVALID",
            )
        )
    v2 = bool(flags & FLAG_COMPONENTS_V2)
    problems += check_components(
        payload.get("components") or [], v2=v2, prefix=f"{prefix}components"
    )
    if v2 and (content or embeds):
        problems.append(
            Problem(
                "components_v2.content",
                f"{prefix}content",
                "The 'content' and 'embeds' fields cannot be used with IS_COMPONENTS_V2.",
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            )
        )
    if len(filenames) > MAX_ATTACHMENTS:
        problems.append(_too_long("attachments.too_many", f"{prefix}attachments", MAX_ATTACHMENTS))
    if require_body and not (
        content
        or embeds
        or payload.get("components")
        or filenames
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        problems.append(
            Problem("message.empty", f"{prefix}content", "Cannot send an empty message", "EMPTY")
        )
    return problems


def embed_length(embed: dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def check_embeds(
    embeds: list[dict[str, Any]], *, filenames: list[str], prefix: str = "embeds"
) -> list[Problem]:
    problems: list[Problem] = []
    if len(embeds) > MAX_EMBEDS:
        problems.append(_too_long("embeds.too_many", prefix, MAX_EMBEDS))
    for i, e in enumerate(embeds):
        p = f"{prefix}.{i}"
        if len(e.get("title") or "") > MAX_EMBED_TITLE:
            problems.append(_too_long("embed.title_too_long", f"{p}.title", MAX_EMBED_TITLE))
        if len(e.get("description") or "") > MAX_EMBED_DESCRIPTION:
            problems.append(
                _too_long("embed.description_too_long", f"{p}.description", MAX_EMBED_DESCRIPTION)
            )
        fields = e.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            problems.append(_too_long("embed.too_many_fields", f"{p}.fields", MAX_EMBED_FIELDS))
        for j, f in enumerate(fields):
            name, value = f.get("name"), f.get("value")
            if not name:
                problems.append(_required("embed.field_name_missing", f"{p}.fields.{j}.name"))
            elif len(name) > MAX_FIELD_NAME:
                problems.append(
                    _too_long("embed.field_name_too_long", f"{p}.fields.{j}.name", MAX_FIELD_NAME)
                )
            if not value:
                problems.append(_required("embed.field_value_missing", f"{p}.fields.{j}.value"))
            elif len(value) > MAX_FIELD_VALUE:
                problems.append(
                    _too_long(
                        "embed.field_value_too_long", f"{p}.fields.{j}.value", MAX_FIELD_VALUE
                    )
                )
        footer = e.get("footer") or {}
        if len(footer.get("text") or "") > MAX_FOOTER:
            problems.append(_too_long("embed.footer_too_long", f"{p}.footer.text", MAX_FOOTER))
        author = e.get("author") or {}
        if len(author.get("name") or "") > MAX_AUTHOR_NAME:
            problems.append(
                _too_long("embed.author_name_too_long", f"{p}.author.name", MAX_AUTHOR_NAME)
            )
        color = e.get("color")
        if color is not None and not (isinstance(color, int) and 0 <= color <= 0xFFFFFF):
            problems.append(
                Problem(
                    "embed.color",
                    f"{p}.color",
                    "Int value should be <= 16777215 and >= 0.",
                    "NUMBER_TYPE_MAX",
                )
            )
        for key, url in _embed_urls(e):
            if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
                problems.append(
                    Problem(
                        "embed.bad_url",
                        f"{p}.{key}",
                        "Not a well formed URL.",
                        "URL_TYPE_INVALID_URL",
                    )
                )
            elif (
                url.startswith("attachment://")
                and url.removeprefix("attachment://") not in filenames
            ):
                problems.append(
                    Problem(
                        "embed.missing_attachment",
                        f"{p}.{key}",
                        f"{url} names no file attached to this message; the image will not show.",
                        "ATTACHMENT_NOT_FOUND",
                        rejected=False,
                    )
                )
    if sum(embed_length(e) for e in embeds) > MAX_EMBED_TOTAL:
        problems.append(
            Problem(
                "embeds.total_too_long",
                prefix,
                "Embed size exceeds maximum size of 6000",
                "MAX_EMBED_SIZE_EXCEEDED",
            )
        )
    return problems


def _embed_urls(embed: dict[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if embed.get("url") is not None:
        out.append(("url", embed["url"]))
    for key in ("image", "thumbnail"):
        sub = embed.get(key)
        if isinstance(sub, dict) and sub.get("url") is not None:
            out.append((f"{key}.url", sub["url"]))
    for key, inner in (("author", "url"), ("author", "icon_url"), ("footer", "icon_url")):
        sub = embed.get(key)
        if isinstance(sub, dict) and sub.get(inner) is not None:
            out.append((f"{key}.{inner}", sub[inner]))
    return out


# -- components -------------------------------------------------------------------------------

_SELECT_TYPES = (3, 5, 6, 7, 8)


def check_components(
    components: list[dict[str, Any]], *, v2: bool = False, prefix: str = "components"
) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()

    def check_custom_id(c: dict[str, Any], path: str, required: bool) -> None:
        cid = c.get("custom_id")
        if cid is None:
            if required:
                problems.append(_required("component.custom_id_missing", f"{path}.custom_id"))
            return
        if not isinstance(cid, str) or not cid:
            problems.append(_required("component.custom_id_missing", f"{path}.custom_id"))
        elif len(cid) > MAX_CUSTOM_ID:
            problems.append(
                _too_long("component.custom_id_too_long", f"{path}.custom_id", MAX_CUSTOM_ID)
            )
        elif cid in seen:
            problems.append(
                Problem(
                    "component.custom_id_duplicated",
                    f"{path}.custom_id",
                    "Component custom id cannot be duplicated",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                )
            )
        else:
            seen.add(cid)

    def check_item(c: dict[str, Any], path: str) -> None:
        kind = c.get("type")
        if kind == 2:
            style = c.get("style")
            if style not in (1, 2, 3, 4, 5, 6):
                problems.append(
                    Problem(
                        "button.style",
                        f"{path}.style",
                        "Value must be one of {1, 2, 3, 4, 5, 6}.",
                        "BASE_TYPE_CHOICES",
                    )
                )
            if style == 5:
                if not c.get("url"):
                    problems.append(_required("button.url_missing", f"{path}.url"))
                if "custom_id" in c:
                    problems.append(
                        Problem(
                            "button.link_custom_id",
                            f"{path}.custom_id",
                            "Link buttons cannot have a custom_id.",
                            "BUTTON_COMPONENT_CUSTOM_ID_LINK",
                        )
                    )
            elif style != 6:
                check_custom_id(c, path, required=True)
            label = c.get("label")
            if label and len(label) > MAX_BUTTON_LABEL:
                problems.append(
                    _too_long("button.label_too_long", f"{path}.label", MAX_BUTTON_LABEL)
                )
            if not label and not c.get("emoji") and style != 6:
                problems.append(_required("button.label_missing", f"{path}.label"))
        elif kind in _SELECT_TYPES:
            check_custom_id(c, path, required=True)
            if len(c.get("placeholder") or "") > 150:
                problems.append(
                    _too_long("select.placeholder_too_long", f"{path}.placeholder", 150)
                )
            if kind == 3:
                options = c.get("options") or []
                if not options:
                    problems.append(_required("select.options_missing", f"{path}.options"))
                if len(options) > 25:
                    problems.append(_too_long("select.too_many_options", f"{path}.options", 25))
                for k, o in enumerate(options):
                    for key in ("label", "value", "description"):
                        if len(o.get(key) or "") > 100:
                            problems.append(
                                _too_long(
                                    f"select.option_{key}_too_long",
                                    f"{path}.options.{k}.{key}",
                                    100,
                                )
                            )
            max_values = c.get("max_values", 1)
            if not 1 <= max_values <= 25:
                problems.append(
                    Problem(
                        "select.max_values",
                        f"{path}.max_values",
                        "Int value should be <= 25 and >= 1.",
                        "NUMBER_TYPE_MAX",
                    )
                )
        elif kind == 4:
            check_custom_id(c, path, required=True)
        elif v2:
            check_custom_id(c, path, required=False)
        else:
            problems.append(
                Problem(
                    "component.type",
                    f"{path}.type",
                    f"Component type {kind} not allowed here.",
                    "COMPONENT_TYPE_INVALID",
                )
            )

    if v2:
        count = 0

        def walk(items: list[dict[str, Any]], path: str) -> None:
            nonlocal count
            for i, c in enumerate(items):
                count += 1
                check_item(c, f"{path}.{i}")
                walk(c.get("components") or [], f"{path}.{i}.components")
                for key in ("accessory", "component"):
                    if isinstance(c.get(key), dict):
                        walk([c[key]], f"{path}.{i}.{key}")

        walk(components, prefix)
        if count > MAX_V2_COMPONENTS:
            problems.append(_too_long("components.too_many", prefix, MAX_V2_COMPONENTS))
        return problems

    if len(components) > MAX_ACTION_ROWS:
        problems.append(_too_long("components.too_many_rows", prefix, MAX_ACTION_ROWS))
    for i, row in enumerate(components):
        path = f"{prefix}.{i}"
        if row.get("type") != 1:
            problems.append(
                Problem(
                    "components.not_a_row",
                    f"{path}.type",
                    "Top-level components must be action rows.",
                    "COMPONENT_TYPE_INVALID",
                )
            )
            continue
        items = row.get("components") or []
        if not items:
            problems.append(_required("components.empty_row", f"{path}.components"))
        if len(items) > MAX_ROW_ITEMS:
            problems.append(
                _too_long("components.too_many_in_row", f"{path}.components", MAX_ROW_ITEMS)
            )
        if any(c.get("type") in _SELECT_TYPES for c in items) and len(items) > 1:
            problems.append(
                Problem(
                    "components.select_not_alone",
                    f"{path}.components",
                    "A select menu must be alone in its action row.",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                )
            )
        for j, c in enumerate(items):
            check_item(c, f"{path}.components.{j}")
    return problems


# -- interactions -----------------------------------------------------------------------------


def check_choices(choices: Any, *, prefix: str = "data.choices") -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(choices, list):
        return [_required("autocomplete.choices_missing", prefix)]
    if len(choices) > MAX_CHOICES:
        problems.append(_too_long("autocomplete.too_many_choices", prefix, MAX_CHOICES))
    for i, c in enumerate(choices):
        name, value = c.get("name"), c.get("value")
        if not name:
            problems.append(_required("autocomplete.choice_name_missing", f"{prefix}.{i}.name"))
        elif len(name) > MAX_CHOICE_NAME:
            problems.append(
                _too_long(
                    "autocomplete.choice_name_too_long", f"{prefix}.{i}.name", MAX_CHOICE_NAME
                )
            )
        if value is None:
            problems.append(_required("autocomplete.choice_value_missing", f"{prefix}.{i}.value"))
        elif isinstance(value, str) and len(value) > MAX_CHOICE_VALUE:
            problems.append(
                _too_long(
                    "autocomplete.choice_value_too_long", f"{prefix}.{i}.value", MAX_CHOICE_VALUE
                )
            )
    return problems


def check_modal(data: dict[str, Any], *, prefix: str = "data") -> list[Problem]:
    problems: list[Problem] = []
    title = data.get("title")
    if not title:
        problems.append(_required("modal.title_missing", f"{prefix}.title"))
    elif len(title) > MAX_MODAL_TITLE:
        problems.append(_too_long("modal.title_too_long", f"{prefix}.title", MAX_MODAL_TITLE))
    cid = data.get("custom_id")
    if not cid:
        problems.append(_required("modal.custom_id_missing", f"{prefix}.custom_id"))
    elif len(cid) > MAX_CUSTOM_ID:
        problems.append(_too_long("modal.custom_id_too_long", f"{prefix}.custom_id", MAX_CUSTOM_ID))
    comps = data.get("components") or []
    if not 1 <= len(comps) <= 5:
        problems.append(
            Problem(
                "modal.components",
                f"{prefix}.components",
                "Must be between 1 and 5 in length.",
                "BASE_TYPE_BAD_LENGTH",
            )
        )
    return problems


# -- application commands ---------------------------------------------------------------------


def _command_size(data: dict[str, Any]) -> int:
    total = len(data.get("name") or "") + len(data.get("description") or "")
    for o in data.get("options") or []:
        total += _command_size(o)
    for c in data.get("choices") or []:
        total += len(c.get("name") or "") + len(str(c.get("value") or ""))
    return total


def check_commands(commands: Any) -> list[Problem]:
    if not isinstance(commands, list):
        return [Problem("commands.not_a_list", "", "Must be an array.", "BASE_TYPE_ARRAY")]
    problems: list[Problem] = []
    seen: set[tuple[int, str]] = set()
    if len([c for c in commands if c.get("type", 1) == 1]) > MAX_COMMANDS:
        problems.append(_too_long("commands.too_many", "", MAX_COMMANDS))
    for i, cmd in enumerate(commands):
        kind = cmd.get("type", 1)
        key = (kind, cmd.get("name"))
        if key in seen:
            problems.append(
                Problem(
                    "command.duplicate_name",
                    f"{i}.name",
                    "Application command names must be unique",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                )
            )
        seen.add(key)
        problems += _check_command_like(cmd, f"{i}", chat_input=kind == 1, depth=0)
        if _command_size(cmd) > MAX_COMMAND_TOTAL:
            problems.append(
                Problem(
                    "command.too_large",
                    f"{i}",
                    "Command exceeds maximum size (4000)",
                    "APPLICATION_COMMAND_TOO_LARGE",
                )
            )
    return problems


def _check_command_like(
    cmd: dict[str, Any], path: str, *, chat_input: bool, depth: int
) -> list[Problem]:
    problems: list[Problem] = []
    name = cmd.get("name") or ""
    if chat_input:
        if not _NAME_RE.match(name) or name != name.lower():
            problems.append(
                Problem(
                    "command.bad_name",
                    f"{path}.name",
                    f"Invalid name {name!r}: 1-32 lowercase letters, digits, - or _.",
                    "APPLICATION_COMMAND_INVALID_NAME",
                )
            )
        desc = cmd.get("description") or ""
        if not 1 <= len(desc) <= 100:
            problems.append(
                Problem(
                    "command.bad_description",
                    f"{path}.description",
                    "Must be between 1 and 100 in length.",
                    "BASE_TYPE_BAD_LENGTH",
                )
            )
    elif not 1 <= len(name) <= 32:
        problems.append(
            Problem(
                "command.bad_name",
                f"{path}.name",
                "Must be between 1 and 32 in length.",
                "BASE_TYPE_BAD_LENGTH",
            )
        )
    options = cmd.get("options") or []
    if len(options) > MAX_COMMAND_OPTIONS:
        problems.append(
            _too_long("command.too_many_options", f"{path}.options", MAX_COMMAND_OPTIONS)
        )
    seen_optional = False
    names: set[str] = set()
    for j, opt in enumerate(options):
        opath = f"{path}.options.{j}"
        kind = opt.get("type")
        if opt.get("name") in names:
            problems.append(
                Problem(
                    "option.duplicate_name",
                    f"{opath}.name",
                    "Option names must be unique",
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                )
            )
        names.add(opt.get("name"))
        if kind in (1, 2):
            if (kind == 2 and depth != 0) or (kind == 1 and depth > 1):
                problems.append(
                    Problem(
                        "option.bad_nesting",
                        f"{opath}.type",
                        "Sub-command groups can only be nested one level.",
                        "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    )
                )
            problems += _check_command_like(opt, opath, chat_input=True, depth=depth + 1)
            continue
        problems += _check_command_like(
            {k: v for k, v in opt.items() if k != "options"},
            opath,
            chat_input=True,
            depth=depth + 1,
        )
        if opt.get("required"):
            if seen_optional:
                problems.append(
                    Problem(
                        "option.required_after_optional",
                        f"{opath}.required",
                        "Required options must be placed before non-required options",
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    )
                )
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        if choices and opt.get("autocomplete"):
            problems.append(
                Problem(
                    "option.autocomplete_with_choices",
                    f"{opath}.autocomplete",
                    "Autocomplete cannot be set with choices",
                    "APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES",
                )
            )
        problems += [
            Problem(p.code.replace("autocomplete.", "option."), p.field, p.message, p.discord_code)
            for p in check_choices(choices, prefix=f"{opath}.choices")
        ]
    return problems


# -- files ------------------------------------------------------------------------------------

_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def png_problems(data: bytes) -> tuple[list[str], tuple[int, int] | None]:
    """Structural check of a PNG: signature, chunk CRCs, IHDR first, IDAT size, IEND last.

    Returns (problems, (width, height) or None).
    """
    if not data.startswith(PNG_SIGNATURE):
        return ["missing PNG signature"], None
    pos = len(PNG_SIGNATURE)
    chunks: list[tuple[bytes, bytes]] = []
    while pos < len(data):
        if pos + 8 > len(data):
            return ["truncated chunk header"], None
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        crc_bytes = data[pos + 8 + length : pos + 12 + length]
        if len(body) != length or len(crc_bytes) != 4:
            return [f"truncated {ctype!r} chunk"], None
        if zlib.crc32(ctype + body) != struct.unpack(">I", crc_bytes)[0]:
            return [f"bad CRC in {ctype!r} chunk"], None
        chunks.append((ctype, body))
        pos += 12 + length
        if ctype == b"IEND":
            break
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        return ["first chunk is not a valid IHDR"], None
    width, height, depth, color, _comp, _filter, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    problems: list[str] = []
    if width == 0 or height == 0:
        problems.append("zero width or height")
    if chunks[-1][0] != b"IEND":
        problems.append("no IEND chunk")
    if pos != len(data):
        problems.append("data after IEND")
    idat = b"".join(body for ctype, body in chunks if ctype == b"IDAT")
    if not idat:
        problems.append("no IDAT chunk")
    elif color in _CHANNELS and not interlace:
        try:
            raw = zlib.decompress(idat)
        except zlib.error as exc:
            problems.append(f"IDAT does not decompress: {exc}")
        else:
            row = (width * _CHANNELS[color] * depth + 7) // 8
            if len(raw) != height * (row + 1):
                problems.append(f"pixel data is {len(raw)} bytes, expected {height * (row + 1)}")
    if color == 3 and not any(ctype == b"PLTE" for ctype, _ in chunks):
        problems.append("palette image without PLTE")
    return problems, (width, height)


def file_problems(filename: str, data: bytes) -> tuple[list[str], tuple[int, int] | None]:
    """What is wrong with an uploaded file given its name (and its size if it is a PNG or a
    GIF, which Discord reports, and local mode's page reserves before the picture loads)."""
    lower = filename.lower()
    if not data:
        return ["empty file"], None
    if lower.endswith(".png") or data.startswith(PNG_SIGNATURE):
        return png_problems(data)
    if lower.endswith((".jpg", ".jpeg")) and not data.startswith(b"\xff\xd8\xff"):
        return ["missing JPEG signature"], None
    if data.startswith((b"GIF87a", b"GIF89a")):
        if len(data) < 13:
            return ["truncated GIF header"], None
        width, height = struct.unpack("<HH", data[6:10])  # the logical screen's size
        return ([] if width and height else ["zero width or height"]), (width, height)
    if lower.endswith(".gif"):
        return ["missing GIF signature"], None
    return [], None


CONTENT_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".txt": "text/plain; charset=utf-8",
    ".pgn": "application/vnd.chess-pgn",
    ".json": "application/json; charset=utf-8",
}


def content_type_for(filename: str) -> str | None:
    lower = filename.lower()
    for ext, ctype in CONTENT_TYPES.items():
        if lower.endswith(ext):
            return ctype
    return None
