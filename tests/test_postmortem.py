"""Post-mortem content (issue 16): the chart and the table say the same, a failed run is waste and never a
saving, "no estimate" is never 0.00, a run with no cost is a clean empty state, the headline separates
estimated lines from the rest, HTML shows what markdown shows; and Markdown escapes every value (issue 22
item 4)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Project, demo_config
from trainledger.cli import cli
from trainledger.outputs import postmortem
from trainledger.outputs.postmortem_svg import Bar, chart
from trainledger.reports.reconciliation import Headline, Reconciliation, Row

DEMO_EXPERIMENTS = ["exp-sft-0412", "exp-rl-0419", "exp-rl-0421", "exp-opd-0425"]


def reconcile(project: Project, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--config", str(project.config), "reconcile", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _svg(page: str) -> str:
    found = re.search(r"<svg .*?</svg>", page, re.S)
    assert found is not None
    return found.group(0)


def _table_rows(page: str) -> list[list[str]]:
    """The first table's body rows as cell texts."""
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S)
    assert body is not None
    return [
        [unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1))
    ]


@pytest.mark.parametrize("experiment", DEMO_EXPERIMENTS)
def test_chart_and_table_show_the_same_variances(nightly_warehouse: Project, experiment: str) -> None:
    page = reconcile(nightly_warehouse, experiment, "--format", "html")
    labels = [unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", _svg(page))]
    lines = [r for r in _table_rows(page) if r[1]]  # phase x category lines (summaries have no category)
    assert lines
    for phase, category, estimated, realized, _, pct in lines:
        note = "" if pct == "-" else f" ({pct})"
        assert f"real {realized}{note}" in labels, (phase, category)
        assert (f"est {estimated}" if estimated != "no estimate" else "no estimate") in labels
    # Every percentage in the chart is one of the table's.
    chart_pcts = re.findall(r"\(([+-][\d.]+%)\)", " ".join(labels))
    assert sorted(chart_pcts) == sorted(r[5] for r in lines if r[5] != "-")


def test_a_failed_run_is_waste_never_a_saving(nightly_warehouse: Project) -> None:
    banner = "failed at 2026-11-14 08:15 UTC; realized cost is waste"  # the log's ended_at for exp-rl-0421
    page = reconcile(nightly_warehouse, "exp-rl-0421", "--format", "html")
    assert f'<div class="banner failed">{banner}</div>' in page
    assert "good" not in page  # no "saving" colour anywhere
    # The under-run (-82.4%) is neutral: no red value, no red bar.
    assert re.search(r'<div class="label">Variance, estimated lines</div><div class="value ">', page)
    assert 'class="over"' in _svg(page) and _svg(page).count('class="over"') == 1  # the legend swatch only
    assert f"> **{banner}**" in reconcile(nightly_warehouse, "exp-rl-0421", "--format", "markdown")
    assert reconcile(nightly_warehouse, "exp-rl-0421").startswith(banner.upper() + "\n")
    # A run that succeeded has no such banner; its over-run is red.
    ok = reconcile(nightly_warehouse, "exp-rl-0419", "--format", "html")
    assert "banner failed" not in ok
    # Train and rollout compute: 854.61 + 254.61 = 1,109.22 over 1,500 + 2,100 estimated = +30.8%.
    assert '<div class="label">Variance, estimated lines</div><div class="value bad">1,109.22 (+30.8%)' in ok


def test_headline_separates_estimated_lines_by_hand(nightly_warehouse: Project) -> None:
    report = json.loads(reconcile(nightly_warehouse, "exp-sft-0412", "--format", "json"))
    rows = report["rows"]
    estimated = [r for r in rows if r["estimated"] is not None]
    assert {(r["phase"], r["category"]) for r in estimated} == {("train", "compute"), ("eval", "compute")}
    est = Decimal("950") + Decimal("110")
    real = sum((Decimal(r["realized"]) for r in estimated), Decimal(0))
    rest = sum((Decimal(r["realized"]) for r in rows if r["estimated"] is None), Decimal(0))
    variance = real - est
    expected_pct = f"{variance / est * 100:+.1f}%"
    text = reconcile(nightly_warehouse, "exp-sft-0412", "--format", "markdown")
    assert (
        f"| estimated lines |  | 1,060.00 | {real.quantize(Decimal('0.01')):,f} | "
        f"{variance.quantize(Decimal('0.01')):,f} | {expected_pct} |" in text
    )
    assert (
        f"| lines with no estimate |  | no estimate | {rest.quantize(Decimal('0.01')):,f} | - | - |" in text
    )
    assert expected_pct == "+52.6%"  # not the +631.6% that mixing in unestimated data/ops cost gave


def test_html_shows_what_markdown_shows(nightly_warehouse: Project) -> None:
    report = json.loads(reconcile(nightly_warehouse, "exp-sft-0412", "--format", "json"))
    realized = Decimal(report["totals"]["realized"])
    # The log: target 0.41 -> 0.55 = +14 points, general 0.62 -> 0.60 = -2 points.
    per_point = (realized / 14).quantize(Decimal("0.01"))
    expected = [
        "Evaluation: 21.5% of realized cost (teams commonly see 20-40%)",
        "Metric gain: target +14.00 points, general -2.00 points",
        f"Cost per target point: {per_point:,f} USD (realized cost / target points; 1 point = 0.01 of a 0-1 metric)",
    ]
    markdown = reconcile(nightly_warehouse, "exp-sft-0412", "--format", "markdown")
    page = unescape(reconcile(nightly_warehouse, "exp-sft-0412", "--format", "html"))
    for line in expected:
        assert f"- {line}" in markdown
        assert f">{line}<" in page
    for line in (
        "realized_measure: EffectiveCost (amortised, net of credits)",
        "estimate_source: experiment log",
    ):
        assert f"<li>{line}</li>" in page and f"- {line}" in markdown
    # No metrics, no benefit section (exp-rl-0421 logged none).
    assert "Metric gain" not in reconcile(nightly_warehouse, "exp-rl-0421", "--format", "html")


@pytest.fixture(scope="module")
def odd_runs(tmp_path_factory: pytest.TempPathFactory, demo_files: Path) -> Project:
    """The demo plus a run with cost but no estimate and no params, and one with no cost at all."""
    root = tmp_path_factory.mktemp("odd-runs")
    base = {"project": "qwen-coder", "method": "sft", "status": "succeeded"}
    records = [
        {
            **base,
            "experiment_id": "exp-unestimated",
            "started_at": "2026-11-20T00:00:00Z",
            "ended_at": "2026-11-20T04:00:00Z",
            "phases": [
                {"phase": "train", "resources": [{"provider": "aws", "resource_id": "i-0f66000000000009"}]}
            ],
        },
        {
            **base,
            "experiment_id": "exp-nothing-yet",
            "started_at": "2026-11-29T00:00:00Z",
            "ended_at": "2026-11-29T01:00:00Z",
            "phases": [{"phase": "train", "resources": [{"provider": "aws", "resource_id": "i-unbilled"}]}],
        },
    ]
    log = root / "experiments.jsonl"
    log.write_text(
        (demo_files / "experiments.jsonl").read_text(encoding="utf-8")
        + "".join(json.dumps(r) + "\n" for r in records),
        encoding="utf-8",
    )
    project = Project(root)
    project.write_config(demo_config(demo_files).replace(str(demo_files / "experiments.jsonl"), str(log)))
    result = CliRunner().invoke(cli, ["--config", str(project.config), "nightly"])
    assert result.exit_code == 0, result.output
    return project


def test_no_estimate_reads_no_estimate_never_zero(odd_runs: Project) -> None:
    text = reconcile(odd_runs, "exp-unestimated", "--format", "markdown")
    total = next(line for line in text.splitlines() if line.startswith("| total |"))
    assert re.fullmatch(r"\| total \|  \| no estimate \| [\d,]+\.\d\d \| - \| - \|", total), total
    assert "no estimate (none in the log, no params for the estimator)" in text
    page = reconcile(odd_runs, "exp-unestimated", "--format", "html")
    assert '<div class="label">Estimated</div><div class="value ">no estimate</div>' in page
    assert "Variance" not in page and "0.00 USD</div>" not in page.split("Realized")[0]


def test_no_cost_yet_is_a_clean_empty_state(odd_runs: Project) -> None:
    page = reconcile(odd_runs, "exp-nothing-yet", "--format", "html")
    assert '<p class="empty">No cost billed to this experiment yet (billing complete through ' in page
    assert "<svg" not in page  # no chart of zeros, no axis ticks
    assert "No cost billed to this experiment yet" in reconcile(
        odd_runs, "exp-nothing-yet", "--format", "markdown"
    )
    assert "No cost billed to this experiment yet" in reconcile(odd_runs, "exp-nothing-yet")


def test_small_amounts_get_distinct_ticks() -> None:
    svg = chart(
        [Bar("eval", "compute", Decimal("0.40"), Decimal("0.12"), "est 0.40", "real 0.12 (-70.0%)")], "USD"
    )
    ticks = re.findall(r'class="tick">([^<]*)<', svg)
    assert ticks == ["0.0", "0.1", "0.2", "0.3", "0.4"]  # peak 0.40: step 0.1, never "0 0 0 0 0"
    assert chart([Bar("eval", "compute", None, Decimal(0), "no estimate", "real 0.00")], "USD") == ""


def _hostile(**changes: object) -> Reconciliation:
    base = dict(
        experiment_id="exp<script>alert(1)</script>*x*",
        project="proj\n# Owned [link](http://evil.example)",
        method="sft_`rm`",
        status="succeeded",
        started_at=datetime(2026, 11, 3, tzinfo=UTC),
        ended_at=datetime(2026, 11, 4, tzinfo=UTC),
        currency="USD",
        billing_complete_through=datetime(2026, 12, 1, tzinfo=UTC),
        provisional=False,
        rows=[Row("train|x", "<b>compute</b>", None, Decimal("5"), None, None)],
        idle=Decimal(0),
        failed=Decimal(0),
        unused_commitment=Decimal(0),
        estimated_total=Decimal(0),
        realized_total=Decimal(5),
        variance_total=Decimal(5),
        variance=None,
        headline=Headline(None, Decimal(0), Decimal(5), 1, None, None, False),
        eval_share=Decimal(0),
        hidden_cost=Decimal(0),
        assumptions={"estimate_source": "none", "realized_measure": "a\u2028## b"},
    )
    base.update(changes)
    return Reconciliation(**base)  # type: ignore[arg-type]


def test_markdown_escapes_every_interpolated_value() -> None:
    lines = postmortem.markdown(_hostile()).splitlines()
    assert lines[0] == "# Post-mortem: exp&lt;script&gt;alert(1)&lt;/script&gt;\\*x\\*"
    assert lines[2] == (
        "- Experiment exp&lt;script&gt;alert(1)&lt;/script&gt;\\*x\\*  project proj\\u000a\\# Owned "
        "\\[link\\](http://evil.example)  method sft\\_\\`rm\\`  status succeeded"
    )
    assert "| train\\|x | &lt;b&gt;compute&lt;/b&gt; | no estimate | 5.00 | - | - |" in lines
    assert "- realized_measure: a\\u2028\\#\\# b" in lines  # the key is ours, the value escaped
    assert not [
        line
        for line in lines
        if line.startswith("#") and "Post-mortem" not in line and not line.startswith("## ")
    ]
    assert "<" not in "\n".join(lines).replace("&lt;", "")
