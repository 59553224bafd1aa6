-- Normalise AWS CUR 2.0 line items (view cur2_raw_full) into FOCUS-shaped charges.
-- Grain: one row per line item. Parameters: $source (source name).
-- Costs arrive as doubles (parquet) or text (csv.gz) and become DECIMAL(38, 12) once, here, rounded
-- half-even to 12 places (money, schema.sql). EffectiveCost is AWS's amortised cost
-- by line item type, as in AWS's Well-Architected "amortized cost by charge type" CUR query: covered usage
-- at its Savings Plan / reservation effective cost, the Savings Plan recurring fee at its unused commitment,
-- RIFee at its unused amortised upfront plus unused recurring fee, SP negation and upfront fee and a Fee
-- carrying a reservation ARN at zero, everything else as billed. Legacy CUR arrives here renamed (aws_cur).
-- Text: CUR writes '' for "no value" (the Athena/parquet form of legacy CUR on every string column); every
-- text column becomes NULL when empty (text_or_null), as FOCUS and the outputs want.
--
-- Split cost allocation data (EKS/ECS pods and tasks, GPUs included; CUR data dictionary "Split line item
-- details"): each pod-hour adds usage rows whose split_line_item_parent_resource_id names the EC2 instance,
-- split_line_item_split_cost (amortised) is the pod's part and split_line_item_unused_cost its part of the
-- instance's unused capacity. Σ (split + unused) over the instance-hour's pod rows is the instance's
-- amortised cost for that hour, so the pod rows restate the instance row (AWS's own dashboards leave them
-- out as "a subset of other usage"). Here the instance row's money moves onto its pod rows and is never
-- counted twice: a pod row's EffectiveCost is its split cost, its BilledCost the instance row's unblended
-- cost times split / Σ (split + unused), floored to 1e-12, its ListCost its public On-Demand split cost;
-- the instance row keeps the rest (the node's unused capacity and rounding) as resource_type 'k8s-node',
-- which attribution makes idle of the node's project. A pod row's own unblended cost stays on it too.
-- Pod rows without their instance row in the period keep their own (informational) cost.
-- Not the net_* split columns: they are after discounts, and the discounts are already their own rows
-- here (EdpDiscount, PrivateRateDiscount ... as Credit), so net values would count them twice.
--
-- Reserved GPU capacity (attribution spreads it with `[[reservations]]`, queries/attribute/reservations.sql).
-- EC2 Capacity Blocks for ML are paid upfront at purchase ("you receive an invoice that reflects the
-- one-time upfront payment ... associate the paid amount with the Capacity Block reservation ID", EC2 user
-- guide, capacity-blocks-pricing-billing) under usage type `<region>-CapacityBlockFee:<instance type>`
-- (us-east-1 without prefix), dated at the block's start; a cancelled block comes back as a Refund with
-- the same usage type (grafana/cloudcost-exporter, from Cost Explorer; Cost Explorer does not amortise
-- it). The CUR line item type of the fee was not found documented: whatever it is, the row is a Purchase
-- priced by a commitment here, and its EffectiveCost stays its unblended cost. An AWS engineer wrote
-- that the fee's effective cost is 0 and the hourly rows carry its amortisation (FOCUS_Spec PR #856), but
-- the FOCUS working group found Capacity Block usage rows that do not (FOCUS_Spec issue #1214), and no
-- CUR column for that amortisation was found: so trainledger amortises the fee itself, over the block's
-- window, and never counts it twice (the hourly instance rows keep their own cost: the OS fee or 0).
-- The fee's resource id is the reservation's ARN (arn:aws:ec2:<region>:<account>:capacity-reservation/
-- cr-...); where the row leaves it empty, the CUR 2.0 column capacity_reservation_capacity_reservation_arn
-- ("not null when a charge is related to a capacity reservation", CUR 2.0 data dictionary) names it.
-- On-Demand Capacity Reservations are billed as used: running instances on their own BoxUsage rows,
-- the reserved-but-unused instance-hours as `UnusedBox`/`UnusedDed` usage with line_item_resource_id the
-- reservation's ARN (CUR user guide "Monitoring On-Demand Capacity Reservations"); `Reservation`/
-- `DedicatedRes` rows carry rate 0. Both kinds of reservation row get resource_type 'capacity-reservation'.
WITH typed AS (
    SELECT
        *,
        money(line_item_unblended_cost) AS unblended,
        coalesce(money(pricing_public_on_demand_cost), 0) AS on_demand,
        coalesce(money(savings_plan_savings_plan_effective_cost), 0)
            AS sp_effective,
        coalesce(money(savings_plan_total_commitment_to_date), 0) AS sp_commitment,
        coalesce(money(savings_plan_used_commitment), 0) AS sp_used,
        coalesce(money(reservation_effective_cost), 0) AS ri_effective,
        coalesce(money(reservation_unused_amortized_upfront_fee_for_billing_period), 0)
            + coalesce(money(reservation_unused_recurring_fee), 0) AS ri_unused,
        utc_time(bill_billing_period_start_date) AS bp_start,
        utc_time(bill_billing_period_end_date) AS bp_end,
        coalesce(nullif(trim(CAST(line_item_resource_id AS VARCHAR)), ''),
                 CASE WHEN line_item_usage_type LIKE '%CapacityBlockFee%'
                      THEN nullif(trim(CAST(capacity_reservation_capacity_reservation_arn AS VARCHAR)), '') END)
            AS resource,
        coalesce(line_item_usage_type LIKE '%CapacityBlockFee%', false) AS block_fee
    FROM cur2_raw_full
),
pods AS (
    SELECT
        filename, file_row_number, trim(CAST(split_line_item_parent_resource_id AS VARCHAR)) AS split_parent,
        line_item_usage_start_date AS usage_start,
        coalesce(money(split_line_item_split_cost), 0) AS split,
        coalesce(money(split_line_item_unused_cost), 0) AS unused,
        coalesce(money(split_line_item_public_on_demand_split_cost), 0) AS list_split
    FROM cur2_raw_full
    WHERE nullif(trim(CAST(split_line_item_parent_resource_id AS VARCHAR)), '') IS NOT NULL
      AND split_line_item_split_cost IS NOT NULL
),
-- The instance-hour row each pod row restates: the instance's own usage row for the same hour (not its
-- data transfer or EBS rows, which carry the same id). Read from the raw view, as pods is, so that the
-- bill is scanned, not held: typed is read once, below.
parents AS (
    SELECT DISTINCT ON (resource, usage_start)
        filename, file_row_number, trim(CAST(line_item_resource_id AS VARCHAR)) AS resource,
        line_item_usage_start_date AS usage_start, money(line_item_unblended_cost) AS unblended
    FROM cur2_raw_full
    WHERE trim(CAST(line_item_resource_id AS VARCHAR)) IN (SELECT split_parent FROM pods)
      AND line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage')
      AND regexp_matches(coalesce(line_item_usage_type, ''), 'BoxUsage|SpotUsage|DedicatedUsage')
    ORDER BY resource, usage_start, filename, file_row_number
),
pod_shares AS (
    SELECT
        p.filename, p.file_row_number, r.filename AS parent_file, r.file_row_number AS parent_row,
        p.split AS effective_share, p.list_split AS list_share,
        CASE WHEN sum(p.split + p.unused) OVER w = 0 THEN CAST(0 AS DECIMAL(38, 12))
             ELSE CAST(CAST(to_units(r.unblended) * to_units(p.split) // to_units(sum(p.split + p.unused) OVER w)
                            AS DECIMAL(38, 0)) * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12))
        END AS billed_share
    FROM pods p
    JOIN parents r ON r.resource = p.split_parent AND r.usage_start = p.usage_start
    WINDOW w AS (PARTITION BY r.filename, r.file_row_number)
),
node_given AS (
    SELECT parent_file AS filename, parent_row AS file_row_number, sum(billed_share) AS billed_given,
           sum(effective_share) AS effective_given, sum(list_share) AS list_given
    FROM pod_shares
    GROUP BY ALL
),
base AS (
    SELECT t.*, ps.billed_share, ps.effective_share, ps.list_share, ng.billed_given, ng.effective_given,
           ng.list_given
    FROM typed t
    LEFT JOIN pod_shares ps USING (filename, file_row_number)
    LEFT JOIN node_given ng USING (filename, file_row_number)
)
SELECT
    $source AS source,
    'aws' AS provider,
    strftime(bp_start, '%Y-%m') AS billing_period,
    bp_start AS billing_period_start,
    bp_end AS billing_period_end,
    utc_time(line_item_usage_start_date) AS charge_period_start,
    utc_time(line_item_usage_end_date) AS charge_period_end,
    text_or_null(bill_payer_account_id) AS billing_account_id,
    text_or_null(line_item_usage_account_id) AS sub_account_id,
    CASE
        WHEN block_fee AND line_item_line_item_type <> 'Refund' THEN 'Purchase'
        WHEN line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage',
                                          'SavingsPlanNegation') THEN 'Usage'
        WHEN line_item_line_item_type IN ('SavingsPlanUpfrontFee', 'SavingsPlanRecurringFee', 'RIFee', 'Fee')
            THEN 'Purchase'
        WHEN line_item_line_item_type = 'Tax' THEN 'Tax'
        WHEN line_item_line_item_type IN ('Credit', 'Discount', 'BundledDiscount', 'EdpDiscount',
                                          'PrivateRateDiscount', 'RiVolumeDiscount', 'DistributorDiscount')
            THEN 'Credit'
        -- FOCUS files a refund under what it refunds, which a CUR Refund row does not say; Adjustment is
        -- FOCUS's category for what fits no other. Unknown types land here too and are reported.
        ELSE 'Adjustment'
    END AS charge_category,
    CASE WHEN line_item_line_item_type = 'Refund' THEN 'Correction' END AS charge_class,
    line_item_line_item_type AS line_item_type,
    coalesce(nullif(product['product_name'], ''), nullif(product_servicecode, ''), line_item_product_code)
        AS service_name,
    text_or_null(product_product_family) AS service_category,
    resource AS resource_id,
    CASE
        WHEN billed_given IS NOT NULL THEN 'k8s-node'
        WHEN effective_share IS NOT NULL THEN 'k8s-pod'
        WHEN resource LIKE 'i-%' THEN 'instance'
        WHEN resource LIKE 'vol-%' THEN 'volume'
        WHEN resource LIKE 'arn:aws:savingsplans:%' THEN 'savings-plan'
        WHEN resource LIKE 'arn:aws:ec2:%:capacity-reservation/cr-%' OR resource LIKE 'cr-%'
            THEN 'capacity-reservation'
        WHEN line_item_product_code = 'AmazonS3' THEN 'bucket'
    END AS resource_type,
    coalesce(text_or_null(product_region_code), text_or_null(product['region'])) AS region_id,
    text_or_null(product_sku) AS sku_id,
    text_or_null(line_item_usage_type) AS usage_type,
    money(line_item_usage_amount) AS consumed_quantity,
    text_or_null(pricing_unit) AS consumed_unit,
    line_item_currency_code AS billing_currency,
    unblended + coalesce(billed_share, 0) - coalesce(billed_given, 0) AS billed_cost,
    coalesce(effective_share, 0) - coalesce(effective_given, 0) + CASE WHEN block_fee THEN unblended
                                                                      ELSE CASE line_item_line_item_type
        WHEN 'SavingsPlanCoveredUsage' THEN sp_effective
        WHEN 'SavingsPlanRecurringFee' THEN sp_commitment - sp_used
        WHEN 'SavingsPlanNegation' THEN CAST(0 AS DECIMAL(38, 12))
        WHEN 'SavingsPlanUpfrontFee' THEN CAST(0 AS DECIMAL(38, 12))
        WHEN 'DiscountedUsage' THEN ri_effective
        WHEN 'RIFee' THEN ri_unused
        WHEN 'Fee' THEN CASE WHEN coalesce(reservation_reservation_a_r_n, '') <> ''
                             THEN CAST(0 AS DECIMAL(38, 12)) ELSE unblended END
        ELSE unblended
    END END AS effective_cost,
    coalesce(list_share, 0) - coalesce(list_given, 0)
        + CASE WHEN line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage')
               THEN on_demand ELSE CAST(0 AS DECIMAL(38, 12)) END AS list_cost,
    coalesce(nullif(savings_plan_savings_plan_a_r_n, ''), nullif(reservation_reservation_a_r_n, ''))
        AS commitment_id,
    CASE
        WHEN block_fee THEN 'Committed'
        WHEN line_item_line_item_type IN ('SavingsPlanCoveredUsage', 'DiscountedUsage', 'SavingsPlanRecurringFee',
                                          'SavingsPlanUpfrontFee', 'RIFee', 'SavingsPlanNegation')
            THEN 'Committed'
        WHEN line_item_usage_type LIKE '%SpotUsage%' THEN 'Dynamic'
        WHEN line_item_line_item_type = 'Usage' THEN 'Standard'
    END AS pricing_category,
    coalesce(CAST(to_json(resource_tags) AS VARCHAR), '{}') AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row,
    identity_line_item_id AS row_identity,
    CAST(NULL AS VARCHAR) AS credits,
    CAST(NULL AS DOUBLE) AS currency_conversion_rate,
    text_or_null(bill_invoice_id) AS invoice_id
FROM base
