-- 0009: players' own variants. A definition (the TOML text of a variant file) is stored once,
-- under the SHA-256 of its text; a guild's variant names its current definition and keeps
-- every earlier version; challenges and games pin the definition they started with, so that
-- editing or deleting the variant never changes them.
-- Released migrations are never edited; change the schema in a new numbered file.

CREATE TABLE variant_definitions (
    digest      TEXT PRIMARY KEY CHECK (length(digest) = 64 AND digest NOT GLOB '*[^0-9a-f]*'),
    content     TEXT NOT NULL CHECK (length(content) BETWEEN 1 AND 32768),
    created_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- The variants of a guild by id; `version` counts definitions of this id (1, 2, ...);
-- a deleted variant keeps its row (deleted_at) so a new definition continues its versions.
CREATE TABLE guild_variants (
    guild_id    INTEGER NOT NULL,
    variant_id  TEXT NOT NULL CHECK (length(variant_id) BETWEEN 1 AND 32
                                     AND variant_id NOT GLOB '*[^a-z0-9-]*'),
    version     INTEGER NOT NULL CHECK (version >= 1),
    digest      TEXT NOT NULL REFERENCES variant_definitions (digest),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    author_id   INTEGER NOT NULL REFERENCES players (user_id),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL CHECK (updated_at >= created_at),
    deleted_at  INTEGER,
    PRIMARY KEY (guild_id, variant_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE guild_variant_versions (
    guild_id    INTEGER NOT NULL,
    variant_id  TEXT NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 1),
    digest      TEXT NOT NULL REFERENCES variant_definitions (digest),
    author_id   INTEGER NOT NULL REFERENCES players (user_id),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, variant_id, version),
    FOREIGN KEY (guild_id, variant_id) REFERENCES guild_variants (guild_id, variant_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX guild_variant_versions_digest ON guild_variant_versions (digest);

-- The pinned definition of a challenge, a tournament and a game (NULL: a built-in variant).
-- For a guild's variant, variant_id holds its key `<id>@<guild id>`, the same across versions.
ALTER TABLE challenges ADD COLUMN definition_digest TEXT REFERENCES variant_definitions (digest);
ALTER TABLE tournaments ADD COLUMN definition_digest TEXT REFERENCES variant_definitions (digest);
ALTER TABLE games ADD COLUMN definition_digest TEXT REFERENCES variant_definitions (digest);
