"""The experiment log (SPEC §5): read from JSON Lines or MLflow, loaded into the warehouse with estimates."""
