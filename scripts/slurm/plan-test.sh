#!/usr/bin/env bash
# A plan run as a Slurm job array on a real (one-node) Slurm cluster gives
# the table that `host-cli plan run` gives without Slurm, value for value.
#
#   scripts/slurm/plan-test.sh [HOST_CLI]
#
# HOST_CLI is the host-cli binary (default: target/release/host-cli, built
# if missing). The test starts the cluster of scripts/slurm/cluster.sh in a
# scratch folder, writes a plan of 40 cells of the built-in workload (two
# workload seeds x four loads x five policies, CONS+RS among them), submits
# it with `host-cli plan slurm --submit --max-parallel 4`, waits for the 40
# result files (finished jobs leave squeue after a few seconds, so it polls
# the files), merges them, runs the same plan with `host-cli plan run` into
# another folder, and compares the two merged tables without their timing
# and host columns. It then removes one result file and checks that `plan
# merge` refuses the plan (exit 1, naming the cell). The daemons are
# stopped and the scratch folder removed on every exit.
#
# Exit status: 0 passed; 1 failed; 77 the cluster cannot be had here
# (cluster.sh's reason on stderr): CI reports it as a skip.
# Environment: PLAN_TEST_TIMEOUT (seconds to wait for the array, default
# 300).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
here=$root/scripts/slurm
timeout_s=${PLAN_TEST_TIMEOUT:-300}
say() { printf 'plan-test: %s\n' "$*" >&2; }
die() { printf 'plan-test: error: %s\n' "$*" >&2; exit 1; }

bin=${1:-$root/target/release/host-cli}
if [ ! -x "$bin" ]; then
  cargo build --release -q -p backfill-cli --bin host-cli
fi
bin=$(cd "$(dirname "$bin")" && pwd -P)/$(basename "$bin")

dir=$(mktemp -d "${TMPDIR:-/tmp}/plan-test.XXXXXX")
chmod 755 "$dir"
cleanup() {
  "$here/cluster.sh" stop "$dir/cluster" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

t0=$SECONDS
set +e
env_lines=$("$here/cluster.sh" start "$dir/cluster")
status=$?
set -e
if [ "$status" -ne 0 ]; then
  exit "$status" # 77: skipped, with cluster.sh's reason on stderr
fi
eval "$env_lines"
t_start=$((SECONDS - t0))

cat >"$dir/plan.toml" <<'EOF'
metrics = ["jobs", "mean_wait", "mean_bounded_slowdown", "mean_wait.LW", "utilisation",
           "max_queue", "thresholds", "cons_rs.iterations"]

[[experiment]]
builtin = [{ jobs = 400, seed = 1 }, { jobs = 400, seed = 2 }]
estimates = ["user"]
loads = [0.9, 1.0, 1.1, 1.2]
policies = ["easy", "conservative", "selective", "dpsa-n", { name = "cons-rs", iterations = 20 }]
EOF
cells=$("$bin" plan cells "$dir/plan.toml" | tail -n 1)
[ "$cells" = "40 cells" ] || die "the plan has '$cells', expected 40 cells"

t0=$SECONDS
"$bin" plan slurm "$dir/plan.toml" --out "$dir/slurm" --max-parallel 4 --submit >"$dir/submit.txt"
cat "$dir/submit.txt" >&2
job=$(sed -n 's/^submitted job \([0-9][0-9]*\):.*/\1/p' "$dir/submit.txt")
[ -n "$job" ] || die "no job id in: $(cat "$dir/submit.txt")"
count() { find "$dir/slurm/cells" -maxdepth 1 -name '*.json' ! -name '.*' 2>/dev/null | wc -l; }
while [ "$(count)" -lt 40 ]; do
  if [ $((SECONDS - t0)) -ge "$timeout_s" ]; then
    squeue >&2 || true
    tail -n 20 "$dir"/slurm/logs/*.out >&2 2>/dev/null || true
    die "job $job: $(count) of 40 result files after ${timeout_s}s"
  fi
  sleep 0.5
done
t_array=$((SECONDS - t0))
if ls "$dir"/slurm/cells/*.failed.json >/dev/null 2>&1; then
  cat "$dir"/slurm/cells/*.failed.json >&2
  die "job $job: failed cells (records above)"
fi
logs=$(find "$dir/slurm/logs" -name "${job}_*.out" | wc -l)

"$bin" plan merge "$dir/plan.toml" "$dir/slurm" --out "$dir/slurm.csv" >/dev/null
t0=$SECONDS
"$bin" plan run "$dir/plan.toml" --out "$dir/local" >/dev/null 2>&1
t_local=$((SECONDS - t0))
"$bin" plan merge "$dir/plan.toml" "$dir/local" --out "$dir/local.csv" >/dev/null

# The columns that may differ between two runs: the timings and the host.
values() {
  python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
skip = {i for i, h in enumerate(rows[0])
        if h.endswith("_seconds") or h in ("slowest_call_us", "host")}
for r in rows:
    print(",".join(v for i, v in enumerate(r) if i not in skip))
EOF
}
values "$dir/slurm.csv" >"$dir/slurm.values"
values "$dir/local.csv" >"$dir/local.values"
if ! diff -u "$dir/local.values" "$dir/slurm.values" >&2; then
  die "the Slurm array's table differs from plan run's (diff above: - local, + Slurm)"
fi
rows=$(($(wc -l <"$dir/slurm.values") - 1))
[ "$rows" -eq 40 ] || die "$rows rows merged, expected 40"

victim=$(find "$dir/slurm/cells" -maxdepth 1 -name '*.json' ! -name '.*' | sort | sed -n 7p)
rm "$victim"
set +e
"$bin" plan merge "$dir/plan.toml" "$dir/slurm" >/dev/null 2>"$dir/merge.err"
status=$?
set -e
if [ "$status" -ne 1 ] || ! grep -q '1 of 40 cells have no result' "$dir/merge.err"; then
  cat "$dir/merge.err" >&2
  die "plan merge with a result removed: exit $status, expected 1 listing the cell"
fi

printf 'slurm plan test passed: job array %s ran 40 cells in 40 tasks (%s logs, %%4 at once) in %ss, table equal to plan run'\''s (%ss here) value for value; merge refuses with a result removed; cluster start %ss\n' \
  "$job" "$logs" "$t_array" "$t_local" "$t_start"
