#!/usr/bin/env bash
# Fuzz smoke test: builds every cargo-fuzz target and runs each one for
# $FUZZ_SECONDS seconds (default 30), failing on any crash.
#
#   FUZZ_SECONDS=60 fuzz/smoke.sh            # all targets
#   FUZZ_SECONDS=10 fuzz/smoke.sh swf_parse  # some targets
#
# Needs a nightly toolchain ($FUZZ_TOOLCHAIN, default `nightly`); installs
# cargo-fuzz when it is missing. The sanitizer is $FUZZ_SANITIZER, default
# `none`: the code under test forbids `unsafe`, so AddressSanitizer finds
# nothing here and would only cost speed (set `address` to use it anyway). Each run starts from a temporary copy of the
# committed seeds in corpus/<target>/, so the tree gains nothing but, on a
# crash, the crashing input in artifacts/<target>/ (git-ignored), which the
# script names together with the commands to reproduce and minimise it.
set -euo pipefail

cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-30}
toolchain=${FUZZ_TOOLCHAIN:-nightly}
sanitizer=${FUZZ_SANITIZER:-none}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "smoke: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo "+$toolchain" fuzz list)
fi

echo "smoke: building ${targets[*]}"
cargo "+$toolchain" fuzz build --sanitizer "$sanitizer"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
summary=()
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"
    mkdir -p "$corpus"
    if [ -d "corpus/$target" ]; then
        cp -r "corpus/$target/." "$corpus/"
    fi
    log="$work/$target.log"
    echo "smoke: running $target for ${seconds}s"
    if cargo "+$toolchain" fuzz run --sanitizer "$sanitizer" "$target" "$corpus" -- \
        -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
        # libFuzzer's closing line: "Done 123456 runs in 30 second(s)".
        done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
        runs=$(echo "$done_line" | awk '{print $2}')
        secs=$(echo "$done_line" | awk '{print $5}')
        rate="?"
        if [ -n "$runs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then
            rate=$((runs / secs))
        fi
        cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}' || true)
        summary+=("$(printf '%-20s %10s runs %8s exec/s  cov %s' "$target" "${runs:-?}" "$rate" "${cov:-?}")")
    else
        tail -n 40 "$log"
        crash=$(grep -oE 'artifacts/[^ ]+' "$log" | tail -n 1 || true)
        echo "smoke: $target FAILED${crash:+; input saved to fuzz/$crash}"
        if [ -n "$crash" ]; then
            echo "  reproduce: cd fuzz && cargo +$toolchain fuzz run --sanitizer $sanitizer $target $crash"
            echo "  minimise:  cd fuzz && cargo +$toolchain fuzz tmin --sanitizer $sanitizer $target $crash"
        fi
        failed+=("$target")
        summary+=("$(printf '%-20s FAILED' "$target")")
    fi
done

echo
echo "smoke: ${seconds}s per target"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "smoke: crashes in ${failed[*]}"
    exit 1
fi
echo "smoke: no crashes"
