"""What every stage shares: config, errors, money, the SQL loader, redaction and progress reporting."""
