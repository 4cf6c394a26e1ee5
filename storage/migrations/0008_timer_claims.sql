-- 0008: claims on due timer items, for several bot processes sharing one database. A process
-- claims an item (a deadline, a reminder, an expiry) for a short lease before handling it, so
-- each is handled by one process; a process that dies leaves its claims, and another takes
-- them over when the lease runs out. The handling itself stays guarded (a game ends once).
-- Released migrations are never edited; change the schema in a new numbered file.

CREATE TABLE timer_claims (
    item         TEXT PRIMARY KEY CHECK (length(item) BETWEEN 1 AND 200),
    owner        TEXT NOT NULL CHECK (length(owner) BETWEEN 1 AND 200),
    lease_until  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX timer_claims_lease ON timer_claims (lease_until);
