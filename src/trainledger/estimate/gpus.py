"""Dense BF16 peak throughput per GPU type: the denominator of every GPU-hour estimate.

Dense means without 2:4 structured sparsity (datasheets print the sparse figure first, twice as large).
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


GPUS: dict[str, Gpu] = {
    g.name: g
    for g in (
        Gpu("A100", Decimal(312), "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOP/s dense (624 sparse)"),
        Gpu(
            "H100",
            Decimal(989),
            "NVIDIA H100 SXM datasheet: BF16 Tensor Core 1,979 TFLOP/s with sparsity, 989 dense",
        ),
        Gpu("H800", Decimal(989), "NVIDIA H800 SXM: H100 compute (989 TFLOP/s dense BF16), cut interconnect"),
        Gpu(
            "H200",
            Decimal(989),
            "NVIDIA H200 SXM datasheet: same GH100 compute as H100, 989 TFLOP/s dense BF16",
        ),
        Gpu("B200", Decimal(2250), "NVIDIA HGX B200 (1,000 W): BF16 2.25 PFLOP/s dense, 4.5 sparse"),
        Gpu("L4", Decimal(121), "NVIDIA L4 datasheet: BF16 Tensor Core 242 TFLOP/s with sparsity, 121 dense"),
        Gpu(
            "L40S",
            Decimal(362),
            "NVIDIA L40S datasheet: BF16 Tensor Core 733 TFLOP/s with sparsity, 362 dense",
        ),
        Gpu(
            "A10G",
            Decimal(70),
            "AWS G5 A10G (Baseten, 'NVIDIA A10 vs A10G'): 70 TFLOP/s BF16 tensor, vs 125 on the A10",
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
