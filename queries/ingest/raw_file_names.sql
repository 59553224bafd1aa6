-- Where the staged local files came from (s3://...), so charge_files and errors name the original.
-- Grain: none (DDL). Parameters: none.
CREATE OR REPLACE TEMP TABLE raw_file_names (local VARCHAR, display VARCHAR)
