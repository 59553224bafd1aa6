-- Record the digest of the schema/warehouse statements just run.
-- Grain: one row. Parameters: $digest (sha256 of the statements' text, hex).
INSERT OR REPLACE INTO trainledger_meta VALUES ('layout', $digest)
