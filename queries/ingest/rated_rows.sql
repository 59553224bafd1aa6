-- The usage rows of one delivery of a rate-card source (a usage-only FOCUS export, an owned cluster's node
-- hours), each with the rate that prices it, or none (connectors/rated.py), before they are normalised
-- (normalize_rated) or kept as unpriced usage (insert_unpriced). Grain: none (DDL). Parameters: none.
CREATE OR REPLACE TEMP TABLE rated_rows (
    file VARCHAR,
    row_no BIGINT,
    start_at TIMESTAMP,
    end_at TIMESTAMP,
    rate_key VARCHAR,                           -- the SKU or node the rate card was asked for
    quantity DECIMAL(38, 12),
    unit VARCHAR,
    price DECIMAL(38, 12),                      -- NULL: no rate for this key, unit and time
    cost DECIMAL(38, 12),                       -- quantity x price, half-even to 12 places; NULL with price
    currency VARCHAR,
    billing_account_id VARCHAR,
    sub_account_id VARCHAR,
    service_name VARCHAR,
    service_category VARCHAR,
    resource_id VARCHAR,
    resource_type VARCHAR,
    region_id VARCHAR,
    tags VARCHAR,
    row_identity VARCHAR
)
