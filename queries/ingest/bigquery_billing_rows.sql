-- BigQuery (not DuckDB): the Cloud Billing export rows exported since a watermark, run by
-- google-cloud-bigquery. Grain: one row per export row. Parameters: BigQuery's @since (TIMESTAMP),
-- @invoice_month (YYYYMM or NULL). Slots: {{table}} (the export table id, checked, backtick-quoted).
SELECT * FROM {{table}} WHERE export_time >= @since AND (@invoice_month IS NULL OR invoice.month = @invoice_month)
