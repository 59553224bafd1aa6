-- How many new export rows each invoice month received in this pull.
-- Grain: one row per billing period. Parameters: none.
SELECT billing_period, count(*) FROM gcp_new_charges GROUP BY 1
