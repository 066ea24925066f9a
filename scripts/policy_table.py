#!/usr/bin/env python3
"""Replays every trace under every policy, with user and with exact
estimates, and prints the overall mean wait, mean bounded slowdown and
utilisation as a Markdown table (and the same rows as CSV with --csv FILE).

Usage: python3 scripts/policy_table.py [TRACES_DIR] [--csv FILE]
TRACES_DIR defaults to ../shared/traces. Builds host-cli in release first.
Selective and Selective-D take their thresholds from a Conservative run of the
same trace (`--threshold-from conservative`).
"""
import csv
import glob
import json
import os
import subprocess
import sys
import time

POLICIES = ["fcfs", "easy", "sjf-easy", "conservative", "selective", "selective-d",
            "selective-adaptive", "selective-scaled"]


def main():
    args = sys.argv[1:]
    out_csv = None
    if "--csv" in args:
        i = args.index("--csv")
        out_csv = args[i + 1]
        del args[i:i + 2]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    traces_dir = args[0] if args else os.path.join(root, "..", "shared", "traces")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "backfill-cli"], cwd=root, check=True)
    exe = os.path.join(root, "target", "release", "host-cli")
    rows = []
    for trace in sorted(glob.glob(os.path.join(traces_dir, "*.swf*"))):
        name = os.path.basename(trace).split(".swf")[0]
        for estimates in ("user", "exact"):
            for policy in POLICIES:
                cmd = [exe, "replay", trace, "--policy", policy, "--estimates", estimates,
                       "--format", "json", "--latency"]
                if policy in ("selective", "selective-d"):
                    cmd += ["--threshold-from", "conservative"]
                t0 = time.monotonic()
                done = subprocess.run(cmd, capture_output=True, text=True, check=True)
                seconds = time.monotonic() - t0
                report = json.loads(done.stdout)
                overall = next(m for m in report["metrics"] if m["set"] == "all")
                rows.append({
                    "trace": name, "estimates": estimates, "policy": policy,
                    "jobs": overall["jobs"], "mean_wait": round(overall["mean_wait"], 1),
                    "mean_bounded_slowdown": round(overall["mean_bounded_slowdown"], 2),
                    "utilisation_pct": round(100 * report["utilisation"], 2),
                    "slowest_call_us": round(report["timings"]["slowest_call_us"], 1),
                    "wall_seconds": round(seconds, 2),
                })
                print(f"{name} {estimates} {policy}: {seconds:.2f} s", file=sys.stderr)
    if out_csv:
        with open(out_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    print("| trace | estimates | jobs | " + " | ".join(POLICIES) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in POLICIES) + " |")
    print("\nEach cell: mean wait (s) / mean bounded slowdown / utilisation (%).\n", file=sys.stderr)
    keys = []
    for r in rows:
        if (r["trace"], r["estimates"]) not in keys:
            keys.append((r["trace"], r["estimates"]))
    for trace, estimates in keys:
        cells = {r["policy"]: r for r in rows if r["trace"] == trace and r["estimates"] == estimates}
        jobs = cells[POLICIES[0]]["jobs"]
        line = [trace, estimates, str(jobs)]
        for p in POLICIES:
            r = cells[p]
            line.append(f"{r['mean_wait']:.0f} / {r['mean_bounded_slowdown']:.2f} / {r['utilisation_pct']:.2f}")
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
