"""The post-mortem states what the estimate assumed, with each source, and what the estimator warned.

One SFT run on 8 H100, billed 550.40 for 10 hours, estimated from params that give each GPU few tokens per
optimizer step: batch_size 16 x 1,000 tokens / 8 GPUs = 2,000 (under the 10,000 the estimator warns
below). Its reconcile, in text, markdown and HTML, must carry that warning as the estimator wrote it and
every assumption of the estimate with the source the estimate gave it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from html import unescape

import pytest

from bills import Charge, Experiment, Window, at, attribute
from test_reference_points import ALPACA_7B
from trainledger.estimate.model import estimate
from trainledger.outputs import postmortem
from trainledger.reports import reconcile
from trainledger.reports.reconciliation import Reconciliation

PARAMS = {
    "model_params_b": 1,
    "gpu_type": "H100",
    "gpus": 8,
    "train_samples": 100_000,
    "avg_tokens_per_sample": 1000,
    "batch_size": 16,
}
WARNING = "2,000 tokens per GPU per optimizer step (under 10,000)"


def reconciled_sft(name: str, billed: str, hours: int, params: dict[str, object]) -> Reconciliation:
    """One SFT run of ``hours`` on instance ``i-<name>``, billed ``billed``, with its estimate stored."""
    con = attribute(
        [Charge(f"bill-{name}", Decimal(billed), at(0), at(hours), f"i-{name}")],
        [Experiment(name, "p", "sft", [Window(f"i-{name}", at(0), at(hours))], "succeeded", params)],
    )
    detail = estimate("sft", params).to_json()
    con.execute("INSERT INTO estimator_results VALUES (?, true, ?)", (name, json.dumps(detail)))
    return reconcile.reconcile(con, name)


@pytest.fixture(scope="module")
def reconciled() -> Reconciliation:
    return reconciled_sft("small-steps", "550.40", 10, PARAMS)


def test_every_format_shows_the_estimators_warning(reconciled: Reconciliation) -> None:
    warned = estimate("sft", PARAMS).warnings
    assert len(warned) == 1 and warned[0].startswith(WARNING)
    text = postmortem.text(reconciled)
    assert f"Estimator warnings\n  - {warned[0]}" in text
    markdown = postmortem.markdown(reconciled)
    assert "### Estimator warnings" in markdown
    assert f"- {WARNING}" in markdown
    page = unescape(postmortem.html(reconciled))
    assert f'<h2>Estimator warnings</h2><ul class="warnings"><li>{warned[0]}</li></ul>' in page.replace(
        "\n", ""
    )


def test_every_format_lists_each_assumption_with_its_source(reconciled: Reconciliation) -> None:
    assumptions = estimate("sft", PARAMS).assumptions
    # What the estimate assumed here, by hand: the textbook train MFU, the GPU's peak, the packing default.
    assert assumptions["mfu_train"].value == "0.4"
    assert assumptions["peak_tflops"].value == "989"
    assert assumptions["packing"].source.startswith("default: samples packed into sequences")
    text = postmortem.text(reconciled)
    markdown = postmortem.markdown(reconciled)
    page = unescape(postmortem.html(reconciled))
    for name, a in assumptions.items():
        assert all(part in text for part in (name, a.value, a.source[:40])), name
        assert f"| {postmortem._md(name)} | {postmortem._md(a.value)} |" in markdown, name
        assert f"<td>{name}</td>" in page and a.source in page, name


def test_a_run_without_warnings_shows_no_warning_section() -> None:
    quiet = {k: v for k, v in PARAMS.items() if k != "batch_size"}
    r = reconciled_sft("quiet", "550.40", 10, quiet)
    assert "Estimator warnings" not in postmortem.text(r) + postmortem.markdown(r) + postmortem.html(r)


def test_alpacas_published_run_shows_its_warning_beside_its_numbers() -> None:
    # Stanford Alpaca 7B as published (tests/test_reference_points.py): 52K samples of at most 512 tokens,
    # 3 epochs, 128 per optimizer step, 3 hours on 8 A100 80GB, billed here at p4de.24xlarge's 27.447/h
    # (FIELD-NOTES price catalog): 3 x 27.447 = 82.341.
    r = reconciled_sft("alpaca-7b", "82.341", 3, ALPACA_7B)
    # By hand: 128 x 512 / 8 GPUs = 8,192 tokens per GPU per step. FLOPs 6 x 6.7e9 x 52,000 x 3 x 512
    # = 3.21e18; at 312 TFLOP/s x 0.4: 3.21085e18 / 4.4928e17 per GPU hour = 7.15 GPU hours. The bill at the
    # estimator's p4d.24xlarge 2.74475 per GPU hour implies 82.341 / 2.74475 = 30.00 GPU hours, an MFU of
    # 3.21085e18 / (30.00 x 3600 x 312e12) = 9.5%, about a quarter of the 0.4 the warning calls optimistic.
    text = postmortem.text(r)
    assert "Estimator warnings\n  - 8,192 tokens per GPU per optimizer step (under 10,000)" in text
    assert "train  3.21e+18             7.15          30.00" in text and "9.5%" in text
    assert "tokens_per_gpu_step  8192" in text
    assert "- 8,192 tokens per GPU per optimizer step (under 10,000)" in postmortem.markdown(r)
    assert "<li>8,192 tokens per GPU per optimizer step (under 10,000)" in unescape(postmortem.html(r))
