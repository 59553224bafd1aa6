"""Report data computed from allocations: realized cost, reconciliation, shape, benefit, budgets, coverage."""
