-- 0002: time banks, clocks stopped by vacation, reminders and turn notices, vacation usage.
-- Released migrations are never edited; change the schema in a new numbered file.

-- Player preferences: reminder offsets are seconds before the deadline, largest first,
-- comma-separated ('' for none).
ALTER TABLE players ADD COLUMN turn_notices INTEGER NOT NULL DEFAULT 1
    CHECK (turn_notices IN (0, 1));
ALTER TABLE players ADD COLUMN reminder_offsets TEXT NOT NULL DEFAULT '86400,3600'
    CHECK (reminder_offsets = ''
           OR (reminder_offsets NOT GLOB '*[^0-9,]*' AND reminder_offsets NOT GLOB ',*'
               AND reminder_offsets NOT GLOB '*,' AND reminder_offsets NOT GLOB '*,,*'));
ALTER TABLE players ADD COLUMN vacation_started_at INTEGER;
ALTER TABLE players ADD COLUMN vacation_ends_at INTEGER
    CHECK ((vacation_started_at IS NULL) = (vacation_ends_at IS NULL)
           AND (vacation_ends_at IS NULL OR vacation_ends_at > vacation_started_at));

CREATE INDEX players_vacation_end ON players (vacation_ends_at)
    WHERE vacation_ends_at IS NOT NULL;

-- Time bank: when a player moves, the time they had left becomes their bank, up to the cap.
ALTER TABLE challenges ADD COLUMN bank_cap_seconds INTEGER NOT NULL DEFAULT 0
    CHECK (bank_cap_seconds BETWEEN 0 AND 5184000
           AND (bank_cap_seconds = 0 OR move_seconds IS NOT NULL));
ALTER TABLE games ADD COLUMN bank_cap_seconds INTEGER NOT NULL DEFAULT 0
    CHECK (bank_cap_seconds BETWEEN 0 AND 5184000
           AND (bank_cap_seconds = 0 OR move_seconds IS NOT NULL));
ALTER TABLE games ADD COLUMN white_bank INTEGER NOT NULL DEFAULT 0
    CHECK (white_bank BETWEEN 0 AND bank_cap_seconds);
ALTER TABLE games ADD COLUMN black_bank INTEGER NOT NULL DEFAULT 0
    CHECK (black_bank BETWEEN 0 AND bank_cap_seconds);

-- A clock stopped because the player to move is on vacation: the seconds they had left.
ALTER TABLE games ADD COLUMN paused_remaining INTEGER
    CHECK (paused_remaining IS NULL
           OR (paused_remaining > 0 AND deadline_at IS NULL AND status = 'active'
               AND move_seconds IS NOT NULL));

-- Durable turn notices and reminders for the player to move at one ply of one game. Rows of
-- earlier turns are removed when the turn changes, so a row's existence is its own guard.
CREATE TABLE notifications (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    ply             INTEGER NOT NULL CHECK (ply >= 0),
    kind            TEXT NOT NULL CHECK (kind IN ('turn', 'reminder')),
    offset_seconds  INTEGER NOT NULL DEFAULT 0
                    CHECK (offset_seconds >= 0 AND (kind = 'reminder' OR offset_seconds = 0)),
    user_id         INTEGER NOT NULL REFERENCES players (user_id),
    due_at          INTEGER NOT NULL,
    sent_at         INTEGER,
    PRIMARY KEY (game_id, ply, kind, offset_seconds)
) STRICT, WITHOUT ROWID;

CREATE INDEX notifications_pending ON notifications (due_at) WHERE sent_at IS NULL;

CREATE TABLE vacation_usage (
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    year          INTEGER NOT NULL CHECK (year BETWEEN 1970 AND 9999),
    used_seconds  INTEGER NOT NULL CHECK (used_seconds BETWEEN 0 AND 31622400),
    PRIMARY KEY (user_id, year)
) STRICT, WITHOUT ROWID;
