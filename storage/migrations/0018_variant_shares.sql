-- 0018: variants that travel between servers. A share is one version of a guild's variant
-- offered to other servers under a short random code; only a shared version can be imported
-- (the code is not derived from the content, so knowing a definition gives no code).
-- `author_id` is who wrote that version, `shared_by` who shared it (both players: /forget-me
-- anonymizes them like every reference to players). `imports` counts imports (the gallery).
-- Released migrations are never edited; change the schema in a new numbered file.

CREATE TABLE variant_shares (
    code        TEXT PRIMARY KEY CHECK (length(code) = 10
                                        AND code NOT GLOB '*[^23456789abcdefghjkmnpqrstuvwxyz]*'),
    guild_id    INTEGER NOT NULL,
    variant_id  TEXT NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 1),
    digest      TEXT NOT NULL REFERENCES variant_definitions (digest),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    author_id   INTEGER NOT NULL REFERENCES players (user_id),
    shared_by   INTEGER NOT NULL REFERENCES players (user_id),
    created_at  INTEGER NOT NULL,
    imports     INTEGER NOT NULL DEFAULT 0 CHECK (imports >= 0)
) STRICT, WITHOUT ROWID;
-- No foreign key to guild_variant_versions: guild_variants.origin_code references this table,
-- and a cycle of foreign keys would leave `python -m storage copy` no order to copy in. The
-- share keeps what it needs of the version (digest, name, author) itself.

-- Sharing the same version again gives the same code.
CREATE UNIQUE INDEX variant_shares_version ON variant_shares (guild_id, variant_id, version);

-- An imported variant names the share it came from (NULL: defined on this server).
ALTER TABLE guild_variants ADD COLUMN origin_code TEXT REFERENCES variant_shares (code);
