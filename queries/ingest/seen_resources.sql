-- An empty temporary table shaped as resources without first_seen and last_seen, for one inventory pull.
-- Grain: none (DDL). Parameters: none.
CREATE OR REPLACE TEMP TABLE seen_resources AS
SELECT * EXCLUDE (first_seen, last_seen) FROM resources LIMIT 0
