-- The billing periods that staged rows name (files without a manifest, FOCUS files, a ledger).
-- Grain: one row per period. Parameters: those of {{rows}}. Slots: {{rows}} (a table or the normalising query).
SELECT DISTINCT billing_period FROM {{rows}} ORDER BY 1
