"""The batch jobs (ingest, attribute, nightly) that run the stages in one warehouse transaction."""
