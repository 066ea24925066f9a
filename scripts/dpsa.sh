#!/usr/bin/env bash
# Regenerates the DPSA evidence:
#   docs/data/dpsa/*.csv      every number (one row per replay; changes vs EASY)
#   docs/figures/dpsa/*.svg   the figures
#   docs/dpsa.md              the tables and the DPSA paper's claims D1-D4
#
# Replays (host-cli replay --format json, JOBS at a time, default 2):
#   * every trace in ../shared/traces (paths are relative to the repository
#     root), whole, load x1, user and exact estimates, under easy, dpsa-p,
#     dpsa-n and dpsa-w with the default node budget;
#   * the DPSA paper's traces that we have, user estimates, at the loads in
#     SWEEP_LOADS, under easy and dpsa-n (claim D4).
#
# Usage: scripts/dpsa.sh   (from anywhere; needs cargo, bash and xargs)
#   JOBS=N       replays at a time (default 2)
#   RUNS_DIR=D   keep the JSON reports in D (default: a temporary directory);
#                reports already in D are not replayed again
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p backfill-cli --bin host-cli --example dpsa_md
started=$(date +%s)
BIN=target/release/host-cli
GEN=target/release/examples/dpsa_md
TRACES=../shared/traces
DATA=docs/data/dpsa
FIG=docs/figures/dpsa
PAPER="LLNL-Thunder-2007-1.1-cln LLNL-Atlas-2006-2.1-cln HPC2N-2002-2.2-cln SDSC-Par-1996-3.1-cln SDSC-SP2-1998-4.2-cln"
SWEEP_LOADS="1.1 1.2 1.3"
JOBS=${JOBS:-2}
RUNS=${RUNS_DIR:-$(mktemp -d)}
mkdir -p "$RUNS"

# One line per replay: trace estimates policy load.
{
    for path in "$TRACES"/*.swf.gz; do
        trace=$(basename "$path" .swf.gz)
        for est in user exact; do
            for policy in easy dpsa-p dpsa-n dpsa-w; do
                echo "$trace $est $policy 1.0"
            done
        done
    done
    for trace in $PAPER; do
        for load in $SWEEP_LOADS; do
            for policy in easy dpsa-n; do
                echo "$trace user $policy $load"
            done
        done
    done
} >"$RUNS/list"
echo "$(wc -l <"$RUNS/list") replays" >&2

export BIN TRACES RUNS
# Each replay writes its JSON report (kept if already there, so an
# interrupted run can be resumed with RUNS_DIR); a failure stops the script.
xargs -P "$JOBS" -L 1 bash -c '
    out="$RUNS/$0__$1__$2__l$3.json"
    [ -s "$out" ] && exit 0
    "$BIN" replay "$TRACES/$0.swf.gz" --estimates "$1" --policy "$2" --load "$3" --latency \
        --format json >"$out.tmp" || { echo "  $0 $1 $2 x$3: failed" >&2; exit 255; }
    mv "$out.tmp" "$out"
    echo "  $0 $1 $2 x$3" >&2
' <"$RUNS/list"

rm -rf "$DATA" "$FIG"
mkdir -p "$DATA" "$FIG"
elapsed=$(($(date +%s) - started))
"$GEN" --runs "$RUNS" --data "$DATA" --figures "$FIG" --seconds "$elapsed" >docs/dpsa.md
echo "wrote docs/dpsa.md, $(ls "$FIG" | wc -l) figures, $(ls "$DATA" | wc -l) data files in ${elapsed}s" >&2
