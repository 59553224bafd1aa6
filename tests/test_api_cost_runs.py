"""A month worked by hand: an RL run uses a judge workspace of the Anthropic API on 2 of its 5 days, an eval
run shares that workspace for half of one of those days, and the days no run covers keep the workspace's
own (project-level) labels: they are not idle. Every expected amount is hand arithmetic written below.

The month (November 2026):
- GPU bill (the off-cloud ledger here): $1000.00 for exp-rl's training, tagged with its run.
- Anthropic cost report, workspace ``wrkspc_judge`` mapped to ``{project = "qwen-coder"}``:
  Nov 3 $10.00 (1000 cents), Nov 4 $40.00, Nov 5 $30.00, Nov 6 $5.00; the default workspace (no id,
  unmapped) $0.50 on Nov 4.
- exp-rl (qwen-coder, rl), Nov 3 - Nov 8; its rollout phase names the judge workspace from Nov 4 00:00 to
  Nov 6 00:00 with weight 3 (judged tokens, in thousands, from its end record).
- exp-eval (qwen-coder, sft), its eval phase names the workspace from Nov 5 12:00 to Nov 6 00:00, weight 1.

By hand:
- Nov 3: no run: $10.00 stays qwen-coder at project level (rule tag, no phase, no experiment).
- Nov 4: exp-rl alone all day: $40.00 to exp-rl, phase rollout.
- Nov 5: 00:00-12:00 exp-rl alone: half the day, $15.00; 12:00-24:00 both, by weight 3 : 1 of the other
  $15.00: exp-rl $11.25, exp-eval $3.75. exp-rl $26.25 that day, exp-eval $3.75.
- Nov 6: the window ended at midnight: $5.00 project level.
- Default workspace: $0.50 unattributed (untagged).
Totals: exp-rl rollout 40 + 26.25 = $66.25, exp-rl train $1000.00, exp-eval eval $3.75, qwen-coder without
an experiment 10 + 5 = $15.00, unattributed $0.50; the month 1000 + 85 + 0.50 = $1085.50, and no idle.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from api_cost_fakes import page_text
from conftest import Project
from spark_checks import assert_same_allocations, cli_in
from trainledger.cli import cli

DAYS = {
    date(2026, 11, 3): [("wrkspc_judge", "Claude Sonnet 4 Usage - Input Tokens", "1000")],
    date(2026, 11, 4): [
        ("wrkspc_judge", "Claude Sonnet 4 Usage - Input Tokens", "4000"),
        (None, "Claude Haiku 3.5 Usage - Input Tokens", "50"),
    ],
    date(2026, 11, 5): [("wrkspc_judge", "Claude Sonnet 4 Usage - Output Tokens", "3000")],
    date(2026, 11, 6): [("wrkspc_judge", "Claude Sonnet 4 Usage - Input Tokens", "500")],
}
RUNS = [
    {
        "experiment_id": "exp-rl",
        "project": "qwen-coder",
        "method": "rl",
        "status": "running",
        "started_at": "2026-11-03T00:00:00Z",
        "phases": [
            {
                "phase": "rollout",
                "started_at": "2026-11-04T00:00:00Z",
                "ended_at": "2026-11-06T00:00:00Z",
                "resources": [{"provider": "anthropic", "resource_id": "wrkspc_judge"}],
            }
        ],
    },
    # The end record: the judged tokens are known now, and update the phases whole.
    {
        "experiment_id": "exp-rl",
        "status": "succeeded",
        "ended_at": "2026-11-08T00:00:00Z",
        "phases": [
            {
                "phase": "rollout",
                "started_at": "2026-11-04T00:00:00Z",
                "ended_at": "2026-11-06T00:00:00Z",
                "resources": [{"provider": "anthropic", "resource_id": "wrkspc_judge", "weight": 3}],
            }
        ],
    },
    {
        "experiment_id": "exp-eval",
        "project": "qwen-coder",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-05T12:00:00Z",
        "ended_at": "2026-11-06T00:00:00Z",
        "phases": [
            {
                "phase": "eval",
                "resources": [{"provider": "anthropic", "resource_id": "wrkspc_judge", "weight": 1}],
            }
        ],
    },
]
DUCKDB = '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
SPARK = (
    '[warehouse]\npath = ".trainledger/ledger.duckdb"\nengine = "spark"\nmaster = "local[2]"\n'
    'spark_conf = { "spark.sql.shuffle.partitions" = "2", "spark.ui.enabled" = "false" }\n'
)
LEDGER = (
    "date,period_start,period_end,amount,currency,project,phase,method,experiment_id,category,vendor,description,"
    "reference\n,2026-11-03,2026-11-08,1000.00,USD,qwen-coder,train,rl,exp-rl,compute,GPU cloud,8xH100,INV-1\n"
)


def month(tmp_path: Path, warehouse: str = '[warehouse]\npath = "ledger.duckdb"\n') -> Path:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "2026-11.json").write_text(page_text("anthropic", DAYS), encoding="utf-8")
    (tmp_path / "experiments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    (tmp_path / "gpus.csv").write_text(LEDGER, encoding="utf-8")
    config = tmp_path / "trainledger.toml"
    config.write_text(
        warehouse + '\n[experiments]\nuri = "experiments.jsonl"\n\n'
        '[[sources]]\nname = "gpus"\nkind = "manual"\nuri = "gpus.csv"\n\n'
        '[[sources]]\nname = "claude"\nkind = "anthropic-costs"\nuri = "pages"\n'
        'labels = { "wrkspc_judge" = { project = "qwen-coder" } }\n',
        encoding="utf-8",
    )
    return config


def test_api_days_split_among_the_runs_that_name_the_workspace(tmp_path: Path) -> None:
    config = month(tmp_path)
    for command in (("ingest",), ("attribute",)):
        result = CliRunner().invoke(cli, ["--config", str(config), *command], catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
    con = duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True)
    try:
        shares = con.execute(
            "SELECT experiment_id, project, phase, method, rule, sum(effective_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        by_day = dict(
            con.execute(
                "SELECT strftime(charge_period_start, '%d') || ' ' || coalesce(experiment_id, '-'), sum(billed_cost) "
                "FROM allocations WHERE provider = 'anthropic' GROUP BY 1"
            ).fetchall()
        )
        billed = con.execute("SELECT sum(billed_cost) FROM charges").fetchone()
    finally:
        con.close()
    assert shares == [
        ("exp-eval", "qwen-coder", "eval", "sft", "tag", Decimal("3.75")),
        ("exp-rl", "qwen-coder", "rollout", "rl", "tag", Decimal("66.25")),
        ("exp-rl", "qwen-coder", "train", "rl", "tag", Decimal("1000.00")),
        (None, "qwen-coder", None, None, "tag", Decimal("15.00")),
        (None, None, None, None, "unattributed", Decimal("0.50")),
    ]
    assert by_day == {
        "03 -": Decimal("10.00"),
        "04 exp-rl": Decimal("40.00"),
        "04 -": Decimal("0.50"),
        "05 exp-rl": Decimal("26.25"),
        "05 exp-eval": Decimal("3.75"),
        "06 -": Decimal("5.00"),
    }
    # The bill and the API pages add up to the month: 1000 + (1000 + 4000 + 50 + 3000 + 500) cents.
    assert billed == (Decimal("1085.50"),)
    assert sum(s[-1] for s in shares) == Decimal("1085.50")


def test_spark_splits_the_api_days_as_duckdb_does(tmp_path: Path) -> None:
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (Spark needs Java 17: apt-get install openjdk-17-jre-headless)")
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'trainledger[spark]')")
    engines = {}
    for engine, warehouse in (("duckdb", DUCKDB), ("spark", SPARK)):
        root = tmp_path / engine
        root.mkdir()
        month(root, warehouse)
        for command in (("ingest",), ("attribute",)):
            result = cli_in(root)(*command)
            assert result.exit_code == 0, result.stderr
        engines[engine] = Project(root)
    on_spark = assert_same_allocations(engines, at_least=6)
    # Nov 5 keeps its two segments as shares: exp-rl alone ($15.00), then by weight ($11.25 and $3.75).
    assert sorted((r[12], r[21]) for r in on_spark if r[3] == "anthropic" and r[12]) == [
        ("exp-eval", Decimal("3.75")),
        ("exp-rl", Decimal("11.25")),
        ("exp-rl", Decimal("15.00")),
        ("exp-rl", Decimal("40.00")),
    ]
