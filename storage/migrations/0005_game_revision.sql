-- 0005: a game's revision, raised by every change of its move list (a move or a takeback).
-- Bot processes cache replayed games keyed by it: a process sees at once that another one
-- moved or took moves back, even when the ply count came back to the same number.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0);
