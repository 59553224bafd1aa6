-- usage_billed(charge_provider): whether a charge is billed for what was used (a model API's tokens: its
-- provider's spend is llm_api in the provider table, core/providers.py) rather than for capacity held: what no
-- run covers of such a charge is not idle (nobody paid for capacity left unused), so it keeps the labels rules
-- 1-3 gave it (SPEC §4 rule 4). A temporary macro of the session, made after the table it reads
-- (warehouse/connection.py).
-- Grain: one value per provider id. No parameters.
CREATE OR REPLACE TEMP MACRO usage_billed(charge_provider) AS
    charge_provider IN (SELECT p.provider FROM providers p WHERE p.spend = 'llm_api')
