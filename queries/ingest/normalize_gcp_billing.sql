-- Normalise Cloud Billing export rows (view gcp_flat) into FOCUS-shaped charges, plus their export_time.
-- Grain: one row per export row. Parameters: $source (source name), $since (TIMESTAMP, UTC: rows exported
-- at or after it), $month (invoice month YYYYMM, or NULL for all).
-- Identity: the export has no line item id and is append-only, so a row is the md5 of its content
-- (export_time included) numbered among identical rows of the same file; the same row read again, from
-- an overlapping pull or file, gets the same row_identity and is skipped by the caller.
-- Categories: tax -> Tax; rounding_error -> Adjustment; goodwill and SLA adjustments -> Credit;
-- commitment fees -> Purchase; usage and its corrections -> Usage (FOCUS: usage "including refunds");
-- anything else -> Adjustment. ChargeClass is 'Correction' only for a correction of usage from before
-- the invoice month (FOCUS 1.2: corrections within the current billing period leave it NULL).
-- Money: cost is a FLOAT turned into DECIMAL(38, 12) once, from its shortest decimal text (Google writes
-- micros). Credits stay on the row they were granted on: BilledCost = EffectiveCost = cost +
-- sum(credits.amount), what Google's invoice charges for the row (it subtracts committed use, sustained
-- use, promotional, free-trial and other credits), so the BilledCost of an invoice month, all cost types,
-- is the invoice total. The credits themselves stay listed, by type, in `credits`; ListCost = cost_at_list
-- where present, else cost (both before credits).
-- Invoice months run on Pacific time (Google bills in America/Los_Angeles), so the billing period
-- bounds are Pacific midnights in UTC. Labels: resource labels win over project labels on the same key;
-- system labels are kept under their own namespaced keys (never a user label key). Resources: the id is
-- resource.global_name (else resource.name); the name is kept too, for the experiment log (SPEC §5).
WITH scoped AS (
    SELECT *
    FROM gcp_flat
    WHERE export_time >= $since AND ($month IS NULL OR invoice_month = $month)
),
shaped AS (
    SELECT
        *,
        gcp_label_list(labels) AS own_labels,
        gcp_label_list(project_labels) AS inherited_labels,
        gcp_label_list(system_labels) AS google_labels,
        coalesce(
            list_transform(
                credits,
                lambda c: {'type': c.type, 'name': c.name, 'id': c.id, 'full_name': c.full_name, 'amount': c.amount}
            ),
            []
        ) AS credit_list,
        adjustment_type IN ('USAGE_CORRECTION', 'PRICE_CORRECTION', 'METADATA_CORRECTION')
            OR adjustment_mode IN ('PARTIAL_CORRECTION', 'COMPLETE_NEGATION', 'COMPLETE_NEGATION_WITH_REMONETIZATION')
            AS corrective,
        strptime(invoice_month, '%Y%m') AS invoice_local_start
    FROM scoped
),
netted AS (
    SELECT
        *,
        CAST(cost + coalesce(list_sum(list_transform(credit_list, lambda c: c.amount)), 0) AS DECIMAL(38, 12))
            AS net_cost
    FROM shaped
),
hashed AS (
    -- The content as explicit text (fixed timestamp format, decimal text, \N for NULL, unit/record
    -- separators), so the identity does not depend on how a DuckDB version renders JSON.
    SELECT
        *,
        md5(concat_ws(chr(31),
            coalesce(billing_account_id, '\N'), coalesce(service_id, '\N'), coalesce(service_description, '\N'),
            coalesce(sku_id, '\N'), coalesce(sku_description, '\N'),
            coalesce(strftime(usage_start_time, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(strftime(usage_end_time, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(project_id, '\N'), coalesce(project_number, '\N'),
            gcp_labels_text(own_labels),
            gcp_labels_text(inherited_labels),
            gcp_labels_text(google_labels),
            coalesce(location_location, '\N'), coalesce(location_region, '\N'), coalesce(location_zone, '\N'),
            coalesce(resource_name, '\N'), coalesce(resource_global_name, '\N'),
            coalesce(CAST(cost AS VARCHAR), '\N'), coalesce(CAST(cost_at_list AS VARCHAR), '\N'),
            coalesce(currency, '\N'),
            coalesce(CAST(usage_amount AS VARCHAR), '\N'), coalesce(usage_unit, '\N'),
            coalesce(CAST(usage_amount_in_pricing_units AS VARCHAR), '\N'), coalesce(usage_pricing_unit, '\N'),
            coalesce(CAST(price_effective_price AS VARCHAR), '\N'), coalesce(price_unit, '\N'),
            gcp_credits_text(credit_list),
            coalesce(invoice_month, '\N'), coalesce(cost_type, '\N'), coalesce(adjustment_id, '\N'),
            coalesce(adjustment_mode, '\N'), coalesce(adjustment_type, '\N'),
            coalesce(subscription_instance_id, '\N'), coalesce(transaction_type, '\N'), coalesce(seller_name, '\N'),
            strftime(export_time, '%Y-%m-%dT%H:%M:%S.%f')
        )) AS content_hash
    FROM netted
),
identified AS (
    SELECT
        *,
        content_identity(content_hash, source_file, source_row) AS identity
    FROM hashed
)
SELECT
    $source AS source,
    'gcp' AS provider,
    substr(invoice_month, 1, 4) || '-' || substr(invoice_month, 5, 2) AS billing_period,
    timezone('UTC', timezone('America/Los_Angeles', invoice_local_start)) AS billing_period_start,
    timezone('UTC', timezone('America/Los_Angeles', invoice_local_start + INTERVAL 1 MONTH)) AS billing_period_end,
    usage_start_time AS charge_period_start,
    usage_end_time AS charge_period_end,
    billing_account_id,
    project_id AS sub_account_id,
    CASE
        WHEN cost_type = 'tax' THEN 'Tax'
        WHEN cost_type = 'rounding_error' THEN 'Adjustment'
        WHEN adjustment_type IN ('GOODWILL', 'SALES_BASED_GOODWILL', 'SLA_VIOLATION') THEN 'Credit'
        WHEN (cost_type = 'regular' OR corrective) AND sku_description LIKE 'Commitment%' THEN 'Purchase'
        WHEN cost_type = 'regular' OR corrective THEN 'Usage'
        ELSE 'Adjustment'
    END AS charge_category,
    CASE
        WHEN corrective
         AND strftime(timezone('America/Los_Angeles', timezone('UTC', usage_start_time)), '%Y%m') < invoice_month
            THEN 'Correction'
    END AS charge_class,
    cost_type || coalesce(':' || adjustment_type, '') AS line_item_type,
    service_description AS service_name,
    CAST(NULL AS VARCHAR) AS service_category,
    coalesce(nullif(resource_global_name, ''), nullif(resource_name, '')) AS resource_id,
    nullif(resource_name, '') AS resource_name,
    CASE
        WHEN resource_global_name LIKE '//compute.googleapis.com/%/instances/%' THEN 'instance'
        WHEN resource_global_name LIKE '//compute.googleapis.com/%/disk/%'
          OR resource_global_name LIKE '//compute.googleapis.com/%/disks/%' THEN 'disk'
        WHEN resource_global_name LIKE '//storage.googleapis.com/%' THEN 'bucket'
    END AS resource_type,
    coalesce(location_region, location_location) AS region_id,
    sku_id,
    sku_description AS usage_type,
    usage_amount AS consumed_quantity,
    usage_unit AS consumed_unit,
    currency AS billing_currency,
    net_cost AS billed_cost,
    net_cost AS effective_cost,
    coalesce(cost_at_list, cost) AS list_cost,
    subscription_instance_id AS commitment_id,
    CASE
        WHEN list_contains(list_transform(credit_list, lambda c: c.type), 'COMMITTED_USAGE_DISCOUNT')
          OR sku_description LIKE 'Commitment%' THEN 'Committed'
        WHEN sku_description ILIKE '%spot%' OR sku_description ILIKE '%preemptible%' THEN 'Dynamic'
        WHEN cost_type = 'regular' THEN 'Standard'
    END AS pricing_category,
    gcp_tags_json(own_labels, inherited_labels, google_labels) AS tags,
    source_file,
    source_row,
    identity AS row_identity,
    gcp_credits_json(credit_list) AS credits,
    currency_conversion_rate,
    export_time
FROM identified
QUALIFY row_number() OVER (PARTITION BY identity ORDER BY source_file, source_row) = 1
