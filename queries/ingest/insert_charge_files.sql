-- Record the files of this load (temp table load_files) once each rather than on every charge.
-- Grain: one row per file. Parameters: $source (source name).
INSERT INTO charge_files SELECT slot, $source, name FROM load_files ORDER BY slot
