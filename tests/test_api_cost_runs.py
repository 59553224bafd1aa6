"""A month worked by hand: an RL run uses a judge workspace of the Anthropic API on 2 of its 5 days, an eval
run shares that workspace for half of one of those days, and the days no run covers keep the workspace's
own (project-level) labels: they are not idle. Every expected amount is hand arithmetic written below.
Further down, a whole month (both providers' saved pages, a CUR 2.0 month, a GPU cloud's usage priced by the
rate card) through `nightly`, `report`, `reconcile`, `export` and the site.

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

import csv
import json
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from api_cost_fakes import names_text, page_text
from conftest import Project
from site_pages import read
from spark_checks import ON_SPARK_WORKER, assert_same_allocations, cli_in
from spark_checks import SPARK as SPARK_KEYS
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
SPARK = DUCKDB + SPARK_KEYS
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


@pytest.mark.slow  # a Spark session: about 50 s
@ON_SPARK_WORKER
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


# ---------------------------------------------------------------------------------------------------------
# A whole month, as the held-out check has it: saved API pages of both providers, a CUR 2.0 month,
# a GPU cloud's usage priced by the rate card, and a log whose runs name the API workspaces and projects;
# `nightly`, then `report`, `reconcile`, `export` and the site, to the cent by hand.
#
# November 2026 (every amount by hand, from the files written below):
# - CUR 2.0 (AWS): p5.48xlarge i-rl at $55.04 an hour, Nov 10 00:00-04:00: 4 x 55.04 = $220.16; i-spare,
#   one hour at 00:00 that no run names: $55.04. The bill: $275.20.
# - CoreWeave's usage-only FOCUS export, h100-sxm at $2.21 a GPU-hour (the rate card): cw-a 16 GPU-hours
#   at Nov 9 00:00 and at 01:00, 2 x 35.36 = $70.72, and 8 at Nov 12 00:00, $17.68. $88.40.
# - Anthropic cost report (cents): wrkspc_judge, mapped to { project = "qwen-coder" }: Nov 8 500, Nov 9
#   4000, Nov 10 3000, Nov 11 1000 ($85.00); wrkspc_evals, named "qwen-coder-eval-sft" (names_as_labels),
#   Nov 12 200 ($2.00); the default workspace Nov 9 50 ($0.50, unmapped). $87.50.
# - OpenAI Costs API (dollars): proj_synth, mapped to { project = "qwen-coder" }: Nov 3 12.5 (input), Nov 4
#   7.25 (output), Nov 5 3.00 (input); no project Nov 4 0.06. $22.81.
# The month: 275.20 + 88.40 + 87.50 + 22.81 = $473.91.
#
# The runs (project qwen-coder):
# - exp-rl (rl), Nov 8 00:00 - Nov 13 00:00 (5 days): train on i-rl Nov 10 00:00-04:00 ($220.16);
#   rollout Nov 9 00:00 - Nov 11 00:00 on cw-a ($70.72) with the judge workspace, weight 3: the judge on
#   2 of its 5 days: Nov 9 alone ($40.00), Nov 10 alone until 12:00 ($15.00) then with exp-eval by 3 : 1
#   ($11.25 of the afternoon's $15.00): $66.25.
# - exp-eval (sft), eval Nov 10 12:00 - Nov 11 00:00 on the judge workspace, weight 1: $3.75.
# - exp-sft (sft), data Nov 3 00:00 - Nov 5 00:00 on proj_synth (synthetic data from the other provider):
#   12.50 + 7.25 = $19.75.
# What no run covers: the judge's Nov 8 ($5.00) and Nov 11 ($10.00) and proj_synth's Nov 5 ($3.00) keep the
# project's label ($18.00; an API day is never idle); wrkspc_evals' $2.00 its name's labels (eval, sft); cw-a's
# Nov 12 hour is idle capacity of qwen-coder ($17.68); i-spare, the default workspace and the spend without a
# project are unattributed (55.04 + 0.50 + 0.06 = $55.60).
# exp-rl: 220.16 + 70.72 + 66.25 = $357.13. Check: 357.13 + 3.75 + 19.75 + 18.00 + 2.00 + 17.68 + 55.60 =
# $473.91, the month.
# ---------------------------------------------------------------------------------------------------------

JUDGE = "Claude Sonnet 4 Usage - Input Tokens"
ANTHROPIC_MONTH = {
    date(2026, 11, 8): [("wrkspc_judge", JUDGE, "500")],
    date(2026, 11, 9): [("wrkspc_judge", JUDGE, "4000"), (None, JUDGE, "50")],
    date(2026, 11, 10): [("wrkspc_judge", JUDGE, "3000")],
    date(2026, 11, 11): [("wrkspc_judge", JUDGE, "1000")],
    date(2026, 11, 12): [("wrkspc_evals", JUDGE, "200")],
}
GPT_IN, GPT_OUT = "gpt-4o-2024-08-06, input", "gpt-4o-2024-08-06, output"
OPENAI_MONTH = {
    date(2026, 11, 3): [("proj_synth", GPT_IN, "12.5", "usd")],
    date(2026, 11, 4): [("proj_synth", GPT_OUT, "7.25", "usd"), (None, "ft-gpt-4o training", "0.06", "usd")],
    date(2026, 11, 5): [("proj_synth", GPT_IN, "3.00", "usd")],
}
COREWEAVE = (
    "BillingAccountId,ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ProviderName,ServiceName,"
    "ServiceCategory,SkuId,PricingQuantity,PricingUnit,ResourceId\n"
    "cw-org-1,2026-11-09T00:00:00Z,2026-11-09T01:00:00Z,,USD,CoreWeave,CoreWeave Kubernetes,Compute,h100-sxm,16,"
    "GPU-Hours,cw-a\n"
    "cw-org-1,2026-11-09T01:00:00Z,2026-11-09T02:00:00Z,,USD,CoreWeave,CoreWeave Kubernetes,Compute,h100-sxm,16,"
    "GPU-Hours,cw-a\n"
    "cw-org-1,2026-11-12T00:00:00Z,2026-11-12T01:00:00Z,,USD,CoreWeave,CoreWeave Kubernetes,Compute,h100-sxm,8,"
    "GPU-Hours,cw-a\n"
)


def _run(experiment: str, method: str, start: str, end: str, phases: list[dict[str, object]]) -> str:
    record = {
        "experiment_id": experiment,
        "project": "qwen-coder",
        "method": method,
        "status": "succeeded",
        "started_at": start,
        "ended_at": end,
        "phases": phases,
    }
    return json.dumps(record) + "\n"


def whole_month(root: Path) -> Path:
    import generate_clusters

    cur = generate_clusters.instance_hours("i-rl", range(4)) + generate_clusters.instance_hours(
        "i-spare", range(1)
    )
    generate_clusters.write_cur2(root, cur, export="aws-cur2")
    for folder, text in (
        ("anthropic", page_text("anthropic", ANTHROPIC_MONTH)),
        ("openai", page_text("openai", OPENAI_MONTH)),
    ):
        (root / folder).mkdir()
        (root / folder / "2026-11.json").write_text(text, encoding="utf-8")
    (root / "anthropic" / "workspaces.json").write_text(
        names_text("anthropic", {"wrkspc_judge": "Judge", "wrkspc_evals": "qwen-coder-eval-sft"}),
        encoding="utf-8",
    )
    (root / "coreweave").mkdir()
    (root / "coreweave" / "usage-2026-11.csv").write_text(COREWEAVE, encoding="utf-8")
    judge = {"provider": "anthropic", "resource_id": "wrkspc_judge"}
    log = (
        _run(
            "exp-rl",
            "rl",
            "2026-11-08T00:00:00Z",
            "2026-11-13T00:00:00Z",
            [
                {
                    "phase": "train",
                    "started_at": "2026-11-10T00:00:00Z",
                    "ended_at": "2026-11-10T04:00:00Z",
                    "resources": [{"provider": "aws", "resource_id": "i-rl", "gpus": 8}],
                },
                {
                    "phase": "rollout",
                    "started_at": "2026-11-09T00:00:00Z",
                    "ended_at": "2026-11-11T00:00:00Z",
                    "resources": [
                        {"provider": "coreweave", "resource_id": "cw-a", "gpus": 16},
                        {**judge, "weight": 3},
                    ],
                },
            ],
        )
        + _run(
            "exp-eval",
            "sft",
            "2026-11-10T12:00:00Z",
            "2026-11-11T00:00:00Z",
            [{"phase": "eval", "resources": [{**judge, "weight": 1}]}],
        )
        + _run(
            "exp-sft",
            "sft",
            "2026-11-03T00:00:00Z",
            "2026-11-05T00:00:00Z",
            [{"phase": "data", "resources": [{"provider": "openai", "resource_id": "proj_synth"}]}],
        )
    )
    (root / "experiments.jsonl").write_text(log, encoding="utf-8")
    config = root / "trainledger.toml"
    config.write_text(
        '[warehouse]\npath = "ledger.duckdb"\n\n[experiments]\nuri = "experiments.jsonl"\n\n'
        '[exports]\ndir = "exports"\nformat = ["csv", "focus"]\nsite = "site"\n\n'
        '[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "aws-cur2"\n\n'
        '[[sources]]\nname = "coreweave"\nkind = "focus-usage"\nuri = "coreweave"\nprovider = "coreweave"\n\n'
        '[[sources]]\nname = "claude"\nkind = "anthropic-costs"\nuri = "anthropic"\nnames_as_labels = true\n'
        'labels = { "wrkspc_judge" = { project = "qwen-coder" } }\n\n'
        '[[sources]]\nname = "gpt"\nkind = "openai-costs"\nuri = "openai"\n'
        'labels = { "proj_synth" = { project = "qwen-coder" } }\n\n'
        '[[rates]]\nsku = "h100-sxm"\nunit = "GPU-Hours"\nprice = "2.21"\ncurrency = "USD"\n'
        "valid_from = 2026-11-01\n",
        encoding="utf-8",
    )
    return config


def cli_ok(config: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_a_whole_month_of_bills_api_pages_and_rate_card_charges_to_the_cent(tmp_path: Path) -> None:
    config = whole_month(tmp_path)
    cli_ok(config, "nightly")

    # report: realized cost per experiment and phase, and where the rest of the month is held.
    rows = json.loads(
        cli_ok(config, "report", "--period", "2026-11", "--by", "experiment,phase,rule", "--format", "json")
    )
    held = {(r["experiment_id"], r["phase"], r["rule"]): Decimal(r["effective_cost"]) for r in rows}
    assert held == {
        ("exp-rl", "train", "time-window"): Decimal("220.16"),
        ("exp-rl", "rollout", "time-window"): Decimal("70.72"),
        # An API day split among runs keeps rule tag: the workspace's labels, with the runs' phase and id.
        ("exp-rl", "rollout", "tag"): Decimal("66.25"),
        ("exp-eval", "eval", "tag"): Decimal("3.75"),
        ("exp-sft", "data", "tag"): Decimal("19.75"),
        (None, None, "tag"): Decimal("18.00"),
        (None, "eval", "tag"): Decimal("2.00"),
        (None, "idle", "idle"): Decimal("17.68"),
        (None, None, "unattributed"): Decimal("55.60"),
    }
    assert sum(held.values()) == Decimal("473.91")

    # reconcile: exp-rl's GPU lines and its judge line apart; the rate card's part named.
    report = json.loads(cli_ok(config, "reconcile", "exp-rl", "--format", "json"))
    realized = {(r["phase"], r["category"], r["spend"]): r["realized"] for r in report["rows"]}
    assert realized == {
        ("train", "compute", "cloud"): "220.16",
        ("rollout", "compute", "cloud"): "70.72",
        ("rollout", "compute", "llm_api"): "66.25",
    }
    for experiment, line, amount in (
        ("exp-eval", ("eval", "compute", "llm_api"), "3.75"),
        ("exp-sft", ("data", "compute", "llm_api"), "19.75"),
    ):
        rows_of = json.loads(cli_ok(config, "reconcile", experiment, "--format", "json"))["rows"]
        assert {(r["phase"], r["category"], r["spend"]): r["realized"] for r in rows_of} == {line: amount}

    # export: the finance CSV and the FOCUS file add up to the month, each provider to its bill.
    with (tmp_path / "exports" / "trainledger-2026-11.csv").open(encoding="utf-8", newline="") as handle:
        finance = list(csv.DictReader(handle))
    by_provider: dict[str, Decimal] = {}
    for r in finance:
        by_provider[r["provider"]] = by_provider.get(r["provider"], Decimal(0)) + Decimal(r["effective_cost"])
    assert by_provider == {
        "aws": Decimal("275.20"),
        "coreweave": Decimal("88.40"),
        "anthropic": Decimal("87.50"),
        "openai": Decimal("22.81"),
    }
    with (tmp_path / "exports" / "trainledger-2026-11-focus.csv").open(
        encoding="utf-8", newline=""
    ) as handle:
        focus = list(csv.DictReader(handle))
    focus_by: dict[str, Decimal] = {}
    for r in focus:
        focus_by[r["ProviderName"]] = focus_by.get(r["ProviderName"], Decimal(0)) + Decimal(r["BilledCost"])
    assert focus_by == {
        "AWS": Decimal("275.20"),
        "CoreWeave": Decimal("88.40"),
        "Anthropic": Decimal("87.50"),
        "OpenAI": Decimal("22.81"),
    }
    assert {r["ServiceCategory"] for r in focus if r["ProviderName"] in ("Anthropic", "OpenAI")} == {
        "AI and Machine Learning"
    }
    assert all(
        r["ChargeDescription"].startswith("trainledger rate card")
        for r in focus
        if r["ProviderName"] == "CoreWeave"
    )

    # The site's API spend page, read back with the HTML parser: by project and model (Anthropic's model,
    # OpenAI's line item), by hand from the pages: judge 5 + 40 + 30 + 10 and evals 2, all qwen-coder's.
    page = read(tmp_path / "site" / "api-spend.html").tables["api-spend-2026-11"]
    assert [
        (p, proj or None, model, cur, Decimal(b), Decimal(e)) for p, proj, model, cur, b, e, _ in page
    ] == [
        ("anthropic", "qwen-coder", "claude-sonnet-4-20250514", "USD", Decimal("87.00"), Decimal("87.00")),
        ("anthropic", None, "claude-sonnet-4-20250514", "USD", Decimal("0.50"), Decimal("0.50")),
        ("openai", "qwen-coder", GPT_IN, "USD", Decimal("15.50"), Decimal("15.50")),
        ("openai", "qwen-coder", GPT_OUT, "USD", Decimal("7.25"), Decimal("7.25")),
        ("openai", None, "ft-gpt-4o training", "USD", Decimal("0.06"), Decimal("0.06")),
    ]
    assert sum(Decimal(row[5]) for row in page) == Decimal("87.50") + Decimal("22.81")
    assert "api-spend.html" in read(tmp_path / "site" / "index.html").links
