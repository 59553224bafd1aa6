-- What the last complete run of a step was computed from (its fingerprint) and what it produced.
-- Grain: at most one row. Parameters: $step ('experiments', 'attribution', 'export:<file>').
SELECT fingerprint, detail FROM step_inputs WHERE step = $step
