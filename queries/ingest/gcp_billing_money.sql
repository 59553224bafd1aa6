-- The money of the Cloud Billing export rows this pull appends (gcp_new_charges), as written: each value's
-- text (a FLOAT's shortest round-trip text, the value Google wrote) under its name in the export, for the
-- rounding residue (connectors/rounding.py). cost and cost_at_list once per row, credits.amount once per
-- credit of the row; the billing period and currency are the appended charge's.
-- Grain: one row per appended export row, plus one per credit of it. Parameters: none.
CREATE OR REPLACE TEMP VIEW gcp_new_money AS
SELECT n.billing_period_start, n.billing_currency, f.cost_text AS "cost", f.cost_at_list_text AS "cost_at_list",
       CAST(NULL AS VARCHAR) AS "credits.amount"
FROM gcp_new_charges n
JOIN gcp_flat f ON f.source_file = n.source_file AND f.source_row = n.source_row
UNION ALL
SELECT n.billing_period_start, n.billing_currency, NULL, NULL,
       unnest(list_transform(f.credits, lambda c: c.amount_text))
FROM gcp_new_charges n
JOIN gcp_flat f ON f.source_file = n.source_file AND f.source_row = n.source_row
