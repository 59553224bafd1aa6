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


@pytest.fixture(scope="module")
def reconciled() -> Reconciliation:
    con = attribute(
        [Charge("bill-small-steps", Decimal("550.40"), at(0), at(10), "i-small-steps")],
        [
            Experiment(
                "small-steps", "p", "sft", [Window("i-small-steps", at(0), at(10))], "succeeded", PARAMS
            )
        ],
    )
    detail = estimate("sft", PARAMS).to_json()
    con.execute("INSERT INTO estimator_results VALUES (?, true, ?)", ("small-steps", json.dumps(detail)))
    return reconcile.reconcile(con, "small-steps")


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
    con = attribute(
        [Charge("bill-quiet", Decimal("550.40"), at(0), at(10), "i-quiet")],
        [Experiment("quiet", "p", "sft", [Window("i-quiet", at(0), at(10))], "succeeded", quiet)],
    )
    con.execute(
        "INSERT INTO estimator_results VALUES (?, true, ?)",
        ("quiet", json.dumps(estimate("sft", quiet).to_json())),
    )
    r = reconcile.reconcile(con, "quiet")
    assert "Estimator warnings" not in postmortem.text(r) + postmortem.markdown(r) + postmortem.html(r)
