-- GPU list prices per GPU-hour from the price sheet the gcp-catalog source writes (schema/warehouse.sql):
-- SKUs whose description names a GPU model, priced by the hour ('h'), first tier only, one row per service
-- region (a SKU without regions: one row, region NULL). Grain: GPU SKU x region. Parameters: none.
SELECT gpu_type AS gpu, price_per_unit AS price, currency, region, usage_type, fetched_at, sku_id AS sku
FROM (
    SELECT *, unnest(CASE WHEN len(regions) > 0 THEN regions ELSE [NULL::VARCHAR] END) AS region
    FROM prices
    WHERE gpu_type IS NOT NULL AND unit = 'h' AND tier_start = 0
)
ORDER BY gpu, region, sku
