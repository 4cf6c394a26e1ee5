"""Messages as HTML for local mode's page: Discord's markdown, embeds, files and components.

Rendered on the server so that the page's script stays small and every escaping rule lives
in one tested place: text from the bot or a user only ever reaches the page through
``html.escape``, and links only ever point at ``http(s)`` addresses.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .models import FakeAttachment, FakeMessage, FakeUser

_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"
    r"|<@!?(?P<user>\d+)>"
    r"|<@&(?P<role>\d+)>"
    r"|<#(?P<channel>\d+)>"
    r"|<t:(?P<ts>-?\d{1,13})(?::(?P<ts_style>[tTdDfFR]))?>"
    r"|<a?:(?P<emoji>\w{2,32}):\d+>"
    r"|\*\*(?P<bold>.+?)\*\*"
    r"|__(?P<underline>.+?)__"
    r"|~~(?P<strike>.+?)~~"
    r"|\|\|(?P<spoiler>.+?)\|\|"
    r"|\*(?P<italic>[^*\s](?:.*?[^*\s])?)\*"
    r"|\b_(?P<italic2>[^_\s](?:.*?[^_\s])?)_\b"
    r"|\[(?P<link_text>[^\]\n]{1,200})\]\((?P<link_url>https?://[^\s)<>]+)\)"
    r"|(?P<url>https?://[^\s<>]+[^\s<>.,;:!?)\]'\"])"
    r"|\\(?P<escaped>[\\*_~`|\[\]()<>#>-])",
    re.S,
)

TIMESTAMP_FORMATS = {
    "t": "%H:%M",
    "T": "%H:%M:%S",
    "d": "%d/%m/%Y",
    "D": "%d %B %Y",
    "f": "%d %B %Y %H:%M",
    "F": "%A, %d %B %Y %H:%M",
}

BUTTON_STYLES = {1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium"}
SELECT_TYPES = {3: "string", 5: "user", 6: "role", 7: "mentionable", 8: "channel"}


@dataclass(frozen=True)
class Viewer:
    """Who looks at the page, and how names and channels are resolved for them."""

    user: FakeUser
    user_name: Callable[[int], str | None]
    role_name: Callable[[int], str | None]
    channel_name: Callable[[int], str | None]
    attachment: Callable[[str], FakeAttachment | None]  # by URL

    @property
    def id(self) -> int:
        return self.user.id


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _utc(ts: int) -> dt.datetime:
    try:
        return dt.datetime.fromtimestamp(ts, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return dt.datetime.fromtimestamp(0, tz=dt.UTC)


def time_html(ts: int, style: str = "f") -> str:
    """``<t:…>``: a ``<time>`` the page's script rewrites in the reader's time zone."""
    when = _utc(ts)
    fallback = when.strftime(TIMESTAMP_FORMATS.get(style, "%d %B %Y %H:%M")) + " UTC"
    if style == "R":
        fallback = when.strftime("%d %B %Y %H:%M") + " UTC"
    return (
        f'<time class="ts" datetime="{esc(when.isoformat())}" data-style="{esc(style)}">'
        f"{esc(fallback)}</time>"
    )


def inline(text: str, viewer: Viewer) -> str:
    """Discord's inline markdown (bold, italic, code, mentions, timestamps, links)."""
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(esc(text[pos : m.start()]))
        pos = m.end()
        g = m.groupdict()
        if g["code"] is not None:
            out.append(f"<code>{esc(g['code_text'])}</code>")
        elif g["user"] is not None:
            uid = int(g["user"])
            name = viewer.user_name(uid) or "unknown-user"
            me = " mention-me" if uid == viewer.id else ""
            out.append(f'<span class="mention{me}" data-user="{uid}">@{esc(name)}</span>')
        elif g["role"] is not None:
            name = viewer.role_name(int(g["role"])) or "unknown-role"
            out.append(f'<span class="mention">@{esc(name)}</span>')
        elif g["channel"] is not None:
            cid = int(g["channel"])
            channel_name = viewer.channel_name(cid)
            if channel_name is None:
                out.append('<span class="mention">#unknown</span>')
            else:
                out.append(
                    f'<a class="mention channel-link" href="#c{cid}" data-channel="{cid}">'
                    f"#{esc(channel_name)}</a>"
                )
        elif g["ts"] is not None:
            out.append(time_html(int(g["ts"]), g["ts_style"] or "f"))
        elif g["emoji"] is not None:
            out.append(f":{esc(g['emoji'])}:")
        elif g["bold"] is not None:
            out.append(f"<strong>{inline(g['bold'], viewer)}</strong>")
        elif g["underline"] is not None:
            out.append(f"<u>{inline(g['underline'], viewer)}</u>")
        elif g["strike"] is not None:
            out.append(f"<s>{inline(g['strike'], viewer)}</s>")
        elif g["spoiler"] is not None:
            out.append(f'<span class="spoiler" tabindex="0">{inline(g["spoiler"], viewer)}</span>')
        elif g["italic"] is not None or g["italic2"] is not None:
            out.append(f"<em>{inline(g['italic'] or g['italic2'], viewer)}</em>")
        elif g["link_url"] is not None:
            out.append(_link(g["link_url"], inline(g["link_text"], viewer), viewer))
        elif g["url"] is not None:
            out.append(_link(g["url"], esc(g["url"]), viewer))
        elif g["escaped"] is not None:
            out.append(esc(g["escaped"]))
    out.append(esc(text[pos:]))
    return "".join(out)


JUMP_LINK = re.compile(
    r"^https://(?:ptb\.|canary\.)?discord(?:app)?\.com/channels/(?:\d+|@me)/(\d+)"
)


def _link(url: str, label_html: str, viewer: Viewer | None = None) -> str:
    """An outside link opens a new tab; a Discord jump link to a channel or thread of this
    world opens it on the page, as Discord's client does."""
    jump = JUMP_LINK.match(url)
    if jump is not None and viewer is not None and viewer.channel_name(int(jump[1])) is not None:
        cid = jump[1]
        return f'<a class="channel-link" href="#c{cid}" data-channel="{cid}">{label_html}</a>'
    return f'<a href="{esc(url)}" target="_blank" rel="noopener noreferrer">{label_html}</a>'


def markdown(text: str, viewer: Viewer) -> str:
    """Block markdown: code fences, quotes, headings, lists, subtext; inline inside."""
    parts: list[str] = []
    chunks = re.split(r"```(?:[\w+-]*\n)?(.*?)```", text, flags=re.S)
    for i, chunk in enumerate(chunks):
        if i % 2:
            parts.append(f"<pre><code>{esc(chunk.strip(chr(10)))}</code></pre>")
            continue
        parts.append(_blocks(chunk, viewer))
    return "".join(parts)


def _blocks(text: str, viewer: Viewer) -> str:
    out: list[str] = []
    lines = text.split("\n")
    in_list = False
    quote: list[str] = []

    def flush_quote() -> None:
        if quote:
            out.append(f"<blockquote>{'<br>'.join(quote)}</blockquote>")
            quote.clear()

    for i, line in enumerate(lines):
        heading = re.match(r"(#{1,3}) (.+)", line)
        item = re.match(r"\s*[-*] (.+)", line)
        if line.startswith("> ") or line == ">":
            quote.append(inline(line[2:], viewer))
            continue
        flush_quote()
        if item and not line.startswith("-# "):
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{inline(item.group(1), viewer)}</li>")
            continue
        if in_list:
            out.append("</ul>")
            in_list = False
        if heading:
            level = len(heading.group(1))
            out.append(f'<div class="h{level}">{inline(heading.group(2), viewer)}</div>')
        elif line.startswith("-# "):
            out.append(f'<div class="subtext">{inline(line[3:], viewer)}</div>')
        else:
            out.append(inline(line, viewer))
            if i < len(lines) - 1:
                out.append("<br>")
    flush_quote()
    if in_list:
        out.append("</ul>")
    return "".join(out)


# -- messages ----------------------------------------------------------------------------------


def _clock(iso: str) -> str:
    try:
        when = dt.datetime.fromisoformat(iso)
    except ValueError:
        return esc(iso)
    text = when.strftime("%d %B %Y %H:%M") + " UTC"
    return f'<time class="ts" datetime="{esc(when.isoformat())}" data-style="m">{esc(text)}</time>'


def message_html(msg: FakeMessage, viewer: Viewer, *, bot_id: int) -> str:
    """One message as the page shows it to ``viewer``."""
    classes = ["msg"]
    if msg.ephemeral:
        classes.append("ephemeral")
    if msg.loading:
        classes.append("loading")
    if viewer.id in msg.mention_ids or msg.mention_everyone:
        classes.append("mentions-me")
    if msg.type == 18:  # a thread was started here, without a starter message
        return (
            f'<article class="{" ".join([*classes, "system"])}" id="m{msg.id}" data-id="{msg.id}">'
            f"<p>{esc(msg.author.name)} started a thread: <strong>{esc(msg.content)}</strong></p>"
            "</article>"
        )
    author = msg.author
    parts = [f'<article class="{" ".join(classes)}" id="m{msg.id}" data-id="{msg.id}">']
    rec = msg.interaction
    if rec is not None and rec.name:
        parts.append(
            f'<div class="used">{esc(rec.user.name)} used <span class="cmd">/'
            f"{esc(rec.name)}</span></div>"
        )
    badge = ' <span class="app-tag">APP</span>' if author.bot else ""
    author_class = "author bot" if author.id == bot_id else "author"
    parts.append(
        f'<header><span class="{author_class}">{esc(author.global_name or author.name)}</span>'
        f"{badge} {_clock(msg.timestamp)}"
        + (' <span class="edited">(edited)</span>' if msg.edited else "")
        + "</header>"
    )
    if msg.loading:
        parts.append(f'<div class="thinking" role="status">{esc(author.name)} is thinking…</div>')
    if msg.content:
        parts.append(f'<div class="content">{markdown(msg.content, viewer)}</div>')
    used_urls: set[str] = set()
    if msg.embeds and not msg.flags & (1 << 2):
        parts.append('<div class="embeds">')
        for embed in msg.embeds:
            parts.append(embed_html(embed, viewer, used_urls))
        parts.append("</div>")
    rest = [a for a in msg.attachments if a.url not in used_urls]
    if rest:
        parts.append('<div class="files">')
        parts.extend(attachment_html(a) for a in rest)
        parts.append("</div>")
    if msg.components:
        parts.append(components_html(msg.components, msg, viewer))
    if msg.thread is not None:
        count = len([m for m in msg.thread.messages if not m.ephemeral and not m.deleted])
        parts.append(
            f'<a class="thread-link" href="#c{msg.thread.id}" data-channel="{msg.thread.id}">'
            f'<span aria-hidden="true">↳</span> Thread: {esc(msg.thread.name or "thread")}'
            f" · {count} message{'s' if count != 1 else ''}</a>"
        )
    if msg.ephemeral:
        parts.append(
            '<div class="only-you">Only you can see this · '
            '<button type="button" class="linkish" data-dismiss>Dismiss message</button></div>'
        )
    parts.append("</article>")
    return "".join(parts)


def _colour(value: Any) -> str:
    if isinstance(value, int) and 0 <= value <= 0xFFFFFF:
        return f"#{value:06x}"
    return "#4e5058"


def _image(url: Any, viewer: Viewer, used: set[str], css: str) -> str:
    if not isinstance(url, str) or not url:
        return ""
    att = viewer.attachment(url)
    if att is not None:
        used.add(url)
        return _img(att, css)
    alt = "an image from another site (local mode is offline)"
    return f'<img class="{css}" src="{esc(url)}" alt="{esc(alt)}" loading="lazy">'


def _img(att: FakeAttachment, css: str) -> str:
    alt = att.description or ""
    size = f' width="{att.width}" height="{att.height}"' if att.width and att.height else ""
    missing = "" if alt else ' data-no-alt="1"'
    return (
        f'<img class="{css}" src="{esc(att.url)}" alt="{esc(alt or att.filename)}"{size}'
        f'{missing} loading="lazy">'
    )


def embed_html(embed: dict[str, Any], viewer: Viewer, used: set[str]) -> str:
    out = [f'<div class="embed" style="border-left-color:{_colour(embed.get("color"))}">']
    thumb = embed.get("thumbnail") or {}
    if thumb.get("url"):
        out.append(_image(thumb["url"], viewer, used, "embed-thumb"))
    author = embed.get("author") or {}
    if author.get("name"):
        out.append(f'<div class="embed-author">{esc(author["name"])}</div>')
    if embed.get("title"):
        title = inline(str(embed["title"]), viewer)
        if str(embed.get("url", "")).startswith(("http://", "https://")):
            title = _link(embed["url"], title, viewer)
        out.append(f'<div class="embed-title">{title}</div>')
    if embed.get("description"):
        out.append(
            f'<div class="embed-description">{markdown(str(embed["description"]), viewer)}</div>'
        )
    fields = embed.get("fields") or []
    if fields:
        out.append('<div class="embed-fields">')
        for f in fields:
            css = "embed-field inline" if f.get("inline") else "embed-field"
            out.append(
                f'<div class="{css}"><div class="embed-field-name">'
                f"{inline(str(f.get('name', '')), viewer)}</div>"
                f'<div class="embed-field-value">{markdown(str(f.get("value", "")), viewer)}'
                "</div></div>"
            )
        out.append("</div>")
    image = embed.get("image") or {}
    if image.get("url"):
        out.append(_image(image["url"], viewer, used, "embed-image"))
    footer = embed.get("footer") or {}
    if footer.get("text") or embed.get("timestamp"):
        bits = [esc(footer.get("text", ""))] if footer.get("text") else []
        if embed.get("timestamp"):
            bits.append(_clock(str(embed["timestamp"])))
        out.append(f'<div class="embed-footer">{" · ".join(bits)}</div>')
    out.append("</div>")
    return "".join(out)


def attachment_html(att: FakeAttachment) -> str:
    if (att.content_type or "").startswith("image/"):
        return _img(att, "attachment-image")
    return (
        f'<a class="file" href="{esc(att.url)}" download="{esc(att.filename)}">'
        f'<span aria-hidden="true">▤</span> {esc(att.filename)}'
        f' <span class="size">{_size(att.size)}</span></a>'
    )


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


# -- components --------------------------------------------------------------------------------


def components_html(components: list[dict[str, Any]], msg: FakeMessage, viewer: Viewer) -> str:
    return (
        f'<div class="components">{"".join(_component(c, msg, viewer) for c in components)}</div>'
    )


def _component(c: dict[str, Any], msg: FakeMessage, viewer: Viewer) -> str:
    kind = c.get("type")
    children = c.get("components") or []
    if kind == 1:
        inner = "".join(_component(x, msg, viewer) for x in children)
        return f'<div class="action-row">{inner}</div>'
    if kind == 2:
        return _button(c, msg)
    if kind in SELECT_TYPES:
        return _select(c, msg, viewer)
    if kind == 10:  # text display
        return f'<div class="text-display">{markdown(str(c.get("content", "")), viewer)}</div>'
    if kind == 9:  # section: text beside an accessory
        inner = "".join(_component(x, msg, viewer) for x in children)
        accessory = c.get("accessory")
        side = _component(accessory, msg, viewer) if isinstance(accessory, dict) else ""
        return f'<div class="section"><div>{inner}</div><div>{side}</div></div>'
    if kind == 17:  # container
        inner = "".join(_component(x, msg, viewer) for x in children)
        colour = _colour(c.get("accent_color")) if c.get("accent_color") is not None else ""
        style = f' style="border-left-color:{colour}"' if colour else ""
        return f'<div class="container"{style}>{inner}</div>'
    if kind == 14:
        return "<hr>"
    if kind in (11, 12, 13):  # thumbnail, media gallery, file
        items = c.get("items") or [c]
        out = []
        for item in items:
            media = item.get("media") or item.get("file") or {}
            url = str(media.get("url", ""))
            att = viewer.attachment(url) if url else None
            if att is None and url.startswith("attachment://"):
                name = url.removeprefix("attachment://")
                att = next((a for a in msg.attachments if a.filename == name), None)
            if att is not None:
                out.append(attachment_html(att))
        return f'<div class="media">{"".join(out)}</div>'
    return ""


def _emoji(c: dict[str, Any]) -> str:
    emoji = c.get("emoji") or {}
    name = emoji.get("name")
    if not name:
        return ""
    text = name if not emoji.get("id") else f":{name}:"
    return f'<span class="emoji" aria-hidden="true">{esc(text)}</span> '


def _button(c: dict[str, Any], msg: FakeMessage) -> str:
    style = BUTTON_STYLES.get(int(c.get("style", 2)), "secondary")
    label = _emoji(c) + esc(c.get("label", ""))
    disabled = " disabled" if c.get("disabled") else ""
    if style == "link":
        return (
            f'<a class="btn btn-link" href="{esc(c.get("url", ""))}" target="_blank"'
            f' rel="noopener noreferrer">{label} <span aria-hidden="true">↗</span></a>'
        )
    return (
        f'<button type="button" class="btn btn-{style}" data-action="click"'
        f' data-message="{msg.id}" data-custom-id="{esc(c.get("custom_id", ""))}"{disabled}>'
        f"{label}</button>"
    )


def _select(c: dict[str, Any], msg: FakeMessage, viewer: Viewer) -> str:
    kind = SELECT_TYPES[int(c["type"])]
    placeholder = str(c.get("placeholder") or "Make a selection")
    lo, hi = int(c.get("min_values", 1)), int(c.get("max_values", 1))
    disabled = " disabled" if c.get("disabled") else ""
    options: list[tuple[str, str, bool]] = []
    if kind == "string":
        for o in c.get("options") or []:
            label = str(o.get("label", ""))
            if o.get("description"):
                label += f" — {o['description']}"
            emoji = (o.get("emoji") or {}).get("name")
            if emoji and not (o.get("emoji") or {}).get("id"):
                label = f"{emoji} {label}"
            options.append((str(o.get("value", "")), label, bool(o.get("default"))))
    attrs = (
        f'data-message="{msg.id}" data-custom-id="{esc(c.get("custom_id", ""))}"'
        f' data-min="{lo}" data-max="{hi}" data-kind="{kind}"'
    )
    if hi > 1:
        boxes = "".join(
            f'<label><input type="checkbox" value="{esc(v)}"{" checked" if d else ""}{disabled}>'
            f" {esc(label)}</label>"
            for v, label, d in options
        )
        return (
            f'<fieldset class="select multi" {attrs}><legend>{esc(placeholder)}'
            f" (choose {lo}–{hi})</legend>{boxes}"
            f'<button type="button" class="btn btn-primary" data-action="select-multi"{disabled}>'
            "Choose</button></fieldset>"
        )
    opts = "".join(
        f'<option value="{esc(v)}"{" selected" if d else ""}>{esc(label)}</option>'
        for v, label, d in options
    )
    chosen = any(d for _, _, d in options)
    head = f'<option value="" disabled{"" if chosen else " selected"}>{esc(placeholder)}</option>'
    return (
        f'<select class="select" data-action="select" {attrs} aria-label="{esc(placeholder)}"'
        f"{disabled}>{head}{opts}</select>"
    )
