"""LLM API spend, end to end through ingest: the OpenAI Costs API and the Anthropic cost report, read from
local fakes of their documented endpoints (tests/api_cost_fakes.py) and from saved response pages.

Expected money comes from the providers' published examples and from hand sums written here: OpenAI's
amounts are JSON numbers in dollars, Anthropic's decimal strings in cents.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from api_cost_fakes import KEY, CostApi, names_text, page_text, serving
from aws_fakes import FakeAws
from conftest import warehouse_state
from trainledger.cli import cli
from trainledger.connectors import anthropic_costs, api_http, api_pages, openai_costs
from trainledger.core import config as config_module
from trainledger.core.errors import InputError

# The published response examples, as the references print them (OpenAI: api-reference/usage/costs;
# Anthropic: api/admin/cost_report).
OPENAI_EXAMPLE = """{"object": "page", "data": [{"object": "bucket", "start_time": 1730419200,
"end_time": 1730505600, "results": [{"object": "organization.costs.result", "amount": {"value": 0.06,
"currency": "usd"}, "line_item": null, "project_id": null}]}], "has_more": false, "next_page": null}"""
ANTHROPIC_EXAMPLE = """{"data": [{"starting_at": "2025-08-01T00:00:00Z", "ending_at": "2025-08-02T00:00:00Z",
"results": [{"currency": "USD", "amount": "123.78912", "workspace_id": "wrkspc_01JwQvzr7rXLA5AGx3HKfFUJ",
"description": "Claude Sonnet 4 Usage - Input Tokens", "cost_type": "tokens", "context_window": "0-200k",
"model": "claude-sonnet-4-20250514", "service_tier": "standard", "token_type": "uncached_input_tokens"}]}],
"has_more": true, "next_page": "page_MjAyNS0wNS0xNFQwMDowMDowMFo="}"""

# Five days of OpenAI spend in November 2026: (project, line item, value as written, currency).
OPENAI_DAYS = {
    date(2026, 11, 3): [
        ("proj_rl", "gpt-4o-2024-08-06, input", "12.5", "usd"),
        ("proj_rl", "gpt-4o-2024-08-06, output", "3.0000001", "usd"),
        (None, "ft-gpt-4o training", "0.06", "usd"),
    ],
    date(2026, 11, 4): [("proj_rl", "gpt-4o-2024-08-06, input", "7.25", "usd")],
    date(2026, 11, 5): [("proj_eval", "o3, input", "0.1", "usd"), ("proj_eval", "o3, output", "0.2", "usd")],
    date(2026, 11, 6): [],
    date(2026, 11, 7): [("proj_eval", "o3, input", "1e-2", "usd")],
}
# Hand sums: proj_rl 12.5 + 3.0000001 + 7.25 = 22.7500001; proj_eval 0.1 + 0.2 + 0.01 = 0.31;
# no project 0.06. Month: 23.1200001.
OPENAI_BY_PROJECT = {"proj_rl": Decimal("22.7500001"), "proj_eval": Decimal("0.31"), None: Decimal("0.06")}

# Anthropic: (workspace, description, amount in cents as written).
ANTHROPIC_DAYS = {
    date(2026, 11, 3): [
        ("wrkspc_judge", "Claude Sonnet 4 Usage - Input Tokens", "123.78912"),
        ("wrkspc_judge", "Claude Sonnet 4 Usage - Output Tokens", "2500"),
        (None, "Claude Haiku 3.5 Usage - Input Tokens", "0.5"),
    ],
    date(2026, 11, 4): [("wrkspc_judge", "Claude Sonnet 4 Usage - Input Tokens", "99.99")],
}
# Hand sums in dollars: judge (123.78912 + 2500 + 99.99) cents = 2723.77912 cents = $27.2377912; the
# default workspace 0.5 cents = $0.005. Month: $27.2427912.
ANTHROPIC_BY_WORKSPACE = {"wrkspc_judge": Decimal("27.2377912"), None: Decimal("0.005")}


def test_the_published_examples_read_in_each_providers_unit() -> None:
    openai = openai_costs.parse(api_pages.loads(OPENAI_EXAMPLE, "example"), "example")
    assert [(b.start, b.end) for b in openai.buckets] == [(datetime(2024, 11, 1), datetime(2024, 11, 2))]
    assert openai.buckets[0].costs[0].amount == Decimal("0.06")  # dollars, as the number is written
    assert openai.buckets[0].costs[0].currency == "USD"
    assert (openai.has_more, openai.next_page) == (False, None)
    anthropic = anthropic_costs.parse(api_pages.loads(ANTHROPIC_EXAMPLE, "example"), "example")
    cost = anthropic.buckets[0].costs[0]
    assert cost.amount == Decimal("1.2378912")  # "123.78912" cents
    assert (cost.resource_id, cost.model, cost.cost_type) == (
        "wrkspc_01JwQvzr7rXLA5AGx3HKfFUJ",
        "claude-sonnet-4-20250514",
        "tokens",
    )
    assert (anthropic.has_more, anthropic.next_page) == (True, "page_MjAyNS0wNS0xNFQwMDowMDowMFo=")


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_http, "BACKOFF_S", 0.0)
    monkeypatch.setenv("TEST_ADMIN_KEY", KEY)


def configure(
    root: Path, kind: str, *, url: str | None = None, uri: str | None = None, extra: str = ""
) -> Path:
    where = f'api_key_env = "TEST_ADMIN_KEY"\napi_base = "{url}"\n' if url else f'uri = "{uri}"\n'
    path = root / "trainledger.toml"
    path.write_text(
        f'[warehouse]\npath = "ledger.duckdb"\n\n[[sources]]\nname = "llm"\nkind = "{kind}"\n{where}{extra}',
        encoding="utf-8",
    )
    return path


def invoke(config: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)


def by_resource(root: Path) -> dict[str | None, Decimal]:
    con = duckdb.connect(str(root / "ledger.duckdb"), read_only=True)
    try:
        found = con.execute(
            "SELECT resource_id, sum(billed_cost), sum(effective_cost) FROM charges GROUP BY 1"
        ).fetchall()
    finally:
        con.close()
    assert all(billed == effective for _, billed, effective in found)
    return {resource: billed for resource, billed, _ in found}


def raw_sum(days: dict[date, list[tuple[str, ...]]], amount: int, scale: int) -> Decimal:
    """An independent sum of the fixture's amount texts, in dollars (Anthropic's are cents: scale 2)."""
    return sum((Decimal(r[amount]).scaleb(-scale) for rows in days.values() for r in rows), Decimal(0))


def test_openai_costs_are_read_page_by_page_with_the_admin_key(tmp_path: Path, fast_retries: None) -> None:
    api = CostApi("openai", OPENAI_DAYS, page_size=2)
    with serving(api) as url:
        config = configure(tmp_path, "openai-costs", url=url)
        first = invoke(config, "--verbose", "ingest", "--period", "2026-11")
        again = invoke(config, "ingest", "--period", "2026-11")
    assert first.exit_code == 0, first.stderr
    assert again.exit_code == 0, again.stderr
    assert by_resource(tmp_path) == OPENAI_BY_PROJECT
    assert sum(OPENAI_BY_PROJECT.values()) == raw_sum(OPENAI_DAYS, 2, 0) == Decimal("23.1200001")
    # Five days at two buckets a page: three pages a pull, the next asked for by its token.
    pages = api.requests
    assert len(pages) == 6
    assert [r.values("page") for r in pages[:3]] == [[], ["Mg=="], ["NA=="]]
    november = int(datetime(2026, 11, 1, tzinfo=UTC).timestamp())
    december = int(datetime(2026, 12, 1, tzinfo=UTC).timestamp())
    assert pages[0].values("start_time") == [str(november)] and pages[0].values("end_time") == [str(december)]
    assert pages[0].values("bucket_width") == ["1d"]
    assert pages[0].values("group_by") == ["project_id", "line_item"]
    assert {r.headers["authorization"] for r in pages} == {f"Bearer {KEY}"}
    assert again.stdout == "llm\t2026-11\tunchanged\n"  # the same content: the month is not loaded again
    for text in (first.stdout, first.stderr, again.stdout, again.stderr):
        assert KEY not in text
    assert KEY.encode() not in (tmp_path / "ledger.duckdb").read_bytes()


def test_anthropic_cost_report_amounts_are_cents(tmp_path: Path, fast_retries: None) -> None:
    api = CostApi("anthropic", ANTHROPIC_DAYS, page_size=1)
    with serving(api) as url:
        result = invoke(configure(tmp_path, "anthropic-costs", url=url), "ingest", "--period", "2026-11")
    assert result.exit_code == 0, result.stderr
    assert by_resource(tmp_path) == ANTHROPIC_BY_WORKSPACE
    assert sum(ANTHROPIC_BY_WORKSPACE.values()) == raw_sum(ANTHROPIC_DAYS, 2, 2) == Decimal("27.2427912")
    assert len(api.requests) == 2
    first = api.requests[0]
    assert (first.values("starting_at"), first.values("ending_at")) == (
        ["2026-11-01T00:00:00Z"],
        ["2026-12-01T00:00:00Z"],
    )
    assert first.values("group_by[]") == ["workspace_id", "description"]
    assert (first.headers["x-api-key"], first.headers["anthropic-version"]) == (KEY, "2023-06-01")


def test_a_busy_api_is_asked_again_after_the_wait_it_asks_for(tmp_path: Path, fast_retries: None) -> None:
    api = CostApi("openai", OPENAI_DAYS, answers=[429, 503])
    with serving(api) as url:
        result = invoke(configure(tmp_path, "openai-costs", url=url), "ingest", "--period", "2026-11")
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 3
    assert by_resource(tmp_path) == OPENAI_BY_PROJECT


def test_saved_pages_read_like_the_api_a_later_save_of_a_day_replacing_an_earlier(tmp_path: Path) -> None:
    pages = tmp_path / "openai-costs"
    pages.mkdir()
    days = list(OPENAI_DAYS)
    # The nightly cron saved Nov 3-4, then Nov 4-7 again (Nov 4 restated: 7.25 became 8.25) as two pages
    # of one pull, a page a line.
    restated = {**OPENAI_DAYS, date(2026, 11, 4): [("proj_rl", "gpt-4o-2024-08-06, input", "8.25", "usd")]}
    (pages / "2026-11-04.json").write_text(page_text("openai", {d: OPENAI_DAYS[d] for d in days[:2]}))
    lines = [
        page_text("openai", {d: restated[d] for d in days[1:3]}, True, "next").replace("\n", ""),
        page_text("openai", {d: restated[d] for d in days[3:]}).replace("\n", ""),
    ]
    (pages / "2026-11-08.jsonl").write_text("\n".join(lines) + "\n")
    config = configure(tmp_path, "openai-costs", uri=str(pages))
    result = invoke(config, "ingest")
    assert result.exit_code == 0, result.stderr
    assert by_resource(tmp_path) == {**OPENAI_BY_PROJECT, "proj_rl": Decimal("23.7500001")}  # +1.00 on Nov 4


def test_saved_pages_in_a_bucket(tmp_path: Path, fake_aws: FakeAws, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", fake_aws.endpoint)
    bucket = fake_aws.bucket("llm-costs")
    fake_aws.s3.put_object(
        Bucket=bucket, Key="anthropic/2026-11.json", Body=page_text("anthropic", ANTHROPIC_DAYS)
    )
    result = invoke(configure(tmp_path, "anthropic-costs", uri=f"s3://{bucket}/anthropic/"), "ingest")
    assert result.exit_code == 0, result.stderr
    assert by_resource(tmp_path) == ANTHROPIC_BY_WORKSPACE


@pytest.fixture
def loaded(tmp_path: Path) -> Iterator[Path]:
    """A warehouse holding November's OpenAI spend from saved pages, to fail against."""
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "nov.json").write_text(page_text("openai", OPENAI_DAYS))
    assert invoke(configure(tmp_path, "openai-costs", uri=str(pages)), "ingest").exit_code == 0
    yield tmp_path


def fails(root: Path, config: Path, *expected: str) -> None:
    """The ingest exits 1 with one error line saying each ``expected``, and the warehouse is unchanged."""
    before = warehouse_state(root / "ledger.duckdb")
    result = invoke(config, "ingest", "--period", "2026-11")
    assert result.exit_code == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, result.stderr
    for part in expected:
        assert part in errors[0], errors[0]
    assert KEY not in result.stderr + result.stdout
    assert warehouse_state(root / "ledger.duckdb") == before


@pytest.mark.parametrize(
    ("api", "expected"),
    [
        (
            CostApi("openai", OPENAI_DAYS, answers=[500] * 4),
            ("source 'llm'", "HTTP 500", "after 4 attempt(s)"),
        ),
        (CostApi("openai", OPENAI_DAYS, answers=[401]), ("source 'llm'", "HTTP 401", "api_key_env")),
        (CostApi("openai", OPENAI_DAYS, no_token=True), ("has_more is true but next_page is null",)),
        (
            CostApi("openai", OPENAI_DAYS, stray_day=date(2026, 10, 15)),
            (
                "a bucket of 2026-10-15 in the answer for 2026-11",
                "expected buckets from 2026-11-01 to 2026-11-30",
            ),
        ),
        (
            CostApi("openai", {date(2026, 11, 3): [("proj_rl", "x", "1.00", "bitcoin")]}),
            ("data[0].results[0].amount.currency", "expected an ISO 4217 currency code", "'bitcoin'"),
        ),
    ],
    ids=["http-500", "http-401", "more-without-token", "bucket-outside-period", "unknown-currency"],
)
def test_api_faults_fail_the_night_with_one_line(
    loaded: Path, fast_retries: None, api: CostApi, expected: tuple[str, ...]
) -> None:
    with serving(api) as url:
        fails(loaded, configure(loaded, "openai-costs", url=url), *expected)


def test_a_key_the_api_repeats_in_its_error_is_masked(loaded: Path, fast_retries: None) -> None:
    api = CostApi("openai", OPENAI_DAYS, answers=[400])
    original = api.respond

    def echoing(
        path: str, query: list[tuple[str, str]], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        status, extra, _ = original(path, query, headers)
        return status, extra, json.dumps({"error": {"message": f"bad request with key {KEY}"}}).encode()

    api.respond = echoing  # type: ignore[method-assign]
    with serving(api) as url:
        fails(loaded, configure(loaded, "openai-costs", url=url), "HTTP 400", "bad request with key ***")


def test_the_admin_key_must_be_in_the_environment(loaded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_ADMIN_KEY", raising=False)
    config = configure(loaded, "openai-costs", url="http://127.0.0.1:9")
    fails(loaded, config, "source 'llm'", "environment variable TEST_ADMIN_KEY is not set")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("{not json", ("not a JSON response page",)),
        ('{"data": [], "has_more": false}', ("object: expected 'page' (an OpenAI Costs API page)",)),
        (
            page_text("openai", {date(2026, 11, 3): [("p", "x", '"1.00"', "usd")]}),
            ("data[0].results[0].amount.value: expected a number", 'got "1.00"'),
        ),
        (
            page_text("openai", OPENAI_DAYS).replace('"end_time": 1793750400', '"end_time": 1793754000'),
            ("data[0]: expected a daily bucket from one UTC midnight to the next",),
        ),
        (
            page_text("openai", {date(2026, 11, 3): [("p", "x", "1e26", "usd")]}),
            ("data[0].results[0].amount.value: expected an amount below 10^26",),
        ),
    ],
    ids=["not-json", "anthropic-shape", "amount-as-string", "not-daily", "past-decimal-38-12"],
)
def test_a_malformed_saved_page_names_its_file_and_place(
    loaded: Path, page: str, expected: tuple[str, ...]
) -> None:
    (loaded / "saved" / "later.json").write_text(page)
    fails(loaded, configure(loaded, "openai-costs", uri=str(loaded / "saved")), "later.json", *expected)


def test_anthropic_amounts_must_be_strings_of_cents_in_usd(tmp_path: Path) -> None:
    for wrong, expected in (
        ('"amount": 123.45', "amount: expected a decimal string in cents"),
        (
            '"currency": "EUR"',
            "currency: expected USD (the cost report's amounts are in its cents), got 'EUR'",
        ),
    ):
        text = page_text("anthropic", ANTHROPIC_DAYS)
        text = (
            text.replace('"amount": "123.78912"', wrong)
            if "amount" in wrong
            else text.replace('"currency": "USD"', wrong, 1)
        )
        with pytest.raises(InputError, match=re.escape(expected)):
            anthropic_costs.parse(api_pages.loads(text, "p.json"), "p.json")


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ("", "give either api_key_env"),
        ('api_key_env = "K"\nuri = "x"\n', "give either api_key_env"),
        ('api_key_env = "sk-admin-123"\n', "api_key_env names an environment variable"),
        ('uri = "x"\nregion = "us"\n', "unknown key"),
        ('uri = "x"\nlabels = { "proj_a" = { project = "p", team = "t" } }\n', "team"),
    ],
)
def test_the_source_keys_are_strict(tmp_path: Path, keys: str, expected: str) -> None:
    path = tmp_path / "trainledger.toml"
    path.write_text(f'[[sources]]\nname = "llm"\nkind = "openai-costs"\n{keys}', encoding="utf-8")
    with pytest.raises(config_module.ConfigError, match=expected):
        config_module.load(path)


@pytest.mark.parametrize(
    ("kind", "variable"), [("openai-costs", "OPENAI_ADMIN_KEY"), ("anthropic-costs", "ANTHROPIC_ADMIN_KEY")]
)
def test_init_writes_a_source_that_reads_the_admin_key_from_the_environment(
    tmp_path: Path, kind: str, variable: str
) -> None:
    result = invoke(tmp_path / "trainledger.toml", "init", "--source", kind)
    assert result.exit_code == 0, result.stderr
    loaded = config_module.load(tmp_path / "trainledger.toml")
    options = loaded.sources[0].options
    assert (loaded.sources[0].kind, options.api_key_env, options.uri) == (kind, variable, None)


def test_mapped_ids_carry_their_labels_and_labels_names_the_unmapped_ones(tmp_path: Path) -> None:
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "nov.json").write_text(page_text("openai", OPENAI_DAYS))
    config = configure(
        tmp_path, "openai-costs", uri=str(pages), extra='labels = { "proj_rl" = "qwen-coder-rollout-rl" }\n'
    )
    for command in (("ingest",), ("attribute",)):
        assert invoke(config, *command).exit_code == 0
    con = duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True)
    try:
        placed = con.execute(
            "SELECT project, phase, method, rule, reason, cost_category, sum(billed_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    assert placed == [
        ("qwen-coder", "rollout", "rl", "tag", None, "compute", OPENAI_BY_PROJECT["proj_rl"]),
        (None, None, None, "unattributed", "untagged", "compute", Decimal("0.37")),  # 0.31 + 0.06
    ]
    labels = json.loads(invoke(config, "labels", "--format", "json").stdout)
    assert [(r["resource_id"], Decimal(r["effective_cost"])) for r in labels["unmapped_api_spend"]] == [
        ("proj_eval", Decimal("0.31")),
        ("default", Decimal("0.06")),
    ]
    table = invoke(config, "labels").stdout
    assert "LLM API spend with no labels" in table and "proj_eval" in table


def placed(root: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(root / "ledger.duckdb"), read_only=True)
    try:
        return con.execute(
            "SELECT sub_account_id, project, phase, method, rule, sum(billed_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()


def test_a_project_named_as_a_cost_label_labels_its_spend(tmp_path: Path, fast_retries: None) -> None:
    # proj_rl is named as a cost label; proj_eval too, but the mapping names it, and the mapping wins; the
    # third project's name is no cost label. Two names a page: the list is read in two pages.
    names = {"proj_rl": "qwen-coder-train-rl", "proj_eval": "qwen-coder-eval-sft", "proj_x": "Judge sandbox"}
    api = CostApi("openai", OPENAI_DAYS, names=names, names_page_size=2)
    with serving(api) as url:
        extra = 'names_as_labels = true\nlabels = { "proj_eval" = { project = "evals" } }\n'
        config = configure(tmp_path, "openai-costs", url=url, extra=extra)
        for command in (("ingest", "--period", "2026-11"), ("attribute",)):
            result = invoke(config, *command)
            assert result.exit_code == 0, result.stderr
    assert placed(tmp_path) == [
        ("proj_eval", "evals", None, None, "tag", OPENAI_BY_PROJECT["proj_eval"]),
        ("proj_rl", "qwen-coder", "train", "rl", "tag", OPENAI_BY_PROJECT["proj_rl"]),
        (None, None, None, None, "unattributed", OPENAI_BY_PROJECT[None]),
    ]
    lists = [r for r in api.requests if r.path == "/v1/organization/projects"]
    assert [(r.values("after"), r.values("include_archived")) for r in lists] == [
        ([], ["true"]),
        (["proj_eval"], ["true"]),
    ]
    assert {r.headers["authorization"] for r in lists} == {f"Bearer {KEY}"}


def test_saved_workspace_names_beside_the_saved_costs_label_their_spend(tmp_path: Path) -> None:
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "2026-11.json").write_text(page_text("anthropic", ANTHROPIC_DAYS))
    (pages / "workspaces.json").write_text(
        names_text("anthropic", {"wrkspc_judge": "qwen-coder-rollout-rl", "wrkspc_other": "Sandbox"})
    )
    config = configure(tmp_path, "anthropic-costs", uri=str(pages), extra="names_as_labels = true\n")
    for command in (("ingest",), ("attribute",)):
        assert invoke(config, *command).exit_code == 0
    assert placed(tmp_path) == [
        ("wrkspc_judge", "qwen-coder", "rollout", "rl", "tag", ANTHROPIC_BY_WORKSPACE["wrkspc_judge"]),
        (None, None, None, None, "unattributed", ANTHROPIC_BY_WORKSPACE[None]),
    ]
    # Without names_as_labels the list page is still read as names (not as costs), and labels nothing.
    configure(tmp_path, "anthropic-costs", uri=str(pages))
    for command in (("ingest",), ("attribute",)):
        assert invoke(config, *command).exit_code == 0
    assert {r[4] for r in placed(tmp_path)} == {"unattributed"}


def test_names_as_labels_needs_a_composite_key(tmp_path: Path) -> None:
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "2026-11.json").write_text(page_text("anthropic", ANTHROPIC_DAYS))
    config = configure(tmp_path, "anthropic-costs", uri=str(pages), extra="names_as_labels = true\n")
    config.write_text(config.read_text() + "\n[labels]\ncomposite = []\n")
    result = invoke(config, "ingest")
    assert result.exit_code != 0
    assert "names_as_labels" in result.stderr and "[labels] composite" in result.stderr


def test_the_focus_export_names_the_provider_and_its_service_category(tmp_path: Path) -> None:
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "nov.json").write_text(page_text("anthropic", ANTHROPIC_DAYS))
    config = configure(tmp_path, "anthropic-costs", uri=str(pages))
    for command in (("ingest",), ("attribute",)):
        assert invoke(config, *command).exit_code == 0
    out = tmp_path / "focus.csv"
    result = invoke(config, "export", "--period", "2026-11", "--format", "focus", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["ProviderName"], r["ServiceName"], r["ServiceCategory"]) for r in rows} == {
        ("Anthropic", "Anthropic API", "AI and Machine Learning")
    }
    assert sum(Decimal(r["BilledCost"]) for r in rows) == Decimal("27.2427912")  # the hand sum above
