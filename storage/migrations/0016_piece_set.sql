-- 0016: the piece set a player sees in board pictures (issue 27): the traditional set where
-- a variant has one (Xiangqi's discs, Shogi's kanji tokens), or the letter tokens everywhere.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE players ADD COLUMN piece_set TEXT NOT NULL DEFAULT 'traditional'
    CHECK (piece_set IN ('traditional', 'letters'));
