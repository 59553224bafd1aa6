"""Which GPU, its peak, its price per GPU hour, and one sequence's decode speed on it.

Price per GPU hour, first match wins: params, instance type (config, then the bundled sheet), config per
GPU, the warehouse's catalog prices, the bundled reference instance.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

from trainledger.core.errors import InputError
from trainledger.core.money import to_decimal
from trainledger.estimate.builder import BILLION, Builder, Model
from trainledger.estimate.gpus import GPUS, canonical_gpu
from trainledger.estimate.prices import INSTANCES, REFERENCE_INSTANCE
from trainledger.estimate.result import ARITHMETIC, num

BYTES_PER_PARAM = 2  # BF16 weights, as the peak FLOP/s are BF16
KV_SHARE = Decimal("0.5")  # half of each GPU's memory left for the KV cache
BANDWIDTH_REACHED = Decimal("0.5")  # small-batch decode reaches about half of peak HBM bandwidth
NODE = 8
MOE_LARGE_BATCH = (
    "MoE at rollout batch sizes: the batch's tokens route to every expert, so each step streams all of them, "
    "not the active share (DeepSeek-V3/R1 inference system overview, 2025-03-01: 8 of 256 routed experts "
    "per token, served at large batch with expert parallelism)"
)


def hardware(b: Builder) -> None:
    p = b.p
    instance_type = p.text("instance_type")
    gpu_raw = p.text("gpu_type")
    instance = INSTANCES.get(instance_type) if instance_type else None
    gpu = canonical_gpu(gpu_raw) if gpu_raw else (instance.gpu if instance else None)
    if gpu_raw:
        b.note("gpu_type", gpu or gpu_raw, "params.gpu_type")
    elif instance:
        b.note("gpu_type", instance.gpu, f"from params.instance_type {instance_type}")
    else:
        b.missing("gpu_type: not given, so no peak FLOP/s and no GPU hours")
    b.est.gpu = gpu
    gpus = p.whole("gpus")
    if gpus is not None:
        b.est.gpus = gpus
        b.note("gpus", str(gpus), "params.gpus (wall-clock hours = GPU hours / gpus)")
    if gpu:
        overrides = {canonical_gpu(k): v for k, v in b.config.gpu_peak_tflops.items()}
        if gpu in overrides:
            b.est.peak_tflops = to_decimal(overrides[gpu])
            b.note("peak_tflops", num(b.est.peak_tflops), f"[estimator] gpu_peak_tflops.{gpu}")
        elif gpu in GPUS:
            b.est.peak_tflops = GPUS[gpu].peak_tflops
            b.note("peak_tflops", num(GPUS[gpu].peak_tflops), GPUS[gpu].source)
        else:
            b.missing(
                f"peak FLOP/s of GPU {gpu!r} unknown (known: {', '.join(sorted(GPUS))}; "
                f"or set [estimator] gpu_peak_tflops.{gpu})"
            )
    price(b, instance_type)


def price(b: Builder, instance_type: str | None) -> None:
    p, est = b.p, b.est
    given = p.number("price_per_gpu_hour")
    if given is not None:
        est.price_per_gpu_hour = given
        b.note("price_per_gpu_hour", num(given), "params.price_per_gpu_hour")
        return
    if instance_type and _instance_price(b, instance_type):
        return
    gpu = est.gpu
    if gpu is None:
        b.missing("price per GPU hour: no gpu_type, instance_type or price_per_gpu_hour")
        return
    configured = {canonical_gpu(k): v for k, v in b.config.price_per_gpu_hour.items()}
    if gpu in configured:
        est.price_per_gpu_hour = configured[gpu]
        b.note("price_per_gpu_hour", num(configured[gpu]), f"[estimator] price_per_gpu_hour.{gpu}")
        return
    catalog_price = b.catalog.price(gpu, p.text("region")) if b.catalog else None
    if catalog_price:
        est.price_per_gpu_hour = catalog_price.price_per_gpu_hour
        est.currency = catalog_price.currency
        b.note("price_per_gpu_hour", num(catalog_price.price_per_gpu_hour), catalog_price.source)
        return
    reference = REFERENCE_INSTANCE.get(gpu)
    if reference:
        _sheet_price(b, reference)
        return
    b.missing(
        f"price per GPU hour for {gpu}: none bundled; set params.price_per_gpu_hour or "
        f"[estimator] price_per_gpu_hour.{gpu}"
    )


def _instance_price(b: Builder, instance_type: str) -> bool:
    sheet = INSTANCES.get(instance_type)
    configured = b.config.instance_prices.get(instance_type)
    count = b.config.instance_gpus.get(instance_type) or (sheet.gpus if sheet else None)
    if configured is not None and count:
        b.est.price_per_gpu_hour = configured / count
        b.note(
            "price_per_gpu_hour",
            num(b.est.price_per_gpu_hour),
            f"[estimator] instance_prices.{instance_type} {num(configured)}/h / {count} GPUs",
        )
        return True
    if configured is not None:
        b.missing(
            f"GPUs per {instance_type} unknown: set [estimator] instance_gpus.{instance_type} "
            "to use its configured price"
        )
    elif sheet:
        _sheet_price(b, instance_type)
        return True
    else:
        b.missing(f"instance_type {instance_type!r} is not in the price sheet; priced by GPU type")
    return False


def _sheet_price(b: Builder, instance_type: str) -> None:
    sheet = INSTANCES[instance_type]
    b.est.price_per_gpu_hour = sheet.per_gpu_hour
    b.est.currency = sheet.currency
    b.note(
        "price_per_gpu_hour",
        num(sheet.per_gpu_hour),
        f"{instance_type} on-demand {num(sheet.price_per_hour)}/h / {sheet.gpus} GPUs "
        f"({sheet.source}, {sheet.as_of})",
    )


def sequence_decode_speed(b: Builder, model: Model) -> Decimal | None:
    """Tokens/s of one sequence: given, or each step streaming the weights from one replica's HBM."""
    given = b.p.number("decode_tokens_per_s_per_sequence", positive=True)
    if given is not None:
        b.note("decode_tokens_per_s_per_sequence", num(given), "params.decode_tokens_per_s_per_sequence")
        return given
    gpu = GPUS.get(b.est.gpu or "")
    if gpu is None:
        b.missing(
            "decode_tokens_per_s_per_sequence: not given and no known GPU to derive it; no straggler bound"
        )
        return None
    with localcontext(ARITHMETIC):
        weights_gb = BYTES_PER_PARAM * model.total_b * BILLION / BILLION
        usable = gpu.memory_gb * KV_SHARE
        if weights_gb <= usable:
            replica = 1
        elif weights_gb <= usable * NODE:
            replica = 2 ** math.ceil(math.log2(weights_gb / usable))
        else:
            replica = NODE * math.ceil(weights_gb / (usable * NODE))
        speed = BANDWIDTH_REACHED * replica * gpu.bandwidth_tb_s * 1000 / weights_gb
    shown = f"{speed.quantize(Decimal('0.1')):f}"
    moe = f"; {MOE_LARGE_BATCH}" if model.active_b < model.total_b else ""
    b.note(
        "decode_tokens_per_s_per_sequence",
        shown,
        f"derived: a decode step streams the BF16 weights ({num(weights_gb)} GB, {model.size()}) from the "
        f"HBM of a {replica}-GPU replica (fewest GPUs, then whole 8-GPU nodes, holding them in half their "
        f"{num(gpu.memory_gb)} GB) at half of {num(gpu.bandwidth_tb_s)} TB/s per GPU{moe}",
    )
    return speed


def check_stage_hardware(stage: dict[str, object], where: str) -> None:
    shared = [k for k in ("gpu_type", "instance_type", "price_per_gpu_hour", "region") if k in stage]
    if shared:
        raise InputError(
            f"{where}: {', '.join(shared)}: set at the top level; every stage shares the hardware"
        )
