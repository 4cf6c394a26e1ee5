-- 0019: the engine that chose a move (issue 29), stored with the move in its own write: a
-- move of Fairy Post's (a game against the engine) names who found it, `Fairy Post's engine`
-- or the operator's Fairy-Stockfish (`Fairy-Stockfish 11.1`) at the strongest level, so its
-- post and the game's record say so; NULL for a player's move and for moves stored before.
-- A takeback archives it with the move. fp_apply (0015) writes the column on PostgreSQL.
-- Released migrations are never edited; change the schema in a new numbered file.

ALTER TABLE moves ADD COLUMN engine TEXT
    CHECK (engine IS NULL OR length(engine) BETWEEN 1 AND 60);
ALTER TABLE archived_moves ADD COLUMN engine TEXT
    CHECK (engine IS NULL OR length(engine) BETWEEN 1 AND 60);

-- dialect: postgresql

CREATE OR REPLACE FUNCTION fp_apply(p_game BIGINT, p_digest TEXT, p_plan jsonb)
RETURNS TABLE (stale BOOLEAN, state TEXT, digest TEXT) LANGUAGE plpgsql AS $fp$
DECLARE
    current_state TEXT;
    guard jsonb := p_plan -> 'guard';
    item jsonb;
    changed BIGINT;
    v_at BIGINT := (p_plan ->> 'at')::BIGINT;
BEGIN
    PERFORM 1 FROM games WHERE id = p_game FOR UPDATE;
    IF p_digest IS NOT NULL THEN
        current_state := fp_game_state(p_game)::TEXT;
        IF current_state IS NULL OR md5(current_state) <> p_digest THEN
            RETURN QUERY SELECT true, current_state, md5(current_state);
            RETURN;
        END IF;
    END IF;

    FOR item IN SELECT value FROM jsonb_array_elements(p_plan -> 'resolve') LOOP
        IF item ->> 'table' = 'draw_offers' THEN
            UPDATE draw_offers SET status = item ->> 'status',
                   resolved_at = (item ->> 'at')::BIGINT
             WHERE id = (item ->> 'id')::BIGINT AND status = 'pending';
        ELSE
            UPDATE takeback_requests SET status = item ->> 'status',
                   resolved_at = (item ->> 'at')::BIGINT
             WHERE id = (item ->> 'id')::BIGINT AND status = 'pending';
        END IF;
        GET DIAGNOSTICS changed = ROW_COUNT;
        IF changed <> 1 THEN
            RAISE EXCEPTION 'fp_apply: % % is no longer pending', item ->> 'table', item ->> 'id'
                USING ERRCODE = '40001';
        END IF;
    END LOOP;

    IF jsonb_typeof(p_plan -> 'archive') = 'object' THEN
        INSERT INTO archived_moves (game_id, ply, color, notation, coordinate, position_hash,
                                    made_at, conditional, engine, takeback_id, archived_at)
        SELECT game_id, ply, color, notation, coordinate, position_hash, made_at, conditional,
               engine, (p_plan -> 'archive' ->> 'takeback_id')::BIGINT,
               (p_plan -> 'archive' ->> 'at')::BIGINT
          FROM moves
         WHERE game_id = p_game AND ply > (p_plan -> 'archive' ->> 'keep')::BIGINT
         ORDER BY ply;
        DELETE FROM moves
         WHERE game_id = p_game AND ply > (p_plan -> 'archive' ->> 'keep')::BIGINT;
    END IF;

    IF (p_plan ->> 'drop_branches')::BOOLEAN THEN
        DELETE FROM conditional_moves WHERE game_id = p_game;
    ELSE
        DELETE FROM conditional_moves c
         USING jsonb_array_elements(p_plan -> 'delete_branches') AS gone (key)
         WHERE c.game_id = p_game AND c.node = gone.key ->> 0 AND c.reply = gone.key ->> 1;
    END IF;

    INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, made_at,
                       conditional, engine)
    SELECT m.game_id, m.ply, m.color, m.notation, m.coordinate, m.position_hash, m.made_at,
           m.conditional, m.engine
      FROM jsonb_array_elements(p_plan -> 'moves') WITH ORDINALITY AS x (value, n),
           jsonb_populate_record(NULL::moves, x.value) AS m
     ORDER BY x.n;

    UPDATE games AS g
       SET status = n.status, result = n.result, termination = n.termination,
           end_detail = n.end_detail, turn = n.turn, ply_count = n.ply_count,
           position_text = n.position_text, engine_version = n.engine_version,
           deadline_at = n.deadline_at, paused_remaining = n.paused_remaining,
           white_bank = n.white_bank, black_bank = n.black_bank, updated_at = n.updated_at,
           ended_at = n.ended_at, revision = n.revision, decided_by = n.decided_by
      FROM jsonb_populate_record(NULL::games, p_plan -> 'game') AS n
     WHERE g.id = p_game AND g.status = guard ->> 'status'
       AND g.ply_count = (guard ->> 'ply_count')::BIGINT
       AND g.revision = (guard ->> 'revision')::BIGINT;
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed <> 1 THEN
        RAISE EXCEPTION 'fp_apply: game % changed under its lock', p_game
            USING ERRCODE = '40001';
    END IF;

    IF (p_plan ->> 'lapse_takebacks')::BOOLEAN THEN
        UPDATE takeback_requests SET status = 'lapsed', resolved_at = v_at
         WHERE game_id = p_game AND status = 'pending';
    END IF;
    IF (p_plan ->> 'lapse_draws')::BOOLEAN THEN
        UPDATE draw_offers SET status = 'lapsed', resolved_at = v_at
         WHERE game_id = p_game AND status = 'pending';
    ELSE
        UPDATE draw_offers SET status = 'lapsed', resolved_at = v_at
         WHERE game_id = p_game AND status = 'pending'
           AND offered_by IN (SELECT (value #>> '{}')::BIGINT
                                FROM jsonb_array_elements(p_plan -> 'lapse_draws_by'));
    END IF;

    IF jsonb_typeof(p_plan -> 'notifications') = 'array' THEN
        DELETE FROM notifications WHERE game_id = p_game;
        INSERT INTO notifications (game_id, ply, kind, offset_seconds, user_id, due_at, sent_at)
        SELECT r.game_id, r.ply, r.kind, r.offset_seconds, r.user_id, r.due_at, r.sent_at
          FROM jsonb_populate_recordset(NULL::notifications, p_plan -> 'notifications') AS r;
    END IF;

    INSERT INTO effects (kind, payload, game_id, queue, dedupe_key, next_attempt_at,
                         created_at, updated_at)
    SELECT e.kind, e.payload, e.game_id, e.queue, e.dedupe_key, e.next_attempt_at,
           e.created_at, e.updated_at
      FROM jsonb_array_elements(p_plan -> 'effects') WITH ORDINALITY AS x (value, n),
           jsonb_populate_record(NULL::effects, x.value) AS e
     ORDER BY x.n
    ON CONFLICT (dedupe_key) DO NOTHING;

    IF p_digest IS NULL THEN
        RETURN QUERY SELECT false, NULL::TEXT, NULL::TEXT;
    ELSE
        current_state := fp_game_state(p_game)::TEXT;
        RETURN QUERY SELECT false, current_state, md5(current_state);
    END IF;
END
$fp$;
