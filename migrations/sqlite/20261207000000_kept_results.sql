-- Results kept under a call's idempotency key (`reviews_write`'s `idempotencyKey`): a retry of
-- the call gets its result back instead of writing again. A write keeps its result here in the
-- same transaction as the review, so a server that dies between its commit and its answer loses
-- neither. A record is kept until `expires_ms` (Unix time in milliseconds, by the clock of the
-- server that wrote it); writes delete a few expired ones each, and a load deletes them all.

CREATE TABLE kept_results (
    caller TEXT NOT NULL,
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    -- The SHA-256 of the call's arguments, in hex: tells a retry from another call.
    fingerprint TEXT NOT NULL,
    -- The result as the client read it: JSON text.
    result TEXT NOT NULL,
    expires_ms INTEGER NOT NULL,
    PRIMARY KEY (caller, tool, key)
) STRICT, WITHOUT ROWID;

CREATE INDEX kept_results_by_expiry ON kept_results (expires_ms);
