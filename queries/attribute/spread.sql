-- `[allocation] shared = "proportional"` (SPEC §4), first step: who receives shared cost (tax, support,
-- untied credits, discounts, commitment fees), per billing account, billing period and currency, with
-- weights in proportion to each receiver's effective cost. Receivers are the attributed cost: (project,
-- phase, method, experiment) keys placed by tag, inventory or time-window (SPEC §4 spreads over attributed
-- cost, which it tells apart from idle, shared and unattributed). A receiver whose net effective cost is
-- zero or negative (credits tagged to it) receives nothing. `receiver_no` is the share number every charge of the group gives it.
-- Grain: (billing account, period, currency) x receiver: a few thousand rows, however large the bill.
-- Parameters: $periods (list of YYYY-MM). Reads allocations.
CREATE OR REPLACE TEMP TABLE spread_receivers AS
WITH receivers AS (
    SELECT billing_account_id, billing_period, currency, project, phase, method, experiment_id,
           to_units(sum(effective_cost)) AS weight
    FROM allocations
    WHERE list_contains($periods, billing_period) AND rule IN ('tag', 'inventory', 'time-window')
    GROUP BY ALL
    HAVING sum(effective_cost) > 0
)
SELECT
    *,
    dense_rank() OVER (ORDER BY billing_account_id NULLS FIRST, billing_period, currency) AS group_no,
    row_number() OVER (PARTITION BY billing_account_id, billing_period, currency
                       ORDER BY experiment_id NULLS LAST, phase NULLS LAST, project NULLS LAST, method NULLS LAST)
        AS receiver_no,
    sum(weight) OVER (PARTITION BY billing_account_id, billing_period, currency) AS total_weight
FROM receivers
