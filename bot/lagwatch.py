"""The event loop's watch (issue 31): the loop serves every player, so any stall of it is a
bug to find. A task sleeps `PERIOD` again and again; waking more than `THRESHOLD` late, it
logs the stall with the interactions that began shortly before (the likely cause)."""

from __future__ import annotations

import asyncio
import collections
import logging
import time

log = logging.getLogger("fairypost.lag")

PERIOD = 0.05
THRESHOLD = 0.1
RECENT = 64
"""Interactions remembered (name and start) to name a stall's suspects."""


class LagWatch:
    def __init__(self, threshold: float = THRESHOLD, period: float = PERIOD) -> None:
        self.threshold = threshold
        self.period = period
        self.stalls = 0
        self._recent: collections.deque[tuple[float, str]] = collections.deque(maxlen=RECENT)
        self._task: asyncio.Task[None] | None = None

    def began(self, name: str) -> None:
        """An interaction (`/piece`, `autocomplete /move`, a button) began now."""
        self._recent.append((time.monotonic(), name))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="fairypost-lagwatch")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def suspects(self, since: float) -> list[str]:
        return [name for at, name in self._recent if at >= since]

    def check(self, slept_from: float, woke: float) -> float:
        """The lag of one sleep (logged when over the threshold)."""
        lag = woke - slept_from - self.period
        if lag > self.threshold:
            self.stalls += 1
            names = self.suspects(slept_from - 1.0) or ["nothing that began just before"]
            log.warning(
                "event loop stalled %.0f ms; interactions begun then: %s",
                lag * 1000,
                ", ".join(dict.fromkeys(names)),
            )
        return lag

    async def _watch(self) -> None:
        while True:
            start = time.monotonic()
            await asyncio.sleep(self.period)
            self.check(start, time.monotonic())


def interaction_name(kind: str, data: dict[str, object] | None) -> str:
    """`/piece`, `autocomplete /move`, `button move:12`: what an interaction asked for."""
    data = data or {}
    name = data.get("name")
    if name:
        options = data.get("options")
        while (
            isinstance(options, list)
            and options
            and isinstance(options[0], dict)
            and (
                options[0].get("type") in (1, 2)  # a subcommand (group)
            )
        ):
            name = f"{name} {options[0].get('name')}"
            options = options[0].get("options")
        prefix = "autocomplete " if kind == "autocomplete" else ""
        return f"{prefix}/{name}"
    custom = data.get("custom_id")
    return f"{kind} {custom}" if custom else kind
