-- 0007: the server setting /config adds (the organisers' role came with 0004), and who
-- decided a game a moderator ended.
-- Released migrations are never edited; change the schema in a new numbered file.

-- Whether a challenge that does not say is rated (when rated games are allowed at all).
ALTER TABLE guild_settings ADD COLUMN rated_default INTEGER NOT NULL DEFAULT 1
    CHECK (rated_default IN (0, 1));

-- The moderator who cancelled or adjudicated the game (None: the players or the rules).
ALTER TABLE games ADD COLUMN decided_by INTEGER REFERENCES players (user_id);
