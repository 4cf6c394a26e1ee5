"""Messages as the page shows them: Discord's markdown, and nothing unescaped ever."""

from __future__ import annotations

import html
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from localdiscord.models import FakeAttachment, FakeChannel, FakeMessage, FakeUser
from localdiscord.render import Viewer, markdown, message_html

ALICE = FakeUser(11, "alice")
ALLOWED_TAGS = {
    "strong", "em", "u", "s", "code", "pre", "br", "span", "a", "time", "blockquote", "ul",
    "li", "div",
}  # fmt: skip


def viewer(attachments: dict[str, FakeAttachment] | None = None) -> Viewer:
    names = {11: "alice", 12: "bob"}
    channels = {50: FakeChannel(50, 11, "Chess: alice vs bob")}
    return Viewer(
        ALICE,
        names.get,
        lambda rid: "organisers" if rid == 7 else None,
        lambda cid: channels[cid].name if cid in channels else None,
        (attachments or {}).get,
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(text)
    return parser.tags


def test_discord_markdown() -> None:
    out = markdown("**Black to move** in *3 days*, `e2-e4` ~~no~~ __yes__", viewer())
    assert "<strong>Black to move</strong>" in out
    assert "<em>3 days</em>" in out and "<code>e2-e4</code>" in out
    assert "<s>no</s>" in out and "<u>yes</u>" in out


def test_mentions_channels_and_timestamps() -> None:
    out = markdown("<@11> and <@!12>, in <#50> by <t:1800000000:R> for <@&7>", viewer())
    assert '<span class="mention mention-me" data-user="11">@alice</span>' in out
    assert '<span class="mention" data-user="12">@bob</span>' in out
    assert 'data-channel="50">#Chess: alice vs bob</a>' in out
    assert '<time class="ts" datetime="2027-01-15T08:00:00+00:00" data-style="R">' in out
    assert "@organisers" in out


def test_links_only_to_the_web() -> None:
    out = markdown(
        "[rules](https://example.org/r) [x](javascript:alert(1)) http://a.b/c.", viewer()
    )
    assert '<a href="https://example.org/r"' in out
    assert "javascript:" not in [a.get("href") for t, a in tags(out) if t == "a"]
    assert '<a href="http://a.b/c"' in out


def test_a_jump_link_to_a_known_thread_opens_it_on_the_page() -> None:
    # As Discord's client does: a link to a channel of this world stays on the page.
    out = markdown(
        "[the game](https://discord.com/channels/1/50) https://discord.com/channels/1/99",
        viewer(),
    )
    assert '<a class="channel-link" href="#c50" data-channel="50">the game</a>' in out
    assert '<a href="https://discord.com/channels/1/99" target="_blank"' in out  # unknown


def test_blocks() -> None:
    out = markdown("# Title\n> quoted\n- one\n- two\n-# small\n```\n<b>code</b>\n```", viewer())
    assert '<div class="h1">Title</div>' in out
    assert "<blockquote>quoted</blockquote>" in out
    assert "<ul><li>one</li><li>two</li></ul>" in out
    assert '<div class="subtext">small</div>' in out
    assert "<pre><code>&lt;b&gt;code&lt;/b&gt;</code></pre>" in out


@given(st.text(max_size=300))
def test_any_text_is_escaped(text: str) -> None:
    out = markdown(text, viewer())
    for tag, attrs in tags(out):
        assert tag in ALLOWED_TAGS, (text, out)
        for name, value in attrs.items():
            assert not name.startswith("on"), (text, out)
            if name == "href":
                assert value is not None and value.startswith(("http://", "https://", "#c"))


@given(st.text(alphabet=st.characters(blacklist_characters="*_~`|<>[]()\\#->@:\n"), max_size=200))
def test_plain_text_is_only_escaped(text: str) -> None:
    out = markdown(text, viewer())
    if "http://" not in text and "https://" not in text:
        assert out == html.escape(text, quote=True)


def test_a_message_that_pings_everyone_is_marked_for_everyone() -> None:
    """The page marks a message that pings `@everyone` for every reader, as Discord does:
    so a name that reads `@everyone` but pings nobody is plain to see."""
    bot = FakeUser(99, "Fairy Post", bot=True)
    lobby = FakeChannel(40, 0, "lobby")
    inert = FakeMessage(1, lobby, bot, content="**@\u200beveryone Cup** has started")
    loud = FakeMessage(2, lobby, bot, content="@everyone Cup has started")
    loud.mention_everyone = True
    assert "mentions-me" not in message_html(inert, viewer(), bot_id=bot.id)
    assert "mentions-me" in message_html(loud, viewer(), bot_id=bot.id)
