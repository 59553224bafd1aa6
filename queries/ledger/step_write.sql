-- Record a step's fingerprint and what it produced, in the step's own transaction.
-- Grain: step. Parameters: $step, $fingerprint (sha256), $detail (JSON).
INSERT OR REPLACE INTO step_inputs VALUES ($step, $fingerprint, $detail)
