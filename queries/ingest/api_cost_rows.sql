-- The checked cost results of one month of an LLM API cost source (connectors/api_costs.py), before they
-- are normalised (normalize_api_costs). Amounts are already in currency units, exact.
-- Grain: none (DDL). Parameters: none.
CREATE OR REPLACE TEMP TABLE api_cost_rows (
    file VARCHAR,
    row_no BIGINT,
    start_at TIMESTAMP,
    end_at TIMESTAMP,
    resource_id VARCHAR,
    item VARCHAR,
    model VARCHAR,
    cost_type VARCHAR,
    amount DECIMAL(38, 12),
    currency VARCHAR,
    tags VARCHAR,
    row_identity VARCHAR
)
