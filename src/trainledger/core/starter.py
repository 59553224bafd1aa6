"""The starter trainledger.toml that `trainledger init` writes: it runs on its first `nightly` as written.

Every registered source kind (``core/source_kinds.py``) appears as its module's commented ``EXAMPLE``,
so a new kind reaches the starter with no edit here; ``init --source KIND --uri URI`` fills the kind's
example in as the first source. Shared clusters and managed training (Slurm as the log, EKS and GKE pod
labels, SageMaker's job tag, reserved capacity) are commented examples in the tail.
"""

from __future__ import annotations

from trainledger.core import source_kinds
from trainledger.core.errors import ConfigError
from trainledger.core.source_kinds import Example
from trainledger.core.vocabulary import METHODS, PHASES


def example(kind: str) -> Example:
    """The commented ``[[sources]]`` example of a registered kind."""
    found: Example = source_kinds.module(kind).EXAMPLE
    return found


def _source(kind: str, uri: str | None, commented: bool) -> list[str]:
    shown = example(kind)
    lines = ["[[sources]]", f'name = "{kind}"', f'kind = "{kind}"']
    if shown.uri is not None:
        lines.append(f"uri = {_toml_string(uri or shown.uri)}")
    lines += list(shown.required)
    lines += [o if o.startswith("#") else f"# {o}" for o in shown.options]
    if commented:
        lines = [f"# {line}" if not line.startswith("#") else f"#{line[1:]}" for line in lines]
    return [f"# {kind}: {shown.what}", *lines]


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(texts: tuple[str, ...]) -> str:
    return "[" + ", ".join(_toml_string(t) for t in texts) + "]"


def starter(kind: str | None = None, uri: str | None = None) -> str:
    """The starter config; with ``kind``, that source filled in (``uri`` required for file kinds)."""
    if kind is not None and kind not in source_kinds.KINDS:
        raise ConfigError(f"unknown source kind {kind!r}; one of {', '.join(source_kinds.KINDS)}")
    first = example(kind) if kind is not None else None
    if first is not None and first.uri is not None and not uri:
        raise ConfigError(f"--source {kind} reads files: give --uri (e.g. {first.uri})")
    if first is not None and uri and first.uri is None:
        raise ConfigError(f"--source {kind} reads an API, not files: leave out --uri")
    sources: list[str] = []
    if kind is not None:
        sources += ["# Your first source (more below, commented out).", *_source(kind, uri, False), ""]
    sources += ["# One [[sources]] entry per bill or inventory. Uncomment and edit the kinds you use."]
    for other in source_kinds.KINDS:
        if other != kind:
            sources += [*_source(other, None, True), ""]
    tail = TAIL.replace("{phases}", _toml_list(PHASES)).replace("{methods}", _toml_list(METHODS))
    return HEAD + "\n".join(sources) + tail


HEAD = """\
# trainledger configuration. Relative paths are relative to this file.
# Reference: README.md, section "Configuration".

[warehouse]
path = ".trainledger/ledger.duckdb"
# lock_timeout_s = 30           # how long a run waits for another to release the warehouse
# memory_limit = "800MB"        # DuckDB's working memory; bigger bills spill to disk beyond it
# engine = "spark"              # the bill's big tables on Apache Spark (README "Running on Spark"), with:
# master = "local[*]"           # or "yarn", "spark://host:7077", "sc://host:15002"
# catalog = "spark_catalog"     # Spark catalog and database that name the tables (database created
# database = "trainledger"      # if missing); without database the tables are read by path only
# s3_scheme = "s3a"             # Spark reads s3:// bills in place with this scheme ("s3" on EMR)

"""

TAIL = """
[experiments]
uri = "experiments.jsonl"        # JSON Lines file, folder, s3:// or gs:// prefix; absent = no experiments yet
# kind = "slurm"                 # Slurm: uri is then sacct --json dumps (README "Slurm jobs as the experiment log")

# Slurm jobs as experiments (with kind = "slurm" above): where labels come from, nodes to instances.
# [experiments.slurm]
# labels = ["comment", "wckey"]  # job fields read as labels, first wins: sbatch --comment="cost-label=..."
# project = "account"            # a field whose whole value is the project when no label names one
# nodes = "nodes.csv"            # node,resource_id[,provider]: node names to the bill's instance ids

[labels]
project = "project"
phase = "phase"
method = "method"
experiment = "experiment"
# One of these instead (README "Shared Kubernetes GPU nodes", "Managed training"):
# experiment = ["experiment", "trainledger.io/experiment"]    # EKS and GKE: a pod label (GKE's k8s-label/<key>)
# experiment = ["experiment", "sagemaker:training-job-name"]  # SageMaker: the tag set at the job's launch
composite = "cost-label"        # cost-label = <project>-<phase>-<method>
# project_fallback = "k8s-namespace"  # GKE: the namespace names the project when no label does
# project_fallback = "aws:eks:namespace"  # EKS: the same, from split cost allocation's namespace tag
phases = {phases}
methods = {methods}

[labels.aliases]
training = "train"
grpo = "rl"

[allocation]
shared = "separate"             # or "proportional"

[exports]
dir = "exports"                 # nightly writes each period's finance CSV and alerts.json here
# format = ["csv", "focus"]     # also a FOCUS file per period (csv, xlsx, focus)
# focus_version = "1.3"         # FOCUS 1.3: split charges as allocated charges (default "1.2")
# site = "site"                 # the static dashboard folder, rewritten by nightly after the exports

# [[budgets]]
# name = "qwen-coder-monthly"
# project = "qwen-coder"
# period = "monthly"
# amount = "1000.00"
# currency = "USD"
# thresholds = [0.8, 1.0]

# Reserved GPU capacity (README "Reserved GPU capacity"): a Capacity Block's fee goes to the runs on its
# instances by GPUs x time, the rest is the owner's unused commitment.
# [[reservations]]
# id = "cr-0123456789abcdef0"
# project = "qwen-coder"
# start = 2026-11-10T11:30:00Z
# end = 2026-11-11T11:30:00Z
# gpus = 8
# instances = ["i-0123456789abcdef0"]

# A rate card for usage reported without a cost (README "Usage without prices"): a focus-usage export's
# SkuId, or a cluster's nodes, priced per unit from valid_from up to valid_to (exclusive). Charges priced
# here are marked "(priced by trainledger rate card)"; usage with no rate is listed by `labels`.
# [[rates]]
# sku = "h100-sxm"               # or node = "gpu-[01-04]" (a Slurm hostlist) for a cluster source
# unit = "GPU-Hours"             # the usage's PricingUnit ("Hours" for a cluster's nodes)
# price = "2.21"                 # per unit, exact
# currency = "USD"              # ISO 4217, of the price
# valid_from = 2026-11-01
# valid_to = 2026-12-01          # optional

# Estimator overrides (SPEC §6); each value used is printed with the estimate, with its source.
# [estimator]
# mfu = { train = 0.40, prefill = 0.50, decode = 0.10 }
# decode_tokens_per_s_per_gpu = 2500
# gpu_peak_tflops = { H100 = 989 }
# price_per_gpu_hour = { H100 = "6.88" }
# instance_prices = { "p5.48xlarge" = "55.04" }
# instance_gpus = { "p5.48xlarge" = 8 }
# LLM API list prices per million tokens (judge calls, synthetic data); overrides the bundled table
# api_prices = { "claude-sonnet-4-5" = { input = "3.00", output = "15.00" } }
"""
