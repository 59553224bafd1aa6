"""Reserved GPU capacity: an EC2 Capacity Block used for part of its window, end to end.

The scenario (fixtures/generate_capacity.py): Capacity Block cr-0cb1...c001,
one p5.48xlarge (8 H100) for 24 h of 2026-11-10, owned by qwen-coder, paid upfront: $755.136 on the
block's first day, i.e. 755.136 / (8 GPUs x 24 h) = $3.933 a GPU-hour. The instance's own hourly rows cost
$0 (Linux in a block). The log puts two runs on it. Worked out by hand:

exp-cb-sft  (qwen-coder, sft)    train    8 GPUs x 6 h (00-06)  = 48 GPU-h x 3.933 = 188.784
exp-cb-rl   (math-reasoner, rl)  rollout  4 GPUs x 6 h (08-14)  = 24 GPU-h x 3.933 =  94.392
                                 eval     4 GPUs x 4 h (14-18)  = 16 GPU-h x 3.933 =  62.928
unused commitment, qwen-coder:   192 - 88 = 104 GPU-h x 3.933                      = 409.032
sum: 755.136, the fee.

Beside it, an On-Demand Capacity Reservation owned by math-reasoner billed 2 unused hours (UnusedBox,
$55.04 each): 110.08 of unused commitment. The bill: 755.136 + 110.08 = 865.216.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import bills
import generate_capacity
from trainledger.attribution import allocations
from trainledger.cli import cli
from trainledger.core import starter
from trainledger.core.config import Config, parse
from trainledger.core.errors import ConfigError
from trainledger.core.reporter import Silent
from trainledger.reports import reconcile

CONFIG = f"""
[[sources]]
name = "cur"
kind = "aws-cur2"
uri = "capacity-cur2"

[experiments]
uri = "experiments.jsonl"

[[reservations]]
id = "{generate_capacity.BLOCK_ID}"
project = "qwen-coder"
start = 2026-11-10T00:00:00Z
end = 2026-11-11T00:00:00Z
gpus = 8
instances = ["{generate_capacity.BLOCK_INSTANCE}"]

[[reservations]]
id = "{generate_capacity.ODCR_ID}"
project = "math-reasoner"
start = "2026-11-10T00:00:00Z"
end = "2026-11-12T00:00:00Z"
gpus = 8
instances = "{generate_capacity.ODCR_INSTANCE}"
"""

D = Decimal


def cli_run(root: Path, *args: str) -> str:
    result = CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def query(root: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.fixture(scope="module")
def block(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("capacity")
    generate_capacity.write_capacity_scenario(root)
    (root / "trainledger.toml").write_text(CONFIG, encoding="utf-8")
    cli_run(root, "nightly")
    return root


BY_KEY = (
    "SELECT coalesce(experiment_id, '-'), coalesce(phase, '-'), coalesce(project, '-'), rule, "
    "coalesce(reason, '-'), sum(billed_cost), sum(effective_cost) FROM allocations "
    "GROUP BY ALL HAVING sum(billed_cost) <> 0 ORDER BY 1, 2, 3"
)
EXPECTED = [
    ("-", "idle", "math-reasoner", "idle", "unused-commitment", D("110.08"), D("110.08")),
    ("-", "idle", "qwen-coder", "idle", "unused-commitment", D("409.032"), D("409.032")),
    ("exp-cb-rl", "eval", "math-reasoner", "time-window", "-", D("62.928"), D("62.928")),
    ("exp-cb-rl", "rollout", "math-reasoner", "time-window", "-", D("94.392"), D("94.392")),
    ("exp-cb-sft", "train", "qwen-coder", "time-window", "-", D("188.784"), D("188.784")),
]


def test_the_fee_goes_to_the_runs_by_gpu_time_and_the_rest_is_unused_commitment(block: Path) -> None:
    assert query(block, BY_KEY) == EXPECTED


def test_the_fee_is_amortised_over_the_hours_it_paid_for(block: Path) -> None:
    # each share carries its part of the window: a run its own hours; the unused part each stretch between
    # run boundaries, with the GPUs no run used then (8 at 06-08 and 18-24, 4 at 08-18)
    periods = query(
        block,
        "SELECT coalesce(a.experiment_id, '-'), strftime(a.charge_period_start, '%H'), "
        "strftime(a.charge_period_end, '%d %H'), a.effective_cost FROM allocations a "
        "JOIN charges c USING (charge_id) WHERE c.row_identity = 'capacity-block-fee' ORDER BY 2, 1",
    )
    assert periods == [
        ("exp-cb-sft", "00", "10 06", D("188.784")),  # 8 GPUs x 6 h x 3.933
        ("-", "06", "10 08", D("62.928")),  # 8 x 2
        ("-", "08", "10 14", D("94.392")),  # 4 x 6
        ("exp-cb-rl", "08", "10 14", D("94.392")),  # 4 x 6
        ("-", "14", "10 18", D("62.928")),  # 4 x 4
        ("exp-cb-rl", "14", "10 18", D("62.928")),  # 4 x 4
        ("-", "18", "11 00", D("188.784")),  # 8 x 6
    ]


def test_the_invariant_holds_against_the_bill(block: Path) -> None:
    table = pq.read_table(next((block / "capacity-cur2" / "data").rglob("*.parquet"))).to_pylist()
    invoice = sum(Decimal(repr(r["line_item_unblended_cost"])) for r in table)
    assert invoice == D("865.216")
    [(billed, effective, allocated_billed, allocated_effective)] = query(
        block,
        "SELECT (SELECT sum(billed_cost) FROM charges), (SELECT sum(effective_cost) FROM charges), "
        "(SELECT sum(billed_cost) FROM allocations), (SELECT sum(effective_cost) FROM allocations)",
    )
    assert billed == effective == allocated_billed == allocated_effective == invoice
    # every charge's shares sum to it exactly (the fee split four ways among them)
    assert query(
        block,
        "SELECT count(*) FROM charges c JOIN (SELECT charge_id, sum(billed_cost) b, sum(effective_cost) e "
        "FROM allocations GROUP BY 1) a USING (charge_id) WHERE a.b <> c.billed_cost OR a.e <> c.effective_cost",
    ) == [(0,)]
    kinds = query(
        block, "SELECT resource_type, charge_category, count(*) FROM charges GROUP BY ALL ORDER BY 1, 2"
    )
    assert kinds == [
        ("capacity-reservation", "Purchase", 1),
        ("capacity-reservation", "Usage", 2),
        ("instance", "Usage", 18),
    ]


def test_report_by_waste_and_project(block: Path) -> None:
    report = json.loads(cli_run(block, "report", "--by", "waste,project", "--format", "json"))
    rows = {(r["waste"], r["project"]): D(r["effective_cost"]) for r in report if D(r["effective_cost"])}
    assert rows == {
        ("productive", "qwen-coder"): D("188.784"),
        ("productive", "math-reasoner"): D("157.32"),
        ("unused-commitment", "qwen-coder"): D("409.032"),
        ("unused-commitment", "math-reasoner"): D("110.08"),
    }
    commitment = json.loads(cli_run(block, "report", "--by", "commitment", "--format", "json"))
    classes = {r["commitment"]: D(r["effective_cost"]) for r in commitment if D(r["effective_cost"])}
    assert classes == {"fixed": D("346.104"), "unused-commitment": D("519.112")}


def test_reconcile_a_run_on_the_block(block: Path) -> None:
    report = json.loads(cli_run(block, "reconcile", "exp-cb-rl", "--format", "json"))
    assert report["provisional"] is False
    assert report["totals"]["realized"] == "157.32"


def test_the_post_mortem_shows_the_reserved_capacity_unused_while_the_run_ran(block: Path) -> None:
    # exp-cb-rl ran 08-18 on 4 of the block's 8 GPUs: the other 4 sat unused, 4 x 10 h x 3.933 = 157.32,
    # its hidden cost as idle would be; over the window 104 GPU-h x 3.933 = 409.032 went unused (the owner's)
    rl = json.loads(cli_run(block, "reconcile", "exp-cb-rl", "--format", "json"))
    assert rl["waste"] == {"idle": "0.00", "failed": "0.00", "unused_commitment": "157.32"}
    assert rl["reservations"] == [
        {
            "id": generate_capacity.BLOCK_ID,
            "project": "qwen-coder",
            "start": "2026-11-10T00:00:00Z",
            "end": "2026-11-11T00:00:00Z",
            "unused_during_run": "157.32",
            "unused_in_window": "409.032",
        }
    ]
    # exp-cb-sft took all 8 GPUs 00-06: nothing unused while it ran, the same 409.032 over the window
    sft = json.loads(cli_run(block, "reconcile", "exp-cb-sft", "--format", "json"))
    assert sft["waste"]["unused_commitment"] == "0.00"
    assert [(u["unused_during_run"], u["unused_in_window"]) for u in sft["reservations"]] == [
        ("0.00", "409.032")
    ]
    text = cli_run(block, "reconcile", "exp-cb-rl")
    assert "Waste (hidden cost): idle 0.00  failed 0.00  unused commitment 157.32\n" in text
    assert "157.32 unused while the run ran, 409.03 unused over its window" in text
    html = cli_run(block, "reconcile", "exp-cb-rl", "--format", "html")
    assert "unused commitment 157.32 USD" in html and 'Waste</div><div class="value bad">157.32 USD' in html


def test_a_run_on_an_odcr_sees_the_unused_hours_while_it_ran() -> None:
    """An On-Demand Capacity Reservation cr-od for instances i-a and i-b, 00-04, billed $10 for each hour
    one of its instances stood unused (UnusedBox on the reservation's ARN), owned by project "owner". Run x
    uses i-a 01:30-03:00: the unused hours while it ran are half of 01-02 and all of 02-03, 5 + 10 = 15; over
    the window 4 x 10 = 40. Run w on i-b 02:00-03:20 sees 02-03 too (as idle, runs at the same time each count
    it) and a third of 03-04: 10 + 3.333333333333 (rounded toward zero at 12 places). Run y on i-b at 05-06
    is outside the window, run z on another instance: neither used the reservation."""
    con = bills.warehouse()
    arn = "arn:aws:ec2:us-east-1:1:capacity-reservation/cr-od"
    unused = [
        bills.Charge(
            f"unused-{h}", D("10"), bills.at(h), bills.at(h + 1), arn, usage_type="UnusedBox:p5.48xlarge"
        )
        for h in range(4)
    ]
    own = [bills.Charge(f"box-{h}", D("55.04"), bills.at(h), bills.at(h + 1), "i-a") for h in range(4)]
    bills.add_charges(con, unused + own)
    bills.add_experiments(
        con,
        [
            bills.Experiment("x", "p", windows=[bills.Window("i-a", bills.at(1.5), bills.at(3))]),
            bills.Experiment("w", "q", windows=[bills.Window("i-b", bills.at(2), bills.at(3 + 1 / 3))]),
            bills.Experiment("y", "p", windows=[bills.Window("i-b", bills.at(5), bills.at(6))]),
            bills.Experiment("z", "p", windows=[bills.Window("i-c", bills.at(1), bills.at(3))]),
        ],
    )
    reservation = {
        "id": "cr-od",
        "project": "owner",
        "start": bills.at(0),
        "end": bills.at(4),
        "gpus": 16,
        "instances": ["i-a", "i-b"],
    }
    config = Config.model_validate({"reservations": [reservation]})
    allocations.attribute(con, config, Silent())
    x, w, y, z = reconcile.reconcile_many(con, ["x", "w", "y", "z"], config.reservations)
    assert [(u.id, u.project, u.during_run, u.in_window) for u in x.reservations] == [
        ("cr-od", "owner", D("15"), D("40"))
    ]
    assert x.unused_commitment == D("15") and x.to_json()["waste"]["unused_commitment"] == "15.00"
    assert x.realized_total == D("82.56")  # 0.5 x 55.04 + 55.04, its own instance hours
    assert [(u.during_run, u.in_window) for u in w.reservations] == [(D("13.333333333333"), D("40"))]
    assert y.reservations == z.reservations == [] and y.unused_commitment == D(0)
    assert z.to_json()["reservations"] == []
    # without the config (an API caller that passes none) the post-mortem is as before
    assert reconcile.reconcile(con, "x").reservations == []


def test_a_reservation_needs_a_window_and_one_entry(tmp_path: Path) -> None:
    entry = '[[reservations]]\nid = "cr-1"\nproject = "p"\nstart = 2026-11-10T00:00:00Z\ngpus = 8\ninstances = ["i-1"]\n'
    with pytest.raises(ConfigError, match=r"\[\[reservations\]\] #1.end: Field required"):
        parse(entry, "t.toml", tmp_path)
    backwards = entry + "end = 2026-11-09T00:00:00Z\n"
    with pytest.raises(ConfigError, match="must be after start"):
        parse(backwards, "t.toml", tmp_path)
    ok = entry + "end = 2026-11-11T00:00:00+02:00\n"
    assert parse(ok, "t.toml", tmp_path).reservations[0].end.isoformat() == "2026-11-10T22:00:00"
    with pytest.raises(ConfigError, match="given twice"):
        parse(ok + ok.replace("[[reservations]]\n", "\n[[reservations]]\n"), "t.toml", tmp_path)


def test_the_readme_and_init_examples_are_valid(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Reserved GPU capacity", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```toml\n(.*?)```", section, re.S)
    [entry] = parse(block, "README.md", tmp_path).reservations
    assert (entry.id, entry.gpus, entry.end - entry.start) == ("cr-0cb1000000000c001", 8, timedelta(days=1))
    example = starter.starter().split("# [[reservations]]\n", 1)[1].split("\n\n", 1)[0]
    text = "[[reservations]]\n" + "\n".join(line.removeprefix("# ") for line in example.splitlines())
    assert parse(text, "init", tmp_path).reservations[0].project == "qwen-coder"


def test_gpu_less_windows_and_oversubscribed_stretches() -> None:
    """Reservation of 2 instances (16 GPUs) for 00-10, fee $180 paid upfront. Run x logs no GPUs on
    instance a, 00-10: its instance's part, 8 GPUs. Run y logs 12 GPUs on b, 00-05: 20 GPUs asked of 16,
    so 00-05 leaves nothing unused. Run z on b at 10-12 is outside the window. GPU-hours: x 80, y 60,
    unused 8 x 5 = 40 (05-10); 180 in all, so $1 each."""
    con = bills.warehouse()
    fee = bills.Charge(
        "fee",
        D("180"),
        bills.at(0),
        bills.at(24),
        resource_id="arn:aws:ec2:us-east-1:1:capacity-reservation/cr-9",
        charge_category="Purchase",
        usage_type="USE2-CapacityBlockFee:p5.48xlarge",
        tags={"project": "other"},
    )
    bills.add_charges(con, [fee])
    bills.add_experiments(
        con,
        [
            bills.Experiment("x", "p", windows=[bills.Window("i-a", bills.at(0), bills.at(10), gpus=0)]),
            bills.Experiment("y", "q", windows=[bills.Window("i-b", bills.at(0), bills.at(5), gpus=12)]),
            bills.Experiment("z", "q", windows=[bills.Window("i-b", bills.at(10), bills.at(12), gpus=8)]),
        ],
    )
    reservation = {
        "id": "cr-9",
        "project": "owner",
        "start": bills.at(0),
        "end": bills.at(10),
        "gpus": 16,
        "instances": ["i-a", "i-b"],
    }
    config = Config.model_validate({"reservations": [reservation]})
    allocations.attribute(con, config, Silent())
    assert bills.split(con, "fee") == [
        ("time-window", "p", "train", "x", D("80")),
        ("time-window", "q", "train", "y", D("60")),
        ("idle", "owner", "idle", None, D("40")),
    ]
    # where rules 1-3 left the fee (its tag), kept as share 0 for audit
    assert con.execute(
        "SELECT project, rule FROM allocation_refs JOIN allocation_tuples USING (tuple_id) WHERE share_no = 0"
    ).fetchall() == [("other", "tag")]
