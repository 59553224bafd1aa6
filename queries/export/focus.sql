-- FOCUS 1.2 Cost and Usage rows for one billing period (export/focus_shares): one row per allocation share
-- of each charge, with the charge's FOCUS columns, the share's money and period, and the allocation in x_
-- columns. Grain: charge x share, plus the unused part of a commitment purchase. Parameters: $period (YYYY-MM).
SELECT * EXCLUDE (charge_id, share_no, shares, provider, host_provider_name, usage_type, resource_name, part, origin_start, origin_end,
                  share_hours, consumed_whole, pricing_whole)
FROM focus_shares($period)
ORDER BY "ChargePeriodStart", charge_id, share_no, part
