#!/usr/bin/env bash
# Regenerates the CONS+RS evidence:
#   docs/data/cons-rs/*.csv      every number (one row per replay)
#   docs/figures/cons-rs/*.svg   the figures
#   docs/cons-rs.md              the tables and the CONS+RS paper's claims C1-C4
#
# Replays (host-cli replay --format json, JOBS at a time, default 2), load
# x1, whole traces or the first FIRST jobs of each, from ../shared/traces
# (paths relative to the repository root):
#   * the paper's traces that we have (HPC2N, LLNL-Thunder, LLNL-Atlas,
#     SDSC-DS, METACENTRUM), user estimates: easy, conservative,
#     conservative --no-compression, and cons-rs with seeds 0-4; exact
#     estimates: conservative and cons-rs (seed 0);
#   * unless OTHERS=0, every other trace, user estimates: easy,
#     conservative, conservative --no-compression and cons-rs (seed 0).
# The paper's traces come first (seed 0 and the baselines, then the other
# seeds), then the other traces.
# A replay that has not finished after RS_TIMEOUT seconds (default 1800) is
# stopped and reported as such in the doc; nothing is estimated for it.
#
# Usage: scripts/cons-rs.sh   (from anywhere; needs cargo, bash, xargs, timeout)
#   JOBS=N       replays at a time (default 2)
#   RUNS_DIR=D   keep the JSON reports in D (default: a temporary directory);
#                reports already in D are not replayed again
#   FIRST=N      replay the first N jobs of each trace (--first N), not the
#                whole trace: CONS+RS takes minutes to hours on whole traces
#   OTHERS=0     only the paper's traces
#   SEEDS="..."  the CONS+RS seeds on the paper's traces (default "0 1 2 3 4")
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p backfill-cli --bin host-cli --example cons_rs_md
started=$(date +%s)
BIN=target/release/host-cli
GEN=target/release/examples/cons_rs_md
TRACES=../shared/traces
DATA=docs/data/cons-rs
FIG=docs/figures/cons-rs
PAPER="HPC2N-2002-2.2-cln LLNL-Thunder-2007-1.1-cln LLNL-Atlas-2006-2.1-cln SDSC-DS-2004-2.1-cln METACENTRUM-2009-2"
SEEDS=${SEEDS:-"0 1 2 3 4"}
RS_TIMEOUT=${RS_TIMEOUT:-1800}
JOBS=${JOBS:-2}
RUNS=${RUNS_DIR:-$(mktemp -d)}
mkdir -p "$RUNS"

# One line per replay: trace estimates policy seed (the seed only matters
# for cons-rs; "-" otherwise).
OTHER_TRACES=""
if [ "${OTHERS:-1}" != 0 ]; then
    for path in "$TRACES"/*.swf.gz; do
        trace=$(basename "$path" .swf.gz)
        case " $PAPER " in
        *" $trace "*) ;;
        *) OTHER_TRACES="$OTHER_TRACES $trace" ;;
        esac
    done
fi
{
    for trace in $PAPER; do
        echo "$trace user cons-rs 0"
        for policy in easy conservative conservative-no-compression; do
            echo "$trace user $policy -"
        done
    done
    for trace in $PAPER; do
        echo "$trace exact conservative -"
        echo "$trace exact cons-rs 0"
    done
    for seed in $SEEDS; do
        [ "$seed" = 0 ] && continue
        for trace in $PAPER; do
            echo "$trace user cons-rs $seed"
        done
    done
    for trace in $OTHER_TRACES; do
        echo "$trace user cons-rs 0"
        for policy in easy conservative conservative-no-compression; do
            echo "$trace user $policy -"
        done
    done
} >"$RUNS/list"
echo "$(wc -l <"$RUNS/list") replays into $RUNS" >&2

WINDOW=()
[ -n "${FIRST:-}" ] && WINDOW=(--first "$FIRST")
WINDOW_ARGS="${WINDOW[*]}"
export BIN TRACES RUNS RS_TIMEOUT WINDOW_ARGS
# Each replay writes its JSON report (kept if already there, so an
# interrupted run can be resumed with RUNS_DIR); a replay that fails for
# another reason than the time limit stops the script.
xargs -P "$JOBS" -L 1 bash -c '
    out="$RUNS/$0__$1__$2__s$3.json"
    [ -s "$out" ] && exit 0
    case "$2" in
    cons-rs) args=(--policy cons-rs --seed "$3") ;;
    conservative-no-compression) args=(--policy conservative --no-compression) ;;
    *) args=(--policy "$2") ;;
    esac
    status=0
    timeout "$RS_TIMEOUT" "$BIN" replay "$TRACES/$0.swf.gz" --estimates "$1" "${args[@]}" $WINDOW_ARGS \
        --format json --latency >"$out.tmp" || status=$?
    if [ "$status" = 124 ]; then
        rm -f "$out.tmp"
        echo "{\"timeout\": $RS_TIMEOUT, \"trace\": \"$0\", \"estimates\": \"$1\", \"policy\": \"$2\", \"seed\": \"$3\"}" >"$out"
        echo "  $0 $1 $2 seed $3: stopped after $RS_TIMEOUT s" >&2
        exit 0
    elif [ "$status" != 0 ]; then
        echo "  $0 $1 $2 seed $3: failed ($status)" >&2
        exit 255
    fi
    mv "$out.tmp" "$out"
    echo "  $0 $1 $2 seed $3" >&2
' <"$RUNS/list"

rm -rf "$DATA" "$FIG"
mkdir -p "$DATA" "$FIG"
elapsed=$(($(date +%s) - started))
"$GEN" --runs "$RUNS" --data "$DATA" --figures "$FIG" --seconds "$elapsed" >docs/cons-rs.md
echo "wrote docs/cons-rs.md, $(ls "$FIG" | wc -l) figures, $(ls "$DATA" | wc -l) data files in ${elapsed}s" >&2
