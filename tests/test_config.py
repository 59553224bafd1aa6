"""The config file is strict: every mistake is one line naming the file and the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainledger.core import config, source_kinds, starter
from trainledger.core.errors import ConfigError


def load_text(tmp_path: Path, text: str) -> config.Config:
    path = tmp_path / "trainledger.toml"
    path.write_text(text, encoding="utf-8")
    return config.load(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[warehose]\npath = 'x'\n", "unknown key 'warehose'"),
        ("[warehouse]\npaht = 'x'\n", "unknown key 'warehouse.paht'"),
        (
            "[[sources]]\nname = 'cur'\nkind = 'aws-cur2'\nbucket = 'b'\n",
            "unknown key \"[[sources]] #1 (name 'cur').bucket\"",
        ),
        (
            "[[sources]]\nname = 'cur'\nkind = 'aws-cur3'\n",
            "[[sources]] #1 (name 'cur').kind = 'aws-cur3' is not one of",
        ),
        ("[allocation]\nshared = 'evenly'\n", "allocation.shared = 'evenly' is not one of"),
        ("[exports]\nformat = ['csv', 'pdf']\n", "exports.format #2 = 'pdf' is not one of"),
        (
            "[[sources]]\nname = 'a'\nkind = 'focus'\n[[sources]]\nname = 'a'\nkind = 'focus'\n",
            "source name 'a' is used twice",
        ),
        ("[warehouse\n", "not valid TOML"),
        (
            "[warehouse]\nengine = 'spark'\n[[reservations]]\nid = 'cr-0a1b'\nproject = 'p'\n"
            "start = 2026-11-03T08:00:00Z\nend = 2026-11-04T08:00:00Z\ngpus = 8\ninstances = ['i-1']\n",
            '[[reservations]] is not supported with [warehouse] engine = "spark" yet',
        ),
        ("[warehouse]\nmemory_limit = 'lots'\n", "warehouse.memory_limit"),
        (
            "[warehouse]\ndatabase = 'ledger'\n",
            "warehouse: database = 'ledger' is for engine = \"spark\" (DuckDB keeps every table in the file",
        ),
        (
            "[warehouse]\nengine = 'spark'\ncatalog = 'glue'\n",
            "warehouse: catalog = 'glue' needs database too: the tables live in <catalog>.<database>",
        ),
        (
            "[warehouse]\nengine = 'spark'\ndatabase = 'ml-ledger'\n",
            "warehouse.database: 'ml-ledger' is not a Spark name: expected letters, digits and _",
        ),
    ],
)
def test_mistakes_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_text(tmp_path, text)
    assert str(err.value).startswith(str(tmp_path / "trainledger.toml") + ": ")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_relative_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "[warehouse]\npath = 'data/ledger.duckdb'\n")
    assert cfg.warehouse_path() == tmp_path / "data" / "ledger.duckdb"
    assert cfg.resolve("s3://bucket/prefix") == "s3://bucket/prefix"


def test_flag_beats_environment_beats_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trainledger.toml"
    path.write_text("[warehouse]\npath = 'file.duckdb'\n", encoding="utf-8")
    monkeypatch.setenv("TRAINLEDGER_WAREHOUSE", str(tmp_path / "env.duckdb"))
    assert config.load(path).warehouse_path() == tmp_path / "env.duckdb"
    assert config.load(path, str(tmp_path / "flag.duckdb")).warehouse_path() == tmp_path / "flag.duckdb"


def test_missing_explicit_config_says_how_to_make_one(tmp_path: Path) -> None:
    expected = (
        f"no config file: looked for {tmp_path / 'nope.toml'} (named by --config or $TRAINLEDGER_CONFIG); "
        "run `trainledger init` to write one"
    )
    with pytest.raises(ConfigError, match=re.escape(expected)):
        config.load(tmp_path / "nope.toml")


KINDS = tuple(source_kinds.KINDS)


def test_starter_config_is_valid_with_no_source_and_an_example_of_every_kind(tmp_path: Path) -> None:
    text = starter.starter()
    cfg = load_text(tmp_path, text)
    assert cfg.sources == []
    assert cfg.exports.dir == "exports"
    assert sorted(re.findall(r'^# kind = "([a-z0-9-]+)"$', text, re.M)) == sorted(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_each_commented_example_is_a_valid_source_once_uncommented(tmp_path: Path, kind: str) -> None:
    block = starter.starter().split(f'# [[sources]]\n# name = "{kind}"\n', 1)[1].split("\n\n", 1)[0]
    alternatives = ("instead of uri", "instead of api_key_env")
    body = "\n".join(
        line.removeprefix("# ") for line in block.splitlines() if not any(a in line for a in alternatives)
    )
    cfg = load_text(tmp_path, f'[[sources]]\nname = "{kind}"\n{body}\n')
    assert [s.kind for s in cfg.sources] == [kind]


def test_init_source_fills_in_the_first_source(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, starter.starter("focus", 'C:\\bills\\"focus".csv'))
    assert [(s.kind, s.options.uri) for s in cfg.sources] == [("focus", 'C:\\bills\\"focus".csv')]
    with pytest.raises(ConfigError, match=re.escape("--source manual reads files: give --uri")):
        starter.starter("manual")
    with pytest.raises(ConfigError, match=re.escape("--source aws-tags reads an API, not files")):
        starter.starter("aws-tags", "s3://x")


def test_the_warehouse_works_within_its_memory_limit(tmp_path: Path) -> None:
    from trainledger.warehouse.connection import open_warehouse

    cfg = load_text(tmp_path, "[warehouse]\nmemory_limit = '512MiB'\nthreads = 1\n")
    with open_warehouse(cfg, write=True) as con:
        limit, threads = (
            con.execute("SELECT current_setting('memory_limit'), current_setting('threads')").fetchone() or ()
        )
    assert (limit, threads) == ("512.0 MiB", 1)
    assert config.load(None, str(tmp_path / "x.duckdb")).warehouse.memory_limit == "800MB"
