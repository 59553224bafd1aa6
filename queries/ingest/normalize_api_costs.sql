-- Normalise LLM API cost results (temp table api_cost_rows: OpenAI Costs API, Anthropic cost report) into
-- charges: one a day per project / workspace and line item, usage of the API's service. The project or
-- workspace id is both the sub-account and the resource, so a run whose log names it takes its share of
-- the day (SPEC §4 rule 4); its labels come from the source's mapping (the tags). The service category is
-- FOCUS's "AI and Machine Learning" (cost category compute). Grain: one row per cost result.
-- Parameters: $source, $provider (openai, anthropic), $service (the service name), $resource_type
-- (project, workspace).
SELECT
    $source AS source,
    $provider AS provider,
    strftime(start_at, '%Y-%m') AS billing_period,
    date_trunc('month', start_at) AS billing_period_start,
    date_trunc('month', start_at) + INTERVAL 1 MONTH AS billing_period_end,
    start_at AS charge_period_start,
    end_at AS charge_period_end,
    $source AS billing_account_id,              -- the page names no organization: the source is the account
    resource_id AS sub_account_id,
    'Usage' AS charge_category,
    NULL AS charge_class,
    coalesce(cost_type, 'Usage') AS line_item_type,
    $service AS service_name,
    'AI and Machine Learning' AS service_category,
    resource_id,
    CASE WHEN resource_id IS NOT NULL THEN $resource_type END AS resource_type,
    NULL AS region_id,
    model AS sku_id,
    item AS usage_type,
    NULL AS consumed_quantity,
    NULL AS consumed_unit,
    currency AS billing_currency,
    amount AS billed_cost,
    amount AS effective_cost,
    amount AS list_cost,
    NULL AS commitment_id,
    'Standard' AS pricing_category,
    tags,
    file AS source_file,
    row_no AS source_row,
    row_identity
FROM api_cost_rows
