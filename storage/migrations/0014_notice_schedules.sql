-- 0014: when players hear of their turns. A player chooses notices at once (as before), one
-- daily digest by direct message at an hour of theirs, or quiet hours in which only
-- deadline warnings are sent; a server chooses the default of players who did not choose
-- (NULL: the player follows the server's default; a server's NULL: at once). Hours are the
-- player's (or server's) local time, `utc_offset` minutes east of UTC.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE players ADD COLUMN notice_timing TEXT
    CHECK (notice_timing IN ('now', 'digest', 'quiet'));
ALTER TABLE players ADD COLUMN notice_hour INTEGER
    CHECK (notice_hour IS NULL
           OR (notice_hour BETWEEN 0 AND 23 AND notice_timing IN ('digest', 'quiet')));
ALTER TABLE players ADD COLUMN notice_until INTEGER
    CHECK (notice_until IS NULL
           OR (notice_until BETWEEN 0 AND 23 AND notice_timing = 'quiet'
               AND notice_until <> notice_hour));
ALTER TABLE players ADD COLUMN notice_utc_offset INTEGER NOT NULL DEFAULT 0
    CHECK (notice_utc_offset BETWEEN -720 AND 840
           AND (notice_timing IS NULL OR notice_timing = 'now'
                OR (notice_hour IS NOT NULL
                    AND (notice_timing = 'digest' OR notice_until IS NOT NULL))));

ALTER TABLE guild_settings ADD COLUMN notice_timing TEXT
    CHECK (notice_timing IN ('now', 'digest', 'quiet'));
ALTER TABLE guild_settings ADD COLUMN notice_hour INTEGER
    CHECK (notice_hour IS NULL
           OR (notice_hour BETWEEN 0 AND 23 AND notice_timing IN ('digest', 'quiet')));
ALTER TABLE guild_settings ADD COLUMN notice_until INTEGER
    CHECK (notice_until IS NULL
           OR (notice_until BETWEEN 0 AND 23 AND notice_timing = 'quiet'
               AND notice_until <> notice_hour));
ALTER TABLE guild_settings ADD COLUMN notice_utc_offset INTEGER NOT NULL DEFAULT 0
    CHECK (notice_utc_offset BETWEEN -720 AND 840
           AND (notice_timing IS NULL OR notice_timing = 'now'
                OR (notice_hour IS NOT NULL
                    AND (notice_timing = 'digest' OR notice_until IS NOT NULL))));
