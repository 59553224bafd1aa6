"""Every query file runs against the fixture warehouse during a normal day's commands."""

from __future__ import annotations

import pytest

import generate_gcp
from conftest import Project
from focus_files import FOCUS_CONFIG, write_focus
from trainledger.core import queries


def test_every_query_file_is_used_by_the_commands(
    fake_aws, run, project: Project, monkeypatch: pytest.MonkeyPatch, demo_files
) -> None:
    used: set[str] = set()
    original = queries.load

    def recording(name: str) -> str:
        used.add(name)
        return original(name)

    monkeypatch.setattr(queries, "load", recording)
    gcp_root = project.root / "gcp-exports"
    generate_gcp.main(["--out", str(gcp_root)])
    gcp = f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{gcp_root / "gcp" / "billing" / "parquet"}"\n'
    live_tags = gcp + '[[sources]]\nname = "live-tags"\nkind = "aws-tags"\nregions = ["eu-west-3"]\n'
    project.write_config(
        project.config.read_text(encoding="utf-8") + live_tags + f'endpoint_url = "{fake_aws.endpoint}"\n'
    )
    commands = [
        ("nightly",),
        ("report",),
        ("labels",),
        ("reconcile", "exp-sft-0412"),
        ("budgets",),
        ("export", "--period", "2026-11", "--out", "nov.csv"),
        ("export", "--period", "2026-11", "--format", "focus", "--out", "nov-focus.csv"),
        ("report", "--by", "waste,project"),
        ("report", "--by", "project,commitment", "--shape"),
        ("site", "--out", "site"),
    ]
    for args in commands:
        result = run(*args)
        assert result.exit_code in (0, 2), (args, result.stderr)
    project.write_config(FOCUS_CONFIG + '\n[allocation]\nshared = "proportional"\n')
    write_focus(project.root / "bill.csv", [{"BilledCost": "1.00"}])
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    assert run("nightly").exit_code == 0
    # Only a bill with a repeated line item reaches the query that names it: tests/hostile covers that.
    assert set(queries.names()) - used == {"ingest/validate_line_items_unique"}
