"""The bundled on-demand price sheet: instance type -> price per hour, GPUs, date and source.

The bill always wins; these prices only turn an estimate into money before there is a bill. The default
price of a GPU type is its reference instance's price divided by its GPU count.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

AWS_SOURCE = "AWS EC2 on-demand, us-east-1, after the June 2025 GPU price cut (public price catalog)"
GCP_SOURCE = "GCP Compute Engine on-demand, us-central1, host VM + attached GPUs (public price catalog)"


@dataclass(frozen=True)
class InstancePrice:
    provider: str
    instance_type: str
    gpu: str
    gpus: int
    price_per_hour: Decimal
    currency: str
    as_of: str
    source: str

    @property
    def per_gpu_hour(self) -> Decimal:
        return self.price_per_hour / self.gpus


INSTANCES: dict[str, InstancePrice] = {
    p.instance_type: p
    for p in (
        InstancePrice("aws", "p4d.24xlarge", "A100", 8, Decimal("21.958"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "p4de.24xlarge", "A100", 8, Decimal("27.447"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "p5.48xlarge", "H100", 8, Decimal("55.04"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "p5en.48xlarge", "H200", 8, Decimal("63.296"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "p6-b200.48xlarge", "B200", 8, Decimal("113.93"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "g6.xlarge", "L4", 1, Decimal("0.8048"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("aws", "g5.xlarge", "A10G", 1, Decimal("1.006"), "USD", "2025-06", AWS_SOURCE),
        InstancePrice("gcp", "a2-highgpu-8g", "A100", 8, Decimal("29.39"), "USD", "2025-06", GCP_SOURCE),
        InstancePrice("gcp", "a3-highgpu-8g", "H100", 8, Decimal("88.00"), "USD", "2025-06", GCP_SOURCE),
    )
}

# The instance whose price stands for a GPU type when only the type is known.
REFERENCE_INSTANCE = {
    "A100": "p4d.24xlarge",
    "H100": "p5.48xlarge",
    "H200": "p5en.48xlarge",
    "B200": "p6-b200.48xlarge",
    "L4": "g6.xlarge",
    "A10G": "g5.xlarge",
}
