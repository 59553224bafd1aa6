-- One staged file and the location it was read from. Grain: one row. Parameters: positional (local, display).
INSERT INTO raw_file_names VALUES (?, ?)
