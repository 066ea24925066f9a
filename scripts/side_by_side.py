#!/usr/bin/env python3
"""Times whole commands side by side: for each trace, every command runs N
times, interleaved, and the median wall time of each is printed (ms).

Usage: python3 scripts/side_by_side.py N 'TRACE-GLOB' LABEL=BIN:ARGS...
ARGS may hold {t} for the trace, e.g.

  python3 scripts/side_by_side.py 5 '../shared/traces/*.gz' \\
    'info=target/release/host-cli:info {t}' \\
    'easy=target/release/host-cli:replay {t} --policy easy'

The README's performance table comes from this (medians of 5).
"""
import glob
import os
import statistics
import subprocess
import sys
import time


def main():
    n = int(sys.argv[1])
    traces = sorted(glob.glob(sys.argv[2]))
    specs = []
    for spec in sys.argv[3:]:
        label, rest = spec.split("=", 1)
        binary, args = rest.split(":", 1)
        specs.append((label, binary, args))
    print("trace", *[label for label, _, _ in specs], sep="\t")
    for trace in traces:
        times = {label: [] for label, _, _ in specs}
        for _ in range(n):
            for label, binary, args in specs:
                cmd = [binary] + args.replace("{t}", trace).split()
                t0 = time.perf_counter()
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                times[label].append(time.perf_counter() - t0)
        name = os.path.basename(trace).replace(".swf.gz", "").replace("-cln", "")
        medians = ["%.1f" % (1000 * statistics.median(times[label])) for label, _, _ in specs]
        print(name, *medians, sep="\t", flush=True)


if __name__ == "__main__":
    main()
