-- 0012: tournaments on the durable outbox (0006). A tournament's transitions record what they
-- set off as effects in their own transaction, like every other event, so the table of posts
-- a tournament still owed (`tournament_posts`, 0004) goes: the posts it still owed become
-- effects, with the timers (a start time, a round deadline) and a look at every running
-- tournament that the bot's tournament loop used to make at start-up. Games carry their
-- tournament, so the end of a tournament game records its tournament's consequences.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);

UPDATE games SET tournament_id = (
    SELECT p.tournament_id FROM tournament_pairings p WHERE p.game_id = games.id
) WHERE id IN (SELECT game_id FROM tournament_pairings WHERE game_id IS NOT NULL);

CREATE INDEX games_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;

-- Posts of the tournament's thread still owed, in the order they were owed.
INSERT INTO effects (kind, payload, game_id, queue, next_attempt_at, created_at, updated_at)
SELECT 'tournament.' || kind,
       '{"tournament_id":' || CAST(tournament_id AS TEXT)
           || CASE WHEN kind = 'round' THEN ',"round":' || CAST(subject AS TEXT) ELSE '' END
           || '}',
       CASE WHEN kind = 'result' THEN subject END,
       'tournament:' || CAST(tournament_id AS TEXT),
       created_at, created_at, created_at
FROM tournament_posts
WHERE done_at IS NULL AND kind IN ('started', 'round', 'result', 'final', 'cancelled')
ORDER BY id;

-- A game whose thread was still owed: its post in the channel (the thread is opened from
-- it), then the thread's first post, in the game's queue.
INSERT INTO effects (kind, payload, game_id, queue, next_attempt_at, created_at, updated_at)
SELECT 'tournament.game', '{}', subject, 'game:' || CAST(subject AS TEXT),
       created_at, created_at, created_at
FROM tournament_posts WHERE done_at IS NULL AND kind = 'game' ORDER BY id;

INSERT INTO effects (kind, payload, game_id, queue, next_attempt_at, created_at, updated_at)
SELECT 'game.started', '{}', subject, 'game:' || CAST(subject AS TEXT),
       created_at, created_at, created_at
FROM tournament_posts WHERE done_at IS NULL AND kind = 'game' ORDER BY id;

-- The timers: a start time still ahead, the deadline of the running round.
INSERT INTO effects (kind, payload, dedupe_key, next_attempt_at, created_at, updated_at)
SELECT 'tournament.start', '{"tournament_id":' || CAST(id AS TEXT) || '}',
       'tournament.start:' || CAST(id AS TEXT), starts_at, created_at,
       greatest(created_at, starts_at)
FROM tournaments WHERE status = 'signup' AND starts_at IS NOT NULL ORDER BY id;

INSERT INTO effects (kind, payload, dedupe_key, next_attempt_at, created_at, updated_at)
SELECT 'tournament.deadline',
       '{"round":' || CAST(current_round AS TEXT) || ',"tournament_id":' || CAST(id AS TEXT) || '}',
       'tournament.deadline:' || CAST(id AS TEXT) || ':' || CAST(current_round AS TEXT),
       round_deadline_at, started_at, greatest(started_at, round_deadline_at)
FROM tournaments WHERE status = 'running' AND round_deadline_at IS NOT NULL ORDER BY id;

-- Whatever a running tournament may have been waiting for (a round that ended while the bot
-- was down is paired now).
INSERT INTO effects (kind, payload, queue, next_attempt_at, created_at, updated_at)
SELECT 'tournament.advance', '{"tournament_id":' || CAST(id AS TEXT) || '}',
       'tournament-advance:' || CAST(id AS TEXT), started_at, started_at, started_at
FROM tournaments WHERE status = 'running' ORDER BY id;

DROP INDEX tournament_posts_pending;
DROP TABLE tournament_posts;
