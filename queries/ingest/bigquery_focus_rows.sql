-- BigQuery (not DuckDB): Google's FOCUS export rows exported since a watermark, run by
-- google-cloud-bigquery. Grain: one row per export row. Parameters: BigQuery's @since (TIMESTAMP),
-- @invoice_month (YYYYMM or NULL). Slots: {{table}} (the FOCUS table id, checked, backtick-quoted).
-- The invoice month is the month 15 days into the billing period: the same whether BillingPeriodStart is
-- a Pacific or a UTC midnight (normalize_gcp_focus.sql names the period the same way).
SELECT * FROM {{table}}
WHERE x_ExportTime >= @since
  AND (@invoice_month IS NULL
       OR FORMAT_TIMESTAMP('%Y%m', TIMESTAMP_ADD(BillingPeriodStart, INTERVAL 15 DAY), 'UTC') = @invoice_month)
