"""FOCUS 1.3 files read without losing meaning (issue 30, point 6; SPEC §5 `focus`).

Rules from the FOCUS_Spec repository, `specification/datasets/cost_and_usage/columns/` and
`specification/attributes/data_generator_calculated_split_cost_allocation_handling.md` (commit
daf36cc5baeb3531dcee9caefda3762fe658a076): ServiceProviderName replaces ProviderName; an origin charge is
split into allocated charges that sum to it, AllocatedResourceId naming what each is allocated to (null on
the unallocated remainder), AllocatedTags its own tags beside the origin's Tags. Whether the origin row
stays in the file is left open (FOCUS_Spec issues #2515, #2578), so every way generators write it is here:
left out, kept with its costs zeroed (the spec's field-mapping appendix, PR #2494), kept whole beside its
allocated charges (the draft example of PR #2395), with or without AllocatedMethodId on it.
Expected totals are sums of the files' text (csv module, Decimal) or hand arithmetic in the test.
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import Project
from focus13_files import beau_mixed, guymano_gcp
from focus_files import experiment, write_focus


def ingest(
    run, project: Project, uri: Path, command: str = "ingest"
) -> tuple[duckdb.DuckDBPyConnection, str]:
    """The warehouse after ``command`` read ``uri`` as a focus source, and what the command said."""
    project.write_config(
        f'[[sources]]\nname = "bill"\nkind = "focus"\nuri = "{uri}"\n\n'
        f'[experiments]\nuri = "{project.root / "experiments.jsonl"}"\n'
    )
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    result = run(command)
    assert result.exit_code == 0, result.stderr
    return duckdb.connect(str(project.warehouse), read_only=True), result.stderr


def file_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_file_in_guymanos_65_column_layout(run, project: Project, tmp_path: Path) -> None:
    bill = guymano_gcp(tmp_path / "focus_sample_costandusage_gcp.csv")
    rows = file_rows(bill)
    assert len(rows[0]) == 65
    con, _ = ingest(run, project, bill)

    billed = sum(Decimal(r["BilledCost"]) for r in rows)
    effective = sum(Decimal(r["EffectiveCost"]) for r in rows)
    assert con.execute("SELECT count(*), sum(billed_cost), sum(effective_cost) FROM charges").fetchone() == (
        len(rows),
        billed,
        effective,
    )
    assert con.execute("SELECT DISTINCT provider FROM charges").fetchall() == [("gcp",)]

    charges = {
        row: (resource, name, json.loads(tags), credits)
        for row, resource, name, tags, credits in con.execute(
            "SELECT source_row, resource_id, resource_name, tags, credits FROM charges"
        ).fetchall()
    }
    allocated = [(n, r) for n, r in enumerate(rows, start=1) if r["AllocatedMethodId"]]
    assert allocated, "the generator writes split cost allocation rows"
    for number, r in allocated:
        assert charges[number] == (
            r["AllocatedResourceId"],
            r["AllocatedResourceName"],
            {**json.loads(r["Tags"]), **json.loads(r["AllocatedTags"])},
            None,
        )
    contracted = [(n, r) for n, r in enumerate(rows, start=1) if r["ContractApplied"]]
    assert contracted
    for number, r in contracted:
        assert charges[number][0] == r["ResourceId"]
        assert json.loads(charges[number][3]) == json.loads(r["ContractApplied"])


def test_a_four_provider_file_in_beaus_layout(run, project: Project, tmp_path: Path) -> None:
    bill = beau_mixed(tmp_path / "focus_sample_costandusage.csv")
    rows = file_rows(bill)
    con, _ = ingest(run, project, bill)

    by_provider: dict[str, Decimal] = {}
    for r in rows:
        by_provider[r["ServiceProviderName"]] = by_provider.get(r["ServiceProviderName"], 0) + Decimal(
            r["BilledCost"]
        )
    got = dict(con.execute("SELECT provider, sum(billed_cost) FROM charges GROUP BY 1").fetchall())
    assert sorted(got.values()) == sorted(by_provider.values())
    assert got["aws"] == by_provider["AWS"]
    # Each row's host as the provider table names it (by hand: AWS aws, Microsoft azure, Google gcp, Oracle oci).
    table_id = {"AWS": "aws", "Microsoft": "azure", "Google": "gcp", "Google Cloud": "gcp", "Oracle": "oci"}
    hosts: dict[str, int] = {}
    for r in rows:
        hosts[table_id[r["HostProviderName"]]] = hosts.get(table_id[r["HostProviderName"]], 0) + 1
    assert dict(con.execute("SELECT host_provider, count(*) FROM charges GROUP BY 1").fetchall()) == hosts
    assert con.execute("SELECT sum(effective_cost) FROM charges").fetchone() == (
        sum(Decimal(r["EffectiveCost"]) for r in rows),
    )
    # Every row is an allocated charge of a placeholder resource; bare NULL is null, '{}' adds no tag.
    assert con.execute(
        "SELECT count(*) FILTER (resource_id LIKE 'AllocatedResourceId-%'), count(*) FILTER (tags = '{}'), "
        "count(*) FILTER (charge_class = 'Correction') FROM charges"
    ).fetchone() == (
        len(rows),
        sum(r["Tags"] == "NULL" for r in rows),
        sum(r["ChargeClass"] == "Correction" for r in rows),
    )


# The draft example of FOCUS_Spec PR #2395 (split_cost_allocation_examples.md): a $100.00 host hour split
# 40 % / 35 % / 25 % over three pods, the origin row kept whole beside them.
ORIGIN = {
    "ResourceId": "i-0node",
    "ServiceName": "Aura Container Runtime",
    "ServiceCategory": "Compute",
    "SkuId": "node-hour",
    "BilledCost": "100.00",
    "Tags": {"team": "platform"},
}


def split(cost: str, pod: str | None, label: str | None, ratio: str, **extra: str) -> dict[str, object]:
    return {
        **ORIGIN,
        "BilledCost": cost,
        "AllocatedMethodId": "pod-vcpu-hours",
        "AllocatedMethodDetails": json.dumps(
            {"Elements": [{"AllocatedRatio": float(ratio), "UsageUnit": "vCPU"}]}
        ),
        "AllocatedResourceId": pod or "",
        "AllocatedResourceName": pod or "",
        "AllocatedTags": json.dumps({"cost-label": label}) if label else "",
        **extra,
    }


PODS = [
    split("40.00", "pod-acme-orders-01", "qwen-coder-train-sft", "0.40"),
    split("35.00", "pod-acme-scoring-01", "qwen-coder-eval-sft", "0.35"),
    split("25.00", "pod-acme-frontend-01", "math-reasoner-rollout-rl", "0.25"),
]
UNTAGGED = {
    "ResourceId": "vol-0data",
    "ServiceName": "Block Storage",
    "SkuId": "gb-month",
    "BilledCost": "7.50",
}


def test_an_origin_kept_whole_beside_its_allocated_charges_counts_once(
    run, project: Project, tmp_path: Path
) -> None:
    origin = {**ORIGIN, "AllocatedMethodId": "pod-vcpu-hours"}
    bill = write_focus(tmp_path / "bill.csv", [origin, *PODS, UNTAGGED])
    con, said = ingest(run, project, bill, "nightly")
    assert "bill: 1 origin charge(s) restated by their allocated charges" in said

    # 40.00 + 35.00 + 25.00 (the host hour, once) + 7.50
    assert con.execute("SELECT count(*), sum(billed_cost) FROM charges").fetchone() == (4, Decimal("107.50"))
    # The pods' AllocatedTags place them as a pod's labels would; the node's own tag rides along.
    assert con.execute(
        "SELECT resource_id, tags FROM charges WHERE resource_id LIKE 'pod-%' ORDER BY 1"
    ).fetchall() == [
        ("pod-acme-frontend-01", '{"team":"platform","cost-label":"math-reasoner-rollout-rl"}'),
        ("pod-acme-orders-01", '{"team":"platform","cost-label":"qwen-coder-train-sft"}'),
        ("pod-acme-scoring-01", '{"team":"platform","cost-label":"qwen-coder-eval-sft"}'),
    ]
    assert con.execute(
        "SELECT project, phase, method, rule, sum(billed_cost) FROM allocations GROUP BY ALL ORDER BY 5"
    ).fetchall() == [
        (None, None, None, "unattributed", Decimal("7.50")),
        ("math-reasoner", "rollout", "rl", "tag", Decimal("25.00")),
        ("qwen-coder", "eval", "sft", "tag", Decimal("35.00")),
        ("qwen-coder", "train", "sft", "tag", Decimal("40.00")),
    ]


@pytest.mark.parametrize(
    ("case", "rows", "kept", "total"),
    [
        # The origin left out: 40.00 + 35.00 + 25.00 + 7.50, nothing dropped.
        ("origin left out", [*PODS, UNTAGGED], 4, "107.50"),
        # Kept with its costs zeroed (PR #2494's field mapping): a 0.00 row, nothing dropped.
        (
            "origin zeroed",
            [{**ORIGIN, "BilledCost": "0.00", "AllocatedMethodId": "pod-vcpu-hours"}, *PODS, UNTAGGED],
            5,
            "107.50",
        ),
        # Kept whole without AllocatedMethodId (the other reading of allocatedmethodid.md, issue #2578).
        ("origin without method id", [ORIGIN, *PODS, UNTAGGED], 4, "107.50"),
        # Kept whole beside two pods and the unallocated remainder (60.00 + 15.00 + 25.00 = 100.00).
        (
            "origin with a remainder",
            [
                {**ORIGIN, "AllocatedMethodId": "pod-vcpu-hours"},
                split("60.00", "pod-a", "qwen-coder-train-sft", "0.60"),
                split("15.00", "pod-b", "qwen-coder-eval-sft", "0.15"),
                split("25.00", None, None, "0.25"),
                UNTAGGED,
            ],
            4,
            "107.50",
        ),
    ],
)
def test_every_origin_row_model_sums_to_the_invoice(
    run, project: Project, tmp_path: Path, case: str, rows: list[dict[str, object]], kept: int, total: str
) -> None:
    con, _ = ingest(run, project, write_focus(tmp_path / "bill.csv", rows))
    assert con.execute("SELECT count(*), sum(billed_cost) FROM charges").fetchone() == (kept, Decimal(total))
    if case == "origin with a remainder":  # the remainder stays the node's
        assert con.execute(
            "SELECT resource_id, billed_cost FROM charges WHERE resource_id NOT LIKE 'pod-%' ORDER BY 1"
        ).fetchall() == [("i-0node", Decimal("25.00")), ("vol-0data", Decimal("7.50"))]


def test_an_origin_that_its_allocated_charges_do_not_add_up_to_is_kept(
    run, project: Project, tmp_path: Path
) -> None:
    """Only a restatement is dropped: two pods of 40.00 and 35.00 restate no 100.00 origin."""
    bill = write_focus(tmp_path / "bill.csv", [{**ORIGIN, "AllocatedMethodId": "m"}, *PODS[:2]])
    con, _ = ingest(run, project, bill)
    assert con.execute("SELECT count(*), sum(billed_cost) FROM charges").fetchone() == (3, Decimal("175.00"))


@pytest.mark.parametrize(
    "applied",
    [
        '{"Elements":[{"ContractCommitmentId":"credits-2026","ContractCommitmentAppliedCost":12.5}]}',
        # the list of commitments alone, as contractapplied.md's example shows it
        '[{"ContractCommitmentID":"credits-2026","ContractCommitmentAppliedCost":12.5}]',
    ],
)
def test_the_service_provider_names_the_provider(run, project: Project, tmp_path: Path, applied: str) -> None:
    """A 1.3 file without the deprecated ProviderName: MongoDB Atlas hosted on AWS is MongoDB's bill, its
    host AWS and the contract credits it drew on kept with it."""
    bill = tmp_path / "atlas.csv"
    columns = ["ServiceProviderName", "HostProviderName", "BillingCurrency", "BillingPeriodStart"]
    columns += ["BillingPeriodEnd", "ChargeCategory", "BilledCost", "ContractApplied"]
    with bill.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerow(
            [
                "MongoDB",
                "AWS",
                "USD",
                "2026-11-01T00:00:00Z",
                "2026-12-01T00:00:00Z",
                "Usage",
                "12.50",
                applied,
            ]
        )
    con, _ = ingest(run, project, bill)
    # The host is kept as the provider table names it (AWS is aws), for the FOCUS 1.3 export to write back.
    assert con.execute("SELECT provider, host_provider, billed_cost, credits FROM charges").fetchall() == [
        ("mongodb", "aws", Decimal("12.50"), applied)
    ]


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        ("AllocatedTags", "a JSON object"),
        ("AllocatedMethodDetails", "a JSON object or list"),
        ("ContractApplied", "a JSON object or list"),
    ],
)
def test_a_1_3_json_column_that_is_no_json_is_refused(
    run, project: Project, tmp_path: Path, column: str, expected: str
) -> None:
    bill = write_focus(tmp_path / "bill.csv", [{**PODS[0], column: "workload=search"}])
    project.write_config(f'[[sources]]\nname = "bill"\nkind = "focus"\nuri = "{bill}"\n')
    result = run("ingest")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"trainledger: error: {bill}, row 1, column {column}: expected {expected}, got 'workload=search'"
    )
    assert not project.warehouse.exists() or duckdb.connect(str(project.warehouse), read_only=True).execute(
        "SELECT count(*) FROM charges"
    ).fetchone() == (0,)


def test_parquet_with_allocated_tags_as_a_map(run, project: Project, tmp_path: Path) -> None:
    """As AWS writes Tags in its parquet FOCUS export: maps (and lists of structs), read as JSON like the
    CSV's text."""
    bill = tmp_path / "focus-1.3.parquet"
    tags = pa.map_(pa.string(), pa.string())
    table = pa.table(
        {
            "ServiceProviderName": ["AWS", "AWS"],
            "BillingCurrency": ["USD", "USD"],
            "BillingPeriodStart": ["2026-11-01T00:00:00Z"] * 2,
            "BillingPeriodEnd": ["2026-12-01T00:00:00Z"] * 2,
            "ChargeCategory": ["Usage", "Usage"],
            "BilledCost": pa.array([Decimal("3.25"), Decimal("1.75")], pa.decimal128(38, 12)),
            "ResourceId": ["i-0node", "i-0node"],
            "AllocatedMethodId": ["eks-split", None],
            "AllocatedResourceId": ["pod-a", None],
            "Tags": pa.array([[("team", "ml")], [("team", "ml")]], tags),
            "AllocatedTags": pa.array([[("cost-label", "qwen-coder-train-sft")], None], tags),
            "ContractApplied": pa.array(
                [None, [{"ContractCommitmentId": "cc-1", "ContractCommitmentAppliedCost": 1.75}]],
                pa.list_(
                    pa.struct(
                        [
                            ("ContractCommitmentId", pa.string()),
                            ("ContractCommitmentAppliedCost", pa.float64()),
                        ]
                    )
                ),
            ),
        }
    )
    pq.write_table(table, bill)
    con, _ = ingest(run, project, bill)
    assert con.execute(
        "SELECT resource_id, tags, billed_cost, credits FROM charges ORDER BY 1"
    ).fetchall() == [
        (
            "i-0node",
            '{"team":"ml"}',
            Decimal("1.75"),
            '[{"ContractCommitmentId":"cc-1","ContractCommitmentAppliedCost":1.75}]',
        ),
        ("pod-a", '{"team":"ml","cost-label":"qwen-coder-train-sft"}', Decimal("3.25"), None),
    ]


def test_the_experiment_log_names_an_allocated_resource(run, project: Project, tmp_path: Path) -> None:
    """An allocated charge is its AllocatedResourceId's, as a pod's row is its pod's: a run the log places
    on pod-acme-orders-01 for the whole charge hour gets that pod's 40.00 (rule 4); the pods no run used stay
    unattributed, and the node hour is not counted a second time."""
    unlabelled = [{**pod, "AllocatedTags": ""} for pod in PODS]
    bill = write_focus(tmp_path / "bill.csv", [{**ORIGIN, "AllocatedMethodId": "m"}, *unlabelled])
    log = experiment(
        "exp-0412",
        "qwen-coder",
        "sft",
        [
            {
                "phase": "train",
                "started_at": "2026-11-03T07:00:00Z",
                "ended_at": "2026-11-03T10:00:00Z",
                "resources": [{"provider": "aws", "resource_id": "pod-acme-orders-01", "gpus": 1}],
            }
        ],
    )
    project.write_config(
        f'[[sources]]\nname = "bill"\nkind = "focus"\nuri = "{bill}"\n\n[experiments]\nuri = "{tmp_path / "log.jsonl"}"\n'
    )
    (tmp_path / "log.jsonl").write_text(log + "\n", encoding="utf-8")
    result = run("nightly")
    assert result.exit_code == 0, result.stderr
    con = duckdb.connect(str(project.warehouse), read_only=True)
    assert con.execute(
        "SELECT rule, experiment_id, sum(billed_cost) FROM allocations GROUP BY ALL ORDER BY 1"
    ).fetchall() == [
        ("time-window", "exp-0412", Decimal("40.00")),
        ("unattributed", None, Decimal("60.00")),  # 35.00 + 25.00
    ]
