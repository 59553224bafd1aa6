-- Line item types of the CUR rows just loaded that trainledger has no rule for (carried as Adjustment).
-- Grain: one row per unknown type (type, rows, billed cost).
-- Parameters: $source (source name), $periods (list of YYYY-MM).
SELECT line_item_type, count(*) AS line_items, sum(billed_cost) AS billed_cost
FROM charges
WHERE source = $source AND list_contains($periods, billing_period)
  AND line_item_type NOT IN (
    'Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'SavingsPlanUpfrontFee',
    'SavingsPlanRecurringFee', 'RIFee', 'Fee', 'Tax', 'Credit', 'Refund', 'Discount', 'BundledDiscount',
    'EdpDiscount', 'PrivateRateDiscount', 'RiVolumeDiscount', 'DistributorDiscount'
)
GROUP BY line_item_type
ORDER BY line_item_type
