#!/usr/bin/env bash
# no_std link check: builds nostd-check, a #![no_std] #![no_main] binary that
# drives backfill-core (every policy, direct calls and a Simulator replay),
# without the C runtime's start files. It fails to build or link if
# backfill-core, or anything it depends on, pulls in std (duplicate lang item
# `panic_impl`) or alloc (no global allocator). `-lc` only resolves the
# memcpy/memmove/memset calls the compiler emits (see src/main.rs); the
# binary may not use any other outside symbol. Prints the binary's size.
# Usage: nostd-check/build.sh   (from anywhere)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo rustc --manifest-path nostd-check/Cargo.toml --release --bin backfill-nostd-check -- \
    -C panic=abort -C link-arg=-nostartfiles -C link-arg=-lc
bin="nostd-check/target/release/backfill-nostd-check"
test -x "$bin"
if command -v nm >/dev/null 2>&1; then
    symbols="$(nm -C "$bin")"
    if grep -Eq '(^|[ <])std::' <<<"$symbols"; then
        echo "nostd-check: std symbols in $bin" >&2
        exit 1
    fi
    if ! grep -q 'backfill_core::' <<<"$symbols"; then
        echo "nostd-check: no backfill_core code in $bin (optimised away?)" >&2
        exit 1
    fi
    outside="$(nm -u "$bin" | awk '{print $2}' | grep -Ev '^(memcpy|memmove|memset|memcmp|bcmp)$' || true)"
    if [ -n "$outside" ]; then
        echo "nostd-check: unexpected outside symbols: $outside" >&2
        exit 1
    fi
fi
echo "nostd-check: linked $bin ($(stat -c %s "$bin") bytes)"
if command -v size >/dev/null 2>&1; then
    size "$bin"
fi
