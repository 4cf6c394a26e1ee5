"""Fairy Post's storage: games, moves, challenges and players in one SQLite file.

Open it with `await Storage.open(path, engine=...)` and use its repositories (`players`,
`guilds`, `challenges`, `games`, `draws`, `takebacks`, `ratings`, `timers`, `vacations`).
Everything taken and returned is a plain value from `storage.models`; every error raised on
purpose is a `storage.errors.StorageError`. Nothing here knows about Discord.
"""

from storage.engine import Engine, Replayer
from storage.migrate import LATEST_VERSION
from storage.store import Storage

__all__ = ["LATEST_VERSION", "Engine", "Replayer", "Storage"]
