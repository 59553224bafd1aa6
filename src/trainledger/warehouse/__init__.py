"""The DuckDB warehouse: connections and transactions, the run ledger, and what each step was computed from."""
