-- 0001: players, guild settings, challenges, games, moves, draw offers, takebacks, ratings.
-- Released migrations are never edited; change the schema in a new numbered file.
-- Times are Unix seconds (UTC). Discord ids are INTEGER. Plies are 1-based.

CREATE TABLE schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE players (
    user_id       INTEGER PRIMARY KEY,
    display_name  TEXT NOT NULL DEFAULT '' CHECK (length(display_name) <= 100),
    notify_mode   TEXT NOT NULL DEFAULT 'thread' CHECK (notify_mode IN ('thread', 'dm')),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL CHECK (updated_at >= created_at)
) STRICT;

CREATE TABLE guild_settings (
    guild_id               INTEGER PRIMARY KEY,
    challenge_channel_id   INTEGER,
    challenge_ttl_seconds  INTEGER NOT NULL DEFAULT 86400
                           CHECK (challenge_ttl_seconds BETWEEN 60 AND 2592000),
    default_move_seconds   INTEGER DEFAULT 259200
                           CHECK (default_move_seconds IS NULL
                                  OR default_move_seconds BETWEEN 60 AND 5184000),
    rated_allowed          INTEGER NOT NULL DEFAULT 1 CHECK (rated_allowed IN (0, 1)),
    updated_at             INTEGER NOT NULL
) STRICT;

CREATE TABLE challenges (
    id             INTEGER PRIMARY KEY,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    message_id     INTEGER,
    challenger_id  INTEGER NOT NULL REFERENCES players (user_id),
    opponent_id    INTEGER REFERENCES players (user_id),
    variant_id     TEXT NOT NULL CHECK (length(variant_id) BETWEEN 1 AND 64),
    options        TEXT NOT NULL DEFAULT '[]'
                   CHECK (json_valid(options) AND json_type(options) = 'array'),
    color          TEXT NOT NULL CHECK (color IN ('white', 'black', 'random')),
    move_seconds   INTEGER CHECK (move_seconds IS NULL OR move_seconds BETWEEN 60 AND 5184000),
    rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
    status         TEXT NOT NULL DEFAULT 'open'
                   CHECK (status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')),
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL CHECK (expires_at > created_at),
    resolved_at    INTEGER,
    resolved_by    INTEGER REFERENCES players (user_id),
    CHECK (opponent_id IS NULL OR opponent_id <> challenger_id),
    CHECK ((status = 'open') = (resolved_at IS NULL)),
    CHECK (status <> 'accepted' OR (resolved_by IS NOT NULL AND resolved_by <> challenger_id))
) STRICT;

CREATE INDEX challenges_open_expiry ON challenges (expires_at) WHERE status = 'open';

CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    challenge_id    INTEGER UNIQUE REFERENCES challenges (id),
    guild_id        INTEGER NOT NULL,
    channel_id      INTEGER NOT NULL,
    thread_id       INTEGER UNIQUE,
    message_id      INTEGER,
    variant_id      TEXT NOT NULL CHECK (length(variant_id) BETWEEN 1 AND 64),
    options         TEXT NOT NULL DEFAULT '[]'
                    CHECK (json_valid(options) AND json_type(options) = 'array'),
    white_id        INTEGER NOT NULL REFERENCES players (user_id),
    black_id        INTEGER NOT NULL REFERENCES players (user_id),
    rated           INTEGER NOT NULL CHECK (rated IN (0, 1)),
    status          TEXT NOT NULL DEFAULT 'active'
                    CHECK (status IN ('active', 'finished', 'aborted')),
    result          TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
    termination     TEXT CHECK (termination IN ('rules', 'resignation', 'timeout', 'agreement',
                                                'aborted', 'adjudication')),
    end_detail      TEXT NOT NULL DEFAULT '' CHECK (length(end_detail) <= 200),
    turn            TEXT NOT NULL DEFAULT 'white' CHECK (turn IN ('white', 'black')),
    ply_count       INTEGER NOT NULL DEFAULT 0 CHECK (ply_count >= 0),
    position_text   TEXT NOT NULL CHECK (length(position_text) > 0),
    engine_version  TEXT NOT NULL CHECK (length(engine_version) > 0),
    move_seconds    INTEGER CHECK (move_seconds IS NULL OR move_seconds BETWEEN 60 AND 5184000),
    deadline_at     INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL CHECK (updated_at >= created_at),
    ended_at        INTEGER,
    CHECK (white_id <> black_id),
    CHECK (deadline_at IS NULL OR (move_seconds IS NOT NULL AND status = 'active')),
    CHECK (
        (status = 'active' AND result IS NULL AND termination IS NULL AND ended_at IS NULL)
        OR (status = 'finished' AND result IS NOT NULL AND termination IS NOT NULL
            AND termination <> 'aborted' AND ended_at IS NOT NULL)
        OR (status = 'aborted' AND result IS NULL AND termination = 'aborted'
            AND ended_at IS NOT NULL)
    )
) STRICT;

CREATE INDEX games_white_recent ON games (white_id, updated_at DESC, id DESC);
CREATE INDEX games_black_recent ON games (black_id, updated_at DESC, id DESC);
CREATE INDEX games_active_white ON games (white_id) WHERE status = 'active';
CREATE INDEX games_active_black ON games (black_id) WHERE status = 'active';
CREATE INDEX games_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL;

-- The move list is the source of truth of every game: append-only, never updated, and a
-- row may only be deleted once a copy sits in archived_moves (takebacks).
CREATE TABLE moves (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    ply            INTEGER NOT NULL CHECK (ply >= 1),
    color          TEXT NOT NULL CHECK (color IN ('white', 'black')),
    notation       TEXT NOT NULL CHECK (length(notation) BETWEEN 1 AND 64),
    coordinate     TEXT NOT NULL CHECK (length(coordinate) BETWEEN 1 AND 32
                                        AND coordinate NOT GLOB '*[ 	]*'),
    position_hash  TEXT NOT NULL CHECK (length(position_hash) BETWEEN 1 AND 128
                                        AND position_hash NOT GLOB '*[^0-9a-f]*'),
    made_at        INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) STRICT, WITHOUT ROWID;

CREATE TABLE draw_offers (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games (id),
    offered_by   INTEGER NOT NULL REFERENCES players (user_id),
    ply          INTEGER NOT NULL CHECK (ply >= 0),
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed')),
    created_at   INTEGER NOT NULL,
    resolved_at  INTEGER,
    CHECK ((status = 'pending') = (resolved_at IS NULL))
) STRICT;

CREATE INDEX draw_offers_game ON draw_offers (game_id);
CREATE UNIQUE INDEX draw_offers_one_pending ON draw_offers (game_id) WHERE status = 'pending';

CREATE TABLE takeback_requests (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games (id),
    requested_by  INTEGER NOT NULL REFERENCES players (user_id),
    ply           INTEGER NOT NULL,
    plies         INTEGER NOT NULL CHECK (plies IN (1, 2)),
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'accepted', 'declined', 'withdrawn', 'lapsed')),
    created_at    INTEGER NOT NULL,
    resolved_at   INTEGER,
    CHECK (ply >= plies),
    CHECK ((status = 'pending') = (resolved_at IS NULL))
) STRICT;

CREATE INDEX takeback_requests_game ON takeback_requests (game_id);
CREATE UNIQUE INDEX takeback_requests_one_pending ON takeback_requests (game_id)
    WHERE status = 'pending';

CREATE TABLE archived_moves (
    id             INTEGER PRIMARY KEY,
    game_id        INTEGER NOT NULL REFERENCES games (id),
    ply            INTEGER NOT NULL CHECK (ply >= 1),
    color          TEXT NOT NULL CHECK (color IN ('white', 'black')),
    notation       TEXT NOT NULL,
    coordinate     TEXT NOT NULL,
    position_hash  TEXT NOT NULL,
    made_at        INTEGER NOT NULL,
    takeback_id    INTEGER NOT NULL REFERENCES takeback_requests (id),
    archived_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX archived_moves_game ON archived_moves (game_id, ply);

CREATE TRIGGER moves_are_immutable BEFORE UPDATE ON moves
BEGIN
    SELECT RAISE(ABORT, 'moves are never changed; take them back instead');
END;

CREATE TRIGGER moves_are_archived_before_delete BEFORE DELETE ON moves
WHEN NOT EXISTS (
    SELECT 1 FROM archived_moves a
    WHERE a.game_id = OLD.game_id AND a.ply = OLD.ply AND a.coordinate = OLD.coordinate
      AND a.made_at = OLD.made_at
)
BEGIN
    SELECT RAISE(ABORT, 'a move is deleted only after it has been archived');
END;

CREATE TRIGGER games_are_never_deleted BEFORE DELETE ON games
BEGIN
    SELECT RAISE(ABORT, 'games are never deleted');
END;

CREATE TABLE ratings (
    user_id         INTEGER NOT NULL REFERENCES players (user_id),
    variant_id      TEXT NOT NULL CHECK (length(variant_id) BETWEEN 1 AND 64),
    rating          REAL NOT NULL CHECK (abs(rating) < 100000),
    deviation       REAL NOT NULL CHECK (deviation > 0 AND deviation < 10000),
    volatility      REAL NOT NULL CHECK (volatility > 0 AND volatility < 10),
    games           INTEGER NOT NULL CHECK (games >= 0),
    wins            INTEGER NOT NULL CHECK (wins >= 0),
    draws           INTEGER NOT NULL CHECK (draws >= 0),
    losses          INTEGER NOT NULL CHECK (losses >= 0),
    last_played_at  INTEGER,
    updated_at      INTEGER NOT NULL,
    CHECK (games = wins + draws + losses),
    PRIMARY KEY (user_id, variant_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX ratings_leaderboard ON ratings (variant_id, rating DESC);

CREATE TABLE rating_history (
    game_id            INTEGER NOT NULL REFERENCES games (id),
    user_id            INTEGER NOT NULL REFERENCES players (user_id),
    opponent_id        INTEGER NOT NULL REFERENCES players (user_id),
    variant_id         TEXT NOT NULL,
    score              REAL NOT NULL CHECK (score IN (0.0, 0.5, 1.0)),
    rating_before      REAL NOT NULL,
    deviation_before   REAL NOT NULL,
    volatility_before  REAL NOT NULL,
    rating_after       REAL NOT NULL CHECK (abs(rating_after) < 100000),
    deviation_after    REAL NOT NULL CHECK (deviation_after > 0 AND deviation_after < 10000),
    volatility_after   REAL NOT NULL CHECK (volatility_after > 0 AND volatility_after < 10),
    created_at         INTEGER NOT NULL,
    CHECK (user_id <> opponent_id),
    PRIMARY KEY (game_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX rating_history_player ON rating_history (user_id, variant_id, created_at DESC);
