-- What rounding one money column of a staged bill to 12 decimal places took away (money_residue,
-- schema/warehouse.sql): the residues of its values, summed exactly as integers of units of 10^-(12 + places)
-- (BIGNUM, as text), for the caller to add up (connectors/rounding.py). Only values that may carry more than
-- 12 places are read (money_long: a cheap test).
-- Grain: one row per (billing period YYYY-MM, currency, places). Parameters: none.
-- Slots: {{view}} (the staged scan), {{column}} (the money column), {{period}} (its billing period start),
-- {{currency}} (its currency column).
SELECT strftime(utc_time(CAST({{period}} AS VARCHAR)), '%Y-%m') AS billing_period, currency, r.places,
       CAST(sum(r.n) AS VARCHAR) AS n
FROM (
    SELECT {{period}}, {{currency}} AS currency, money_residue({{column}}) AS r
    FROM {{view}}
    WHERE money_long({{column}})
)
WHERE r IS NOT NULL
GROUP BY ALL
