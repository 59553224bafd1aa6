-- With `shared = "proportional"`: the shared charges of the periods in scope that have receivers
-- (temp table `spread_receivers`), each as its single `shared` allocation with its money in integer units
-- of 1e-12; a shared charge without receivers keeps its `shared` allocation. Grain: charge (one row each:
-- a shared charge is always placed whole). Parameters: $periods (list of YYYY-MM).
CREATE OR REPLACE TEMP TABLE spread_charges AS
SELECT
    a.charge_id,
    charge_kind_id(a.source, a.provider, a.billing_period, a.billing_account_id, a.sub_account_id,
                   a.service_name, a.charge_category, a.pricing_category, a.currency) AS kind_id,
    a.charge_period_start, a.charge_period_end, a.cost_category, a.rule, a.reason,
    g.group_no, to_units(a.billed_cost) AS b_units, to_units(a.effective_cost) AS e_units,
    to_units(a.list_cost) AS l_units
FROM allocations a
JOIN (SELECT DISTINCT group_no, billing_account_id, billing_period, currency FROM spread_receivers) g
  ON g.billing_account_id IS NOT DISTINCT FROM a.billing_account_id
 AND g.billing_period = a.billing_period
 AND g.currency = a.currency
WHERE list_contains($periods, a.billing_period) AND a.rule = 'shared'
