-- Forget the files no charge of the source refers to any more (their period was replaced).
-- Grain: one source. Parameters: $source (source name).
DELETE FROM charge_files
WHERE source = $source
  AND slot NOT IN (SELECT DISTINCT charge_slot(charge_id) FROM charges WHERE source = $source)
