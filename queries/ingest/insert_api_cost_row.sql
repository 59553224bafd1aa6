-- One checked cost result of an LLM API cost source. Grain: one row. Parameters: positional (file, row,
-- bucket start, bucket end, project / workspace id, line item, model, cost type, amount, currency,
-- tags JSON, row identity).
INSERT INTO api_cost_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
