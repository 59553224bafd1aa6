-- What rounding the money columns of a staged bill to 12 decimal places took away (money_residue,
-- schema/warehouse.sql): the residues of their values, summed exactly as integers of units of 10^-(12 + places)
-- (BIGNUM, as text), for the caller to add up (connectors/rounding.py). One scan for every column: only rows
-- where some value may carry more than 12 places are read further (money_long: a cheap test).
-- Grain: one row per (billing period YYYY-MM, money column, currency, places). Parameters: none.
-- Slots: {{view}} (the staged scan), {{period}} (its billing period start column), {{currency}} (its currency
-- column), {{residues}} (a list of {'money_column': name, 'residue': money_residue(column) where money_long}),
-- {{any_long}} (money_long of the columns, or-ed).
SELECT strftime(utc_time(CAST({{period}} AS VARCHAR)), '%Y-%m') AS billing_period, r.money_column, currency,
       r.residue.places AS places, CAST(sum(r.residue.n) AS VARCHAR) AS n
FROM (
    SELECT {{period}}, {{currency}} AS currency, unnest({{residues}}) AS r
    FROM {{view}}
    WHERE {{any_long}}
)
WHERE r.residue IS NOT NULL
GROUP BY ALL
