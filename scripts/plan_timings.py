#!/usr/bin/env python3
"""Timings of a merged plan table (`host-cli plan merge PLAN DIR --out T.csv`).

    scripts/plan_timings.py T.csv [--nodes 1,2,8,32,128,512] [--slowest 10]
                               [--extrapolate]

Prints the cells with a result, the sum of their cell times, the slowest
cells, and what a cluster of N one-core nodes would take for the plan.
With --extrapolate (for a table merged with --allow-missing), each cell
without a result is given the mean time alone of the cells with a result of
the same policy, window and load (else of the same policy and window), and
the N-node figures cover every cell; the output says how many cells are
extrapolated. The slowest of those cells is unknown, so the makespan of
many nodes is then a guess.

A cell on a cluster runs alone: it reads its trace, runs the Conservative
replay its Selective thresholds come from (when it needs one) and its own
replay. In one `plan run` process cells share those steps, so the time a
cell would take alone is estimated as

    load(trace) + replay_seconds + conservative(trace, window, estimates, load)

where load(trace) is the largest prepare_seconds of the trace's cells (the
cell that read the trace; the others waited for it or found it done) and
conservative(...) is the replay_seconds of the Conservative cell of the same
trace, window, estimates and load (0 for cells that need none). N nodes are
filled longest cell first, each cell to the node free first (Graham's LPT
rule); the makespan is at least the slowest cell and at least the total
over N.
"""

import argparse
import csv
import heapq
import sys


def number(text):
    return float(text) if text not in ("", None) else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table")
    ap.add_argument("--nodes", default="1,2,8,32,128,512")
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--extrapolate", action="store_true")
    args = ap.parse_args()
    every = list(csv.DictReader(open(args.table, newline="")))
    rows = [r for r in every if r["status"] == "ok"]
    missing = [r for r in every if r["status"] != "ok"]
    if not rows:
        sys.exit("no cell with a result")
    load = {}
    for r in rows:
        load[r["trace"]] = max(load.get(r["trace"], 0.0), number(r["prepare_seconds"]))
    window = lambda r: (r["trace"], r["skip"], r["first"], r["procs"], r["estimates"], r["load"])
    conservative = {
        window(r): number(r["replay_seconds"]) for r in rows if r["policy"] == "conservative"
    }
    alone = []
    for r in rows:
        t = load[r["trace"]] + number(r["replay_seconds"])
        if "threshold-from=conservative" in r["options"]:
            t += conservative.get(window(r), number(r["prerun_seconds"]))
        alone.append((t, r))
    total_cell = sum(number(r["cell_seconds"]) for r in rows)
    total_alone = sum(t for t, _ in alone)
    print(f"cells with a result: {len(rows)}")
    print(f"sum of cell_seconds (as run, sharing within the process): {total_cell:.0f} s")
    print(f"sum of the estimated times alone: {total_alone:.0f} s")
    alone.sort(key=lambda x: -x[0])
    print(f"slowest {args.slowest} cells (estimated alone; replay_seconds in brackets):")
    for t, r in alone[: args.slowest]:
        window_text = f" first {r['first']}" if r["first"] else ""
        print(
            f"  {t:8.1f} s  ({number(r['replay_seconds']):7.1f})  {r['trace']} {r['policy']} "
            f"{r['estimates']} x{r['load']}{window_text}"
        )
    if args.extrapolate and missing:
        by_kind = {}
        for t, r in alone:
            for key in ((r["policy"], r["skip"], r["first"], r["load"]), (r["policy"], r["skip"], r["first"])):
                by_kind.setdefault(key, []).append(t)
        guessed = []
        for r in missing:
            times = by_kind.get((r["policy"], r["skip"], r["first"], r["load"])) or by_kind.get(
                (r["policy"], r["skip"], r["first"])
            )
            if not times:
                sys.exit(f"cannot extrapolate cell {r['cell']}: no {r['policy']} cell has a result")
            guessed.append((sum(times) / len(times), r))
        extra = sum(t for t, _ in guessed)
        print(
            f"EXTRAPOLATED: {len(missing)} cells without a result, given the mean time alone of "
            f"their policy, window and load: {extra:.0f} s; total alone {total_alone + extra:.0f} s"
        )
        alone = sorted(alone + guessed, key=lambda x: -x[0])
        total_alone += extra
    print("N one-core nodes: makespan (LPT), lower bound max(slowest, total/N):")
    for n in [int(x) for x in args.nodes.split(",")]:
        free = [0.0] * n
        heapq.heapify(free)
        for t, _ in alone:
            heapq.heappush(free, heapq.heappop(free) + t)
        makespan = max(free)
        bound = max(alone[0][0], total_alone / n)
        print(f"  {n:6d}: {makespan / 3600:7.2f} h  (bound {bound / 3600:6.2f} h)")


if __name__ == "__main__":
    main()
