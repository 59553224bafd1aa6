"""Dense BF16 peak throughput per GPU type (the denominator of every GPU-hour estimate), and its memory.

Dense means without 2:4 structured sparsity (datasheets print the sparse figure first, twice as large).
Memory size and HBM bandwidth (datasheets, the SXM / largest-memory part) bound one sequence's decode
speed: each decode step streams the weights once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Gpu:
    name: str
    peak_tflops: Decimal
    source: str
    memory_gb: Decimal
    bandwidth_tb_s: Decimal  # HBM, TB/s


GPUS: dict[str, Gpu] = {
    g.name: g
    for g in (
        Gpu(
            "A100",
            Decimal(312),
            "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOP/s dense (624 sparse)",
            Decimal(80),
            Decimal("2.039"),
        ),
        Gpu(
            "H100",
            Decimal(989),
            "NVIDIA H100 SXM datasheet: BF16 Tensor Core 1,979 TFLOP/s with sparsity, 989 dense",
            Decimal(80),
            Decimal("3.35"),
        ),
        Gpu(
            "H800",
            Decimal(989),
            "NVIDIA H800 SXM: H100 compute (989 TFLOP/s dense BF16), cut interconnect",
            Decimal(80),
            Decimal("3.35"),
        ),
        Gpu(
            "H200",
            Decimal(989),
            "NVIDIA H200 SXM datasheet: same GH100 compute as H100, 989 TFLOP/s dense BF16",
            Decimal(141),
            Decimal("4.8"),
        ),
        Gpu(
            "B200",
            Decimal(2250),
            "NVIDIA HGX B200 (1,000 W): BF16 2.25 PFLOP/s dense, 4.5 sparse",
            Decimal(180),
            Decimal("8"),
        ),
        Gpu(
            "L4",
            Decimal(121),
            "NVIDIA L4 datasheet: BF16 Tensor Core 242 TFLOP/s with sparsity, 121 dense",
            Decimal(24),
            Decimal("0.3"),
        ),
        Gpu(
            "L40S",
            Decimal(362),
            "NVIDIA L40S datasheet: BF16 Tensor Core 733 TFLOP/s with sparsity, 362 dense",
            Decimal(48),
            Decimal("0.864"),
        ),
        Gpu(
            "A10G",
            Decimal(70),
            "AWS G5 A10G (Baseten, 'NVIDIA A10 vs A10G'): 70 TFLOP/s BF16 tensor, vs 125 on the A10",
            Decimal(24),
            Decimal("0.6"),
        ),
    )
}

_LONGEST_FIRST = sorted(GPUS, key=len, reverse=True)


def canonical_gpu(name: str) -> str:
    """``"nvidia-h100-80gb"``, ``"H100 SXM"`` and ``"h100"`` are all ``"H100"``; unknown names come back upper-cased."""
    text = re.sub(r"^(NVIDIA[\s_-]*(TESLA[\s_-]*)?)", "", name.strip().upper())
    for known in _LONGEST_FIRST:
        if re.match(rf"{known}(?![0-9A-Z])", text):
            return known
    return text
