"""Slurm accounting (``sacct --json``) as the experiment log: two nodes shared by three jobs, end to end.

The scenario (fixtures/generate_clusters.py): nodes train-dy-p5-1 and -2, p5.48xlarge at $55.04 an hour,
billed for all 24 hours of 2026-11-10. Expected money, worked out by hand from the schedule:

node 1: 00-06 job 101 alone (6 h) | 06-09 job 102 (4 GPUs) and task 103_0 (4 GPUs) half each (3 h)
        | 09-11:30 job 102 alone (2.5 h) | 11:30-24 idle (12.5 h)
node 2: 00-06 job 101 (6 h) | 06-09 idle (3 h) | 09-12 task 103_1 (3 h) | 12-24 idle (12 h)

exp-coder-sft (job 101, train): 12 h x 55.04 = 660.48
slurm-102 (train, failed):      1.5 h + 2.5 h = 4 h x 55.04 = 220.16
slurm-103 (array, eval):        1.5 h + 3 h = 4.5 h x 55.04 = 247.68
idle (qwen-coder):              12.5 h + 3 h + 12 h = 27.5 h x 55.04 = 1513.60
sum: 48 h x 55.04 = 2641.92, the bill.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import generate_clusters
from examples import init_with, readme_toml
from generate_clusters import at
from trainledger.cli import cli
from trainledger.core import config as config_module
from trainledger.core import hostlist
from trainledger.core.errors import ConfigError, InputError
from trainledger.core.reporter import Silent
from trainledger.experiments import slurm_log

CONFIG = """
[[sources]]
name = "cur"
kind = "aws-cur2"
uri = "gpu-cur2"

[experiments]
kind = "slurm"
uri = "{uri}"

[experiments.slurm]
labels = ["comment", "wckey"]
project = "account"
nodes = "nodes.csv"
"""


def invoke(root: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), *args], catch_exceptions=False
    )
    return result


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slurm")
    generate_clusters.write_slurm_scenario(root)
    (root / "trainledger.toml").write_text(CONFIG.format(uri="sacct/"), encoding="utf-8")
    result = invoke(root, "nightly")
    assert result.exit_code == 0, result.stderr
    return root


def money(root: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_jobs_split_the_shared_nodes_by_gpus_and_time(cluster: Path) -> None:
    rows = money(
        cluster,
        "SELECT coalesce(experiment_id, '-'), phase, project, sum(effective_cost) FROM allocations "
        "GROUP BY ALL ORDER BY 1, 2",
    )
    by = {(e, p): (project, cost) for e, p, project, cost in rows}
    idle = sum(cost for (e, p), (_, cost) in by.items() if p == "idle")
    assert by[("exp-coder-sft", "train")] == ("qwen-coder", Decimal("660.48"))
    assert by[("slurm-102", "train")] == ("qwen-coder", Decimal("220.16"))
    assert by[("slurm-103", "eval")] == ("qwen-coder", Decimal("247.68"))
    assert idle == Decimal("1513.60")
    assert {p for (e, p) in by if e == "-"} == {"idle"}


def test_allocations_add_up_to_the_bill_read_from_the_file(cluster: Path) -> None:
    table = pq.read_table(next((cluster / "gpu-cur2" / "data").rglob("*.parquet")))
    bill = sum(Decimal(repr(v)) for v in table.column("line_item_unblended_cost").to_pylist())
    assert bill == Decimal("2641.92")
    [(billed, effective)] = money(cluster, "SELECT sum(billed_cost), sum(effective_cost) FROM allocations")
    assert billed == effective == bill
    unequal = money(
        cluster,
        "SELECT count(*) FROM charges c JOIN (SELECT charge_id, sum(billed_cost) b, sum(effective_cost) e "
        "FROM allocations GROUP BY 1) a USING (charge_id) WHERE a.b <> c.billed_cost OR a.e <> c.effective_cost",
    )
    assert unequal == [(0,)]  # and each charge's shares sum to it exactly


def test_experiments_from_jobs_arrays_and_versions(cluster: Path) -> None:
    rows = money(
        cluster,
        "SELECT experiment_id, project, method, status, started_at, ended_at FROM experiments ORDER BY 1",
    )
    by = {r[0]: r[1:] for r in rows}
    at = generate_clusters.at
    naive = lambda h: at(h).replace(tzinfo=None)  # noqa: E731
    # the 23.11 dump (list states, number structs) supersedes the 21.08 one: job 102 failed at 11:30
    assert by["slurm-102"] == ("qwen-coder", "rl", "failed", naive(6), naive(11.5))
    # array tasks roll up to the array's job; project from the account, phase/method from the comment
    assert by["slurm-103"] == ("qwen-coder", "sft", "succeeded", naive(6), naive(12))
    assert by["exp-coder-sft"][2] == "succeeded"
    assert by["slurm-105"][2:] == ("cancelled", None, None)  # never ran: an experiment without windows
    windows = money(
        cluster,
        "SELECT experiment_id, phase, resource_id, gpus FROM experiment_resources ORDER BY 1, 3, 2",
    )
    assert windows == [
        ("exp-coder-sft", "train", "i-0a1b2c3d4e5f60001", 8),
        ("exp-coder-sft", "train", "i-0a1b2c3d4e5f60002", 8),
        ("slurm-102", "train", "i-0a1b2c3d4e5f60001", 4),
        ("slurm-103", "eval", "i-0a1b2c3d4e5f60001", 4),
        ("slurm-103", "eval", "i-0a1b2c3d4e5f60002", 8),
    ]


def test_failed_job_is_waste(cluster: Path) -> None:
    result = invoke(cluster, "report", "--by", "waste", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    lines = {line.split(",")[0]: line.split(",")[3] for line in result.stdout.splitlines()[1:]}
    assert lines["failed"] == "220.16"
    assert lines["idle"] == "1513.60"
    assert lines["productive"] == "908.16"  # 660.48 + 247.68


def test_reconcile_a_slurm_job_shows_its_idle_share_and_is_final(cluster: Path) -> None:
    result = invoke(cluster, "reconcile", "slurm-103", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["provisional"] is False  # the bill runs to the end of the day, past the run's 12:00
    assert report["totals"]["realized"] == "247.68"
    # idle on the run's nodes within its run (06:00-12:00): node 2 06-09 (165.12) + node 1 11:30-12 (27.52)
    assert report["waste"] == {"idle": "192.64", "failed": "0.00", "unused_commitment": "0.00"}
    failed = json.loads(invoke(cluster, "reconcile", "slurm-102", "--format", "json").stdout)
    assert failed["waste"]["failed"] == "220.16"


def test_reconcile_of_a_job_is_provisional_until_the_bill_reaches_its_end(tmp_path: Path) -> None:
    """The first delivery bills the nodes to 10:00, before array 103's end at 12:00; the next, the whole day.
    Until then 103 has node 1 06-09 shared (1.5 h) and node 2 09-10 (1 h): 2.5 h x 55.04 = 137.60."""
    generate_clusters.write_slurm_scenario(tmp_path)
    (tmp_path / "trainledger.toml").write_text(CONFIG.format(uri="sacct/"), encoding="utf-8")
    rows = generate_clusters.read_cur2(tmp_path)
    generate_clusters.write_cur2(tmp_path, [r for r in rows if r["line_item_usage_end_date"] <= at(10)])
    assert invoke(tmp_path, "nightly").exit_code == 0
    early = json.loads(invoke(tmp_path, "reconcile", "slurm-103", "--format", "json").stdout)
    assert (early["provisional"], early["billing_complete_through"]) == (True, "2026-11-10T10:00:00Z")
    assert early["totals"]["realized"] == "137.60"
    generate_clusters.write_slurm_scenario(tmp_path)
    assert invoke(tmp_path, "nightly").exit_code == 0
    final = json.loads(invoke(tmp_path, "reconcile", "slurm-103", "--format", "json").stdout)
    assert (final["provisional"], final["billing_complete_through"]) == (False, "2026-11-11T00:00:00Z")
    assert [(r["phase"], r["category"], r["realized"]) for r in final["rows"]] == [
        ("eval", "compute", "247.68")
    ]
    assert final["waste"] == {"idle": "192.64", "failed": "0.00", "unused_commitment": "0.00"}


# --- the reader on its own -----------------------------------------------------------------------------


def test_hostlists() -> None:
    assert hostlist.expand("gpu-[01-03,08-10]", "x") == [
        "gpu-01", "gpu-02", "gpu-03", "gpu-08", "gpu-09", "gpu-10"
    ]  # fmt: skip
    assert hostlist.expand("linux[1-3,6] login1", "x") == ["linux1", "linux2", "linux3", "linux6", "login1"]
    assert hostlist.expand("rack[1-2]-n[1-2]", "x") == ["rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"]
    assert hostlist.expand("None assigned", "x") == []
    with pytest.raises(InputError, match=r"dump.json: hostlist range '123x456' is not N or N-M"):
        hostlist.expand("bgl[123x456]", "dump.json")


def test_version_shapes() -> None:
    assert slurm_log.number({"set": True, "infinite": False, "number": 7}) == 7
    assert slurm_log.number({"set": False, "infinite": False, "number": 0}) is None
    assert slurm_log.number({"set": True, "infinite": True, "number": 0}) is None
    assert slurm_log.state({"state": {"current": ["TIMEOUT"]}}) == "TIMEOUT"
    assert slurm_log.status("TIMEOUT") == "aborted"
    assert slurm_log.status("CANCELLED by 1000") == "cancelled"
    assert slurm_log.status("OUT_OF_MEMORY") == "failed"
    assert slurm_log.status("PENDING") == "running"
    assert slurm_log.field({"wckey": "plain"}, "wckey") == "plain"  # pre-object versions
    assert slurm_log.field({"comment": "cost-label=a-train-sft"}, "comment") == "cost-label=a-train-sft"
    typed_only = {"tres": {"allocated": [{"type": "gres", "name": "gpu:h100", "count": 8}]}}
    both = {"tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 8},
                                   {"type": "gres", "name": "gpu:h100", "count": 8}]}}  # fmt: skip
    assert slurm_log.gpus(typed_only) == slurm_log.gpus(both) == 8  # never counted twice


def _config(root: Path, text: str) -> config_module.Config:
    return config_module.parse(text, "trainledger.toml", root)


def test_a_file_name_prefix_and_a_bad_dump(tmp_path: Path) -> None:
    generate_clusters.write_slurm_scenario(tmp_path)
    config = _config(tmp_path, CONFIG.format(uri="sacct/sacct-2026-11-10"))
    found = {r["experiment_id"]: r for _, r in slurm_log.records(config, Silent())}
    assert found["slurm-102"]["status"] == "running"  # only the first night's dump matches the prefix
    (tmp_path / "sacct" / "sacct-2026-11-12.json").write_text('{"jobs": [{"name": "x"}]}', encoding="utf-8")
    config = _config(tmp_path, CONFIG.format(uri="sacct/"))
    with pytest.raises(
        InputError, match=r"sacct-2026-11-12.json: jobs\[0\]: expected an object with a job_id"
    ):
        slurm_log.records(config, Silent())


def test_command_output_is_read_after_the_files(tmp_path: Path) -> None:
    generate_clusters.write_slurm_scenario(tmp_path)
    late = {"jobs": [dict(generate_clusters.slurm_jobs()[0][0], state={"current": "TIMEOUT"})]}
    script = tmp_path / "fake_sacct.py"
    script.write_text(f"print({json.dumps(json.dumps(late))})\n", encoding="utf-8")
    text = CONFIG.format(uri="sacct/") + f'command = "{sys.executable} {script}"\n'
    found = {r["experiment_id"]: r for _, r in slurm_log.records(_config(tmp_path, text), Silent())}
    assert found["exp-coder-sft"]["status"] == "aborted"
    failing = CONFIG.format(uri="sacct/") + f"command = \"{sys.executable} -c 'import sys; sys.exit(3)'\"\n"
    with pytest.raises(Exception, match=r"exit code 3"):
        slurm_log.records(_config(tmp_path, failing), Silent())


def test_unknown_label_field_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"labels: 'partition' is not one of comment, wckey, name, account"):
        _config(tmp_path, CONFIG.format(uri="sacct/").replace('["comment", "wckey"]', '["partition"]'))


def test_slurm_without_dumps_or_command_is_a_config_error(tmp_path: Path) -> None:
    config = _config(tmp_path, '[experiments]\nkind = "slurm"\n')
    with pytest.raises(ConfigError, match=r'kind = "slurm" needs uri'):
        slurm_log.records(config, Silent())


def test_the_readme_and_init_examples_read_the_dumps(tmp_path: Path) -> None:
    """Both examples, pointed at the scenario's dumps, give the jobs their project from the account (array
    103's) or the comment's cost label (101), and map the nodes through nodes.csv."""
    generate_clusters.write_slurm_scenario(tmp_path)
    [readme] = readme_toml("Slurm jobs as the experiment log")
    init = init_with(
        'kind = "slurm"',
        "[experiments.slurm]",
        'labels = ["comment", "wckey"]',
        'project = "account"',
        'nodes = "nodes.csv"',
    )
    for text in (readme.replace("/shared/sacct/", "sacct/"), init.replace("experiments.jsonl", "sacct/")):
        config = _config(tmp_path, text)
        assert (config.experiments.kind, config.experiments.slurm.project) == ("slurm", "account")
        found = {r["experiment_id"]: r for _, r in slurm_log.records(config, Silent())}
        assert (found["slurm-103"]["project"], found["slurm-103"]["method"]) == ("qwen-coder", "sft")
        assert found["exp-coder-sft"]["project"] == "qwen-coder"
        nodes = {x["resource_id"] for p in found["exp-coder-sft"]["phases"] for x in p["resources"]}
        assert nodes == set(generate_clusters.NODES.values())
