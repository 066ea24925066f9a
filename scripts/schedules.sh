#!/usr/bin/env bash
# Writes the per-job schedule (--jobs-out CSV) of every trace x policy x
# estimate kind into OUT_DIR and prints one sha256 line per file, so two
# builds can be compared byte for byte:
#
#   scripts/schedules.sh /tmp/before > /tmp/before.sha
#   ... change the kernel ...
#   scripts/schedules.sh /tmp/after > /tmp/after.sha
#   diff /tmp/before.sha /tmp/after.sha && echo identical
#
# Selective and Selective-D use their built-in example thresholds here (no
# Conservative pre-run), so each file depends on one replay only.
# Usage: scripts/schedules.sh OUT_DIR [TRACES_DIR] [POLICY...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/schedules.sh OUT_DIR [TRACES_DIR] [POLICY...]}
traces=${2:-../shared/traces}
shift $(( $# >= 2 ? 2 : 1 ))
policies=("$@")
if [ ${#policies[@]} -eq 0 ]; then
    policies=(fcfs easy sjf-easy conservative selective selective-d selective-adaptive selective-scaled)
fi
cargo build --release -q -p backfill-cli --bin host-cli
bin=target/release/host-cli
mkdir -p "$out"
jobs=()
for trace in "$traces"/*.swf*; do
    name=$(basename "$trace"); name=${name%%.swf*}
    for est in user exact; do
        for policy in "${policies[@]}"; do
            jobs+=("$trace|$name|$est|$policy")
        done
    done
done
run() {
    IFS='|' read -r trace name est policy <<<"$1"
    file="$2/$name.$est.$policy.csv"
    "$3" replay "$trace" --policy "$policy" --estimates "$est" --jobs-out "$file" >/dev/null
}
export -f run
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -I{} bash -c 'run "$@"' _ {} "$out" "$bin"
(cd "$out" && sha256sum -- *.csv)
