-- Forget the experiments' resource windows before the log's current state is loaded again.
-- Grain: experiment x phase x resource window. No parameters.
DELETE FROM experiment_resources
