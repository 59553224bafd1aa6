-- Hold the normalised rows of one delivery in the temporary table staged_charges, read once for all the
-- periods they name. Grain: one row per charge. Parameters: those of {{rows}}.
-- Slots: {{rows}} (the normalising query).
CREATE OR REPLACE TEMP TABLE staged_charges AS
SELECT * FROM {{rows}}
