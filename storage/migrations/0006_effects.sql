-- 0006: the durable outbox. Whatever an event sets off outside its own transaction (rating
-- updates, posts, notices, edits) is recorded here in the event's transaction and carried out
-- later by a worker, which marks it done, retries it with back-off, or records it as failed.
-- Released migrations are never edited; change the schema in a new numbered file.

CREATE TABLE effects (
    id               INTEGER PRIMARY KEY,
    kind             TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
    payload          TEXT NOT NULL DEFAULT '{}'
                     CHECK (json_valid(payload) AND json_type(payload) = 'object'
                            AND length(payload) <= 16000),
    game_id          INTEGER REFERENCES games (id),
    -- Effects of one queue are carried out in id order (a game's posts stay in order); NULL:
    -- no ordering with anything else.
    queue            TEXT CHECK (queue IS NULL OR length(queue) BETWEEN 1 AND 100),
    -- Recording an effect whose key exists already changes nothing (idempotent recording).
    dedupe_key       TEXT UNIQUE CHECK (dedupe_key IS NULL OR length(dedupe_key) BETWEEN 1 AND 200),
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'done', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  INTEGER NOT NULL,
    -- A worker's claim: who is carrying it out, and until when the claim holds. A claim whose
    -- lease ran out (its worker died) may be taken by another worker.
    claimed_by       TEXT CHECK (claimed_by IS NULL OR length(claimed_by) BETWEEN 1 AND 200),
    lease_until      INTEGER,
    -- The message a post became, remembered before the effect is marked done, so it is
    -- never posted twice.
    channel_id       INTEGER,
    message_id       INTEGER,
    last_error       TEXT NOT NULL DEFAULT '' CHECK (length(last_error) <= 2000),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL CHECK (updated_at >= created_at),
    done_at          INTEGER,
    CHECK ((claimed_by IS NULL) = (lease_until IS NULL)),
    CHECK (status = 'pending' OR claimed_by IS NULL),
    CHECK ((status = 'pending') = (done_at IS NULL)),
    CHECK (message_id IS NULL OR channel_id IS NOT NULL)
) STRICT;

CREATE INDEX effects_due ON effects (next_attempt_at) WHERE status = 'pending';
CREATE INDEX effects_queue ON effects (queue, id) WHERE status = 'pending';
CREATE INDEX effects_game ON effects (game_id) WHERE game_id IS NOT NULL;
CREATE INDEX effects_failed ON effects (updated_at) WHERE status = 'failed';
