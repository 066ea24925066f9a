#!/usr/bin/env python3
"""Loads a `host-cli replay --jobs-format batsim` file with evalys, checks
it, and draws its Gantt chart to a PNG.

Usage: python3 scripts/evalys_gantt.py JOBS.csv OUT.png PROCESSORS

Checks: the columns are Batsim's jobs.csv columns in Batsim's order; evalys
(JobSet.from_csv) reads every row; every job holds as many processor ids as
it requested, all within 0..PROCESSORS-1; no processor is held by two jobs
at once (half-open intervals); evalys's utilisation never exceeds the
machine. Exits 1 with a message on the first failed check. Needs evalys
and matplotlib (.ci/run installs them in a virtual environment).
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402

COLUMNS = [
    "job_id", "workload_name", "profile", "submission_time",
    "requested_number_of_resources", "requested_time", "success", "final_state",
    "starting_time", "execution_time", "finish_time", "waiting_time",
    "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata",
]


def fail(message):
    print(f"evalys check failed: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 4:
        fail(__doc__.splitlines()[3])
    path, png, procs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, newline="") as f:
        header = next(csv.reader(f))
        rows = sum(1 for _ in f)
    if header != COLUMNS:
        fail(f"columns {header}, expected {COLUMNS}")
    js = JobSet.from_csv(path)
    df = js.df
    if len(df) != rows or rows == 0:
        fail(f"evalys read {len(df)} jobs of {rows}")
    for job in df.itertuples():
        ids = job.allocated_resources
        if len(ids) != job.requested_number_of_resources:
            fail(f"job {job.jobID} holds {len(ids)} ids, asked for {job.requested_number_of_resources}")
        if ids.min < 0 or ids.max >= procs:
            fail(f"job {job.jobID} holds ids {ids} outside 0..{procs - 1}")
    # No id held by two jobs at once: sort by start, compare with the jobs
    # still running.
    jobs = sorted(df.itertuples(), key=lambda j: (j.starting_time, j.finish_time))
    running = []
    for job in jobs:
        running = [r for r in running if r.finish_time > job.starting_time]
        if job.finish_time > job.starting_time:
            for r in running:
                shared = r.allocated_resources & job.allocated_resources
                if shared:
                    fail(f"jobs {r.jobID} and {job.jobID} both hold {shared} at t={job.starting_time}")
            running.append(job)
    peak = js.utilisation["load"].max()
    if peak > procs:
        fail(f"evalys utilisation reaches {peak} of {procs} processors")
    # Job numbers only on rectangles big enough to hold them: at least 0.3%
    # of the chart's processor-seconds.
    span = df.finish_time.max() - df.starting_time.min()
    big = 0.003 * span * procs

    def label(job):
        area = job["execution_time"] * len(job["allocated_resources"])
        return str(job["jobID"]) if area >= big else ""

    js.gantt(
        title=f"{df.workload_name.iloc[0]}: {rows} jobs on {procs} processors",
        labeler=label,
    )
    plt.gcf().set_size_inches(12, 7)
    plt.gca().set_xlabel("time (s)")
    plt.gca().set_ylabel("processor id")
    plt.savefig(png, dpi=90)
    print(f"evalys read {rows} jobs on processors {js.res_bounds} (peak use {peak} of {procs}); Gantt chart in {png}")


if __name__ == "__main__":
    main()
