-- Warehouse schema: every table trainledger keeps, created if absent.
-- Grain is stated per table. No parameters. Money is DECIMAL(38, 12) everywhere; currency travels on every
-- money row.

-- What trainledger knows about the warehouse itself: its schema version (key 'schema_version', see
-- warehouse/schema.py), written after this file ran. Grain: key.
CREATE TABLE IF NOT EXISTS trainledger_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per billed line item, FOCUS-shaped, from any connector.
-- charge_id is a number the loader gives: the file's slot (sequence charge_file_slots, never reused) times
-- 2^32 plus the row's number in its file. A number, not text, because a month of charges and their
-- allocations is written and joined by it: at 10M line items an md5 text key cost 2.5 s to write per table.
CREATE SEQUENCE IF NOT EXISTS charge_file_slots START 1;

CREATE TABLE IF NOT EXISTS charges (
    charge_id BIGINT NOT NULL,                  -- unique per charge (no index: bulk loads)
    source VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    billing_period VARCHAR NOT NULL,            -- YYYY-MM (invoice month)
    billing_period_start TIMESTAMP NOT NULL,    -- UTC
    billing_period_end TIMESTAMP NOT NULL,
    charge_period_start TIMESTAMP,
    charge_period_end TIMESTAMP,
    billing_account_id VARCHAR,
    sub_account_id VARCHAR,
    charge_category VARCHAR NOT NULL,           -- Usage, Purchase, Tax, Credit, Adjustment
    charge_class VARCHAR,                       -- NULL or Correction
    line_item_type VARCHAR,                     -- provider's own type, kept for audit
    service_name VARCHAR,
    service_category VARCHAR,
    resource_id VARCHAR,
    resource_type VARCHAR,
    region_id VARCHAR,
    sku_id VARCHAR,
    usage_type VARCHAR,
    consumed_quantity DECIMAL(38, 12),
    consumed_unit VARCHAR,
    billing_currency VARCHAR NOT NULL,
    billed_cost DECIMAL(38, 12) NOT NULL,
    effective_cost DECIMAL(38, 12) NOT NULL,
    list_cost DECIMAL(38, 12) NOT NULL,
    commitment_id VARCHAR,                      -- savings plan / reservation / CUD that priced the row
    pricing_category VARCHAR,                   -- On-Demand, Committed, Spot, Other
    tags VARCHAR NOT NULL,                      -- JSON object, keys as the provider wrote them
    source_row BIGINT,                          -- 1-based; the file is the charge's slot's (charge_files)
    row_identity VARCHAR,                       -- provider's line item id, for audit (CUR: identity_line_item_id,
                                                -- repeated per hour: the charge period tells those apart)
    credits VARCHAR,                            -- GCP: JSON list of the row's credits, each type kept;
                                                -- FOCUS 1.3: the row's ContractApplied object
    currency_conversion_rate DOUBLE,            -- GCP: local currency per USD, as the export gives it
    resource_name VARCHAR,                      -- the resource's own name where the bill gives one besides its
                                                -- id (GCP resource.name, FOCUS ResourceName): the log may use it
    invoice_id VARCHAR,                         -- the provider's invoice (CUR bill_invoice_id, FOCUS InvoiceId);
                                                -- NULL while the charge is on no invoice yet, or the bill
                                                -- does not say (the GCP export gives only invoice.month)
    host_provider VARCHAR                       -- FOCUS 1.3 HostProviderName: whose infrastructure the service
                                                -- runs on (MongoDB Atlas on AWS: aws), as `provider` names
                                                -- one (provider_id: the table's id, else the name lowercased,
                                                -- 'not applicable' kept so); NULL where the bill does not say
);

-- Columns added since the first release: an older warehouse gains them in place (no-ops otherwise).
ALTER TABLE charges ADD COLUMN IF NOT EXISTS credits VARCHAR;
ALTER TABLE charges ADD COLUMN IF NOT EXISTS currency_conversion_rate DOUBLE;
ALTER TABLE charges ADD COLUMN IF NOT EXISTS invoice_id VARCHAR;
ALTER TABLE charges ADD COLUMN IF NOT EXISTS resource_name VARCHAR;
ALTER TABLE charges ADD COLUMN IF NOT EXISTS host_provider VARCHAR;

-- The file each charge was read from, once per file: a charge's id is its file's slot x 2^32 + its row
-- number there (charge_slot). Grain: slot.
CREATE TABLE IF NOT EXISTS charge_files (
    slot BIGINT PRIMARY KEY,
    source VARCHAR NOT NULL,
    file VARCHAR NOT NULL                       -- as the user would look for it: s3://..., gs://..., a path
);

-- Live resources seen by inventory connectors (EC2/EBS tags, GCE labels). Grain: provider × resource.
CREATE TABLE IF NOT EXISTS resources (
    provider VARCHAR NOT NULL,
    resource_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    resource_type VARCHAR,
    region_id VARCHAR,
    tags VARCHAR NOT NULL,
    aliases VARCHAR[],                          -- other names the bill may use (GCP numeric id, global name)
    first_seen TIMESTAMP NOT NULL,
    last_seen TIMESTAMP NOT NULL,
    PRIMARY KEY (provider, resource_id)
);

-- List prices from a provider's price catalog (gcp-catalog: Cloud Billing Catalog API), for the
-- estimator's price sheet. Grain: source × SKU × pricing tier; each fetch replaces the source's rows.
--   provider        'gcp'
--   source          the [[sources]] name that fetched it
--   service         catalog service display name, e.g. 'Compute Engine'
--   sku_id          e.g. '1A2B-3C4D-5E6F'; the billing export's sku.id is the same id
--   description     e.g. 'Nvidia H100 80GB GPU running in Americas'
--   resource_group  catalog category: 'GPU', 'CPU', 'RAM', 'SSD', ...
--   usage_type      'OnDemand', 'Preemptible' (spot), 'Commit1Yr', 'Commit3Yr', ...
--   gpu_type        GPU model read from the description: 'A100', 'H100', 'H200', 'B200', 'GB200', 'L4',
--                   'T4', 'V100', 'P100', 'P4', 'K80' (NULL when not a GPU SKU); memory variants
--                   (A100 40GB vs 80GB) differ only in description and price
--   regions         service regions the price applies to
--   unit            the catalog's usage unit the price is per, e.g. 'h' (per GPU-hour for a GPU SKU)
--   unit_description e.g. 'hour', 'gibibyte month'
--   tier_start      usage (in `unit`) from which this tier's price applies; 0 for the first tier
--   currency        ISO code of price_per_unit
--   price_per_unit  exact: Money units + nanos / 10^9
--   effective_time  when the catalog says this price took effect (UTC)
--   fetched_at      when trainledger read it (UTC): the price sheet's date
CREATE TABLE IF NOT EXISTS prices (
    provider VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    service VARCHAR,
    sku_id VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    resource_group VARCHAR,
    usage_type VARCHAR,
    gpu_type VARCHAR,
    regions VARCHAR[],
    unit VARCHAR NOT NULL,
    unit_description VARCHAR,
    tier_start DECIMAL(38, 12) NOT NULL,
    currency VARCHAR NOT NULL,
    price_per_unit DECIMAL(38, 12) NOT NULL,
    effective_time TIMESTAMP,
    fetched_at TIMESTAMP NOT NULL,
    PRIMARY KEY (source, sku_id, tier_start)
);

-- Usage reported without a cost that no [[rates]] entry prices (connectors/rated.py): never a charge, never
-- priced 0; `labels` reports it. Each load of a source's period replaces that period's rows.
-- Grain: source x billing period x rate key x unit.
CREATE TABLE IF NOT EXISTS unpriced_usage (
    source VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    billing_period VARCHAR NOT NULL,
    rate_key VARCHAR NOT NULL,                  -- the SKU or node a rate is missing for
    unit VARCHAR NOT NULL,
    usage_rows BIGINT NOT NULL,
    quantity DECIMAL(38, 12) NOT NULL,
    first_start TIMESTAMP NOT NULL,
    last_end TIMESTAMP NOT NULL,
    first_file VARCHAR NOT NULL,
    first_row BIGINT NOT NULL
);

-- Every name the bill or the log may use for a resource, each mapped to one resource key (SPEC §5: a GCP
-- instance is its name, its numeric id or its global name). From the inventory: its id, then its aliases.
-- From the bill alone: a charge's resource name (GCP resource.name, FOCUS ResourceName) and, for a GCP
-- instance, the numeric id that ends its global name, both naming the charge's resource id. An inventory
-- id beats an inventory alias beats a bill name; a name two resources share goes to the first key.
-- Grain: provider x name.
CREATE OR REPLACE VIEW resource_names AS
SELECT DISTINCT ON (provider, name) provider, name, rkey
FROM (
    SELECT provider, resource_id AS name, resource_id AS rkey, 0 AS pri FROM resources
    UNION ALL
    SELECT provider, unnest(aliases) AS name, resource_id AS rkey, 1 AS pri
    FROM resources WHERE aliases IS NOT NULL
    UNION ALL
    SELECT DISTINCT provider, resource_name AS name, resource_id AS rkey, 2 AS pri
    FROM charges WHERE resource_name IS NOT NULL AND resource_id IS NOT NULL AND resource_name <> resource_id
    UNION ALL
    SELECT DISTINCT provider, regexp_extract(resource_id, '/instances/([0-9]+)$', 1) AS name, resource_id AS rkey,
           2 AS pri
    FROM charges WHERE provider = 'gcp' AND regexp_matches(resource_id, '^//compute[.]googleapis[.]com/.*/instances/[0-9]+$')
)
ORDER BY provider, name, pri, rkey;

-- Experiments from the log, after field-by-field merging of records. Grain: experiment.
CREATE TABLE IF NOT EXISTS experiments (
    experiment_id VARCHAR PRIMARY KEY,
    project VARCHAR,
    method VARCHAR,
    status VARCHAR,
    started_at TIMESTAMP,
    ended_at TIMESTAMP,
    params VARCHAR,                             -- JSON
    estimate VARCHAR,                           -- JSON
    metrics VARCHAR,                            -- JSON
    record VARCHAR                              -- the merged record, JSON
);

-- Which resource an experiment used, when, in which phase. Grain: experiment × phase × resource window.
CREATE TABLE IF NOT EXISTS experiment_resources (
    experiment_id VARCHAR NOT NULL,
    phase VARCHAR,
    provider VARCHAR,
    resource_id VARCHAR NOT NULL,
    gpus INTEGER,
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP NOT NULL
);

-- Estimates per experiment × phase × category (category NULL: the whole phase). Grain as said.
CREATE TABLE IF NOT EXISTS estimates (
    experiment_id VARCHAR NOT NULL,
    phase VARCHAR NOT NULL,
    category VARCHAR,
    currency VARCHAR NOT NULL,
    amount DECIMAL(38, 12) NOT NULL,
    basis VARCHAR NOT NULL                      -- 'log' (given) or 'estimator'
);
-- What bills an estimated amount: 'llm_api' (judge calls, synthetic data on a model API), 'cloud', or NULL
-- (the log's own estimate: the cloud).
ALTER TABLE estimates ADD COLUMN IF NOT EXISTS spend VARCHAR;

-- Tag sets resolved to the attribution key by the label scheme. Grain: distinct tags JSON.
CREATE TABLE IF NOT EXISTS label_sets (
    tags VARCHAR PRIMARY KEY,
    project VARCHAR,
    phase VARCHAR,
    method VARCHAR,
    experiment_id VARCHAR,
    status VARCHAR NOT NULL,                    -- ok, partial, untagged, unknown-label, conflict
    problem VARCHAR
);

-- Cost categories resolved per service / usage type / the bill's own service category (a FOCUS file's
-- ServiceCategory). Grain: provider × service × usage type × charge category × service category.
CREATE TABLE IF NOT EXISTS charge_categories (
    provider VARCHAR,
    service_name VARCHAR,
    usage_type VARCHAR,
    charge_category VARCHAR,
    service_category VARCHAR,
    cost_category VARCHAR NOT NULL,
    known BOOLEAN NOT NULL
);
-- Rebuilt at every attribution; an older warehouse gains the column (placed last: rows go in BY NAME).
ALTER TABLE charge_categories ADD COLUMN IF NOT EXISTS service_category VARCHAR;

-- What a charge is billed as, apart from its time, resource, attribution and money: a few thousand per
-- month however large the bill. Allocations name it by kind_id, the 64-bit hash of these columns
-- (macro charge_kind_id), so that a month of allocations does not write nine text columns per row (at 10M
-- allocations: 3.5 s). Two different kinds with one hash would fail the primary key, never merge.
-- Grain: kind. Kinds no allocation names are dropped after each attribution.
CREATE TABLE IF NOT EXISTS charge_kinds (
    kind_id UBIGINT PRIMARY KEY,
    source VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    billing_period VARCHAR NOT NULL,
    billing_account_id VARCHAR,
    sub_account_id VARCHAR,
    service_name VARCHAR,
    charge_category VARCHAR NOT NULL,
    pricing_category VARCHAR,
    currency VARCHAR NOT NULL
);

-- The shares of the charges attribution splits (time windows, several runs, a reservation, shared cost
-- spread): every charge's exact parts, the kind of charge by reference. Shares count from 1; a charge given
-- an exact split keeps a share 0, where rules 1-3 left it before the split (for audit; not an allocation),
-- in allocation_refs when placing wrote it there. About 1% of a month's charges; the rest have one share,
-- the charge itself, written by reference (allocation_refs). Grain: charge × share. Read through the view
-- `allocations`.
CREATE TABLE IF NOT EXISTS allocation_rows (
    charge_id BIGINT NOT NULL,
    share_no INTEGER NOT NULL,
    kind_id UBIGINT NOT NULL,                   -- charge_kinds
    charge_period_start TIMESTAMP,
    charge_period_end TIMESTAMP,
    project VARCHAR,
    phase VARCHAR,
    method VARCHAR,
    experiment_id VARCHAR,
    cost_category VARCHAR NOT NULL,
    rule VARCHAR NOT NULL,                      -- tag, inventory, time-window, idle, reservation, shared,
                                                -- manual, unattributed
    reason VARCHAR,
    billed_cost DECIMAL(38, 12) NOT NULL,
    effective_cost DECIMAL(38, 12) NOT NULL,
    list_cost DECIMAL(38, 12) NOT NULL
);

-- What a charge placed whole is attributed as: the labels, rule and reason of an allocation, a few thousand
-- per month however large the bill. tuple_id is their 64-bit hash (macro allocation_tuple_id); each tuple is
-- written from one charge placed again (attribute/tuples), so a tuple's text costs nothing per charge.
-- Grain: tuple. Tuples no reference names are dropped after each attribution.
CREATE TABLE IF NOT EXISTS allocation_tuples (
    tuple_id UBIGINT PRIMARY KEY,
    project VARCHAR,
    phase VARCHAR,
    method VARCHAR,
    experiment_id VARCHAR,
    cost_category VARCHAR NOT NULL,
    rule VARCHAR NOT NULL,
    reason VARCHAR
);

-- Allocations by reference: a charge with one share (about 99% of a month) is the charge itself, with the
-- tuple attribution gave it; its money, times and kind are read from `charges`, never copied (at 10M
-- charges, a copy cost as much as a third of the bill's own write). Share 1 is the allocation; share 0 a
-- charge held for the exact split, where rules 1-3 left it (its shares are in allocation_rows).
-- Grain: charge × share (0 or 1).
CREATE TABLE IF NOT EXISTS allocation_refs (
    charge_id BIGINT NOT NULL,
    share_no INTEGER NOT NULL,
    tuple_id UBIGINT NOT NULL                   -- allocation_tuples
);

-- The charges placed whole, summed per tuple, kind and UTC day of the charge: what reports and exports sum
-- (about 3% of the references at 10M charges), written once per attribution (attribute/cells) so a report
-- does not join every reference with its charge again. `charges` counts them. Written a range of charge
-- files at a time (about 10M charges each), so a group with charges in two ranges has a cell in each: readers
-- sum them. Grain: tuple × kind × day × range of files.
CREATE TABLE IF NOT EXISTS allocation_cells (
    tuple_id UBIGINT NOT NULL,                  -- allocation_tuples
    kind_id UBIGINT NOT NULL,                   -- charge_kinds
    charge_day TIMESTAMP,                       -- date_trunc('day', charge_period_start)
    charges BIGINT NOT NULL,
    billed_cost DECIMAL(38, 12) NOT NULL,
    effective_cost DECIMAL(38, 12) NOT NULL,
    list_cost DECIMAL(38, 12) NOT NULL
);

-- Every charge split into shares that sum exactly to it, with the charge's kind spelled out: what every
-- report, export and check reads. The stored shares, then the charges by reference.
-- Grain: charge × share.
CREATE OR REPLACE VIEW allocations AS
SELECT
    a.charge_id, a.share_no, k.source, k.provider, k.billing_period, k.billing_account_id, k.sub_account_id,
    a.charge_period_start, a.charge_period_end, a.project, a.phase, a.method, a.experiment_id, a.cost_category,
    k.service_name, k.charge_category, k.pricing_category, a.rule, a.reason, k.currency, a.billed_cost,
    a.effective_cost, a.list_cost
FROM allocation_rows a
JOIN charge_kinds k USING (kind_id)
WHERE a.share_no > 0
UNION ALL
SELECT
    r.charge_id, r.share_no, c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id,
    c.charge_period_start, c.charge_period_end, t.project, t.phase, t.method, t.experiment_id, t.cost_category,
    c.service_name, c.charge_category, c.pricing_category, t.rule, t.reason, c.billing_currency AS currency,
    c.billed_cost, c.effective_cost, c.list_cost
FROM allocation_refs r
JOIN charges c USING (charge_id)
JOIN allocation_tuples t USING (tuple_id)
WHERE r.share_no > 0;

-- The allocations summed by day: every column of the view `allocations` but the charge's id, share and end,
-- the start truncated to its UTC day. The same sums by any of its columns (or by day, month, or a range of
-- whole days) as the view's, read from the cells instead of every reference joined with its charge.
-- Grain: stored share, or tuple × kind × day.
CREATE OR REPLACE VIEW allocation_days AS
SELECT
    k.source, k.provider, k.billing_period, k.billing_account_id, k.sub_account_id,
    date_trunc('day', a.charge_period_start) AS charge_period_start, a.project, a.phase, a.method,
    a.experiment_id, a.cost_category, k.service_name, k.charge_category, k.pricing_category, a.rule, a.reason,
    k.currency, a.billed_cost, a.effective_cost, a.list_cost
FROM allocation_rows a
JOIN charge_kinds k USING (kind_id)
WHERE a.share_no > 0
UNION ALL
SELECT
    k.source, k.provider, k.billing_period, k.billing_account_id, k.sub_account_id,
    c.charge_day AS charge_period_start, t.project, t.phase, t.method, t.experiment_id, t.cost_category,
    k.service_name, k.charge_category, k.pricing_category, t.rule, t.reason, k.currency, c.billed_cost,
    c.effective_cost, c.list_cost
FROM allocation_cells c
JOIN charge_kinds k USING (kind_id)
JOIN allocation_tuples t USING (tuple_id);

-- What each source/period ingest read, so unchanged inputs are skipped and restatements detected.
CREATE TABLE IF NOT EXISTS ingest_state (
    source VARCHAR NOT NULL,
    billing_period VARCHAR NOT NULL,
    version VARCHAR NOT NULL,                   -- manifest execution/assembly id or content fingerprint
    files VARCHAR NOT NULL,                     -- JSON list of files read
    row_count BIGINT NOT NULL,
    billed_total DECIMAL(38, 12),
    ingested_at TIMESTAMP NOT NULL,
    PRIMARY KEY (source, billing_period)
);

-- Run ledger of nightly/ingest/attribute runs.
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    command VARCHAR NOT NULL,
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP,
    outcome VARCHAR NOT NULL,
    detail VARCHAR                              -- JSON: sources, versions, row counts, totals
);

-- What the last complete run of a step was computed from (a fingerprint: sha256 of everything its result
-- depends on) and what it produced, so that a run whose inputs are unchanged skips the step.
-- Grain: step ('experiments', 'attribution', 'export:<file>'). Written in the step's own transaction.
CREATE TABLE IF NOT EXISTS step_inputs (
    step VARCHAR PRIMARY KEY,
    fingerprint VARCHAR NOT NULL,
    detail VARCHAR NOT NULL                     -- JSON: experiment count, allocation totals, export's sha256
);

-- Budget alerts already sent, so each threshold alerts once per period.
CREATE TABLE IF NOT EXISTS alerts_sent (
    budget VARCHAR NOT NULL,
    period VARCHAR NOT NULL,
    threshold VARCHAR NOT NULL,
    sent_at TIMESTAMP NOT NULL,
    PRIMARY KEY (budget, period, threshold)
);

-- What the estimator computed from each experiment's params (FLOPs, GPU hours, assumptions, what was
-- missing), kept even when the log gives the money estimate, so reconcile can show implied MFU.
-- Grain: experiment.
CREATE TABLE IF NOT EXISTS estimator_results (
    experiment_id VARCHAR PRIMARY KEY,
    used_for_estimate BOOLEAN NOT NULL,         -- true when the log had no estimate and these rows fill in
    detail VARCHAR NOT NULL                     -- JSON: Estimate.to_json()
);

-- Whether a money value as read from a bill (DOUBLE, or text from a CSV) is empty or a finite number
-- below 10^26, which DECIMAL(38, 12) holds. isfinite() comes first: parquet statistics leave NaN out, and
-- DuckDB folds a range test such as abs(x) < 1e26 to true from them, NaN rows included.
CREATE MACRO IF NOT EXISTS fits_money(x) AS
    coalesce(isfinite(TRY_CAST(x AS DOUBLE)) AND abs(TRY_CAST(x AS DOUBLE)) < 1e26, x IS NULL);

-- Money as read from a bill (text from a CSV, a DOUBLE, a DECIMAL) as DECIMAL(38, 12), rounded half-even
-- to 12 places (SPEC §2: providers print doubles, 0.000520833333333333), or NULL when it is not a number
-- below 10^26. A DOUBLE is read through its shortest round-trip text, the number the provider meant, not the
-- binary fraction it stored. DuckDB's own cast rounds half away from zero (0.0000000000005 -> 1e-12), and
-- slowly for long text (8 s per 10M values): a value with more than 12 places is cut at the 12th by text
-- and rounded here, by its digits beyond. Replaced on every open: these bodies change with trainledger.
-- money_long: whether a value may carry a digit beyond the 12th place (a superset, cheap: a DOUBLE whose
-- round(x, 12) is itself has a shortest text of at most 12 places, since that text would be shorter).
CREATE OR REPLACE MACRO money_long(x) AS
    CASE WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN round(TRY_CAST(x AS DOUBLE), 12) <> TRY_CAST(x AS DOUBLE)
         WHEN typeof(x) LIKE 'DECIMAL(%' THEN TRY_CAST(regexp_extract(typeof(x), ',([0-9]+)[)]', 1) AS INTEGER) > 12
         ELSE contains(CAST(x AS VARCHAR), 'e') OR contains(CAST(x AS VARCHAR), 'E')
              OR (length(CAST(x AS VARCHAR)) > 13 AND length(CAST(x AS VARCHAR)) - strpos(CAST(x AS VARCHAR), '.') > 12)
    END;
-- The value's text, trimmed: a DOUBLE's shortest round-trip text.
CREATE OR REPLACE MACRO money_text(x) AS
    trim(CASE WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN CAST(TRY_CAST(x AS DOUBLE) AS VARCHAR) ELSE CAST(x AS VARCHAR) END);
-- A number's text as (sign, digits, point): the value is sign 0.digits x 10^point (4e-13: '', '4', -12).
-- An exponent below -10^6 counts as -10^6: no bill writes one, and either way the value rounds to 0.
CREATE OR REPLACE MACRO money_digits(t) AS
    list_transform([regexp_extract(t, '^([+-]?)([0-9]*)[.]?([0-9]*)(?:[eE]([+-]?[0-9]+))?$',
                                   ['sign', 'whole', 'fraction', 'exponent'])],
        lambda money_m: {'sign': replace(money_m.sign, '+', ''), 'digits': money_m.whole || money_m.fraction,
                   'point': length(money_m.whole) + CASE
                       WHEN money_m.exponent = '' THEN 0
                       WHEN money_m.exponent LIKE '-%'
                           THEN greatest(coalesce(TRY_CAST(money_m.exponent AS BIGINT), -1000000), -1000000)
                       ELSE TRY_CAST(money_m.exponent AS BIGINT) END})[1];
-- Exponent text written out in plain digits (anything below 10^-13 as 0.0: it rounds to 0).
CREATE OR REPLACE MACRO money_plain(money_d) AS
    CASE WHEN money_d.point < -12 OR ltrim(money_d.digits, '0') = '' THEN '0.0'
         WHEN money_d.point > 40 THEN NULL
         WHEN money_d.point <= 0 THEN money_d.sign || '0.' || repeat('0', -money_d.point) || money_d.digits
         WHEN money_d.point >= length(money_d.digits) THEN money_d.sign || money_d.digits || repeat('0', money_d.point - length(money_d.digits)) || '.0'
         ELSE money_d.sign || left(money_d.digits, money_d.point) || '.' || substr(money_d.digits, money_d.point + 1) END;
-- Plain text with a point, rounded half-even at the 12th place by the digits beyond it.
CREATE OR REPLACE MACRO money_plain_rounded(t) AS
    CASE WHEN rtrim(substr(t, strpos(t, '.') + 13), '0') > '5'
           OR (rtrim(substr(t, strpos(t, '.') + 13), '0') = '5'
               AND substr(t, strpos(t, '.') + 12, 1) IN ('1', '3', '5', '7', '9'))
         THEN TRY_CAST(left(t, strpos(t, '.') + 12) AS DECIMAL(37, 12))
              + CAST(CASE WHEN t LIKE '-%' THEN '-0.000000000001' ELSE '0.000000000001' END AS DECIMAL(38, 12))
         ELSE TRY_CAST(left(t, strpos(t, '.') + 12) AS DECIMAL(38, 12)) END;
-- Each macro argument used more than once is bound to a lambda's parameter first: a macro copies its argument
-- wherever its body names it, and 17 copies of money_digits made planning one bill's normalising query 0.2 s.
CREATE OR REPLACE MACRO money_rounded(t) AS
    CASE WHEN NOT regexp_full_match(t, '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?') THEN NULL
         WHEN contains(t, '.') OR contains(t, 'e') OR contains(t, 'E')
             THEN list_transform([CASE WHEN contains(t, 'e') OR contains(t, 'E')
                                       THEN list_transform([money_digits(t)], lambda money_q: money_plain(money_q))[1]
                                       ELSE t END],
                                 lambda money_p: money_plain_rounded(money_p))[1]
         ELSE TRY_CAST(t AS DECIMAL(38, 12)) END;
CREATE OR REPLACE MACRO money(x) AS
    CASE WHEN NOT coalesce(money_long(x), false)
         THEN CASE WHEN typeof(x) LIKE 'DECIMAL(%' THEN TRY_CAST(x AS DECIMAL(38, 12))
                   WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN TRY_CAST(CAST(TRY_CAST(x AS DOUBLE) AS VARCHAR) AS DECIMAL(38, 12))
                   ELSE TRY_CAST(CAST(x AS VARCHAR) AS DECIMAL(38, 12)) END
         ELSE list_transform([money_text(x)], lambda money_t: money_rounded(money_t))[1] END;
-- What rounding money(x) took away (the value as written minus money(x)), exact, as an integer n of units of
-- 10^-(12 + places): {places, n}, NULL when nothing was. The caller sums n by places (BIGNUM: no bound).
CREATE OR REPLACE MACRO money_residue_cut(sign, digits, cut) AS
    {'places': greatest(-cut, 0) + length(rtrim(substr(digits, greatest(cut, 0) + 1), '0')),
     'n': CAST(sign || rtrim(substr(digits, greatest(cut, 0) + 1), '0') AS BIGNUM)
          - CASE WHEN cut >= 0 AND (rtrim(substr(digits, cut + 1), '0') > '5'
                                    OR (rtrim(substr(digits, cut + 1), '0') = '5'
                                        AND substr(digits, cut, 1) IN ('1', '3', '5', '7', '9')))
                 THEN CAST(sign || '1' || repeat('0', length(rtrim(substr(digits, cut + 1), '0'))) AS BIGNUM)
                 ELSE CAST(0 AS BIGNUM) END};
CREATE OR REPLACE MACRO money_residue(x) AS
    list_transform([money_digits(money_text(x))],
        lambda money_d: CASE WHEN money_d.point <= 40
                             AND rtrim(substr(money_d.digits, greatest(money_d.point + 12, 0) + 1), '0') <> ''
                       THEN money_residue_cut(money_d.sign, money_d.digits, money_d.point + 12) END)[1];

-- Exact integer units of 1e-12 of a DECIMAL(38, 12) value, for splitting without loss. Whole and fractional
-- parts apart, so a large quantity (GCP byte-seconds) does not overflow DECIMAL(38, 12) on the way.
CREATE MACRO IF NOT EXISTS to_units(x) AS
    CAST(trunc(x) AS HUGEINT) * 1000000000000 + CAST((x - trunc(x)) * 1000000000000 AS HUGEINT);

-- An instant (TIMESTAMPTZ, or text with a UTC offset, none meaning UTC) as a UTC TIMESTAMP, through its epoch
-- microseconds: timezone('UTC', x) gives the same but asks ICU for each value (0.3 s per 10M rows).
CREATE MACRO IF NOT EXISTS utc_time(x) AS make_timestamp(epoch_us(CAST(x AS TIMESTAMPTZ)));

-- A charge's kind (table charge_kinds) from its columns; NULLs hash alike, so the columns identify it.
CREATE MACRO IF NOT EXISTS charge_kind_id(
    source, provider, billing_period, billing_account_id, sub_account_id, service_name, charge_category,
    pricing_category, currency
) AS hash(source, provider, billing_period, billing_account_id, sub_account_id, service_name, charge_category,
          pricing_category, currency);

-- An allocation's tuple (table allocation_tuples) from its labels, rule and reason; NULLs hash alike.
CREATE MACRO IF NOT EXISTS allocation_tuple_id(project, phase, method, experiment_id, cost_category, rule, reason)
    AS hash(project, phase, method, experiment_id, cost_category, rule, reason);

-- A charge's id from its file's slot (table charge_files) and its row number in the file, and back:
-- slot x 2^32 + row. NULL for a row number that does not fit in 32 bits.
CREATE MACRO IF NOT EXISTS charge_number(slot, source_row) AS
    CASE WHEN source_row BETWEEN 0 AND 4294967295 THEN slot * 4294967296 + source_row END;
CREATE MACRO IF NOT EXISTS charge_slot(charge_id) AS charge_id // 4294967296;

-- Which of `slices` parts (0 to slices - 1) a charge falls in, by a hash of its id: attribution splits the
-- charges held for the exact split a bounded part at a time (attribution/allocations.py).
CREATE MACRO IF NOT EXISTS charge_slice(charge_id, slices) AS hash(charge_id) % slices;

-- A text value as read from a bill, or NULL when it is empty or blank: CUR writes '' for "no value", which
-- FOCUS (and every output) wants as NULL.
CREATE MACRO IF NOT EXISTS text_or_null(x) AS
    CASE WHEN trim(CAST(x AS VARCHAR)) <> '' THEN CAST(x AS VARCHAR) END;

-- A time as read from a bill, or NULL when it is not one to believe: unparsable, infinite, or outside the
-- years 2000-2099 (a US date such as 4/1/25 parses into the year 4; no bill is from then).
CREATE MACRO IF NOT EXISTS bill_time(x) AS
    CASE WHEN TRY_CAST(x AS TIMESTAMPTZ) >= TIMESTAMPTZ '2000-01-01 00:00:00+00'
          AND TRY_CAST(x AS TIMESTAMPTZ) < TIMESTAMPTZ '2100-01-01 00:00:00+00' THEN TRY_CAST(x AS TIMESTAMPTZ) END;

-- Whether a time's text is ISO 8601 in UTC, as FOCUS requires: a date, optionally a time (T or a space,
-- seconds and fractions optional), and a UTC zone (Z, +00:00, UTC) or none (UTC by the spec).
CREATE MACRO IF NOT EXISTS iso_utc_text(x) AS regexp_full_match(trim(CAST(x AS VARCHAR)),
    '[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,9})?)?)?( ?(Z|[+-]00(:?00)?|UTC))?');

-- A GCP row's tags as one JSON object: the resource's own labels, the project's labels under
-- `project-label:<key>` (the label scheme reads them only for what the resource's own labels leave
-- unsaid, attribution/labels.py), then Google's system labels (goog-*, k8s-*), keys sorted. Shared by the
-- detailed and the FOCUS export. Replaced on every open: warehouses written before kept project labels
-- merged into the resource's.
CREATE OR REPLACE MACRO gcp_tags_json(own_labels, inherited_labels, google_labels) AS
    CAST(to_json(map_from_entries(list_sort(list_concat(
        own_labels,
        list_transform(inherited_labels, lambda p: {'key': 'project-label:' || p."key", 'value': p."value"}),
        google_labels
    )))) AS VARCHAR);

-- A GCP label list (key/value structs) with the rows whose key is NULL left out: Google writes them now
-- and then. Shared by the detailed and the FOCUS export.
CREATE MACRO IF NOT EXISTS gcp_label_list(labels) AS
    coalesce(list_filter(labels, lambda l: l."key" IS NOT NULL), []);

-- A GCP label list as text for a row's content hash: key=value (\N for a NULL value), record-separated.
CREATE MACRO IF NOT EXISTS gcp_labels_text(labels) AS
    array_to_string(list_transform(labels, lambda l: l."key" || '=' || coalesce(l."value", '\N')), chr(30));

-- A GCP row's credits as text for its content hash: each credit's fields unit-separated, \N for NULL.
CREATE MACRO IF NOT EXISTS gcp_credits_text(credit_list) AS
    array_to_string(list_transform(credit_list, lambda c: concat_ws(chr(29),
        coalesce(c.type, '\N'), coalesce(c.name, '\N'), coalesce(c.id, '\N'), coalesce(c.full_name, '\N'),
        coalesce(CAST(c.amount AS VARCHAR), '\N'))), chr(30));

-- An append-only export row's identity: its content hash numbered among identical rows of the same file,
-- so that the same row read again (an overlapping pull, a re-exported shard) gets the same identity.
CREATE MACRO IF NOT EXISTS content_identity(content_hash, source_file, source_row) AS
    content_hash || '#' || CAST(row_number() OVER (PARTITION BY content_hash, source_file ORDER BY source_row)
        AS VARCHAR);

-- A GCP row's credits as a JSON array (type, name, id, full_name, amount written without trailing zeros):
-- kept on the charge so a reader sees what was netted into its cost.
CREATE MACRO IF NOT EXISTS gcp_credits_json(credit_list) AS
    CAST(to_json(list_transform(credit_list, lambda c: {
        'type': c.type, 'name': c.name, 'id': c.id, 'full_name': c.full_name,
        'amount': rtrim(rtrim(CAST(c.amount AS VARCHAR), '0'), '.')
    })) AS VARCHAR);
