-- Line item types of the staged CUR rows that trainledger has no rule for (carried as Adjustment).
-- Grain: one row per unknown type (type, rows, billed cost). No parameters.
SELECT line_item_type, count(*) AS line_items, sum(billed_cost) AS billed_cost
FROM staged_charges
WHERE line_item_type NOT IN (
    'Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'SavingsPlanUpfrontFee',
    'SavingsPlanRecurringFee', 'RIFee', 'Fee', 'Tax', 'Credit', 'Refund', 'Discount', 'BundledDiscount',
    'EdpDiscount', 'PrivateRateDiscount', 'RiVolumeDiscount', 'DistributorDiscount'
)
GROUP BY line_item_type
ORDER BY line_item_type
