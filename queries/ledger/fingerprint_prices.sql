-- The price catalog as the experiment log's fingerprint hashes it (the caller leaves out fetched_at: when
-- it was read, not what). Grain: price row, in a fixed order. No parameters.
SELECT * FROM prices ORDER BY ALL
