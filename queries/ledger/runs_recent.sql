-- The last runs of the run ledger, newest first (`trainledger runs`).
-- Grain: run. Parameters: $limit (how many).
SELECT run_id, command, started_at, ended_at, outcome, detail
FROM runs
ORDER BY started_at DESC, run_id
LIMIT $limit
