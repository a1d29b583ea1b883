-- Results kept under a call's idempotency key (`reviews_write`'s `idempotencyKey`): a retry of
-- the call gets its result back instead of writing again, whichever replica it reaches. A write
-- keeps its result here in the same transaction as the review, so a server that dies between
-- its commit and its answer loses neither; the primary key makes a second call with the key
-- wait for the first's transaction, then find the key taken. A record is kept until
-- `expires_ms` (Unix time in milliseconds, by the clock of the replica that wrote it); writes
-- delete a few expired ones each, and a load deletes them all.

CREATE TABLE kept_results (
    caller text NOT NULL,
    tool text NOT NULL,
    key text NOT NULL,
    -- The SHA-256 of the call's arguments, in hex: tells a retry from another call.
    fingerprint text NOT NULL,
    -- The result as the client read it: JSON text.
    result text NOT NULL,
    expires_ms bigint NOT NULL,
    PRIMARY KEY (caller, tool, key)
);

CREATE INDEX kept_results_by_expiry ON kept_results (expires_ms);
