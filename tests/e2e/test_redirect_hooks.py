"""Loud failures when the discord.py internals the harness relies on move or change.

The harness redirects discord.py through attributes that are not public API. If an upgrade
moves them, these tests say exactly what to fix instead of letting the e2e tests hang while
discord.py tries to reach the real Discord.
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path

import discord
import discord.gateway
import discord.http
import discord.webhook.async_
import pytest
import yarl

from localdiscord import (
    PINNED_DISCORD_VERSION,
    FakeDiscord,
    RedirectHooksChanged,
    check_redirect_hooks,
    redirect_discord,
)
from localdiscord.harness import REAL_API_BASE, REAL_GATEWAY

ROOT = Path(__file__).resolve().parents[2]


def test_the_pinned_discord_py_is_installed() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = [d for d in deps if d.replace(" ", "").startswith("discord.py")]
    assert pins == [f"discord.py=={PINNED_DISCORD_VERSION}"], (
        f"pyproject.toml pins {pins}, the e2e harness was checked against discord.py "
        f"{PINNED_DISCORD_VERSION}: re-check the hooks in localdiscord/harness.py "
        "and update PINNED_DISCORD_VERSION"
    )
    assert discord.__version__ == PINNED_DISCORD_VERSION, (
        f"installed discord.py {discord.__version__} differs from the pin "
        f"{PINNED_DISCORD_VERSION}: reinstall (make test) or re-check the harness hooks"
    )


def test_redirect_hooks_exist() -> None:
    check_redirect_hooks(discord.Client(intents=discord.Intents.none()))
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    assert base == REAL_API_BASE, "Route.BASE no longer holds the API base"
    assert gateway == yarl.URL(REAL_GATEWAY), (
        "DiscordWebSocket.DEFAULT_GATEWAY no longer holds the gateway address"
    )


def test_interaction_webhooks_build_urls_with_the_same_route_class() -> None:
    assert vars(discord.webhook.async_)["Route"] is discord.http.Route, (
        "interaction callbacks and follow-ups no longer use discord.http.Route: "
        "patching Route.BASE would not redirect them"
    )


def test_client_connects_to_the_default_gateway_without_asking_http() -> None:
    connect = inspect.getsource(discord.Client.connect)
    from_client = inspect.getsource(discord.gateway.DiscordWebSocket.from_client)
    assert "DiscordWebSocket.from_client(" in connect, "Client.connect changed how it connects"
    assert "cls.DEFAULT_GATEWAY" in from_client, (
        "DiscordWebSocket.from_client no longer falls back to DEFAULT_GATEWAY"
    )
    received = inspect.getsource(discord.gateway.DiscordWebSocket.received_message)
    assert "type(msg) is bytes" in received, (
        "discord.py may no longer accept uncompressed text frames, which the stand-in sends"
    )


async def test_redirect_points_routes_at_the_stand_in_and_restores_them() -> None:
    fake = await FakeDiscord().start()
    try:
        with redirect_discord(fake):
            url = discord.http.Route("GET", "/users/@me").url
            assert url == f"{fake.api_base}/users/@me"
            gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
            assert str(gateway) == fake.gateway_url
            with redirect_discord(fake):  # re-entrant for the same stand-in
                pass
            base = discord.http.Route.BASE
            assert base == fake.api_base
    finally:
        await fake.close()
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    assert (base, gateway) == (REAL_API_BASE, yarl.URL(REAL_GATEWAY))


def test_a_missing_hook_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(discord.http.Route, "BASE")
    with pytest.raises(RedirectHooksChanged, match=r"Route\.BASE"):
        check_redirect_hooks()


def test_a_moved_gateway_hook_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", "wss://x/")
    with pytest.raises(RedirectHooksChanged, match="DEFAULT_GATEWAY"):
        check_redirect_hooks()


def test_another_version_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord, "__version__", "9.9.9")
    with pytest.raises(RedirectHooksChanged, match=r"discord\.py is 9\.9\.9"):
        check_redirect_hooks()
