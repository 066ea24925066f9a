#!/usr/bin/env bash
# no_std link check of the C interface: builds backfill-ffi's firmware
# static library (no std, its own panic handler) and links a C program
# against it with no C library and no start files; the program provides
# the memory and string routines a firmware runtime has (memcpy, memmove,
# memset, memcmp, bcmp, strlen), nothing else. The link fails if the
# library needs std or any other outside symbol; `nm` also checks that it
# holds no std code. On x86_64 Linux the program then runs (every policy
# through the C calls) and must exit 0.
# Usage: nostd-check/c-link.sh   (from anywhere)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo rustc -q -p backfill-ffi --profile firmware --features firmware --crate-type staticlib
lib=target/firmware/libbackfill_ffi.a
if command -v nm >/dev/null 2>&1 && nm -C "$lib" 2>/dev/null | grep -Eq '(^|[ <])std::'; then
    echo "c-link: std symbols in $lib" >&2
    exit 1
fi
out=target/c/nostd-firmware
mkdir -p target/c
cc -std=c99 -Wall -Wextra -Werror -pedantic -Os -ffreestanding -fno-stack-protector \
    -nostdlib -static -Iinclude nostd-check/c/main.c "$lib" -Wl,--gc-sections -o "$out"
echo "c-link: linked $out ($(stat -c %s "$out") bytes) with -nostdlib: $lib needs no std and no libc"
if [ "$(uname -m)-$(uname -s)" = "x86_64-Linux" ]; then
    "$out"
    echo "c-link: ran it: every policy through the C calls, kernel valid after each pass"
fi
