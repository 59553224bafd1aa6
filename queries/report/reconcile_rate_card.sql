-- The part of each experiment's realized cost that trainledger priced from the [[rates]] card (usage the
-- provider reported without a cost; normalize_rated marks its service name), so the post-mortem can say
-- it is not the provider's invoice. Grain: experiment x currency. Parameters: $ids (list of experiment ids).
-- Reads the tables behind the view `allocations`, the priced charges first (few or none on a month): the
-- stored shares of priced kinds, and the priced charges placed whole with their tuple's experiment (the
-- references semi-joined to them first: as a join's build side they cost 0.03 s at 1M charges). The ids
-- filter last, on those few rows (as a list filter on every allocation, the site's 2,084 ids cost 0.05 s).
WITH priced AS (
    SELECT charge_id, billing_currency AS currency, effective_cost
    FROM charges
    WHERE service_name LIKE '%(priced by trainledger rate card)'
),
allocated AS (
    SELECT a.experiment_id, k.currency, a.effective_cost
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND k.service_name LIKE '%(priced by trainledger rate card)'
    UNION ALL
    SELECT t.experiment_id, p.currency, p.effective_cost
    FROM allocation_refs r
    JOIN priced p USING (charge_id)
    JOIN allocation_tuples t USING (tuple_id)
    WHERE r.share_no > 0 AND r.charge_id IN (SELECT charge_id FROM priced)
)
SELECT experiment_id, currency, sum(effective_cost) AS priced
FROM allocated
WHERE experiment_id IN (SELECT unnest($ids))
GROUP BY ALL
