"""A real PostgreSQL server for the tests: each test gets its own schema, dropped afterwards.

The server is `$FAIRYPOST_TEST_POSTGRES` (default: the machine's, trust authentication,
database `test`). Where none answers, PostgreSQL tests skip with one reason line; with
`FAIRYPOST_REQUIRE_POSTGRES=1` (as `.ci/run` sets) they fail instead, so CI cannot pass
without them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

SERVER = os.environ.get("FAIRYPOST_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRED = os.environ.get("FAIRYPOST_REQUIRE_POSTGRES", "") not in ("", "0")

_probed: dict[str, str] = {}
"""SERVER -> '' when it answered, else why not (asked once per test run)."""


async def _probe() -> str:
    try:
        import asyncpg
    except ImportError:
        return "asyncpg is not installed (pip install -e '.[dev]')"
    try:
        conn = await asyncpg.connect(SERVER, timeout=5)
    except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
        return f"no PostgreSQL server answers at {SERVER} ({type(exc).__name__})"
    await conn.close()
    return ""


async def require_server() -> None:
    """Skips the test (or fails it, where PostgreSQL is required) when no server answers."""
    if SERVER not in _probed:
        _probed[SERVER] = await _probe()
    problem = _probed[SERVER]
    if problem:
        if REQUIRED:
            pytest.fail(f"PostgreSQL is required here: {problem}")
        pytest.skip(f"PostgreSQL tests skipped: {problem}")


def with_search_path(url: str, schema: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "search_path"]
    query.append(("search_path", schema))
    return urlunsplit(parts._replace(query=urlencode(query)))


@asynccontextmanager
async def temporary_schema(prefix: str = "fp_test") -> AsyncIterator[str]:
    """A fresh, uniquely named schema; yields the database URL that uses it."""
    await require_server()
    import asyncpg

    schema = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(SERVER)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await conn.close()
    try:
        yield with_search_path(SERVER, schema)
    finally:
        conn = await asyncpg.connect(SERVER)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()
