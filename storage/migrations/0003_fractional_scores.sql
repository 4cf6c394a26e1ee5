-- 0003: a rated game may score other than 1, 1/2 or 0 (a Bat Chess stalemate scores 3/5 to
-- 2/5), so rating_history.score accepts any value from 0 to 1. SQLite cannot change a
-- CHECK in place: the table is rebuilt the documented way (foreign keys are off while
-- migrating, and checked before the commit).

CREATE TABLE rating_history_new (
    game_id            INTEGER NOT NULL REFERENCES games (id),
    user_id            INTEGER NOT NULL REFERENCES players (user_id),
    opponent_id        INTEGER NOT NULL REFERENCES players (user_id),
    variant_id         TEXT NOT NULL,
    score              REAL NOT NULL CHECK (score BETWEEN 0.0 AND 1.0),
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

INSERT INTO rating_history_new SELECT * FROM rating_history;
DROP TABLE rating_history;
ALTER TABLE rating_history_new RENAME TO rating_history;
CREATE INDEX rating_history_player ON rating_history (user_id, variant_id, created_at DESC);
