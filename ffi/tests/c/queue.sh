#!/usr/bin/env bash
# Checks the C interface's queue query (bf_kernel_waiting, through
# ffi/tests/c/replay.c queue_at=T) against `host-cli replay --queue-at T`,
# which reports the reasons each pass gave: the same jobs in the same
# order, with the same reasons and expected starts, for several policies
# at several instants.
#
#   ffi/tests/c/queue.sh HOST_CLI REPLAY_BIN WORKDIR [host-cli workload args...]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=workload.sh
source "$(dirname "$0")/workload.sh" "$@"
last=$(python3 -c 'import csv, sys; print(max(int(r["end"]) for r in csv.DictReader(open(sys.argv[1]))))' \
  "$work/jobs.csv")

failed=0
compared=0
for policy in fcfs easy sjf-easy conservative selective-adaptive cons-rs dpsa-p bf-mod; do
  for tenth in 2 4 6 8; do
    at=$((last * tenth / 10))
    "$host_cli" replay "${workload[@]}" --policy "$policy" --queue-at "$at" --format json |
      python3 -c '
import json, sys
q = json.load(sys.stdin)
print("position,job_id,procs,estimate,reason,expected_start")
for j in q["jobs"]:
    start = "" if j["expected_start"] is None else j["expected_start"]
    fields = [j["position"], j["job"], j["procs"], j["estimate"], j["reason"], start]
    print(",".join(str(f) for f in fields))
' >"$work/host.csv"
    "$replay" "$procs" "$policy" "$work/jobs.csv" "queue_at=$at" >"$work/c.csv"
    if cmp -s "$work/host.csv" "$work/c.csv"; then
      compared=$((compared + $(wc -l <"$work/c.csv") - 1))
    else
      printf '  %s at t=%s: the queues differ\n' "$policy" "$at"
      diff "$work/host.csv" "$work/c.csv" | head -n 10
      failed=1
    fi
  done
done
[ "$compared" -gt 0 ] || { echo "every queue was empty: nothing compared"; exit 1; }
echo "  the same queues, reasons and expected starts: $compared waiting jobs at 32 instants"
exit "$failed"
