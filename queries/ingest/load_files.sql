-- Give each file of this load a slot (a charge id's high bits) from a sequence, so an id is never given
-- twice, even after its period was replaced. Grain: one row per distinct file name.
-- Parameters: $names (file names, sorted).
CREATE OR REPLACE TEMP TABLE load_files AS
SELECT name, nextval('charge_file_slots') AS slot
FROM (SELECT DISTINCT unnest(CAST($names AS VARCHAR[])) AS name ORDER BY name)
