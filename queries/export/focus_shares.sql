-- The FOCUS export's rows for one billing period, as a table macro that the FOCUS 1.2 (export/focus) and
-- 1.3 (export/focus_13) files select from: the allocation shares of each charge with the charge's FOCUS
-- columns, the share's money, and the allocation. Columns named as FOCUS names them are FOCUS 1.2's; the
-- lower-case ones are what a version picks from: the charge (charge_id, provider, host_provider_name: the
-- FOCUS name of the bill's HostProviderName, usage_type, resource_name), its share (share_no, of `shares`),
-- the part (`charge`, or `unused` below), the charge's own period (origin_start, origin_end: a share's
-- ChargePeriod is the segment of it the share covers), the hours of the share's period (share_hours, to 6 places), and
-- the charge's quantities whole (consumed_whole, pricing_whole).
-- Grain: charge x share, plus a second row for the unused part of a commitment purchase (below).
-- No parameters: the macro takes `period` (YYYY-MM), given by its callers.
-- Money comes from allocations as is, so a charge's rows add up to it exactly. FOCUS 1.2's quantities
-- (share_quantity; 1.3 splits them by its AllocatedRatio) are split in
-- integer units of 1e-6 in proportion to the share's ListCost (else EffectiveCost, else BilledCost, in
-- units of 1e-6; else all on the first share), the last share taking the exact remainder, so that they add
-- up too. Units of 1e-6 keep quantity x weight inside HUGEINT for GCP byte-seconds (1e17) on large bills.
-- A share's quantity, in units of 1e-12, becomes a number as a whole part (DECIMAL(25, 0): a quantity below
-- 1e25) and a fraction (DECIMAL(13, 0) x 1e-12), as in export/focus_13: Spark, which by default cuts the
-- scale of a wider result (spark.sql.decimalOperations.allowPrecisionLoss: quantity minus the other shares,
-- both DECIMAL(38, 12), to 11 places), keeps all 12 (issue 34).
-- A commitment fee (Purchase with a commitment id) whose EffectiveCost is its unused commitment becomes,
-- as FOCUS 1.2 models it, a Purchase row (BilledCost, EffectiveCost 0) and a Usage row with
-- CommitmentDiscountStatus "Unused" (BilledCost 0, the EffectiveCost).
-- InvoiceId is the bill's (NULL where the charge is on no invoice yet, or the bill gives none).
-- ProviderName, PublisherName and InvoiceIssuerName are the provider's FOCUS name from the session's provider
-- table (schema/providers: azure is Microsoft), the provider id where the table has none (manual).
-- ContractedCost is ListCost (no negotiated prices are known); credits, and taxes without a list cost,
-- carry their BilledCost as ListCost and ContractedCost (FOCUS 1.2: a charge unrelated to others).
-- ServiceCategory / ServiceSubcategory are one per ServiceName: the category (FOCUS value, else from the
-- cost category) and subcategory (from the resource type) carrying most of the service's billed cost.
-- Memory: a proportional month at 1M lines holds 4M stored shares of 12K split charges. The quantity split is
-- therefore summed per split charge (two small aggregates, split_weights and split_units) rather than computed
-- by windows over every share with its charge's columns, and each CTE that DuckDB would hold in memory (one
-- referenced more than once) is small: the period's kinds, the split charges, the per-charge sums, the
-- category weights. The rows with every column (whole, stored) are read once, as a stream into the file's sort.
-- A charge placed whole (allocation_refs, share 1) is its only share, since attribution's invariant check
-- holds each charge's shares to add up to it: its quantity is the charge's, whole.
CREATE OR REPLACE TEMP MACRO focus_shares(period) AS TABLE
WITH period_kinds AS (
    SELECT * FROM charge_kinds WHERE billing_period = period
),
split_charges AS (
    -- the charges attribution split into stored shares (allocation_rows), with the columns the rows read
    SELECT
        c.charge_id, c.billing_period_start, c.billing_period_end, c.charge_class, c.line_item_type,
        c.service_category, c.resource_id, c.resource_name, c.resource_type, c.region_id, c.usage_type,
        c.consumed_unit, c.tags, c.commitment_id, c.host_provider, c.invoice_id,
        c.charge_period_start AS origin_period_start, c.charge_period_end AS origin_period_end,
        CASE
            WHEN c.consumed_quantity IS NOT NULL THEN c.consumed_quantity
            WHEN c.charge_category IN ('Usage', 'Purchase') THEN CAST(1 AS DECIMAL(38, 12))
        END AS quantity,
        c.billed_cost AS charge_billed_cost, c.effective_cost AS charge_effective_cost,
        c.list_cost AS charge_list_cost
    FROM charges c
    WHERE c.billing_period = period
      AND c.charge_id IN (SELECT a.charge_id FROM allocation_rows a JOIN period_kinds k USING (kind_id)
                          WHERE a.share_no > 0)
),
-- A split charge's quantity (FOCUS 1.2's share_quantity; 1.3 splits it by its AllocatedRatio) is split in
-- proportion to each share's weight: its ListCost (else EffectiveCost, else BilledCost: whichever the charge
-- has) in units of 1e-6, else all on the first share; q_units, a share's part in units of 1e-6, is floored,
-- and the last share takes the exact remainder. The weight and q_units are each defined once, on a stream
-- of the stored shares that is not materialised (split_shares, split_quantities): DuckDB inlines it where
-- it is read, so the per-charge sums and the rows each read the shares afresh and nothing holds them whole.
split_shares AS NOT MATERIALIZED (
    SELECT
        *,
        CASE
            WHEN charge_list_cost <> 0 THEN abs(to_units(list_cost)) // 1000000
            WHEN charge_effective_cost <> 0 THEN abs(to_units(effective_cost)) // 1000000
            WHEN charge_billed_cost <> 0 THEN abs(to_units(billed_cost)) // 1000000
            ELSE CASE WHEN share_no = 1 THEN 1 ELSE 0 END
        END AS weight
    FROM allocation_rows a
    JOIN split_charges x USING (charge_id)
    WHERE a.share_no > 0
),
split_weights AS (
    SELECT charge_id, count(*) AS shares, max(share_no) AS last_share, sum(weight) AS total_weight
    FROM split_shares
    GROUP BY charge_id
),
split_quantities AS NOT MATERIALIZED (
    SELECT
        s.*, w.shares, w.last_share,
        CASE
            WHEN w.total_weight = 0 THEN CASE WHEN s.share_no = 1 THEN to_units(s.quantity) // 1000000 ELSE 0 END
            ELSE to_units(s.quantity) // 1000000 * s.weight // w.total_weight
        END AS q_units
    FROM split_shares s
    JOIN split_weights w USING (charge_id)
),
split_units AS (
    SELECT charge_id, sum(q_units) AS total_units FROM split_quantities GROUP BY charge_id
),
whole AS (
    -- the charges placed whole: one share each, the charge itself with its tuple's labels
    SELECT
        c.charge_id, r.share_no, c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id,
        c.charge_period_start, c.charge_period_end, t.project, t.phase, t.method, t.experiment_id, t.cost_category,
        c.service_name, c.charge_category, c.pricing_category, t.rule, t.reason, c.billing_currency AS currency,
        c.billed_cost, c.effective_cost, c.list_cost,
        c.billing_period_start, c.billing_period_end, c.charge_class, c.line_item_type, c.service_category,
        c.resource_id, c.resource_name, c.resource_type, c.region_id, c.usage_type, c.consumed_unit, c.tags,
        c.commitment_id, c.host_provider, c.invoice_id, c.charge_period_start AS origin_period_start,
        c.charge_period_end AS origin_period_end, CAST(1 AS BIGINT) AS shares,
        coalesce(c.service_name, 'Unknown') AS service,
        CASE
            WHEN c.consumed_quantity IS NOT NULL THEN c.consumed_quantity
            WHEN c.charge_category IN ('Usage', 'Purchase') THEN CAST(1 AS DECIMAL(38, 12))
        END AS quantity,
        CASE
            WHEN c.consumed_quantity IS NOT NULL THEN c.consumed_quantity
            WHEN c.charge_category IN ('Usage', 'Purchase') THEN CAST(1 AS DECIMAL(38, 12))
        END AS share_quantity
    FROM allocation_refs r
    JOIN charges c USING (charge_id)
    JOIN allocation_tuples t USING (tuple_id)
    WHERE r.share_no > 0 AND c.billing_period = period
),
stored_units AS (
    -- the stored shares, each with its split charge's columns and its part of the quantity (q_units)
    SELECT
        q.charge_id, q.share_no, k.source, k.provider, k.billing_period, k.billing_account_id, k.sub_account_id,
        q.charge_period_start, q.charge_period_end, q.project, q.phase, q.method, q.experiment_id, q.cost_category,
        k.service_name, k.charge_category, k.pricing_category, q.rule, q.reason, k.currency, q.billed_cost,
        q.effective_cost, q.list_cost,
        q.billing_period_start, q.billing_period_end, q.charge_class, q.line_item_type, q.service_category,
        q.resource_id, q.resource_name, q.resource_type, q.region_id, q.usage_type, q.consumed_unit, q.tags,
        q.commitment_id, q.host_provider, q.invoice_id, q.origin_period_start, q.origin_period_end, q.shares,
        coalesce(k.service_name, 'Unknown') AS service, q.quantity,
        -- the share's quantity in units of 1e-12: its q_units, the last share the exact remainder
        CASE
            WHEN q.share_no = q.last_share
                THEN to_units(q.quantity) - coalesce(u.total_units - q.q_units, 0) * 1000000
            ELSE q.q_units * 1000000
        END AS share_units
    FROM split_quantities q
    JOIN period_kinds k USING (kind_id)
    JOIN split_units u USING (charge_id)
),
stored AS (
    -- units as a number: a whole part (DECIMAL(25, 0)) and a fraction (DECIMAL(13, 0) x 1e-12), as in
    -- export/focus_13, so that Spark keeps the 12 places (issue 34; see the header)
    SELECT
        * EXCLUDE (share_units),
        CAST(CAST(CAST(share_units AS HUGEINT) // 1000000000000 AS DECIMAL(25, 0))
             + CAST(share_units % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12))
             AS DECIMAL(38, 12)) AS share_quantity
    FROM stored_units
),
category_weights AS (
    -- every share's billed cost by service, FOCUS category and subcategory (FOCUS value, else from the cost
    -- category; from the resource type): what a service's ServiceCategory and ServiceSubcategory are picked by
    SELECT
        service,
        CASE
            WHEN service_category IN ('AI and Machine Learning', 'Analytics', 'Business Applications', 'Compute',
                                      'Databases', 'Developer Tools', 'Multicloud', 'Identity', 'Integration',
                                      'Internet of Things', 'Management and Governance', 'Media', 'Migration',
                                      'Mobile', 'Networking', 'Security', 'Storage', 'Web', 'Other')
                THEN service_category
            WHEN cost_category = 'compute' THEN 'Compute'
            WHEN cost_category = 'storage' THEN 'Storage'
            WHEN cost_category = 'network' THEN 'Networking'
            WHEN cost_category = 'data' THEN 'Analytics'
            WHEN cost_category = 'ops' THEN 'Management and Governance'
            ELSE 'Other'
        END AS row_category,
        CASE
            WHEN resource_id IS NULL THEN NULL
            WHEN resource_type = 'instance' THEN 'Virtual Machines'
            WHEN resource_type = 'volume' THEN 'Block Storage'
            WHEN resource_type = 'bucket' THEN 'Object Storage'
        END AS row_subcategory,
        sum(abs(billed_cost)) AS weight
    FROM (
        SELECT coalesce(c.service_name, 'Unknown') AS service, c.service_category, t.cost_category, c.resource_id,
               c.resource_type, c.billed_cost
        FROM allocation_refs r
        JOIN charges c USING (charge_id)
        JOIN allocation_tuples t USING (tuple_id)
        WHERE r.share_no > 0 AND c.billing_period = period
        UNION ALL
        SELECT coalesce(k.service_name, 'Unknown'), s.service_category, s.cost_category, s.resource_id,
               s.resource_type, s.billed_cost
        FROM split_shares s
        JOIN period_kinds k USING (kind_id)
    )
    GROUP BY ALL
),
service_categories AS (
    -- the heaviest (ties: the first by name), by a window rather than first(... ORDER BY), which Spark lacks
    SELECT service, row_category AS category
    FROM (
        SELECT service, row_category,
               row_number() OVER (PARTITION BY service ORDER BY weight DESC, row_category NULLS LAST) AS n
        FROM (SELECT service, row_category, sum(weight) AS weight FROM category_weights GROUP BY ALL)
    )
    WHERE n = 1
),
service_subcategories AS (
    SELECT service, row_subcategory AS subcategory
    FROM (
        SELECT service, row_subcategory,
               row_number() OVER (PARTITION BY service ORDER BY weight DESC, row_subcategory) AS n
        FROM (
            SELECT q.service, q.row_subcategory, sum(q.weight) AS weight
            FROM category_weights q
            JOIN service_categories s USING (service)
            WHERE (q.row_subcategory = 'Virtual Machines' AND s.category = 'Compute')
               OR (q.row_subcategory IN ('Block Storage', 'Object Storage') AND s.category = 'Storage')
            GROUP BY ALL
        )
    )
    WHERE n = 1
),
parts AS (
    -- each share once as the charge, and a commitment purchase's share again as its unused part
    SELECT q.*, p.part
    FROM (SELECT * FROM whole UNION ALL SELECT * FROM stored) q
    JOIN (VALUES ('charge'), ('unused')) AS p (part)
      ON p.part = 'charge'
         OR (q.charge_category = 'Purchase' AND q.commitment_id IS NOT NULL AND q.effective_cost <> 0)
),
described AS (
    SELECT
        p.*,
        CASE WHEN p.part = 'unused' THEN 'Usage' ELSE p.charge_category END AS category,
        p.charge_category = 'Purchase' AND p.commitment_id IS NOT NULL AND p.effective_cost <> 0 AS is_split,
        CASE
            WHEN p.charge_category = 'Credit' OR (p.charge_category = 'Tax' AND p.list_cost = 0) THEN p.billed_cost
            ELSE p.list_cost
        END AS list_or_billed,
        sc.category AS service_category_focus,
        coalesce(ss.subcategory, 'Other (' || sc.category || ')') AS service_subcategory_focus,
        coalesce(pn.focus_name, p.provider) AS provider_name,
        coalesce(hn.focus_name, p.host_provider) AS host_provider_name,
        -- FOCUS Unit Format, step 1: time units spelled out and plural after a '-' (GB-Mo -> GB-Months,
        -- DPU-Hour -> DPU-Hours), '<n>K-<unit>' as '<n> KiB <unit>'; step 2 in `focus` below.
        CASE
            WHEN trim(p.consumed_unit) = '' THEN NULL
            WHEN p.consumed_unit = 'Hrs' THEN 'Hours'
            ELSE regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                p.consumed_unit,
                '^([0-9]+)K-', '\1 KiB '),
                '-(?i:mo|mos|months?)$', '-Months'),
                '-(?i:hrs?|hours?)$', '-Hours'),
                '-(?i:days?)$', '-Days'),
                '-(?i:mins?|minutes?)$', '-Minutes'),
                '-(?i:secs?|seconds?)$', '-Seconds')
        END AS spelled_unit
    FROM parts p
    JOIN service_categories sc USING (service)
    LEFT JOIN service_subcategories ss USING (service)
    LEFT JOIN providers pn ON pn.provider = p.provider
    LEFT JOIN providers hn ON hn.provider = p.host_provider
),
focus AS (
    -- FOCUS Unit Format, step 2: '<unit>-<time units>' wants one unit before the '-', so the words of a
    -- compound unit are joined by spaces ('Lambda-GB-Seconds' -> 'Lambda GB-Seconds', 'GiB/Second-Months'
    -- -> 'GiB per Second-Months').
    SELECT
        * EXCLUDE (spelled_unit),
        CASE
            WHEN regexp_matches(spelled_unit, '^.+[-/].*-(Years|Months|Days|Hours|Minutes|Seconds)$') THEN
                replace(replace(regexp_extract(spelled_unit, '^(.+)-[A-Za-z]+$', 1), '/', ' per '), '-', ' ')
                || '-' || regexp_extract(spelled_unit, '-([A-Za-z]+)$', 1)
            ELSE spelled_unit
        END AS unit
    FROM described
)
SELECT
    CASE WHEN part = 'unused' THEN CAST(0 AS DECIMAL(38, 12)) ELSE billed_cost END AS "BilledCost",
    billing_account_id AS "BillingAccountId",
    CAST(NULL AS VARCHAR) AS "BillingAccountName",
    currency AS "BillingCurrency",
    timezone('UTC', billing_period_end) AS "BillingPeriodEnd",
    timezone('UTC', billing_period_start) AS "BillingPeriodStart",
    category AS "ChargeCategory",
    CASE WHEN charge_class = 'Correction' THEN 'Correction' END AS "ChargeClass",
    CASE
        WHEN part = 'unused' THEN 'Unused commitment: ' || coalesce(usage_type, service)
        ELSE concat_ws(': ', line_item_type, coalesce(usage_type, service))
    END AS "ChargeDescription",
    CASE
        WHEN category = 'Usage' THEN 'Usage-Based'
        WHEN category = 'Purchase' AND (line_item_type LIKE '%RecurringFee' OR line_item_type = 'RIFee') THEN 'Recurring'
        ELSE 'One-Time'
    END AS "ChargeFrequency",
    timezone('UTC', charge_period_end) AS "ChargePeriodEnd",
    timezone('UTC', charge_period_start) AS "ChargePeriodStart",
    CASE
        WHEN commitment_id IS NULL OR category NOT IN ('Usage', 'Purchase') THEN NULL
        WHEN commitment_id LIKE '%savingsplan%' THEN 'Spend'
        WHEN commitment_id LIKE '%reserv%' THEN 'Usage'
    END AS "CommitmentDiscountCategory",
    CASE WHEN category IN ('Usage', 'Purchase') THEN commitment_id END AS "CommitmentDiscountId",
    CASE
        WHEN part = 'unused' THEN 'Unused'
        WHEN category = 'Usage' AND commitment_id IS NOT NULL THEN 'Used'
    END AS "CommitmentDiscountStatus",
    CASE WHEN category = 'Usage' AND part = 'charge' AND unit IS NOT NULL THEN share_quantity END
        AS "ConsumedQuantity",
    CASE WHEN category = 'Usage' AND part = 'charge' AND unit IS NOT NULL THEN unit END AS "ConsumedUnit",
    CASE WHEN part = 'unused' THEN CAST(0 AS DECIMAL(38, 12)) ELSE list_or_billed END AS "ContractedCost",
    CASE WHEN is_split AND part = 'charge' THEN CAST(0 AS DECIMAL(38, 12)) ELSE effective_cost END
        AS "EffectiveCost",
    invoice_id AS "InvoiceId",
    provider_name AS "InvoiceIssuerName",
    CASE WHEN part = 'unused' THEN CAST(0 AS DECIMAL(38, 12)) ELSE list_or_billed END AS "ListCost",
    CASE
        WHEN category NOT IN ('Usage', 'Purchase') THEN NULL
        WHEN commitment_id IS NOT NULL AND category = 'Usage' THEN 'Committed'
        WHEN pricing_category IN ('Standard', 'Dynamic', 'Committed', 'Other') THEN pricing_category
        WHEN pricing_category = 'On-Demand' THEN 'Standard'
        WHEN pricing_category = 'Spot' THEN 'Dynamic'
        WHEN pricing_category IS NOT NULL THEN 'Other'
    END AS "PricingCategory",
    CASE WHEN category <> 'Tax' THEN share_quantity END AS "PricingQuantity",
    CASE WHEN category <> 'Tax' AND share_quantity IS NOT NULL THEN coalesce(unit, 'Units') END AS "PricingUnit",
    provider_name AS "ProviderName",
    provider_name AS "PublisherName",
    region_id AS "RegionId",
    resource_id AS "ResourceId",
    CASE WHEN resource_id IS NOT NULL THEN resource_type END AS "ResourceType",
    service_category_focus AS "ServiceCategory",
    service AS "ServiceName",
    service_subcategory_focus AS "ServiceSubcategory",
    sub_account_id AS "SubAccountId",
    tags AS "Tags",
    project AS "x_Project",
    phase AS "x_Phase",
    method AS "x_Method",
    experiment_id AS "x_ExperimentId",
    rule AS "x_AllocationRule",
    reason AS "x_AllocationReason",
    cost_category AS "x_CostCategory",
    charge_id AS "x_ChargeId",
    charge_id,
    share_no,
    shares,
    provider,
    host_provider_name,
    usage_type,
    resource_name,
    part,
    timezone('UTC', origin_period_start) AS origin_start,
    timezone('UTC', origin_period_end) AS origin_end,
    -- to the micro-hour (0.0036 s), half up: an informative quantity, exact in its 6 places
    CAST((CAST(epoch_ms(charge_period_end) - epoch_ms(charge_period_start) AS HUGEINT) * 1000 + 1800) // 3600
         AS DECIMAL(38, 0)) * CAST('0.000001' AS DECIMAL(7, 6)) AS share_hours,
    CASE WHEN category = 'Usage' AND part = 'charge' AND unit IS NOT NULL THEN quantity END AS consumed_whole,
    CASE WHEN category <> 'Tax' THEN quantity END AS pricing_whole
FROM focus
