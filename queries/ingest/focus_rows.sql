-- The FOCUS rows that become charges: every staged row but the origin charges their allocated charges
-- restate (focus_restated: a split charge counts once, through its allocated charges), with the provider
-- named by FOCUS 1.3's ServiceProviderName where a file has it (FOCUS_Spec serviceprovidername.md: "1.3
-- Introduced as a replacement for ProviderName"), else by the deprecated ProviderName.
-- Grain: one row per row of focus_raw_full not in focus_restated. Parameters: none.
CREATE OR REPLACE TEMP VIEW focus_rows AS
SELECT f.* REPLACE (coalesce(text_or_null(f.ServiceProviderName), CAST(f.ProviderName AS VARCHAR)) AS ProviderName)
FROM focus_raw_full f
ANTI JOIN focus_restated r ON r.filename = f.filename AND r.file_row_number = f.file_row_number
