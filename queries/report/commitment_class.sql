-- Fixed vs elastic (the `commitment` dimension of `report --by`): an expression over allocation columns,
-- composed into the report query. Grain: per allocation row. No parameters.
-- fixed: usage priced by a commitment (Savings Plan / reservation covered usage, GCP committed use) and
--   commitment fees that pay for used commitment; unused-commitment: an AWS commitment fee whose effective
--   cost is the unused part (CUR amortisation), and reserved GPU capacity nobody used (reason
--   `unused-commitment`), waste of its own; a run's share of a reserved-capacity fee (rule `time-window`) is
--   fixed; elastic: on-demand, spot and usage-priced services; other: tax, credits and adjustments,
--   which follow the rest.
CASE
    WHEN reason = 'unused-commitment' THEN 'unused-commitment'
    WHEN pricing_category = 'Committed' AND charge_category = 'Purchase' AND provider = 'aws'
         AND rule <> 'time-window'
        THEN 'unused-commitment'
    WHEN pricing_category = 'Committed' THEN 'fixed'
    WHEN charge_category IN ('Tax', 'Credit', 'Adjustment') THEN 'other'
    ELSE 'elastic'
END
