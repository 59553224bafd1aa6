-- Record a budget alert the webhook accepted, so the next run does not post it again.
-- Grain: budget x period x threshold. Parameters: $budget, $period, $threshold, $at (UTC time posted).
INSERT OR IGNORE INTO alerts_sent VALUES ($budget, $period, $threshold, $at)
