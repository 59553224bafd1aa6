-- One checked ledger row. Grain: one row. Parameters: positional (line, start, end, amount, currency,
-- tags JSON, category, vendor, description, reference).
INSERT INTO manual_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
