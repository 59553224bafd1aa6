-- The provider table (core/providers.py) for this session: each provider's id, the name FOCUS files write
-- for it (ProviderName to 1.2, ServiceProviderName in 1.3) and what its bill buys (spend: 'cloud', capacity
-- held; 'llm_api', a model API's tokens). Temporary, filled from Python on every open
-- (warehouse/connection.py), so that it is always this trainledger's table, a read-only warehouse included.
-- Grain: provider. Parameters: $provider (the ids), $focus_name (their FOCUS names), $spend (their spend, same
-- order).
CREATE OR REPLACE TEMP TABLE providers AS
SELECT unnest($provider) AS provider, unnest($focus_name) AS focus_name, unnest($spend) AS spend
