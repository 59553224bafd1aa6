-- Spark's body of the macro allocation_tuple_id (queries/schema/warehouse.sql): a 64-bit hash of an
-- allocation's labels, rule and reason. Spark's hash functions skip NULL arguments, so ('a', NULL) and
-- (NULL, 'a') would hash alike: each nullable value is preceded by whether it is NULL. Grain: one value per
-- allocation. No parameters (macro arguments only).
(project, phase, method, experiment_id, cost_category, rule, reason) =
xxhash64(isnull(project), project, isnull(phase), phase, isnull(method), method, isnull(experiment_id),
         experiment_id, cost_category, rule, isnull(reason), reason)
