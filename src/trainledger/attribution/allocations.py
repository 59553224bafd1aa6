"""Attribution (SPEC §4): resolve labels and categories, split charges into allocations, prove the sum.

Rules live in ``queries/attribute/*.sql``; the label scheme and category rules are Python and reach
SQL as lookup tables, so row-level work stays in DuckDB however large the bill, and no step copies the
whole bill into a temporary table. The steps, in order: rules 1-3 per charge (the ``resolved_charges``
macro of ``attribute_resolve``), the experiment log's windows (``attribute_log_windows``), each logged
resource's timeline cut into segments with what a charge inside one segment gets (``attribute_timelines``,
``attribute_classes``, ``attribute_segments``), the placement of every charge (``attribute_place``): most
are placed whole, by their tags or on the one run they lie under, in one streaming insert
(``attribute_allocate_placed``); the few that a window boundary cuts or several runs share are held
there as share 0 and read back (``attribute_split_set``) to get time segments and exact shares
(``attribute_windows``, ``attribute_allocate_whole``, ``attribute_allocate``, a bounded slice of them at a
time: ``split_by_windows``); the charges on a ``[[reservations]]`` entry are split again by GPU-time over
its window (``place_reservations``); with ``shared = "proportional"`` shared charges are then spread
(``attribute_spread``, ``attribute_spread_charges``, ``attribute_spread_allocate``: the split worked out
once per distinct amount); last, the charges placed whole are summed per tuple, kind and day
(``sum_cells``: ``attribute_cell_slots``, ``attribute_cells``), the sums reports and exports read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainledger.attribution.categories import Categorizer
from trainledger.core.config import Config
from trainledger.core.errors import InvariantViolation
from trainledger.core.labels import LabelScheme
from trainledger.core.reporter import Reporter
from trainledger.core.vocabulary import CATEGORIES
from trainledger.warehouse.connection import Connection, insert_rows, run


@dataclass
class AttributionResult:
    periods: list[str]
    allocations: int
    billed_total: Decimal


def refresh_label_sets(con: Connection, config: Config) -> int:
    """Resolve every distinct tag set of charges and resources with the current label config."""
    scheme = LabelScheme(config.labels)
    tag_sets = [r[0] for r in run(con, "attribute/tag_sets").fetchall()]
    run(con, "attribute/clear_label_sets")
    rows = []
    for tags in tag_sets:
        resolved = scheme.resolve_json(tags)
        rows.append(
            (
                tags,
                resolved.project,
                resolved.phase,
                resolved.method,
                resolved.experiment_id,
                resolved.status,
                resolved.problem,
            )
        )
    insert_rows(con, "label_sets", rows)
    return len(rows)


def refresh_categories(con: Connection, config: Config) -> int:
    categorizer = Categorizer(config.categories)
    combos = run(con, "attribute/category_keys").fetchall()
    run(con, "attribute/clear_categories")
    # A manual ledger row states its category (kept in usage_type); cloud rows are categorised by rule, and so
    # is a row of another bill that names the provider `manual` without stating a category trainledger has.
    found = []
    for provider, service, usage, charge_category, service_category in combos:
        category, known = (
            (usage, True)
            if provider == "manual" and usage in CATEGORIES
            else categorizer.categorize(service, usage, service_category, provider)
        )
        found.append(
            {
                "provider": provider,
                "service_name": service,
                "usage_type": usage,
                "charge_category": charge_category,
                "service_category": service_category,
                "cost_category": category,
                "known": known,
            }
        )
    # In the table's column order, which a warehouse that gained service_category later has differently.
    columns = con.table("charge_categories").columns
    rows = [tuple(row[c] for c in columns) for row in found]
    insert_rows(con, "charge_categories", rows)
    return len(rows)


def periods_in_scope(con: Connection, period: str | None) -> list[str]:
    if period:
        return [period]
    return [r[0] for r in run(con, "attribute/periods").fetchall()]


def attribute(
    con: Connection, config: Config, reporter: Reporter, period: str | None = None
) -> AttributionResult:
    """Recompute allocations of the periods in scope; the caller's transaction keeps the old ones on failure."""
    periods = periods_in_scope(con, period)
    refresh_label_sets(con, config)
    refresh_categories(con, config)
    params = {"periods": periods}
    run(con, "attribute/clear_periods", params)
    run(con, "attribute/clear_refs", params)
    run(con, "attribute/clear_cells", params)
    run(con, "attribute/kinds", params)
    run(con, "attribute/resolve")
    run(con, "attribute/log_windows")
    run(con, "attribute/timelines", params)
    run(con, "attribute/classes")
    run(con, "attribute/segments")
    run(con, "attribute/place")
    run(con, "attribute/allocate_placed", params)
    run(con, "attribute/tuples", params)
    run(con, "attribute/split_set", params)
    split_by_windows(con)
    if config.reservations:
        place_reservations(con, config, params)
    if config.allocation.shared == "proportional":
        run(con, "attribute/spread", params)
        run(con, "attribute/spread_charges", params)
        run(con, "attribute/clear_spread")
        run(con, "attribute/clear_spread_refs")
        run(con, "attribute/spread_allocate")
    sum_cells(con, params)
    run(con, "attribute/drop_unused_kinds")
    run(con, "attribute/drop_unused_tuples")
    check_invariant(con, periods)
    count, total = run(con, "attribute/totals", params).fetchone() or (0, 0)
    reporter.step(f"attributed {count} allocation(s) for {', '.join(periods) or 'no periods'}")
    return AttributionResult(periods, int(count), Decimal(total))


# Charges summed into cells at a time, whole files of them (a month's first file alone may hold more): the
# join of references with charges stays in memory at the default memory_limit (BENCHMARKS.md, issue 33).
CELL_SLICE = 10_000_000
SLOT = 1 << 32  # a charge's id is its file's slot x 2^32 + its row (macro charge_number)


def sum_cells(con: Connection, params: dict[str, list[str]]) -> None:
    """The charges placed whole summed into ``allocation_cells``, a range of files holding about
    ``CELL_SLICE`` charges at a time; a (tuple, kind, day) with charges in two ranges has a cell in each,
    and every reader sums them."""
    first: int | None = None
    held = 0
    slots = run(con, "attribute/cell_slots", params).fetchall()
    for i, (slot, charges) in enumerate(slots):
        first = slot if first is None else first
        held += charges
        if held >= CELL_SLICE or i == len(slots) - 1:
            run(con, "attribute/cells", {**params, "low": first * SLOT, "high": (slot + 1) * SLOT - 1})
            first, held = None, 0


# Charges split by time windows at a time. The split's window functions and lists hold all their rows in
# memory, which DuckDB cannot spill: the 1.07 million of a 100M-line month ran out of memory at the default
# memory_limit in one go (BENCHMARKS.md, issue 18).
SPLIT_SLICE = 200_000


def split_by_windows(con: Connection) -> None:
    """The charges held for the exact split (temp table ``resolved``), a bounded slice at a time."""
    (count,) = run(con, "attribute/split_count").fetchone() or (0,)
    slices = max(1, -(-int(count) // SPLIT_SLICE))
    for part in range(slices):
        params = {"slice": part, "slices": slices}
        run(con, "attribute/windows", params)
        run(con, "attribute/allocate_whole", params)
        run(con, "attribute/allocate")


def place_reservations(con: Connection, config: Config, params: dict[str, list[str]]) -> None:
    """Reserved GPU capacity: a fee paid for a window goes to the runs on the reservation's instances by
    GPUs x time, the rest (and capacity billed unused) to its project as unused commitment. After rules
    1-4 placed each charge once, so that the reservation wins over the tags of its charges."""
    run(con, "attribute/reservations_table")
    rows = [
        (r.id, r.project, r.start, r.end, r.gpus, len(r.instances), instance)
        for r in config.reservations
        for instance in r.instances
    ]
    insert_rows(con, "reservation_config", rows)
    run(con, "attribute/reservations", params)
    run(con, "attribute/reservations_hold")
    run(con, "attribute/reservations_clear")
    run(con, "attribute/reservations_clear_refs")
    run(con, "attribute/allocate")


def check_invariant(con: Connection, periods: list[str]) -> None:
    """Every charge's allocations sum exactly to it: split charges summed one by one, the others compared
    as a whole through hashes (one pass over each table), and named one by one only if that fails."""
    params = {"periods": periods}
    broken = run(con, "checks/invariant", {**params, "all": False}).fetchall()
    if not broken:
        bill, allocated = run(con, "checks/invariant_sums", params).fetchone() or (0, 0)
        if bill != allocated:
            broken = run(con, "checks/invariant", {**params, "all": True}).fetchall()
            if not broken:
                raise InvariantViolation(
                    f"allocations of {', '.join(periods)} do not match the bill's charges (an allocation "
                    "without its charge?); previous allocations kept"
                )
    if broken:
        charge_id, file, row, billed, alloc_billed, effective, alloc_effective = broken[0]
        raise InvariantViolation(
            f"allocations do not add up for {len(broken)}+ charge(s), e.g. charge {charge_id} "
            f"({file}, row {row}): billed {billed} vs "
            f"{alloc_billed}, effective {effective} vs {alloc_effective}; previous allocations kept"
        )
