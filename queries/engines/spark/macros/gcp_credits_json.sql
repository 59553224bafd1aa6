-- Spark's body of the macro gcp_credits_json (queries/schema/warehouse.sql): the same array, with a credit's
-- NULL fields written as null, as DuckDB's to_json writes them (Spark's leaves them out unless told).
-- Grain: one value per GCP row. No parameters (macro arguments only).
(credit_list) =
CAST(to_json(transform(credit_list, c -> named_struct(
    'type', c.type, 'name', c.name, 'id', c.id, 'full_name', c.full_name,
    'amount', trim(TRAILING '.' FROM trim(TRAILING '0' FROM CAST(c.amount AS STRING)))
)), map('ignoreNullFields', 'false')) AS STRING)
