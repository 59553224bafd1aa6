"""The generated fixtures of shared clusters and reserved capacity (issue 19) are seeded: one seed gives the
same bytes every time, another only reorders the bill's rows (exports come in no particular order), and
attribution gives the same money whatever the order."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import generate_capacity
import generate_clusters
import test_k8s_clusters
import test_reserved_capacity
from generate_clusters import SEED
from trainledger.cli import cli

WRITERS: dict[str, tuple[Callable[..., Any], str]] = {
    "eks": (generate_clusters.write_eks_scenario, "eks-cur2/data"),
    "gke": (generate_clusters.write_gke_scenario, "gke-billing"),
    "slurm": (generate_clusters.write_slurm_scenario, "gpu-cur2/data"),
    "capacity": (generate_capacity.write_capacity_scenario, "capacity-cur2/data"),
}


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def bill_rows(path: Path) -> list[str]:
    """The bill file's rows, each as canonical JSON, in file order."""
    if path.suffix == ".json":
        return [json.dumps(json.loads(line), sort_keys=True) for line in path.read_text("utf-8").splitlines()]
    return [json.dumps(r, sort_keys=True, default=str) for r in pq.read_table(path).to_pylist()]


@pytest.mark.parametrize("name", WRITERS)
def test_one_seed_gives_the_same_files_another_only_reorders_the_bill(name: str, tmp_path: Path) -> None:
    write, bill = WRITERS[name]
    for folder in "abc":
        (tmp_path / folder).mkdir()
    write(tmp_path / "a")
    write(tmp_path / "b")
    write(tmp_path / "c", seed=SEED + 1)
    a, b, c = (files(tmp_path / x) for x in "abc")
    assert a == b
    assert a.keys() == c.keys()
    changed = sorted(k for k in a if a[k] != c[k])
    assert len(changed) == 1 and changed[0].startswith(bill + "/")
    first, other = (bill_rows(tmp_path / x / changed[0]) for x in "ac")
    assert first != other and sorted(first) == sorted(other)


def nightly(root: Path, config: str) -> None:
    (root / "trainledger.toml").write_text(config, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(root / "trainledger.toml"), "nightly"])
    assert result.exit_code == 0, result.stderr


def test_the_eks_day_in_another_order_attributes_the_same(tmp_path: Path) -> None:
    generate_clusters.write_eks_scenario(tmp_path, seed=SEED + 1)
    nightly(tmp_path, test_k8s_clusters.EKS_CONFIG)
    assert test_k8s_clusters.query(tmp_path, test_k8s_clusters.BY_KEY) == test_k8s_clusters.EKS_BY_KEY


def test_the_capacity_block_in_another_order_attributes_the_same(tmp_path: Path) -> None:
    generate_capacity.write_capacity_scenario(tmp_path, seed=SEED + 1)
    nightly(tmp_path, test_reserved_capacity.CONFIG)
    rows = test_reserved_capacity.query(tmp_path, test_reserved_capacity.BY_KEY)
    assert rows == test_reserved_capacity.EXPECTED
