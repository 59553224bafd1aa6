-- How far each provider's bill is complete: the end of the latest usage charge period it has delivered.
-- Grain: provider. Month-level rows (tax, fees, credits) are left out: they are stamped with the whole
-- month before the month is over. Off-cloud ledgers (provider manual) have no delivery lag and are left
-- out too. Parameters: none.
SELECT provider, max(charge_period_end) AS complete_through
FROM charges
WHERE charge_category = 'Usage' AND charge_period_end IS NOT NULL AND provider <> 'manual'
GROUP BY provider
ORDER BY provider
