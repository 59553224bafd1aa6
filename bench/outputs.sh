#!/bin/bash
# bench/outputs.sh SRC_ROOT OUT_DIR DATA_DIR [proportional]
# A generated month (DATA_DIR: bench-data/<rows>, written by bench/run.py) through `nightly` and every read
# command, with the code and queries of the checkout at SRC_ROOT (through PYTHONPATH, this venv's packages):
# run it for two checkouts and `diff -r -I "Written by trainledger at" A/o B/o` shows whether a change kept
# every output byte-identical. NOFOCUS=1 leaves out the FOCUS file (minutes at 10M).
set -u
SRC=$(realpath "$1"); OUT=$2; DATA=$(realpath "$3"); MODE=${4:-separate}
PY=$(dirname "$(realpath "$0")")/../.venv/bin/python
rm -rf "$OUT"; mkdir -p "$OUT"
ln -s "$DATA/cur" "$OUT/cur"; cp "$DATA/experiments.jsonl" "$OUT/"
cp "$DATA/run/trainledger.toml" "$OUT/trainledger.toml"
[ "$MODE" = proportional ] && printf '\n[allocation]\nshared = "proportional"\n' >> "$OUT/trainledger.toml"
cd "$OUT"
T() { PYTHONPATH=$SRC/src $PY -c 'import sys; from trainledger.cli import main; sys.argv[0]="trainledger"; main()' "$@"; }
mkdir -p o
T nightly >o/nightly.txt 2>o/nightly.err; echo "nightly rc $?"
T labels >o/labels.txt; T labels --format json >o/labels.json
T experiments --format json >o/experiments.json
T budgets >o/budgets.txt 2>&1
T report >o/report.txt
for by in project,phase,method waste,project project,commitment method provider,rule,experiment service,category period,account experiment; do
  T report --by $by --format csv >o/report-$by.csv
done
T report --by project --granularity day --format csv >o/report-day.csv
T report --by method --with-metrics --format csv >o/report-metrics.csv
for e in $(head -c 2000000 experiments.jsonl | grep -o '"experiment_id": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort -u | head -20); do
  T reconcile $e --format json >o/reconcile-$e.json 2>/dev/null
done
for p in $(T report --by period --format csv | tail -n +2 | cut -d, -f1 | sort -u); do
  T export --period $p --out o/export-$p.csv >/dev/null
  T export --period $p --by project,method --cents --out o/export-$p-cents.csv >/dev/null
  [ "$MODE" = separate ] && [ -z "${NOFOCUS:-}" ] && T export --period $p --format focus --out o/focus12-$p.csv >/dev/null
done
T site --out o/site >/dev/null
cp -r exports o/exports 2>/dev/null
echo done: $(find o -type f | wc -l) files
