-- 0010: where each draw offer and takeback request was posted, so that the post can be
-- edited when the request is settled in any way (answered, or lapsed because a player moved
-- or the game ended): the buttons go and the post says what happened. `settled_at` is set
-- once the post shows the settled state; posts of settled requests still unsettled are
-- edited after a restart.

CREATE TABLE offer_posts (
    kind        TEXT NOT NULL CHECK (kind IN ('draw', 'takeback')),
    request_id  INTEGER NOT NULL,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    settled_at  INTEGER,
    PRIMARY KEY (kind, request_id)
) STRICT;

CREATE INDEX offer_posts_unsettled ON offer_posts (game_id) WHERE settled_at IS NULL;
