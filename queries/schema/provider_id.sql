-- provider_id(name): a provider's id from the name a bill or a log gives it (SPEC §5): the provider table's
-- id for a name it knows (schema/provider_aliases, core/providers.py: 'Microsoft' and 'Azure' are azure),
-- else the name itself, trimmed and lowercased; NULL for none. A temporary macro of the session, made after
-- the table it reads (warehouse/connection.py). Grain: one value per name. No parameters.
CREATE OR REPLACE TEMP MACRO provider_id(bill_name) AS coalesce(
    (SELECT max(a.provider_alias_id) FROM provider_aliases a
     WHERE a.provider_alias_name = lower(trim(CAST(bill_name AS VARCHAR)))),
    nullif(lower(trim(CAST(bill_name AS VARCHAR))), '')
)
