#!/usr/bin/env bash
# Replays a workload through the C interface (ffi/tests/c/replay.c) under
# every policy, and a few non-default options, and checks that each schedule
# equals `host-cli replay --jobs-out`, job for job.
#
#   ffi/tests/c/replay.sh HOST_CLI REPLAY_BIN WORKDIR [host-cli workload args...]
#
# The workload args pick what host-cli replays: nothing for the built-in
# synthetic workload, or `TRACE.swf.gz --first 2000`, and so on. The job
# list the C program reads is host-cli's FCFS --jobs-out (it takes only the
# submit times, processors, estimates, run times and kill flags, which no
# policy changes); every policy's schedule is then compared with host-cli's
# own --jobs-out for that policy, without the two derived columns
# (bounded_slowdown, category).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=workload.sh
source "$(dirname "$0")/workload.sh" "$@"
jobs=$(($(wc -l <"$work/jobs.csv") - 1))

# name | host-cli options | replay.c options
specs=(
    "fcfs|--policy fcfs|"
    "easy|--policy easy|"
    "sjf-easy|--policy sjf-easy|"
    "conservative|--policy conservative|"
    "selective|--policy selective --threshold 2|"
    "selective-d|--policy selective-d --thresholds 4,8,1.5,2|"
    "selective-adaptive|--policy selective-adaptive|"
    "selective-scaled|--policy selective-scaled|"
    "conservative-no-compression|--policy conservative --no-compression|"
    "cons-rs|--policy cons-rs|"
    "bf-fcfs|--policy bf-fcfs|"
    "bf-unmod|--policy bf-unmod|"
    "bf-mod|--policy bf-mod|"
    "dpsa-p|--policy dpsa-p|"
    "dpsa-n|--policy dpsa-n|"
    "dpsa-w|--policy dpsa-w|"
    "selective|--policy selective --threshold 26.69|threshold=26690"
    "selective-scaled|--policy selective-scaled --scale 1.7 --well-estimated-only|scale=1700 well_estimated_only=1"
    "cons-rs|--policy cons-rs --rs-iterations 20|iterations=20"
    "dpsa-w|--policy dpsa-w --dpsa-nodes 500|nodes=500"
)
failed=0
for spec in "${specs[@]}"; do
    IFS='|' read -r name host_opts c_opts <<<"$spec"
    read -ra host_args <<<"$host_opts"
    read -ra c_args <<<"$c_opts"
    tag="$name${c_opts:+ ($c_opts)}"
    "$host_cli" replay "${workload[@]}" "${host_args[@]}" --jobs-out "$work/host.csv" >/dev/null
    cut -d, -f1-8,11,12 "$work/host.csv" >"$work/host.cut.csv"
    "$replay" "$procs" "$name" "$work/jobs.csv" "${c_args[@]}" >"$work/c.csv"
    if cmp -s "$work/host.cut.csv" "$work/c.csv"; then
        printf '  %-60s %s jobs, same schedule\n' "$tag" "$jobs"
    else
        printf '  %-60s DIFFERS:\n' "$tag"
        diff "$work/host.cut.csv" "$work/c.csv" | head -n 10
        failed=1
    fi
done
exit "$failed"
