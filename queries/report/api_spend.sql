-- LLM API spend (charges of a provider whose spend is llm_api in the provider table: usage_billed) by billing
-- period, provider, project and model: the charge's SKU where the bill names the model (Anthropic's `model`),
-- else its line item (OpenAI's line_item, "gpt-4o-2024-08-06, input"), read from the charges the
-- allocations split. Grain: billing period x provider x project x model x currency. No parameters.
SELECT a.billing_period, a.provider, a.project, coalesce(c.sku_id, c.usage_type) AS model, a.currency,
       sum(a.billed_cost) AS billed_cost, sum(a.effective_cost) AS effective_cost, sum(a.list_cost) AS list_cost
FROM allocations a
JOIN charges c ON c.charge_id = a.charge_id
WHERE usage_billed(a.provider)
GROUP BY ALL
ORDER BY ALL
