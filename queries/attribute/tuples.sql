-- The tuples (labels, rule, reason) of the references `attribute_allocate_placed` wrote that the table
-- allocation_tuples does not hold yet: one charge per new tuple id is placed again (`placed_charges`
-- restricted to those charges, a few thousand however large the bill) and its tuple written.
-- Grain: tuple. Parameters: $periods (list of YYYY-MM).
INSERT INTO allocation_tuples
SELECT DISTINCT
    allocation_tuple_id(a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule, a_reason),
    a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule, a_reason
FROM placed_charges($periods)
WHERE charge_id IN (
    SELECT min(charge_id)
    FROM allocation_refs
    WHERE tuple_id NOT IN (SELECT tuple_id FROM allocation_tuples)
    GROUP BY tuple_id
)
