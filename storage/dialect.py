"""Everything that differs between SQLite and PostgreSQL SQL text, in one place.

Repositories and migrations are written once, in the portable subset described in
storage/README.md ("Portable SQL"). SQLite runs them as written. For PostgreSQL this module:

- numbers the parameters (`?` and `:name` become `$1`, `$2`...),
- translates migration DDL: column types (`INTEGER` is 64-bit, `REAL` double precision),
  `id INTEGER PRIMARY KEY` (an identity column), `STRICT` and `WITHOUT ROWID` (dropped),
  `x [NOT] GLOB 'pattern'` (an anchored regular expression), and `RAISE(ABORT, ...)`
  triggers (a PL/pgSQL trigger function),
- provides `PG_PRELUDE`: the SQLite functions the schema uses (`json_valid`, `json_type`),
  created once in the database's schema before the first migration.

Whatever cannot be translated fails loudly (`DialectError`), so a new non-portable construct
is caught by the PostgreSQL half of the storage suite, not in production. A migration may
also carry a dialect-specific piece between `-- dialect: postgresql` / `-- dialect: sqlite`
and `-- dialect: all` lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from storage.errors import MigrationError

DialectName = Literal["sqlite", "postgresql"]


class DialectError(MigrationError):
    """SQL that the PostgreSQL translation does not know how to carry over."""


# --- tokens --------------------------------------------------------------------------------

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["code", "string", "ident", "comment", "dollar"]
    text: str


def tokens(sql: str, *, dollar_quotes: bool = False) -> list[Token]:
    """`sql` cut into code and the parts that must never be rewritten: string literals,
    quoted identifiers, comments and (PostgreSQL only) dollar-quoted bodies."""
    out: list[Token] = []
    code_start = 0
    i = 0
    n = len(sql)

    def flush(upto: int) -> None:
        if upto > code_start:
            out.append(Token("code", sql[code_start:upto]))

    while i < n:
        ch = sql[i]
        end = -1
        kind: Literal["string", "ident", "comment", "dollar"] | None = None
        if ch in "'\"":
            kind = "string" if ch == "'" else "ident"
            j = i + 1
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            end = min(j + 1, n)
        elif sql.startswith("--", i):
            kind = "comment"
            j = sql.find("\n", i)
            end = n if j < 0 else j
        elif sql.startswith("/*", i):
            kind = "comment"
            j = sql.find("*/", i + 2)
            end = n if j < 0 else j + 2
        elif ch == "$" and dollar_quotes:
            match = _DOLLAR_TAG.match(sql, i)
            if match is not None:
                kind = "dollar"
                j = sql.find(match.group(0), match.end())
                end = n if j < 0 else j + len(match.group(0))
        if kind is None:
            i += 1
            continue
        flush(i)
        out.append(Token(kind, sql[i:end]))
        i = code_start = end
    flush(n)
    return out


def _rewrite_code(sql: str, rewrite: Any) -> str:
    """Applies `rewrite(code_text) -> str` to the code parts only."""
    return "".join(rewrite(t.text) if t.kind == "code" else t.text for t in tokens(sql))


# --- parameters ----------------------------------------------------------------------------

_PARAM = re.compile(r"\?|(?<![:\w]):([A-Za-z_]\w*)")


@lru_cache(maxsize=2048)
def _numbered(sql: str) -> tuple[str, tuple[str, ...] | int]:
    names: list[str] = []
    positional = 0

    def number(code: str) -> str:
        nonlocal positional

        def one(match: re.Match[str]) -> str:
            nonlocal positional
            name = match.group(1)
            if name is None:
                positional += 1
                return f"${positional}"
            if name not in names:
                names.append(name)
            return f"${names.index(name) + 1}"

        return _PARAM.sub(one, code)

    text = "".join(
        number(t.text) if t.kind == "code" else t.text for t in tokens(sql, dollar_quotes=True)
    )
    if names and positional:
        raise ValueError(f"SQL mixes ? and :name parameters: {sql!r}")
    return text, (tuple(names) if names else positional)


def numbered_params(
    sql: str, params: Sequence[Any] | Mapping[str, Any]
) -> tuple[str, Sequence[Any]]:
    """SQLite-style parameters (`?` or `:name`) as PostgreSQL's `$1, $2, ...`."""
    text, shape = _numbered(sql)
    if isinstance(shape, tuple):
        if not isinstance(params, Mapping):
            raise ValueError(f"named parameters need a mapping: {sql!r}")
        return text, [params[name] for name in shape]
    if isinstance(params, Mapping):
        if shape:
            raise ValueError(f"positional parameters need a sequence: {sql!r}")
        return text, []
    return text, params


# --- migration DDL -------------------------------------------------------------------------

_TABLE_OPTIONS = re.compile(
    r"\)\s*(?:STRICT|WITHOUT\s+ROWID)(?:\s*,\s*(?:STRICT|WITHOUT\s+ROWID))*\s*(;?)\s*$", re.I
)
_IDENTITY = re.compile(r"\bid\s+INTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b", re.I)
_TYPES = (
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.I), "BYTEA"),
)
_GLOB = re.compile(r"((?:\w+\.)?\w+)\s+(NOT\s+)?GLOB\s*$", re.I)
_SQLITE_ONLY = re.compile(
    r"^\s*(PRAGMA|VACUUM|REINDEX|ATTACH|DETACH)\b|\b(AUTOINCREMENT|strftime|julianday|unixepoch"
    r"|datetime|group_concat|ifnull|instr|printf|typeof|json_extract|INSERT\s+OR|REPLACE\s+INTO)\b",
    re.I,
)
_TRIGGER = re.compile(
    r"^\s*CREATE\s+TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+(BEFORE|AFTER)\s+"
    r"(INSERT|DELETE|UPDATE(?:\s+OF\s+[\w\s,]+?)?)\s+ON\s+(\w+)\s+(?:FOR\s+EACH\s+ROW\s+)?"
    r"(?:WHEN\s+(.*?)\s+)?BEGIN\s+(.*)\bEND\s*;?\s*$",
    re.I | re.S,
)
_DROP_TRIGGER = re.compile(r"^\s*DROP\s+TRIGGER\s+(IF\s+EXISTS\s+)?(\w+)\s*;?\s*$", re.I)
_RAISE = re.compile(
    r"^SELECT\s+RAISE\s*\(\s*(ABORT|FAIL|ROLLBACK)\s*,\s*('(?:[^']|'')*')\s*\)\s*(?:WHERE\s+(.*))?$",
    re.I | re.S,
)
_RAISE_CASE = re.compile(
    r"^SELECT\s+CASE\s+WHEN\s+(.*?)\s+THEN\s+RAISE\s*\(\s*(ABORT|FAIL|ROLLBACK)\s*,\s*"
    r"('(?:[^']|'')*')\s*\)\s+END$",
    re.I | re.S,
)


def glob_to_regex(pattern: str) -> str:
    """A GLOB pattern (`*`, `?`, `[...]`, `[^...]`, case-sensitive, whole string) as an
    anchored POSIX regular expression."""
    out = ["^"]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                raise DialectError(f"unclosed [ in the GLOB pattern {pattern!r}")
            body = pattern[i + 1 : end]
            negated = body.startswith("^")
            # A backslash or [ inside the class is a literal character in GLOB.
            body = body[negated:].replace("\\", "\\\\").replace("[", "\\[")
            out.append(f"[{'^' if negated else ''}{body}]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    out.append("$")
    return "".join(out)


def _translate_globs(statement: str) -> str:
    parts = tokens(statement)
    for index, token in enumerate(parts):
        if token.kind != "string" or index == 0 or parts[index - 1].kind != "code":
            continue
        code = parts[index - 1].text
        match = _GLOB.search(code)
        if match is None:
            continue
        literal = token.text[1:-1].replace("''", "'")
        regex = glob_to_regex(literal).replace("'", "''")
        operator = "!~" if match.group(2) else "~"
        parts[index - 1] = Token("code", f"{code[: match.start()]}{match.group(1)} {operator} ")
        parts[index] = Token("string", f"'{regex}'")
    text = "".join(t.text for t in parts)
    if any(t.kind == "code" and re.search(r"\bGLOB\b", t.text, re.I) for t in tokens(text)):
        raise DialectError(f"only `column [NOT] GLOB 'literal'` is translated: {statement!r}")
    return text


def _translate_trigger(match: re.Match[str]) -> list[str]:
    name, timing, event, table, when, body = match.groups()
    actions: list[str] = []
    for raw in _split_body(body):
        raise_match = _RAISE.match(raw)
        case_match = _RAISE_CASE.match(raw)
        if raise_match is not None:
            action = f"RAISE EXCEPTION USING ERRCODE = '23000', MESSAGE = {raise_match.group(2)};"
            if raise_match.group(3):
                action = f"IF {raise_match.group(3)} THEN {action} END IF;"
        elif case_match is not None:
            action = (
                f"IF {case_match.group(1)} THEN RAISE EXCEPTION USING ERRCODE = '23000', "
                f"MESSAGE = {case_match.group(3)}; END IF;"
            )
        elif re.match(r"^(INSERT|UPDATE|DELETE)\b", raw, re.I) and "RAISE" not in raw.upper():
            action = f"{translate_expression(raw)};"
        else:
            raise DialectError(f"trigger {name}: cannot translate {raw!r} to PostgreSQL")
        actions.append(action)
    statements = "\n    ".join(actions)
    if when:
        statements = f"IF {when} THEN\n    {statements}\n  END IF;"
    row = "OLD" if event.upper() == "DELETE" else "NEW"
    returned = row if timing.upper() == "BEFORE" else "NULL"
    function = (
        f"CREATE FUNCTION {name}_fn() RETURNS trigger LANGUAGE plpgsql AS $fp$\n"
        f"BEGIN\n  {statements}\n  RETURN {returned};\nEND\n$fp$"
    )
    trigger = (
        f"CREATE TRIGGER {name} {timing} {' '.join(event.split())} ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {name}_fn()"
    )
    return [function, trigger]


def _split_body(body: str) -> list[str]:
    """A trigger body's statements (split on semicolons outside literals)."""
    statements: list[str] = []
    current = ""
    for token in tokens(body):
        if token.kind == "comment":
            continue
        if token.kind != "code":
            current += token.text
            continue
        pieces = token.text.split(";")
        for piece in pieces[:-1]:
            current += piece
            if current.strip():
                statements.append(" ".join(current.split()))
            current = ""
        current += pieces[-1]
    if current.strip():
        statements.append(" ".join(current.split()))
    return statements


def translate_expression(sql: str) -> str:
    """DML or expression text from a migration, with only the type names translated."""
    text = _translate_globs(sql)
    for pattern, replacement in _TYPES:
        text = _rewrite_code(text, lambda code, p=pattern, r=replacement: p.sub(r, code))
    return text


def postgres_statements(statement: str) -> list[str]:
    """One SQLite migration statement as the PostgreSQL statements that do the same."""
    code_only = "".join(t.text for t in tokens(statement) if t.kind == "code")
    trigger = _TRIGGER.match(statement)
    if trigger is not None:
        return _translate_trigger(trigger)
    drop = _DROP_TRIGGER.match(statement)
    if drop is not None:
        return [f"DROP FUNCTION {drop.group(1) or ''}{drop.group(2)}_fn() CASCADE"]
    if _SQLITE_ONLY.search(code_only) and not _IDENTITY.search(code_only):
        raise DialectError(
            f"SQLite-only SQL in a migration: {statement.strip()[:200]!r}; write it portably "
            "or give PostgreSQL its own piece (`-- dialect: postgresql`)"
        )

    def table_level(code: str) -> str:
        code = _IDENTITY.sub("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", code)
        return _TABLE_OPTIONS.sub(r")\1", code)

    text = _rewrite_code(statement, table_level)
    return [translate_expression(text).strip().rstrip(";").strip()]


# --- the PostgreSQL side of SQLite's built-in functions ------------------------------------

PG_PRELUDE = (
    """CREATE FUNCTION json_valid(value text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $fp$
BEGIN
  PERFORM value::json;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$fp$""",
    """CREATE FUNCTION json_type(value text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $fp$
DECLARE
  parsed json;
BEGIN
  BEGIN
    parsed := value::json;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
  RETURN CASE json_typeof(parsed)
    WHEN 'string' THEN 'text'
    WHEN 'boolean' THEN parsed::text
    WHEN 'number' THEN CASE WHEN parsed::text ~ '^-?[0-9]+$' THEN 'integer' ELSE 'real' END
    ELSE json_typeof(parsed)
  END;
END
$fp$""",
)
"""Created in the database's schema, in the same transaction as migration 0001."""


# --- dialect-specific pieces of a migration file -------------------------------------------

_SECTION = re.compile(r"^\s*--\s*dialect:\s*(\w+)\s*$", re.I)


def sections(sql: str) -> list[tuple[str, str]]:
    """The file as (dialect, text) pieces: `all`, `sqlite` or `postgresql`."""
    out: list[tuple[str, str]] = []
    current = "all"
    lines: list[str] = []
    for line in sql.splitlines(keepends=True):
        match = _SECTION.match(line)
        if match is None:
            lines.append(line)
            continue
        name = match.group(1).lower()
        if name not in ("all", "sqlite", "postgresql"):
            raise MigrationError(f"unknown dialect {name!r} (all, sqlite or postgresql)")
        out.append((current, "".join(lines)))
        current, lines = name, []
    out.append((current, "".join(lines)))
    return [(d, text) for d, text in out if text.strip()]


def split_postgres(sql: str) -> list[str]:
    """PostgreSQL statements split on semicolons outside literals and dollar quotes."""
    statements: list[str] = []
    current = ""
    for token in tokens(sql, dollar_quotes=True):
        if token.kind == "comment":
            continue
        if token.kind != "code":
            current += token.text
            continue
        pieces = token.text.split(";")
        for piece in pieces[:-1]:
            current += piece
            if current.strip():
                statements.append(current.strip())
            current = ""
        current += pieces[-1]
    if current.strip():
        raise MigrationError(f"a PostgreSQL piece ends without a semicolon: {current.strip()!r}")
    return statements
