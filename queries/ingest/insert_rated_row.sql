-- One usage row of a rate-card source with its price. Grain: one row. Parameters: positional (file, row,
-- start, end, rate key, quantity, unit, price, cost, currency, billing account, sub-account, service,
-- service category, resource id, resource type, region, tags JSON, row identity).
INSERT INTO rated_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
