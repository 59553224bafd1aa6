-- Normalise Google's FOCUS export rows (view gcp_flat, columns of gcp_focus.py FOCUS) into charges, plus
-- their x_ExportTime. Grain: one row per export row. Parameters: $source (source name), $since (TIMESTAMP,
-- UTC: rows exported at or after it), $month (invoice month YYYYMM, or NULL for all).
-- Identity: like the detailed export (normalize_gcp_billing.sql), the table is append-only and has no line
-- item id, so a row is the md5 of its content (x_ExportTime included) numbered among identical rows of the
-- same file; the same row read again, from an overlapping pull or a re-exported shard, is skipped.
-- Columns are Google's FOCUS values as given: BilledCost already nets the row's credits (listed, by type,
-- in x_Credits -> credits), ChargeCategory and ChargeClass are Google's (case normalised). The billing
-- period is the month 15 days into [BillingPeriodStart, BillingPeriodEnd): Google bills Pacific months, and
-- the bounds are kept as given. Where the export leaves a column out, what gcp-billing would derive from
-- the same row fills it: ResourceType from the resource's global name, CommitmentDiscountId from
-- x_SubscriptionInstanceId, ListCost from ContractedCost (the row's cost before credits).
-- Labels: x_Labels win over x_ProjectLabels on the same key; x_SystemLabels are kept under their own
-- (namespaced) keys; resource-manager tags (x_Tags) are not read, as gcp-billing reads no `tags` either.
WITH scoped AS (
    SELECT *, strftime(billing_period_start + INTERVAL 15 DAY, '%Y%m') AS invoice_month
    FROM gcp_flat
    WHERE export_time >= $since
      AND ($month IS NULL OR strftime(billing_period_start + INTERVAL 15 DAY, '%Y%m') = $month)
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
                lambda c: {'type': c.type, 'name': c.name, 'id': c.id, 'full_name': c.fullname, 'amount': c.amount}
            ),
            []
        ) AS credit_list
    FROM scoped
),
hashed AS (
    -- The content as explicit text (fixed timestamp format, decimal text, \N for NULL, unit/record
    -- separators), so the identity does not depend on how a DuckDB version renders JSON.
    SELECT
        *,
        md5(concat_ws(chr(31),
            coalesce(billing_account_id, '\N'), coalesce(sub_account_id, '\N'),
            coalesce(CAST(billed_cost AS VARCHAR), '\N'), coalesce(CAST(effective_cost AS VARCHAR), '\N'),
            coalesce(CAST(list_cost AS VARCHAR), '\N'), coalesce(CAST(contracted_cost AS VARCHAR), '\N'),
            coalesce(billing_currency, '\N'),
            coalesce(strftime(billing_period_start, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(strftime(billing_period_end, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(strftime(charge_period_start, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(strftime(charge_period_end, '%Y-%m-%dT%H:%M:%S.%f'), '\N'),
            coalesce(charge_category, '\N'), coalesce(charge_class, '\N'), coalesce(charge_description, '\N'),
            coalesce(CAST(consumed_quantity AS VARCHAR), '\N'), coalesce(consumed_unit, '\N'),
            coalesce(pricing_category, '\N'), coalesce(region_id, '\N'), coalesce(resource_id, '\N'),
            coalesce(resource_name, '\N'), coalesce(resource_type, '\N'), coalesce(service_name, '\N'),
            coalesce(service_category, '\N'), coalesce(sku_id, '\N'), coalesce(commitment_discount_id, '\N'),
            coalesce(invoice_id, '\N'), coalesce(cost_type, '\N'), coalesce(location, '\N'),
            coalesce(service_id, '\N'), coalesce(project_id, '\N'), coalesce(project_number, '\N'),
            coalesce(subscription_instance_id, '\N'),
            gcp_labels_text(own_labels),
            gcp_labels_text(inherited_labels),
            gcp_labels_text(google_labels),
            gcp_credits_text(credit_list),
            strftime(export_time, '%Y-%m-%dT%H:%M:%S.%f')
        )) AS content_hash
    FROM shaped
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
    billing_period_start,
    billing_period_end,
    charge_period_start,
    charge_period_end,
    billing_account_id,
    coalesce(sub_account_id, project_id) AS sub_account_id,
    CASE lower(charge_category)
        WHEN 'usage' THEN 'Usage' WHEN 'purchase' THEN 'Purchase' WHEN 'tax' THEN 'Tax'
        WHEN 'credit' THEN 'Credit' WHEN 'adjustment' THEN 'Adjustment'
    END AS charge_category,
    CASE WHEN lower(charge_class) = 'correction' THEN 'Correction' END AS charge_class,
    cost_type AS line_item_type,
    service_name,
    service_category,
    nullif(resource_id, '') AS resource_id,
    nullif(resource_name, '') AS resource_name,
    coalesce(nullif(resource_type, ''), CASE
        WHEN resource_id LIKE '//compute.googleapis.com/%/instances/%' THEN 'instance'
        WHEN resource_id LIKE '//compute.googleapis.com/%/disk/%'
          OR resource_id LIKE '//compute.googleapis.com/%/disks/%' THEN 'disk'
        WHEN resource_id LIKE '//storage.googleapis.com/%' THEN 'bucket'
    END) AS resource_type,
    coalesce(region_id, location) AS region_id,
    sku_id,
    charge_description AS usage_type,
    consumed_quantity,
    consumed_unit,
    billing_currency,
    billed_cost,
    coalesce(effective_cost, billed_cost) AS effective_cost,
    coalesce(list_cost, contracted_cost, billed_cost) AS list_cost,
    coalesce(commitment_discount_id, subscription_instance_id) AS commitment_id,
    CASE lower(pricing_category)
        WHEN 'standard' THEN 'Standard' WHEN 'committed' THEN 'Committed' WHEN 'dynamic' THEN 'Dynamic'
        WHEN 'other' THEN 'Other'
    END AS pricing_category,
    gcp_tags_json(own_labels, inherited_labels, google_labels) AS tags,
    source_file,
    source_row,
    identity AS row_identity,
    gcp_credits_json(credit_list) AS credits,
    currency_conversion_rate,
    invoice_id,
    export_time
FROM identified
QUALIFY row_number() OVER (PARTITION BY identity ORDER BY source_file, source_row) = 1
