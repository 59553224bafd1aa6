"""The estimate command: FLOPs, GPU hours and money from an experiment's params, before or after a run."""

from __future__ import annotations

import json
from pathlib import Path

import click

from trainledger.cli.context import Context
from trainledger.cli.options import examples, output_format
from trainledger.cli.output import echo
from trainledger.estimate import inputs, render
from trainledger.outputs.tables import visible_lines
from trainledger.reports import experiments
from trainledger.warehouse.connection import open_warehouse


@click.command(
    epilog=examples(
        "trainledger estimate exp-sft-0412",
        "trainledger estimate --params plan.json --method rl",
        "trainledger estimate exp-rl-0419 --format json",
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
@click.option("--method", type=click.Choice(inputs.METHODS), default=None, help="Method for --params.")
@output_format("table", "json")
@click.pass_obj
def estimate(
    obj: Context, experiment_id: str | None, params_file: str | None, method: str | None, fmt_: str
) -> None:
    """Estimate cost from first principles (SPEC §6), with every assumption shown beside it."""
    if (experiment_id is None) == (params_file is None):
        raise click.UsageError("give either EXPERIMENT_ID or --params FILE")
    if experiment_id is not None:
        config = obj.config
        with open_warehouse(config, write=False) as con:
            experiments.require(con, config, experiment_id, logged=True)
            result = inputs.for_experiment(con, config, experiment_id)
        title = experiment_id
    else:
        assert params_file is not None
        config = obj.config_or_defaults
        if config.warehouse_path().exists():
            with open_warehouse(config, write=False) as con:
                result = inputs.from_file(Path(params_file), method, config, con)
        else:
            result = inputs.from_file(Path(params_file), method, config, None)
        title = params_file
    if fmt_ == "json":
        echo(json.dumps({"source": title, **result.to_json()}, indent=2))
    else:
        echo(visible_lines(render.text(result, title)), nl=False)
