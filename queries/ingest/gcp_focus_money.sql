-- The money of Google's FOCUS export rows this pull appends (gcp_new_charges), as written: each value's
-- text under its name in the export, for the rounding residue (connectors/rounding.py). ContractedCost
-- counts where ListCost is missing, the rows whose ListCost it becomes (normalize_gcp_focus); the credits
-- in x_Credits are kept as listed, not summed into any money column, so they have no residue.
-- Grain: one row per appended export row. Parameters: none.
CREATE OR REPLACE TEMP VIEW gcp_new_money AS
SELECT n.billing_period_start, n.billing_currency, f.billed_cost_text AS "BilledCost",
       f.effective_cost_text AS "EffectiveCost", f.list_cost_text AS "ListCost",
       CASE WHEN f.list_cost_text IS NULL THEN f.contracted_cost_text END AS "ContractedCost"
FROM gcp_new_charges n
JOIN gcp_flat f ON f.source_file = n.source_file AND f.source_row = n.source_row
