"""The estimator against hand-computed FLOPs, GPU hours and money, and its reporting of what it assumed."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from trainledger.core.config_estimator import EstimatorConfig
from trainledger.core.errors import InputError
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.estimate.gpus import canonical_gpu
from trainledger.estimate.model import estimate
from trainledger.warehouse import schema

H100_FLOPS = Decimal("989e12")


def flops_of(est, phase: str) -> Decimal:
    return next(p.flops for p in est.phases() if p.phase == phase)


def work(est, name: str):
    return next(c for c in est.components if c.work == name)


def test_sft_is_six_n_t_over_samples_tokens_and_epochs() -> None:
    est = estimate(
        "sft",
        {
            "model_params_b": 7,
            "gpu_type": "H100",
            "gpus": 8,
            "train_samples": 200_000,
            "avg_tokens_per_sample": 1500,
            "epochs": 3,
        },
    )
    # T = 200,000 x 1,500 x 3 = 9e8 tokens; 6 x 7e9 x 9e8 = 3.78e19 FLOPs.
    assert flops_of(est, "train") == Decimal("3.78e19")
    # 3.78e19 / (989e12 x 0.40 x 3600) = 26.5419... GPU hours, at 55.04 / 8 = 6.88 per GPU hour.
    train = est.phases()[0]
    assert train.gpu_hours.quantize(Decimal("0.0001")) == Decimal("26.5420")
    assert train.cost == Decimal("182.61")
    assert est.total == Decimal("182.61")
    assert est.assumptions["peak_tflops"].value == "989"
    assert est.assumptions["mfu_train"].value == "0.4"
    assert est.assumptions["price_per_gpu_hour"].value == "6.88"
    assert "p5.48xlarge" in est.assumptions["price_per_gpu_hour"].source
    assert est.missing == []


def test_rl_counts_prefill_decode_scoring_and_policy_updates() -> None:
    est = estimate(
        "rl",
        {
            "model_params_b": 1,
            "gpu_type": "H100",
            "steps": 10,
            "rollout_prompts": 100,
            "group_size": 4,
            "prompt_tokens": 500,
            "response_tokens": 1500,
            "reward_params_b": 0,  # rule-based verifier: no reward model
            "reference_params_b": 1,
            "decode_tokens_per_s_per_gpu": 1000,
            "price_per_gpu_hour": "2.50",
        },
    )
    # 10 steps x 100 prompts x 4 samples = 4,000 sequences of 500 + 1,500 tokens.
    assert work(est, "policy prompt prefill").flops == Decimal("4e15")  # 2 x 1e9 x 2e6
    decode = work(est, "policy generation (decode)")
    assert decode.tokens == 6_000_000
    assert decode.gpu_hours.quantize(Decimal("0.0001")) == Decimal(
        "1.6667"
    )  # 6e6 tokens / 1,000 tok/s / 3600
    assert work(est, "reference model forward (KL)").flops == Decimal("1.6e16")  # 2 x 1e9 x 8e6
    assert work(est, "policy old log-probs forward").flops == Decimal("1.6e16")  # 2 x 1e9 x 8e6
    assert work(est, "policy update (forward+backward)").flops == Decimal("4.8e16")  # 6 x 1e9 x 8e6
    assert [c.work for c in est.components if "reward" in c.work] == []
    # 4e15 prefill + 1.2e16 (nominal decode) + 1.6e16 reference + 1.6e16 old log-probs.
    assert flops_of(est, "rollout") == Decimal("4.8e16")
    # Rollout: 1.6667 h decode + 3.6e16 / (989e12 x 0.5 x 3600) = 0.0202 h of forwards = 1.6869 h x 2.50
    # = 4.22; train: 4.8e16 / (989e12 x 0.4 x 3600) = 0.0337 h -> 0.08.
    assert {p.phase: p.cost for p in est.phases()} == {"rollout": Decimal("4.22"), "train": Decimal("0.08")}
    assert est.total == Decimal("4.30")
    assert est.assumptions["weight_sync"].value == "not counted"  # no gpus
    assert est.missing == []


def test_opd_scores_the_students_tokens_with_the_teacher() -> None:
    est = estimate(
        "opd",
        {
            "model_params_b": 1.5,
            "teacher_params_b": 32,
            "gpu_type": "H100",
            "gpus": 16,
            "steps": 200,
            "rollout_prompts": 256,
            "group_size": 4,
            "prompt_tokens": 512,
            "response_tokens": 1024,
        },
    )
    # 204,800 sequences x 1,536 tokens = 314,572,800 tokens.
    assert work(est, "teacher forward on student tokens").flops == Decimal("2.01326592e19")  # 2 x 32e9 x T
    assert work(est, "student update (forward+backward)").flops == Decimal("2.8311552e18")  # 6 x 1.5e9 x T
    assert work(est, "student generation (decode)").tokens == 204_800 * 1024
    # The derived decode rate: 989e12 x 0.10 / (2 x 1.5e9) = 32,967 tokens/s/GPU.
    assert est.assumptions["decode_tokens_per_s_per_gpu@1.5B"].value == "32967"
    # Weight sync: 3 GB of BF16 weights / (671 GB / 12.13 s) = 0.054233 s, x 200 rollouts x 16 GPUs / 3600 =
    # 0.048207 GPU-h x 6.88 = 0.33 on top of the 91.18 of generation and teacher scoring.
    sync = work(est, "student weight sync to the rollout engine")
    assert sync.gpu_hours.quantize(Decimal("0.000001")) == Decimal("0.048207")
    assert {p.phase: p.cost for p in est.phases()} == {"train": Decimal("13.68"), "rollout": Decimal("91.51")}
    assert est.total == Decimal("105.19")


def test_missing_inputs_are_reported_and_their_parts_left_out() -> None:
    est = estimate(
        "opd",
        {
            "model_params_b": 8,
            "steps": 10,
            "rollout_prompts": 64,
            "response_tokens": 2048,
            "eval_samples": 500,
        },
    )
    assert est.missing == [
        "gpu_type: not given, so no peak FLOP/s and no GPU hours",
        "price per GPU hour: no gpu_type, instance_type or price_per_gpu_hour",
        "prompt_tokens: not given; prompts count as 0 tokens (prefill and their updates left out)",
        "teacher_params_b: needed for the teacher forward on the student's tokens; not estimated",
        "eval_tokens_per_sample: needed for evaluation generation; not estimated",
    ]
    assert est.total is None
    assert all(c.gpu_hours is None for c in est.components)
    assert est.assumptions["group_size"].source.startswith("default")


def test_a_gpu_without_a_bundled_price_has_hours_but_no_money() -> None:
    est = estimate(
        "sft", {"model_params_b": 7, "gpu_type": "H800", "train_samples": 1000, "avg_tokens_per_sample": 1000}
    )
    assert est.phases()[0].gpu_hours is not None
    assert est.total is None
    assert est.missing == [
        "price per GPU hour for H800: none bundled; set params.price_per_gpu_hour or [estimator] price_per_gpu_hour.H800"
    ]


def test_config_overrides_beat_bundled_values_and_params_beat_config() -> None:
    config = EstimatorConfig(
        gpu_peak_tflops={"h100": 1000.0},
        mfu={"train": 0.5},
        price_per_gpu_hour={"H100": Decimal("4.00")},
    )
    params = {"model_params_b": 1, "gpu_type": "H100", "train_samples": 1000, "avg_tokens_per_sample": 1800}
    est = estimate("sft", params, config)
    # 6 x 1e9 x 1.8e6 = 1.08e16 FLOPs / (1000e12 x 0.5 x 3600) = 0.006 h x 4.00 = 0.024 -> 0.02.
    assert est.phases()[0].gpu_hours == Decimal("0.006")
    assert est.assumptions["peak_tflops"].source == "[estimator] gpu_peak_tflops.H100"
    assert est.assumptions["mfu_train"].source == "[estimator] mfu.train"
    assert est.assumptions["price_per_gpu_hour"].source == "[estimator] price_per_gpu_hour.H100"
    assert est.total == Decimal("0.02")
    est = estimate("sft", {**params, "price_per_gpu_hour": 10, "mfu": {"train": 0.25}}, config)
    assert est.assumptions["price_per_gpu_hour"].source == "params.price_per_gpu_hour"
    assert est.phases()[0].gpu_hours == Decimal("0.012")
    assert est.total == Decimal("0.12")


def test_instance_type_prices_per_gpu_and_names_the_gpu() -> None:
    est = estimate(
        "sft",
        {
            "model_params_b": 1,
            "instance_type": "p4d.24xlarge",
            "train_samples": 1,
            "avg_tokens_per_sample": 1,
        },
    )
    assert est.gpu == "A100"
    assert est.price_per_gpu_hour == Decimal("2.74475")  # 21.958 / 8
    assert "2025-06" in est.assumptions["price_per_gpu_hour"].source
    config = EstimatorConfig(
        instance_prices={"p9.96xlarge": Decimal("96.00")}, instance_gpus={"p9.96xlarge": 16}
    )
    est = estimate(
        "sft",
        {
            "model_params_b": 1,
            "gpu_type": "B200",
            "instance_type": "p9.96xlarge",
            "train_samples": 1,
            "avg_tokens_per_sample": 1,
        },
        config,
    )
    assert est.price_per_gpu_hour == Decimal(6)


def _price_sheet(*skus: tuple[str, str, str, list[str], str, str]) -> duckdb.DuckDBPyConnection:
    """A warehouse whose price sheet holds these SKUs (description, usage type, GPU, regions, unit, price),
    in the columns gcp-catalog writes (schema/warehouse.sql)."""
    con = duckdb.connect()
    schema.create(con, Path("ledger.duckdb"))
    for n, (description, usage, gpu, regions, unit, price) in enumerate(skus):
        con.execute(
            "INSERT INTO prices (provider, source, sku_id, description, usage_type, gpu_type, regions, unit, "
            "tier_start, currency, price_per_unit, fetched_at) "
            "VALUES ('gcp', 'catalog', ?, ?, ?, ?, ?, ?, 0, 'USD', ?, TIMESTAMP '2026-11-30 00:00:00')",
            [f"SKU-{n}", description, usage, gpu, regions, unit, price],
        )
    return con


def test_catalog_prices_from_the_warehouse_are_used_when_present() -> None:
    con = _price_sheet(
        ("Nvidia H100 80GB GPU running in Americas", "OnDemand", "H100", ["us-central1"], "h", "9.796"),
        ("Nvidia H100 80GB GPU running in EMEA", "OnDemand", "H100", ["europe-west4"], "h", "10.776"),
        ("Spot Preemptible Nvidia H100 80GB GPU", "Preemptible", "H100", ["us-central1"], "h", "2.253"),
        ("Commitment v1: Nvidia H100 GPU for 1 Year", "Commit1Yr", "H100", ["us-central1"], "h", "6.1"),
        ("Nvidia H100 80GB GPU, per month", "OnDemand", "H100", ["us-central1"], "mo", "7000"),
    )
    catalog = GpuListPrices.from_warehouse(con)
    params = {"model_params_b": 1, "gpu_type": "H100", "train_samples": 1, "avg_tokens_per_sample": 1}
    est = estimate("sft", params, catalog=catalog)
    # On demand by the hour only: not the spot, the committed or the monthly SKU.
    assert est.price_per_gpu_hour == Decimal("10.776")
    assert "2 rows from 9.796 to 10.776, highest used" in est.assumptions["price_per_gpu_hour"].source
    est = estimate("sft", {**params, "region": "us-central1"}, catalog=catalog)
    assert est.price_per_gpu_hour == Decimal("9.796")
    assert est.assumptions["price_per_gpu_hour"].source.startswith(
        "GCP Cloud Catalog SKU SKU-0 (region us-central1"
    )
    # An explicit config price still wins over the catalog.
    est = estimate("sft", params, EstimatorConfig(price_per_gpu_hour={"H100": Decimal(7)}), catalog)
    assert est.price_per_gpu_hour == Decimal(7)


def test_a_price_sheet_without_gpu_prices_is_no_catalog() -> None:
    con = _price_sheet(
        ("A3 Instance Core running in Americas", "OnDemand", None, ["us-central1"], "h", "0.03")
    )
    assert GpuListPrices.from_warehouse(con) is None


def test_no_prices_table_means_no_catalog() -> None:
    assert GpuListPrices.from_warehouse(duckdb.connect()) is None


def test_money_given_directly_lands_in_its_phase_and_category() -> None:
    est = estimate("sft", {"data_cost": "1250.00", "storage_cost": {"data": 40, "train": "12.5"}})
    assert [(p.phase, p.category, p.cost) for p in est.phases()] == [
        ("data", "data", Decimal("1250.00")),
        ("data", "storage", Decimal("40.00")),
        ("train", "storage", Decimal("12.50")),
    ]
    assert est.total == Decimal("1302.50")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"train_samples": "many"}, "exp-1: params.train_samples: expected a number, got 'many'"),
        ({"epochs": 0}, "exp-1: params.epochs: expected a number > 0, got 0"),
        (
            {"avg_tokens_per_sample": -5},
            "exp-1: params.avg_tokens_per_sample: expected a number >= 0, got -5",
        ),
        ({"gpus": 2.5}, "exp-1: params.gpus: expected a whole number, got 2.5"),
        ({"mfu": {"train": 1.5}}, "exp-1: params.mfu.train: expected a fraction in (0, 1], got 1.5"),
    ],
)
def test_bad_params_name_the_experiment_and_the_key(params: dict, message: str) -> None:
    base = {"model_params_b": 1, "gpu_type": "H100", "train_samples": 1, "avg_tokens_per_sample": 1}
    with pytest.raises(InputError) as info:
        estimate("sft", {**base, **params}, where="exp-1")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("H100", "H100"),
        ("nvidia-h100-80gb", "H100"),
        ("NVIDIA A100-SXM4-80GB", "A100"),
        ("a10g", "A10G"),
        ("L40S", "L40S"),
        ("l4", "L4"),
        ("L40", "L40"),
    ],
)
def test_gpu_names_are_canonical(name: str, canonical: str) -> None:
    assert canonical_gpu(name) == canonical
