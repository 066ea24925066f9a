#!/usr/bin/env bash
# Writes the job CSV of every trace x policy x estimate kind replayed by BIN
# into DIR, so that two builds can be compared file by file (a change meant
# to keep schedules must leave every file byte-identical):
#
#   scripts/snapshot.sh OLD-BIN /tmp/old; scripts/snapshot.sh NEW-BIN /tmp/new
#   for f in /tmp/old/*.csv; do cmp -s "$f" "/tmp/new/${f##*/}" || echo "differs: ${f##*/}"; done
#
# Optional policies after DIR (default: all 14, plus cons-rs and cons-nc,
# Conservative without compression; those two on each trace's first 20,000
# jobs, as in the real-trace test). Traces: $BACKFILL_TRACES_DIR, default
# ../shared/traces. Two replays run at a time.
set -u
bin=$1; out=$2; shift 2
policies=${*:-"fcfs easy sjf-easy conservative selective selective-d selective-adaptive selective-scaled bf-fcfs bf-unmod bf-mod dpsa-p dpsa-n dpsa-w cons-rs cons-nc"}
traces=${BACKFILL_TRACES_DIR:-$(dirname "$0")/../../shared/traces}
mkdir -p "$out"
for f in "$traces"/*.swf.gz; do
  n=$(basename "$f" .swf.gz)
  for p in $policies; do
    for e in user exact; do
      policy=$p extra=""
      case $p in
        cons-rs) extra="--first 20000" ;;
        cons-nc) policy=conservative extra="--first 20000 --no-compression" ;;
      esac
      echo "$bin replay $f --policy $policy --estimates $e $extra --jobs-out $out/$n.$p.$e.csv >/dev/null 2>>$out/errors.log || echo FAILED $n $p $e >>$out/errors.log"
    done
  done
done | xargs -P 2 -I{} bash -c "{}"
echo "$(ls "$out"/*.csv | wc -l) job CSVs in $out"
