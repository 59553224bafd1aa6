-- How many origin charges their allocated charges restate (focus_restated), for the line saying that
-- they were counted once. Grain: one row. Parameters: none.
SELECT count(*) FROM focus_restated
