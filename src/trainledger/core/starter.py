"""The starter trainledger.toml that `trainledger init` writes: it runs on its first `nightly` as written.

Every source kind has its commented example here, keyed by kind, so the list of kinds in the starter is
derived from one table; ``init --source KIND --uri URI`` fills the kind's example in as the first source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainledger.core.errors import ConfigError


@dataclass(frozen=True)
class SourceExample:
    """One kind's example: what its ``uri`` points at (None: the kind reads an API, not files) and its
    optional keys, each a ``key = value  # meaning`` line."""

    uri: str | None
    what: str
    options: tuple[str, ...] = field(default_factory=tuple)


_AWS = (
    'profile = "payer"                 # a ~/.aws/config profile (default: the standard chain)',
    'role_arn = "arn:aws:iam::111122223333:role/trainledger-read"',
    'region = "us-east-1"',
)

SOURCE_EXAMPLES: dict[str, SourceExample] = {
    "aws-cur2": SourceExample(
        "s3://my-billing-bucket/cur/ml-cur2", "AWS Data Exports CUR 2.0 (parquet or csv.gz)", _AWS
    ),
    "aws-cur": SourceExample("s3://my-billing-bucket/cur/legacy-report", "AWS legacy CUR", _AWS),
    "aws-focus": SourceExample(
        "s3://my-billing-bucket/focus/ml-focus", "AWS Data Exports FOCUS 1.0/1.2", _AWS
    ),
    "aws-tags": SourceExample(
        None, "EC2/EBS tags of live resources (attribution by inventory)", ('regions = ["us-east-1"]', *_AWS)
    ),
    "gcp-billing": SourceExample(
        "gs://my-billing-bucket/billing/",
        "GCP Cloud Billing export: its rows as parquet / JSON Lines, or the BigQuery table",
        ('# table = "my-project.billing.gcp_billing_export_resource_v1_XXXXXX"  # instead of uri',),
    ),
    "gcp-catalog": SourceExample(None, "GCP list prices of GPUs for the estimator", ()),
    "gcp-labels": SourceExample(
        None,
        "Compute Engine labels of live instances",
        ('project = "my-project"', 'regions = ["us-central1"]'),
    ),
    "focus": SourceExample("billing/focus.csv", "any provider's FOCUS 1.x CSV or parquet, a file or folder"),
    "manual": SourceExample("offcloud-ledger.csv", "off-cloud charges: a CSV or JSON Lines ledger"),
}


def _source(kind: str, uri: str | None, commented: bool) -> list[str]:
    example = SOURCE_EXAMPLES[kind]
    lines = ["[[sources]]", f'name = "{kind}"', f'kind = "{kind}"']
    if example.uri is not None:
        lines.append(f"uri = {_toml_string(uri or example.uri)}")
    lines += [o if o.startswith("#") else f"# {o}" for o in example.options]
    if commented:
        lines = [f"# {line}" if not line.startswith("#") else f"#{line[1:]}" for line in lines]
    return [f"# {kind}: {example.what}", *lines]


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def starter(kind: str | None = None, uri: str | None = None) -> str:
    """The starter config; with ``kind``, that source filled in (``uri`` required for file kinds)."""
    if kind is not None and kind not in SOURCE_EXAMPLES:
        raise ConfigError(f"unknown source kind {kind!r}; one of {', '.join(SOURCE_EXAMPLES)}")
    if kind is not None and SOURCE_EXAMPLES[kind].uri is not None and not uri:
        raise ConfigError(f"--source {kind} reads files: give --uri (e.g. {SOURCE_EXAMPLES[kind].uri})")
    if kind is not None and uri and SOURCE_EXAMPLES[kind].uri is None:
        raise ConfigError(f"--source {kind} reads an API, not files: leave out --uri")
    sources: list[str] = []
    if kind is not None:
        sources += ["# Your first source (more below, commented out).", *_source(kind, uri, False), ""]
    sources += ["# One [[sources]] entry per bill or inventory. Uncomment and edit the kinds you use."]
    for other in SOURCE_EXAMPLES:
        if other != kind:
            sources += [*_source(other, None, True), ""]
    return HEAD + "\n".join(sources) + TAIL


HEAD = """\
# trainledger configuration. Relative paths are relative to this file.
# Reference: README.md, section "Configuration".

[warehouse]
path = ".trainledger/ledger.duckdb"
# lock_timeout_s = 30           # how long a run waits for another to release the warehouse
# memory_limit = "1GB"          # DuckDB's working memory; bigger bills spill to disk beyond it

"""

TAIL = """
[experiments]
uri = "experiments.jsonl"        # JSON Lines file, folder, s3:// or gs:// prefix; absent = no experiments yet

[labels]
project = "project"
phase = "phase"
method = "method"
experiment = "experiment"
composite = "cost-label"        # cost-label = <project>-<phase>-<method>
phases = ["data", "train", "rollout", "eval"]
methods = ["sft", "rl", "opd"]

[labels.aliases]
training = "train"
grpo = "rl"

[allocation]
shared = "separate"             # or "proportional"

[exports]
dir = "exports"                 # nightly writes each period's finance CSV and alerts.json here
# site = "site"                 # the static dashboard folder, rewritten by nightly after the exports

# [[budgets]]
# name = "qwen-coder-monthly"
# project = "qwen-coder"
# period = "monthly"
# amount = "1000.00"
# currency = "USD"
# thresholds = [0.8, 1.0]

# Estimator overrides (SPEC §6); each value used is printed with the estimate, with its source.
# [estimator]
# mfu = { train = 0.40, prefill = 0.50, decode = 0.10 }
# decode_tokens_per_s_per_gpu = 2500
# gpu_peak_tflops = { H100 = 989 }
# price_per_gpu_hour = { H100 = "6.88" }
# instance_prices = { "p5.48xlarge" = "55.04" }
# instance_gpus = { "p5.48xlarge" = 8 }
"""
