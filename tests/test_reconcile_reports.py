"""reconcile in every format: the SPEC §7 JSON (golden), markdown, HTML and text, with the money written out."""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, Project, demo_config
from trainledger.cli import cli
from trainledger.core import config as config_module
from trainledger.reports.reconcile import reconcile_many
from trainledger.warehouse.connection import open_warehouse, run

GOLDEN = ROOT / "tests" / "golden" / "reconcile-exp-sft-0412.json"


def reconcile(project: Project, *args: str) -> str:
    result = CliRunner().invoke(
        cli, ["--config", str(project.config), "reconcile", *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def pinned_local_zone(monkeypatch: pytest.MonkeyPatch):
    """A local time zone far from UTC: output must not depend on it."""
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_json_matches_the_golden_file(nightly_warehouse: Project, pinned_local_zone: None) -> None:
    text = reconcile(nightly_warehouse, "exp-sft-0412", "--format", "json")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert b"\r" not in GOLDEN.read_bytes()


def test_json_has_exactly_the_spec_keys_and_implied_compute(nightly_warehouse: Project) -> None:
    report = json.loads(reconcile(nightly_warehouse, "exp-sft-0412", "--format", "json"))
    assert list(report) == [
        "experiment_id",
        "currency",
        "billing_complete_through",
        "provisional",
        "rows",
        "totals",
        "waste",
        "reservations",  # beyond SPEC §7: the [[reservations]] the run used (README "Reserved GPU capacity")
        "assumptions",
    ]
    assert list(report["rows"][0]) == [
        "phase",
        "category",
        "estimated",
        "realized",
        "variance",
        "variance_pct",
        "spend",  # beyond SPEC §7: cloud, or llm_api for a model API's bill (README "LLM API spend")
    ]
    assert report["totals"] == {
        "estimated": "1060.00",
        "realized": "7754.446274205",
        "variance": "6694.446274205",
    }
    train = next(c for c in report["assumptions"]["compute"] if c["phase"] == "train")
    # 1,210.88 realized on p5.48xlarge at 6.88 per GPU hour = 176 GPU hours (22 instance hours x 8 GPUs);
    # the log says 18.5 h x 8 = 148; 3.78e19 FLOPs / (176 h x 3600 x 989e12) = 6.03 % MFU.
    assert train == {
        "phase": "train",
        "flops": 37800000000000000000,
        "estimated_gpu_hours": "26.54",
        "realized_compute": "1210.88",
        "implied_gpu_hours": "176.00",
        "logged_gpu_hours": "148.00",
        "implied_mfu": "0.0603",
    }
    assert report["assumptions"]["estimator"]["peak_tflops"]["value"] == "989"
    assert report["assumptions"]["estimator_missing"] == [
        "eval_tokens_per_sample: needed for evaluation generation; not estimated"
    ]


def test_an_experiment_without_estimate_is_reconciled_against_the_estimator(
    nightly_warehouse: Project,
) -> None:
    report = json.loads(reconcile(nightly_warehouse, "exp-rl-0421", "--format", "json"))
    assert report["assumptions"]["estimate_source"] == "estimator (the log gives no estimate)"
    rows = {(r["phase"], r["category"]): r for r in report["rows"]}
    # 500 steps x 512 prompts x 8 samples x 2,560 tokens x 6 x 7e9 = 2.2020096e20 FLOPs
    # / (989e12 x 0.40 x 3600) = 154.618 GPU h x 6.88 = 1,063.77.
    assert rows[("train", "compute")]["estimated"] == "1063.77"
    assert rows[("train", "compute")]["realized"] == "495.36"
    # Rollout: 1,758.77 before the old log-probs forward (2 x 7e9 x 5.24288e9 tokens / (989e12 x 0.5 x 3600)
    # = 41.2315 h) and the weight sync (500 x 14 GB / (671 GB / 12.13 s) x 8 GPUs / 3600 = 0.2812 h) were
    # counted: 41.5127 h x 6.88 = 285.61 more.
    assert rows[("rollout", "compute")]["estimated"] == "2044.38"
    assert report["waste"] == {"idle": "0.00", "failed": "497.35999998", "unused_commitment": "0.00"}
    assert report["assumptions"]["implied_mfu"].startswith("not computed: the run failed")


def test_many_at_once_equal_each_alone(nightly_warehouse: Project) -> None:
    """The site reconciles every experiment in one read per table: each must equal `reconcile ID`."""
    with open_warehouse(config_module.load(nightly_warehouse.config), write=False) as con:
        ids = [i for i, _ in run(con, "report/experiment_ids").fetchall()]
        # Reversed and with a repeat and a non-canonical spelling: results follow the ids asked for.
        asked = [*reversed(ids), ids[0], ids[1].upper()]
        many = [r.to_json() for r in reconcile_many(con, asked)]
    alone = {i: json.loads(reconcile(nightly_warehouse, i, "--format", "json")) for i in ids}
    assert len(ids) >= 4
    assert many == [alone[i] for i in [*reversed(ids), ids[0], ids[1]]]
    # Not one experiment's figures repeated: each has its own realized total.
    assert len({r["totals"]["realized"] for r in alone.values()}) == len(ids)


def test_markdown_shows_the_key_figures(nightly_warehouse: Project) -> None:
    text = reconcile(nightly_warehouse, "exp-sft-0412", "--format", "markdown")
    assert text.startswith("# Post-mortem: exp-sft-0412\n")
    assert "| train | compute | 950.00 | 1,210.88 | 260.88 | +27.5% |" in text
    assert "| eval | compute | 110.00 | 406.25 | 296.25 | +269.3% |" in text
    # The headline variance is over the estimated lines only (950 + 110 against 1,210.88 + 406.25).
    assert "| estimated lines |  | 1,060.00 | 1,617.13 | 557.13 | +52.6% |" in text
    assert "| lines with no estimate |  | no estimate | 6,137.31 | - | - |" in text
    assert "| total |  | 1,060.00 | 7,754.45 | - | - |" in text
    assert "| train | 3.78e+19 | 26.54 | 176.00 | 148.00 | 6.0% |" in text
    assert "| price\\_per\\_gpu\\_hour | 6.88 |" in text  # Markdown escaped: underscores are syntax
    assert "- eval\\_tokens\\_per\\_sample: needed for evaluation generation; not estimated" in text


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[str] = []
        self.urls: list[str] = []

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.chunks.append(data.strip())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls.extend(v or "" for k, v in attrs if k in ("src", "href"))


def test_html_is_self_contained_with_the_chart_and_figures(nightly_warehouse: Project) -> None:
    page = reconcile(nightly_warehouse, "exp-sft-0412", "--format", "html")
    parser = _Text()
    parser.feed(page)
    assert parser.urls == []  # no external script, style, font or image
    assert "<script" not in page
    chunks = parser.chunks
    assert [
        c.upper() if c.isalpha() else c
        for c in chunks[chunks.index("Estimated") : chunks.index("Estimated") + 6]
    ] == [
        "ESTIMATED",
        "1,060.00 USD",
        "REALIZED",
        "7,754.45 USD",
        "Variance, estimated lines",
        "557.13 (+52.6%)",
    ]
    # The chart: one estimated and one realized bar per line of the table, with the table's variance.
    svg = re.search(r"<svg .*?</svg>", page, re.S)
    assert svg is not None
    assert 'aria-label="estimated vs realized cost per line, USD"' in svg.group(0)
    assert "est 950.00" in svg.group(0)
    assert "real 1,210.88 (+27.5%)" in svg.group(0)
    assert "est 110.00" in svg.group(0) and "real 406.25 (+269.3%)" in svg.group(0)
    assert svg.group(0).count("no estimate") == 5  # data x2, train network and storage, eval ops
    assert svg.group(0).count('class="over"') == 3  # train and eval compute bars + legend swatch
    assert "Billing is complete through 2026-12-01 00:00 UTC, after the run ended." in chunks
    assert "176.00" in chunks and "6.0%" in chunks


def test_a_run_the_bill_does_not_yet_cover_is_provisional(tmp_path: Path, demo_files: Path) -> None:
    log = tmp_path / "experiments.jsonl"
    record = {
        "experiment_id": "exp-sft-late",
        "project": "qwen-coder",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-30T20:00:00Z",
        "ended_at": "2026-12-01T06:00:00Z",
        "phases": [
            {
                "phase": "train",
                "resources": [{"provider": "aws", "resource_id": "i-0f66000000000009", "gpus": 8}],
            }
        ],
        "estimate": {"currency": "USD", "train": 500},
    }
    log.write_text(
        (demo_files / "experiments.jsonl").read_text(encoding="utf-8") + json.dumps(record) + "\n",
        encoding="utf-8",
    )
    project = Project(tmp_path)
    project.write_config(demo_config(demo_files).replace(str(demo_files / "experiments.jsonl"), str(log)))
    CliRunner().invoke(cli, ["--config", str(project.config), "nightly"], catch_exceptions=False)
    report = json.loads(reconcile(project, "exp-sft-late", "--format", "json"))
    assert report["provisional"] is True
    assert report["billing_complete_through"] == "2026-12-01T00:00:00Z"
    # No params: no estimator, but the log's GPU hours up to where the bill is complete (4 h x 8 GPUs).
    assert report["assumptions"]["estimator"] == "not run (no params in the log)"
    assert report["assumptions"]["compute"] == [{"phase": "train", "logged_gpu_hours": "32.00"}]
    text = reconcile(project, "exp-sft-late")
    assert "PROVISIONAL: billing does not yet reach the run's end (2026-12-01 06:00 UTC)" in text
    page = reconcile(project, "exp-sft-late", "--format", "html")
    assert "Provisional: billing is complete through 2026-12-01 00:00 UTC, before the end of the run" in page


def test_out_writes_the_report_to_a_file(nightly_warehouse: Project, tmp_path: Path) -> None:
    out = tmp_path / "pm.html"
    result = CliRunner().invoke(
        cli,
        [
            "--config",
            str(nightly_warehouse.config),
            "reconcile",
            "exp-opd-0425",
            "--format",
            "html",
            "--out",
            str(out),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    assert result.stdout == ""
    assert f"wrote {out}" in result.stderr
    assert "Post-mortem: exp-opd-0425" in out.read_text(encoding="utf-8")
