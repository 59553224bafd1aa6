-- Forget the estimates the log gave or the estimator computed, before they are loaded again; estimates
-- of any other basis stay. Grain: experiment x phase x category. No parameters.
DELETE FROM estimates WHERE basis IN ('log', 'estimator')
