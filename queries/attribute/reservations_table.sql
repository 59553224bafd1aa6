-- The `[[reservations]]` of the config (README "Reserved GPU capacity"), filled by attribution before
-- `attribute_reservations` reads it. Grain: reservation x instance (what the log and the bill call each
-- instance launched into it). No parameters.
CREATE OR REPLACE TEMP TABLE reservation_config (
    id VARCHAR NOT NULL,                -- cr-... or a GCP reservation name: the bill's resource id, or the
                                        -- last part of its ARN
    project VARCHAR NOT NULL,           -- who bought it: its unused part is this project's
    window_start TIMESTAMP NOT NULL,    -- UTC, inclusive
    window_end TIMESTAMP NOT NULL,      -- UTC, exclusive
    gpus BIGINT NOT NULL,               -- GPUs reserved over the window
    n_instances BIGINT NOT NULL,        -- instances listed for it
    instance VARCHAR NOT NULL
)
