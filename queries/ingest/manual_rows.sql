-- The checked rows of an off-cloud ledger, before they are normalised (normalize_manual).
-- Grain: none (DDL). Parameters: none.
CREATE OR REPLACE TEMP TABLE manual_rows (
    line BIGINT,
    start_at TIMESTAMP,
    end_at TIMESTAMP,
    amount DECIMAL(38, 12),
    currency VARCHAR,
    tags VARCHAR,
    category VARCHAR,
    vendor VARCHAR,
    description VARCHAR,
    reference VARCHAR
)
