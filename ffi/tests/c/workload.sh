# shellcheck shell=bash
# Sourced by replay.sh and queue.sh: reads their arguments
# (HOST_CLI REPLAY_BIN WORKDIR [host-cli workload args...]) into host_cli,
# replay, work and workload, and replays the workload under FCFS into
# "$work/jobs.csv" (the job list replay.c reads) and sets procs to the
# machine's processors.
# shellcheck disable=SC2034 # replay and procs are for the sourcing script
host_cli=$1
replay=$2
work=$3
shift 3
workload=("$@")
mkdir -p "$work"

json=$("$host_cli" replay "${workload[@]}" --policy fcfs --jobs-out "$work/jobs.csv" --format json)
procs=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["machine_procs"])' <<<"$json")
