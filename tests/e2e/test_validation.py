"""Discord's limits, checked at their boundaries (no server, no bot)."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest

from localdiscord.validation import (
    check_choices,
    check_commands,
    check_components,
    check_embeds,
    check_message,
    check_modal,
    file_problems,
    form_errors,
    png_problems,
)
from tests.e2e.test_probe_bot import tiny_png


def codes(problems: list[Any]) -> list[str]:
    return [p.code for p in problems]


def button(custom_id: str, label: str = "go", style: int = 1) -> dict[str, Any]:
    return {"type": 2, "style": style, "label": label, "custom_id": custom_id}


def row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(items)}


@pytest.mark.parametrize(
    ("embed", "code"),
    [
        ({"title": "t" * 257}, "embed.title_too_long"),
        ({"description": "d" * 4097}, "embed.description_too_long"),
        ({"fields": [{"name": "n", "value": "v"}] * 26}, "embed.too_many_fields"),
        ({"fields": [{"name": "n" * 257, "value": "v"}]}, "embed.field_name_too_long"),
        ({"fields": [{"name": "n", "value": "v" * 1025}]}, "embed.field_value_too_long"),
        ({"fields": [{"name": "", "value": "v"}]}, "embed.field_name_missing"),
        ({"footer": {"text": "f" * 2049}}, "embed.footer_too_long"),
        ({"author": {"name": "a" * 257}}, "embed.author_name_too_long"),
        ({"color": 0x1000000}, "embed.color"),
        ({"image": {"url": "board.png"}}, "embed.bad_url"),
    ],
)
def test_embed_limits(embed: dict[str, Any], code: str) -> None:
    assert codes(check_embeds([embed], filenames=[])) == [code]


def test_embed_limits_are_inclusive() -> None:
    embed = {
        "title": "t" * 256,
        "description": "d" * 1000,
        "fields": [{"name": "n" * 256, "value": "v" * 1024}] * 2,
        "footer": {"text": "f" * 1000},
        "author": {"name": "a" * 200},
        "image": {"url": "attachment://board.png"},
    }
    assert check_embeds([embed], filenames=["board.png"]) == []
    assert check_embeds([{"title": "x"}] * 10, filenames=[]) == []
    assert codes(check_embeds([{"title": "x"}] * 11, filenames=[])) == ["embeds.too_many"]


def test_embed_total_counts_every_embed() -> None:
    exactly = [{"description": "d" * 3000}, {"description": "d" * 3000}]
    assert check_embeds(exactly, filenames=[]) == []
    over = [{"description": "d" * 3000}, {"description": "d" * 3000, "title": "x"}]
    assert codes(check_embeds(over, filenames=[])) == ["embeds.total_too_long"]


def test_missing_attachment_reference_is_recorded_not_rejected() -> None:
    [p] = check_embeds([{"image": {"url": "attachment://x.png"}}], filenames=["y.png"])
    assert p.code == "embed.missing_attachment" and not p.rejected


def test_message_content_and_emptiness() -> None:
    ok = {"content": "c" * 2000}
    assert check_message(ok, filenames=[], allow_ephemeral=False) == []
    too_long = {"content": "c" * 2001}
    assert codes(check_message(too_long, filenames=[], allow_ephemeral=False)) == [
        "content.too_long"
    ]
    assert codes(check_message({}, filenames=[], allow_ephemeral=False)) == ["message.empty"]
    assert check_message({}, filenames=["a.png"], allow_ephemeral=False) == []
    eph = {"content": "x", "flags": 64}
    assert check_message(eph, filenames=[], allow_ephemeral=True) == []
    assert codes(check_message(eph, filenames=[], allow_ephemeral=False)) == ["message.flags"]


def test_component_limits() -> None:
    five_rows = [row(*(button(f"{r}-{i}") for i in range(5))) for r in range(5)]
    assert check_components(five_rows) == []
    six_rows = [*five_rows, row(button("extra"))]
    assert codes(check_components(six_rows)) == ["components.too_many_rows"]
    six_in_row = [row(*(button(str(i)) for i in range(6)))]
    assert codes(check_components(six_in_row)) == ["components.too_many_in_row"]
    assert check_components([row(button("x" * 100))]) == []
    assert codes(check_components([row(button("x" * 101))])) == ["component.custom_id_too_long"]
    assert codes(check_components([row(button("a"), button("a"))])) == [
        "component.custom_id_duplicated"
    ]
    assert codes(check_components([row(button("a", label="l" * 81))])) == ["button.label_too_long"]
    link = {"type": 2, "style": 5, "label": "docs", "url": "https://example.org", "custom_id": "x"}
    assert codes(check_components([row(link)])) == ["button.link_custom_id"]
    select = {
        "type": 3,
        "custom_id": "s",
        "options": [{"label": "o", "value": str(i)} for i in range(26)],
    }
    assert codes(check_components([row(select)])) == ["select.too_many_options"]
    assert codes(
        check_components([row(select | {"options": [{"label": "o", "value": "v"}]}, button("b"))])
    ) == ["components.select_not_alone"]
    assert codes(check_components([button("loose")])) == ["components.not_a_row"]


def test_components_v2_limits() -> None:
    container = {"type": 17, "components": [{"type": 10, "content": "hi"}] * 40}
    assert codes(check_components([container], v2=True)) == ["components.too_many"]
    section = {
        "type": 9,
        "components": [{"type": 10, "content": "a"}],
        "accessory": button("x" * 101),
    }
    assert codes(check_components([section], v2=True)) == ["component.custom_id_too_long"]


def test_autocomplete_choices() -> None:
    ok = [{"name": "n" * 100, "value": "v" * 100}] * 25
    assert check_choices(ok) == []
    assert codes(check_choices(ok + ok[:1])) == ["autocomplete.too_many_choices"]
    assert codes(check_choices([{"name": "n" * 101, "value": "v"}])) == [
        "autocomplete.choice_name_too_long"
    ]
    assert codes(check_choices([{"name": "n", "value": "v" * 101}])) == [
        "autocomplete.choice_value_too_long"
    ]
    assert check_choices([{"name": "n", "value": 10**12}]) == []


def test_modal_limits() -> None:
    text = {"type": 1, "components": [{"type": 4, "custom_id": "t", "label": "l", "style": 1}]}
    assert check_modal({"title": "t" * 45, "custom_id": "m", "components": [text]}) == []
    assert codes(check_modal({"title": "t" * 46, "custom_id": "m", "components": [text]})) == [
        "modal.title_too_long"
    ]


def command(**overrides: Any) -> dict[str, Any]:
    return {"name": "move", "description": "Play a move", "type": 1, "options": []} | overrides


def test_command_registration_rules() -> None:
    assert check_commands([command()]) == []
    assert codes(check_commands([command(name="Move")])) == ["command.bad_name"]
    assert codes(check_commands([command(description="d" * 101)])) == ["command.bad_description"]
    assert codes(check_commands([command(), command()])) == ["command.duplicate_name"]
    optional = {"type": 3, "name": "a", "description": "a"}
    required = {"type": 3, "name": "b", "description": "b", "required": True}
    assert codes(check_commands([command(options=[optional, required])])) == [
        "option.required_after_optional"
    ]
    both = optional | {"autocomplete": True, "choices": [{"name": "x", "value": "x"}]}
    assert codes(check_commands([command(options=[both])])) == ["option.autocomplete_with_choices"]
    many = optional | {"choices": [{"name": str(i), "value": str(i)} for i in range(26)]}
    assert codes(check_commands([command(options=[many])])) == ["option.too_many_choices"]
    sub = {"type": 1, "name": "sub", "description": "s", "options": [optional]}
    group = {"type": 2, "name": "grp", "description": "g", "options": [sub]}
    assert check_commands([command(options=[group])]) == []
    nested = {"type": 2, "name": "grp", "description": "g", "options": [group]}
    assert "option.bad_nesting" in codes(check_commands([command(options=[nested])]))
    assert codes(check_commands([command(name=f"c{i}") for i in range(101)])) == [
        "commands.too_many"
    ]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_png_checks() -> None:
    good = tiny_png(12, 7)
    assert png_problems(good) == ([], (12, 7))
    assert file_problems("board.png", good) == ([], (12, 7))
    assert png_problems(b"GIF89a...")[0] == ["missing PNG signature"]
    assert png_problems(good[:-2])[0] == ["truncated b'IEND' chunk"]
    corrupt = bytearray(good)
    corrupt[40] ^= 0xFF
    assert "bad CRC" in png_problems(bytes(corrupt))[0][0]
    header = struct.pack(">IIBBBBB", 12, 7, 8, 2, 0, 0, 0)
    short = (
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\0" * 10))
    )
    problems, _ = png_problems(short + _chunk(b"IEND", b""))
    assert problems == ["pixel data is 10 bytes, expected 259"]
    assert file_problems("board.png", b"")[0] == ["empty file"]
    assert file_problems("photo.jpg", b"nope")[0] == ["missing JPEG signature"]
    assert file_problems("game.txt", b"1. e4 e5") == ([], None)
    # A GIF's size is read from its header, as Discord reports it (the page reserves it).
    gif = b"GIF89a" + (560).to_bytes(2, "little") + (600).to_bytes(2, "little") + b"\xf7\x00\x00"
    assert file_problems("replay.gif", gif) == ([], (560, 600))
    assert file_problems("replay.gif", b"GIF89a")[0] == ["truncated GIF header"]
    assert file_problems("replay.gif", b"PK\x03\x04")[0] == ["missing GIF signature"]


def test_form_errors_shape() -> None:
    problems = check_message(
        {"content": "c" * 2001, "embeds": [{"title": "t" * 300}]},
        filenames=[],
        allow_ephemeral=False,
    )
    assert form_errors(problems) == {
        "content": {
            "_errors": [
                {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}
            ]
        },
        "embeds": {
            "0": {
                "title": {
                    "_errors": [
                        {
                            "code": "BASE_TYPE_MAX_LENGTH",
                            "message": "Must be 256 or fewer in length.",
                        }
                    ]
                }
            }
        },
    }
