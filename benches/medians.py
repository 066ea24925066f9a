#!/usr/bin/env python3
"""Prints the median of every criterion benchmark, its 95% interval, and the
fastest sample (per iteration; the best guide on a machine shared with other
work).

Usage: python3 benches/medians.py [CRITERION_DIR]
CRITERION_DIR defaults to $CARGO_TARGET_DIR/criterion, else target/criterion
(run `cargo bench -p backfill-benches` first). Criterion's console output shows
the mean (or slope); the medians live in <bench>/new/estimates.json.
"""
import glob
import json
import os
import sys


def human(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    default = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
    root = sys.argv[1] if len(sys.argv) > 1 else default
    rows = []
    for path in glob.glob(os.path.join(root, "**", "new", "estimates.json"), recursive=True):
        folder = os.path.dirname(path)
        with open(path) as f:
            median = json.load(f)["median"]
        with open(os.path.join(folder, "benchmark.json")) as f:
            name = json.load(f)["full_id"]
        with open(os.path.join(folder, "sample.json")) as f:
            sample = json.load(f)
        fastest = min(t / n for t, n in zip(sample["times"], sample["iters"]))
        interval = median["confidence_interval"]
        rows.append(
            (name, median["point_estimate"], interval["lower_bound"], interval["upper_bound"], fastest)
        )
    if not rows:
        sys.exit(f"no criterion results under {root}")
    print(f"{'benchmark':40s} {'median':>10s}  {'95% interval':24s} {'fastest':>10s}")
    for name, point, low, high, fastest in sorted(rows):
        interval = f"[{human(low)} .. {human(high)}]"
        print(f"{name:40s} {human(point):>10s}  {interval:24s} {human(fastest):>10s}")


if __name__ == "__main__":
    main()
