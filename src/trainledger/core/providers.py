"""The providers trainledger knows (SPEC §5): one table that every input and output reads.

A provider has an id (``aws``, ``gcp``, ``azure``, ...: what charges, the inventory and the experiment log's
``provider`` carry), the name FOCUS files write for it (``ProviderName`` in FOCUS 1.0-1.2, its replacement
``ServiceProviderName`` in 1.3: ``Microsoft`` for Azure), the other names bills and people use for it, what its
bill buys (``spend``: capacity, or a model API's tokens) and the cost-category rules of its services. Names
match whatever their case and surrounding spaces; a name the table does not know keeps a stable id, itself
lowercased, so two files naming the same unknown cloud agree.

SQL reads the table as temporary tables of every DuckDB session (``queries/schema/providers.sql`` and
``provider_aliases.sql``, filled from here when the warehouse is opened): the session's macro
``provider_id`` (``schema/provider_id.sql``) maps a bill's name to the id, the FOCUS export maps the id back
to the FOCUS name, and attribution (the macro ``usage_billed``, ``schema/usage_billed.sql``) and reconcile
read each provider's ``spend`` there.

A category rule is ``(service fragment, usage-type fragment, category)``; both fragments are lowercase
substrings ("" matches anything). A provider's rules apply to its own charges, ``SHARED_RULES`` to every
charge; ``attribution/categories.py`` says in which order they are tried. Standard library only: the CLI
and the job-side API may import it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

Rule = tuple[str, str, str]

# What a provider's bill buys (its ``spend``): capacity held (GPU hours, storage, ...: a cloud, a GPU cloud, an
# owned cluster, an off-cloud ledger), or a model API's tokens used. A model API's charge is not idle where no
# run covers it (nobody paid for capacity left unused), buys no GPU hours, and is the realized side of the
# estimate's LLM API lines.
CLOUD, LLM_API = "cloud", "llm_api"


@dataclass(frozen=True)
class Provider:
    id: str
    focus_name: str  # FOCUS ProviderName (1.0-1.2) and ServiceProviderName (1.3) as the provider writes it
    aliases: tuple[str, ...] = ()  # other names its bills, exports and users give it
    rules: tuple[Rule, ...] = ()  # cost categories of its services (attribution/categories.py)
    spend: str = CLOUD  # LLM_API: a model API, billed for the tokens used

    def names(self) -> tuple[str, ...]:
        """Every name that means this provider, lowercased: its id, its FOCUS name and its aliases."""
        return tuple(dict.fromkeys(n.strip().lower() for n in (self.id, self.focus_name, *self.aliases)))


# FOCUS names as the providers write them: "AWS", "Microsoft" and "Oracle" in the FinOps Foundation's FOCUS
# sample (FOCUS-Sample-Data, FOCUS-1.0/focus_sample.csv: ProviderName of its AWS, Azure and OCI rows);
# "Google Cloud" in Google's FOCUS view and export (BigQuery gcp_billing_export_focus_<ACCOUNT>). FOCUS 1.3's
# ServiceProviderName replaces ProviderName for the same entity (FOCUS_Spec, columns/serviceprovidername.md),
# so one name serves both. OpenAI and Anthropic publish no FOCUS file; their names are their own.
AWS = Provider(
    "aws",
    "AWS",
    ("Amazon Web Services", "Amazon Web Services, Inc.", "Amazon"),
    (
        # Observability and security services, whatever their usage types say (CloudWatch bills log
        # storage as `TimedStorage-ByteHrs`).
        ("cloudwatch", "", "ops"),
        ("cloudtrail", "", "ops"),
        ("aws config", "", "ops"),
        ("secrets manager", "", "ops"),
        # Network by usage type: `DataTransfer-Out-Bytes`, `USE1-USW2-AWS-Out-Bytes`, `NatGateway-Bytes`.
        ("", "datatransfer", "network"),
        ("", "-out-bytes", "network"),
        ("", "-in-bytes", "network"),
        ("", "natgateway", "network"),
        ("", "loadbalancer", "network"),
        # Storage by usage type: `EBS:VolumeUsage.gp3`, `EBS:SnapshotUsage`, S3/EFS `TimedStorage-ByteHrs`;
        # SageMaker training / HyperPod volumes `USE1-Train:VolumeUsage.gp2`, `USE1-Cluster:VolumeUsage.gp2`;
        # Fargate storage above the 20 GB a task gets `USE1-Fargate-EphemeralStorage-GB-Hours`.
        ("", "ebs:", "storage"),
        ("", "volumeusage", "storage"),
        ("", "snapshotusage", "storage"),
        ("", "timedstorage", "storage"),
        ("", "ephemeralstorage", "storage"),
        # Compute by usage type: `BoxUsage:p5.48xlarge`, `SpotUsage:...`; EC2 Capacity Block fees
        # `USE2-CapacityBlockFee:p5.48xlarge`, unused On-Demand Capacity Reservation hours
        # `UnusedBox:p5.48xlarge` / `UnusedDed:...`.
        ("", "boxusage", "compute"),
        ("", "spotusage", "compute"),
        ("", "dedicatedusage", "compute"),
        ("", "capacityblockfee", "compute"),
        ("", "unusedbox", "compute"),
        ("", "unusedded", "compute"),
        # Split cost allocation data: a pod's or task's rows restate its node's instance cost (CUR "Split
        # line item details"), whatever service the row names: EKS pods `USE1-EKS-EC2-vCPU-Hours`,
        # `USE1-EKS-EC2-GB-Hours` and any other resource of the family (the name of the accelerator rows
        # added in 2025 was not found documented); ECS tasks on EC2 `USE1-ECS-EC2-vCPU-Hours`,
        # `APN1-ECS-EC2-GB-Hours`; Fargate tasks and pods `USE1-Fargate-vCPU-Hours:perCPU`,
        # `USE1-Fargate-GB-Hours`, `USE1-Fargate-ARM-GB-Hours`.
        ("", "eks-ec2-", "compute"),
        ("", "ecs-ec2-", "compute"),
        ("", "fargate-", "compute"),
        # Services. Savings Plans pay for compute (`Savings Plans for AWS Compute usage`).
        ("savings plan", "", "compute"),
        ("cloudfront", "", "network"),
        ("ground truth", "", "data"),
        ("glue", "", "data"),
        ("athena", "", "data"),
        ("emr", "", "data"),
        ("elastic mapreduce", "", "data"),
        ("kinesis", "", "data"),
        ("simple storage service", "", "storage"),
        ("amazons3", "", "storage"),
        ("s3", "", "storage"),
        ("elastic file system", "", "storage"),
        ("fsx", "", "storage"),
        ("glacier", "", "storage"),
        ("elastic compute cloud", "", "compute"),
        ("amazonec2", "", "compute"),
        ("ec2", "", "compute"),
        # SageMaker: training jobs `USE1-Train:ml.p5.48xlarge`, HyperPod clusters `USE1-Cluster:ml.p5...`
        # (their volumes are storage by usage type, above).
        ("sagemaker", "", "compute"),
        ("bedrock", "", "compute"),
        # EKS by its service code, where a bill names no product (`AmazonEKS`); ECS is not: the FOCUS sample
        # bills data transfer as "Amazon Elastic Container Service" too, so its tasks go by usage type.
        ("amazoneks", "", "compute"),
        ("lambda", "", "compute"),
    ),
)

GCP = Provider(
    "gcp",
    "Google Cloud",
    ("Google", "Google Cloud Platform"),
    (
        ("cloud logging", "", "ops"),
        ("cloud monitoring", "", "ops"),
        # Network by SKU: Cloud Storage `Download Worldwide ...`, `Static Ip Charge`.
        ("cloud storage", "download", "network"),
        ("", "static ip", "network"),
        # Storage by SKU: `Storage PD Capacity`, `SSD backed PD Capacity`, `Storage PD Snapshot`,
        # `Hyperdisk ... Capacity`.
        ("", "pd capacity", "storage"),
        ("", "storage pd", "storage"),
        ("", "pd snapshot", "storage"),
        ("", "hyperdisk", "storage"),
        ("", "storage image", "storage"),
        ("", "local storage", "storage"),
        # Compute by SKU: `A3 Instance Core running in ...`, `... Instance Ram ...` (GPUs: shared rules).
        ("", "instance core", "compute"),
        ("", "instance ram", "compute"),
        # Services. Data Labeling before Vertex AI: Vertex AI's labeling service is data work.
        ("data labeling", "", "data"),
        ("bigquery", "", "data"),
        ("dataflow", "", "data"),
        ("dataproc", "", "data"),
        ("cloud storage", "", "storage"),
        ("filestore", "", "storage"),
        ("artifact registry", "", "storage"),
        ("compute engine", "", "compute"),
        ("vertex ai", "", "compute"),
        ("cloud tpu", "", "compute"),
    ),
)

# Azure's and OCI's FOCUS exports say what each service is in ServiceCategory, which comes before any rule.
AZURE = Provider("azure", "Microsoft", ("Azure", "Microsoft Azure", "Microsoft Corporation"))
OCI = Provider("oci", "Oracle", ("Oracle Cloud Infrastructure", "Oracle Cloud"))
OPENAI = Provider("openai", "OpenAI", ("OpenAI, Inc.",), spend=LLM_API)
ANTHROPIC = Provider("anthropic", "Anthropic", ("Anthropic, PBC",), spend=LLM_API)
# Usage priced by the rate card (connectors/rated.py). CoreWeave's FOCUS Billing Export API (FOCUS 1.2, public
# preview since September 2026; docs.coreweave.com/billing/focus-export-api) is CoreWeave's data, so its
# ProviderName is the company's own name. An owned cluster's provider is, in FOCUS's words, an "Internal
# Name" (FOCUS_Spec appendix/entity_identification.md, scenario 5.1: internal infrastructure running
# on-premises, the same name as service provider, invoice issuer and host): "On-premises" unless the source
# names its own provider.
COREWEAVE = Provider("coreweave", "CoreWeave", ("CoreWeave, Inc.",))
ONPREM = Provider("onprem", "On-premises", ("on-prem", "on premises"))

PROVIDERS: tuple[Provider, ...] = (AWS, GCP, AZURE, OCI, OPENAI, ANTHROPIC, COREWEAVE, ONPREM)

# Rules that hold for every provider's charges: words any bill may use.
SHARED_RULES: tuple[Rule, ...] = (
    ("support", "", "ops"),
    ("key management service", "", "ops"),
    # Network by usage type: GCP `Network Internet Egress from Americas to Americas`, `Network Inter Zone ...`.
    ("", "egress", "network"),
    ("", "network", "network"),
    # Compute by usage type: GCP `Nvidia H100 80GB GPU running in Americas`, TPU SKUs.
    ("", "gpu", "compute"),
    ("", "tpu", "compute"),
    # Data work by usage type: SageMaker Ground Truth's `USE1-LabelingWorkforce`.
    ("", "labeling", "data"),
    ("data transfer", "", "network"),
    ("networking", "", "network"),
    ("virtual private cloud", "", "network"),
    ("backup", "", "storage"),
    ("kubernetes", "", "compute"),
    ("batch", "", "compute"),
)

_BY_NAME = {name: p.id for p in PROVIDERS for name in p.names()}
_BY_ID = {p.id: p for p in PROVIDERS}


def provider_id(name: str | None) -> str | None:
    """The id for a provider's name as a bill or a log writes it (None for none): the table's id when it
    knows the name, else the name itself, lowercased and trimmed."""
    key = (name or "").strip().lower()
    return _BY_NAME.get(key, key) or None


def by_id(provider: str | None) -> Provider | None:
    return _BY_ID.get(provider or "")


def spend_of(provider: str | None) -> str:
    """What a provider's bill buys (``CLOUD`` or ``LLM_API``); a provider the table does not know, or an
    off-cloud ledger (``manual``), holds capacity."""
    found = by_id(provider)
    return found.spend if found else CLOUD


def alias_rows() -> dict[str, list[str]]:
    """Every name of every provider with its id, as the parameters of ``schema/provider_aliases``."""
    return {"alias": list(_BY_NAME), "provider": list(_BY_NAME.values())}


def provider_rows() -> dict[str, list[str]]:
    """Each provider's id, FOCUS name and spend, as the parameters of ``schema/providers``."""
    return {
        "provider": [p.id for p in PROVIDERS],
        "focus_name": [p.focus_name for p in PROVIDERS],
        "spend": [p.spend for p in PROVIDERS],
    }


def as_data() -> list[Any]:
    """The whole table as plain data: part of the fingerprint of each step that reads it (a new alias loads
    the log again, a new rule attributes again; warehouse/step_state.py)."""
    return [asdict(p) for p in PROVIDERS] + [list(SHARED_RULES)]
