#!/usr/bin/env bash
# Regenerates the flexible-backfilling evidence (Baraglia et al. 2007):
#   docs/farm/*.csv   every number of the farm study (one row per replay,
#                     and summaries: mean and 95% confidence half-width)
#   docs/farm/*.svg   figures in the shape of the paper's 1(a), 1(b), 2(a), 2(b)
#   docs/farm/example-*.txt  one generated farm replayed under each policy
#   docs/farm/nolicense/     the license sweep with the license heuristic's
#                     weight 0 (what prioritising critical licenses does)
#   docs/farm.md      each claim of the paper and the verdict our numbers give
#
# The study is the paper's grid (mean inter-arrival 4, 6, 12, 24, 48 x 20
# repetitions x FCFS, BF_FCFS, BF_UNMOD, BF_MOD, generator defaults = the
# paper's parameters) and a license-ratio sweep at inter-arrival 12.
#
# Usage: scripts/farm.sh   (from anywhere; needs cargo and python3)
# REPS=5 scripts/farm.sh runs fewer repetitions (for a quick look only:
# docs/farm.md says how many ran).
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-20}
cargo build --release -p backfill-cli --bin host-cli
BIN=target/release/host-cli
OUT=docs/farm
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.svg "$OUT"/*.txt

# One example farm (the paper's defaults, seed 1, inter-arrival 12), as a
# reader would run it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" generate farm --seed 1 --mean-interarrival 12 \
    --farm-out "$tmp/farm.toml" --jobs-out "$tmp/jobs.csv" >"$OUT/example-generate.txt"
for p in fcfs bf-fcfs bf-unmod bf-mod; do
    "$BIN" replay --farm "$tmp/farm.toml" "$tmp/jobs.csv" --policy "$p" >"$OUT/example-replay-$p.txt"
done

started=$(date +%s)
"$BIN" farm-study --repetitions "$REPS" --data-dir "$OUT" --figures-dir "$OUT" >"$OUT/study.txt"
# The license sweep again with the license heuristic off (G5: what the
# license priority itself does).
mkdir -p "$OUT/nolicense"
rm -f "$OUT"/nolicense/*
"$BIN" farm-study --means 12 --repetitions "$REPS" --policies bf-fcfs,bf-unmod,bf-mod \
    --license-weight 0 --data-dir "$OUT/nolicense" >"$OUT/nolicense/study.txt"
seconds=$(($(date +%s) - started))

python3 scripts/farm_md.py "$OUT" "$REPS" "$seconds" >docs/farm.md
echo "wrote docs/farm.md and $OUT/ in ${seconds}s (study)"
