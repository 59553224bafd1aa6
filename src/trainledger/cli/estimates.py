"""The estimate command: FLOPs, GPU hours and money from an experiment's params, before or after a run."""

from __future__ import annotations

import json
from pathlib import Path

import click

from trainledger.cli.context import Context
from trainledger.cli.options import examples, output_format
from trainledger.cli.output import echo
from trainledger.core.vocabulary import METHODS
from trainledger.estimate.params import PARAMS
from trainledger.outputs.tables import visible_lines


def _params_help() -> str:
    """Every params key with unit and default, from the estimator's own list (\\b keeps click's layout)."""
    width = max(len(p.name) for p in PARAMS)
    rows = [f"  {p.name.ljust(width)}  {p.meaning} [{p.unit}; default: {p.default}]" for p in PARAMS]
    return "\b\nParams (SPEC §6):\n" + "\n".join(rows)


@click.command(
    epilog=_params_help()
    + "\n\n"
    + examples(
        "trainledger estimate exp-sft-0412",
        "trainledger estimate --params plan.json --method rl",
        "trainledger estimate exp-rl-0419 --format json --no-calibration",
    )
)
@click.argument("experiment_id", required=False)
@click.option(
    "--params",
    "params_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="JSON file: a params object, or a record with method and params (SPEC §5).",
)
@click.option("--method", type=click.Choice(METHODS), default=None, help="Method for --params.")
@click.option("--strict", is_flag=True, help="An unknown params key is an error, not a warning.")
@click.option(
    "--no-calibration",
    is_flag=True,
    help="Textbook MFU defaults, not the median implied MFU of your reconciled runs.",
)
@output_format("table", "json", "markdown")
@click.pass_obj
def estimate(
    obj: Context,
    experiment_id: str | None,
    params_file: str | None,
    method: str | None,
    strict: bool,
    no_calibration: bool,
    fmt_: str,
) -> None:
    """Estimate cost from first principles (SPEC §6), with the derivation and every assumption beside it."""
    from trainledger.estimate import param_sources
    from trainledger.outputs import estimate_text
    from trainledger.reports import experiments
    from trainledger.warehouse.connection import open_warehouse

    if (experiment_id is None) == (params_file is None):
        raise click.UsageError("give either EXPERIMENT_ID or --params FILE")
    options = {"strict": strict, "calibrate": not no_calibration}
    if experiment_id is not None:
        config = obj.config
        with open_warehouse(config, write=False) as con:
            experiments.require(con, config, experiment_id, logged=True)
            result = param_sources.for_experiment(con, config, experiment_id, **options)
        title = experiment_id
    else:
        assert params_file is not None
        config = obj.config_or_defaults
        if config.warehouse_path().exists():
            with open_warehouse(config, write=False) as con:
                result = param_sources.from_file(Path(params_file), method, config, con, **options)
        else:
            result = param_sources.from_file(Path(params_file), method, config, None, **options)
        title = params_file
    for warning in result.warnings:
        obj.reporter.warn(warning)
    if fmt_ == "json":
        echo(json.dumps({"source": title, **result.to_json()}, indent=2))
    elif fmt_ == "markdown":
        echo(estimate_text.markdown(result, title), nl=False)
    else:
        echo(visible_lines(estimate_text.text(result, title)), nl=False)
