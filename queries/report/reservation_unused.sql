-- Reserved GPU capacity nobody used (reason `unused-commitment`, placed by attribute/reservations.sql), per
-- reservation and stretch of its window, as each allocation dates it: what a post-mortem of a run on the
-- reservation reads for its unused commitment during the run and over the window (reports/reconcile.py).
-- A charge is on a reservation when its resource id is the id or an ARN ending in `/<id>`, as in
-- attribution. Grain: reservation x currency x allocation period (NULL when the charge has none).
-- Parameters: $reservations (list of `[[reservations]]` ids).
WITH reservations AS (
    SELECT unnest($reservations) AS id
),
unused AS (
    SELECT charge_id, currency, charge_period_start, charge_period_end, effective_cost
    FROM allocations
    WHERE reason = 'unused-commitment'
)
SELECT r.id, u.currency, u.charge_period_start, u.charge_period_end, sum(u.effective_cost) AS cost
FROM unused u
JOIN charges c USING (charge_id)
JOIN reservations r ON r.id = c.resource_id OR c.resource_id LIKE '%/' || r.id
GROUP BY ALL
ORDER BY ALL
