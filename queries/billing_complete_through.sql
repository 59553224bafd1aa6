-- How far each provider's bill is complete: the end of the latest usage charge period it has delivered.
-- Grain: provider. Month-level rows (tax, fees, credits) are left out: they are stamped with the whole
-- month before the month is over. Parameters: none.
SELECT provider, max(charge_period_end) AS complete_through
FROM charges
WHERE charge_category = 'Usage' AND charge_period_end IS NOT NULL
GROUP BY provider
ORDER BY provider
