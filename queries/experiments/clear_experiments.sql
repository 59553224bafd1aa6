-- Forget the experiments before the log's current state is loaded again (the log is the truth).
-- Grain: experiment. No parameters.
DELETE FROM experiments
