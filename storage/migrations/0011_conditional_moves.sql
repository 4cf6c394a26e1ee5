-- 0011: conditional moves ("if they play this, I answer that"). The player waiting for the
-- opponent's move keeps a tree of answers: each row is one branch, from a position where the
-- opponent is to move (`node`, the rules engine's position hash) through the opponent's
-- expected move (`reply`) and the owner's answer to the position after both (`child`).
-- Lines that share a beginning share rows; lines that reach the same position by different
-- orders (transpositions) meet at the same node. Private to `owner_id`; every move, takeback
-- and ending of the game prunes or drops them in its own transaction.
-- Released migrations are never edited; change the schema in a new numbered file.

CREATE TABLE conditional_moves (
    game_id          INTEGER NOT NULL REFERENCES games (id),
    owner_id         INTEGER NOT NULL REFERENCES players (user_id),
    node             TEXT NOT NULL CHECK (length(node) BETWEEN 1 AND 64),
    reply            TEXT NOT NULL CHECK (length(reply) BETWEEN 1 AND 32),
    reply_notation   TEXT NOT NULL CHECK (length(reply_notation) BETWEEN 1 AND 64),
    answer           TEXT NOT NULL CHECK (length(answer) BETWEEN 1 AND 32),
    answer_notation  TEXT NOT NULL CHECK (length(answer_notation) BETWEEN 1 AND 64),
    child            TEXT NOT NULL CHECK (length(child) BETWEEN 1 AND 64),
    seq              INTEGER NOT NULL CHECK (seq >= 1),
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (game_id, node, reply)
) STRICT, WITHOUT ROWID;

CREATE INDEX conditional_moves_owner ON conditional_moves (owner_id);

-- A move played for its player as a conditional answer (posted with a note saying so).
ALTER TABLE moves ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0
    CHECK (conditional IN (0, 1));
ALTER TABLE archived_moves ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0
    CHECK (conditional IN (0, 1));
