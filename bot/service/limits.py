"""Limits against flooding: how much one member (or one channel, one server) may ask for.

Each limit is sized from real play with room to spare, so a player never meets it by
playing, and a member scripting the bot meets it at once; the refusal says what the limit
is and what to do. The README's table quotes these numbers.

- **Open challenges**: each is a public post with buttons. A player with open challenges in
  ten variants is already unusual (a challenge stays open a day); a channel with fifty is a
  wall nobody reads. Counted from the database, so every process sees the same count.
- **Games against Fairy Post** in progress, per player: each starts at once, with its
  thread and the engine's searches. Ten at once is more than anyone follows.
- **Tournaments**: each posts a sign-up, then a thread, a post per game and the standings
  after every result. Ten in sign-up or running at once is more than any server runs.
- **Conditional lines**: each is checked move by move against the rules (up to 100 moves);
  typing one by hand takes longer than three seconds, so twenty a minute is never met.
- **Variant definitions**: each is validated and played (the sanity run, up to a few
  seconds of CPU, one at a time for the whole bot), and every version is kept forever.
  Twenty an hour is a busy afternoon of editing; an identical file is no new version and is
  not counted. Refused files count: they cost the same check. An import of a shared
  variant (/variant import) counts as one: it adds a variant as a definition does.

The two rates (conditional lines, definitions) are counted in memory by the process that
answers, by the service's clock: a restart forgets them, and with several processes each
counts its own (a server's commands all reach the same process: its shard).
"""

from __future__ import annotations

from collections import deque

from bot.service.errors import BadRequestError

OPEN_CHALLENGES_PER_PLAYER = 10
OPEN_CHALLENGES_PER_CHANNEL = 50
GAMES_AGAINST_THE_BOT_PER_PLAYER = 10
"""In progress, in every server (the engine's work is the bot's, wherever it plays)."""
TOURNAMENTS_PER_SERVER = 10
"""In sign-up or running at once; finished and cancelled ones do not count."""
CONDITIONAL_LINES_PER_MINUTE = 20
VARIANT_DEFINITIONS_PER_HOUR = 20


class LimitError(BadRequestError):
    """A limit against flooding was reached; the message says which and what to do."""


class RateWindow:
    """At most `count` events per `seconds` for each key (a member), in a sliding window."""

    def __init__(self, count: int, seconds: int) -> None:
        self.count = count
        self.seconds = seconds
        self._events: dict[object, deque[int]] = {}
        self._taken = 0

    def take(self, key: object, now: int) -> int | None:
        """Counts an event for `key` and returns None, or, when the window is full, counts
        nothing and returns how many seconds until the oldest event leaves it."""
        self._taken += 1
        if self._taken % 1000 == 0:
            self._forget(now)
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - self.seconds:
            events.popleft()
        if len(events) >= self.count:
            return max(1, events[0] + self.seconds - now)
        events.append(now)
        return None

    def _forget(self, now: int) -> None:
        """Keys whose last event left the window: memory stays bounded by recent use."""
        for key in [k for k, e in self._events.items() if not e or e[-1] <= now - self.seconds]:
            del self._events[key]


def wait_words(seconds: int) -> str:
    """`in 40 seconds`, `in 12 minutes`."""
    if seconds < 90:
        return f"in {seconds} second{'s' if seconds != 1 else ''}"
    minutes = (seconds + 59) // 60
    return f"in {minutes} minutes"
