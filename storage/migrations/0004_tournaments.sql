-- 0004: tournaments (round robin and Swiss), their players, pairings and pending posts;
-- the organisers' role of a guild (set by /config; the tournament commands read it).
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE guild_settings ADD COLUMN organiser_role_id INTEGER;

CREATE TABLE tournaments (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    message_id        INTEGER,
    thread_id         INTEGER,
    name              TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    variant_id        TEXT NOT NULL CHECK (length(variant_id) BETWEEN 1 AND 64),
    options           TEXT NOT NULL DEFAULT '[]'
                      CHECK (json_valid(options) AND json_type(options) = 'array'),
    format            TEXT NOT NULL CHECK (format IN ('round-robin', 'swiss')),
    cycles            INTEGER NOT NULL DEFAULT 1 CHECK (cycles IN (1, 2)),
    rounds            INTEGER NOT NULL DEFAULT 0 CHECK (rounds BETWEEN 0 AND 64),
    all_at_once       INTEGER NOT NULL DEFAULT 1 CHECK (all_at_once IN (0, 1)),
    move_seconds      INTEGER CHECK (move_seconds IS NULL OR move_seconds BETWEEN 60 AND 5184000),
    bank_cap_seconds  INTEGER NOT NULL DEFAULT 0 CHECK (bank_cap_seconds BETWEEN 0 AND 5184000),
    rated             INTEGER NOT NULL CHECK (rated IN (0, 1)),
    max_players       INTEGER NOT NULL CHECK (max_players BETWEEN 2 AND 64),
    starts_at         INTEGER,
    round_seconds     INTEGER CHECK (round_seconds IS NULL OR round_seconds >= 3600),
    bye_points        TEXT NOT NULL DEFAULT '1' CHECK (bye_points IN ('1', '1/2', '0')),
    initial_colour    TEXT NOT NULL DEFAULT 'white' CHECK (initial_colour IN ('white', 'black')),
    status            TEXT NOT NULL DEFAULT 'signup'
                      CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    current_round     INTEGER NOT NULL DEFAULT 0 CHECK (current_round >= 0),
    round_deadline_at INTEGER,
    end_reason        TEXT NOT NULL DEFAULT '' CHECK (length(end_reason) <= 200),
    created_by        INTEGER NOT NULL REFERENCES players (user_id),
    created_at        INTEGER NOT NULL,
    started_at        INTEGER,
    ended_at          INTEGER,
    CHECK ((status = 'signup') = (started_at IS NULL) OR status = 'cancelled'),
    CHECK ((status IN ('finished', 'cancelled')) = (ended_at IS NOT NULL))
) STRICT;

CREATE INDEX tournaments_guild ON tournaments (guild_id, status);
CREATE UNIQUE INDEX tournaments_message ON tournaments (message_id) WHERE message_id IS NOT NULL;
CREATE UNIQUE INDEX tournaments_thread ON tournaments (thread_id) WHERE thread_id IS NOT NULL;

-- `number` is the pairing number, fixed at the start; `withdrawn_after` the last round the
-- player was paired in (0: withdrew before the first).
CREATE TABLE tournament_players (
    tournament_id    INTEGER NOT NULL REFERENCES tournaments (id),
    user_id          INTEGER NOT NULL REFERENCES players (user_id),
    number           INTEGER CHECK (number IS NULL OR number >= 1),
    joined_at        INTEGER NOT NULL,
    withdrawn_after  INTEGER CHECK (withdrawn_after IS NULL OR withdrawn_after >= 0),
    PRIMARY KEY (tournament_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX tournament_players_number ON tournament_players (tournament_id, number)
    WHERE number IS NOT NULL;

-- A board of a round: a game (game_id), a bye (black_id NULL) or a game scored without being
-- played (a withdrawal): the points of such boards are stored as exact fractions ('1/2').
CREATE TABLE tournament_pairings (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    round          INTEGER NOT NULL CHECK (round >= 1),
    board          INTEGER NOT NULL CHECK (board >= 1),
    white_id       INTEGER NOT NULL REFERENCES players (user_id),
    black_id       INTEGER REFERENCES players (user_id),
    game_id        INTEGER UNIQUE REFERENCES games (id),
    white_points   TEXT CHECK (white_points IS NULL OR white_points IN ('0', '1/2', '1')),
    black_points   TEXT CHECK (black_points IS NULL OR black_points IN ('0', '1/2', '1')),
    CHECK (black_id IS NULL OR black_id <> white_id),
    CHECK (game_id IS NULL OR black_id IS NOT NULL),
    CHECK ((white_points IS NULL) = (black_points IS NULL) OR black_id IS NULL),
    PRIMARY KEY (tournament_id, round, board)
) STRICT, WITHOUT ROWID;

-- Posts a transition owes (sign-up closed, a round's pairings, a game's thread, the table
-- after a result, the final table): written in the transaction of the transition, carried
-- out by the bot and marked done with the message it posted. The key makes each one once.
CREATE TABLE tournament_posts (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    kind           TEXT NOT NULL
                   CHECK (kind IN ('started', 'round', 'game', 'result', 'final', 'cancelled')),
    subject        INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    done_at        INTEGER,
    message_id     INTEGER,
    UNIQUE (tournament_id, kind, subject)
) STRICT;

CREATE INDEX tournament_posts_pending ON tournament_posts (id) WHERE done_at IS NULL;
