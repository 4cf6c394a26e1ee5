-- 0013: games against Fairy Post's own engine. `engine_id` is the player the engine plays as
-- (the bot's own user, one of the game's two players), `engine_level` its playing level
-- (search/levels.py, 1 to 8); both NULL in a game between people. The effect rules read
-- them to record the engine's move when it is the engine's turn.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE games ADD COLUMN engine_id INTEGER;
ALTER TABLE games ADD COLUMN engine_level INTEGER CHECK (engine_level BETWEEN 1 AND 8);

CREATE INDEX games_engine_active ON games (engine_id) WHERE engine_id IS NOT NULL AND status = 'active';
