-- Insert or update one batch run's row in the run ledger (table runs).
-- Grain: run. Parameters: $id, $command, $started, $ended (UTC), $outcome (ok, failed, incomplete),
-- $detail (JSON, credentials masked).
INSERT OR REPLACE INTO runs VALUES ($id, $command, $started, $ended, $outcome, $detail)
