//! The per-job schedule in Batsim's `jobs.csv` layout (`replay
//! --jobs-format batsim`), which `evalys` (`JobSet.from_csv`) and other
//! Batsim tools read to draw Gantt charts and utilisation plots.
//!
//! Columns, in the order Batsim's jobs tracer writes them: `job_id, workload_name,
//! profile, submission_time, requested_number_of_resources,
//! requested_time, success, final_state, starting_time, execution_time,
//! finish_time, waiting_time, turnaround_time, stretch,
//! allocated_resources, consumed_energy, metadata`. Older Batsim versions
//! called two of them `requested_number_of_processors` and
//! `allocated_processors`; evalys 4 reads the newer names.
//!
//! * `job_id` is the trace's job number, `workload_name` the trace's file
//!   name without `.swf`/`.gz` (`lublin` for the built-in workload),
//!   `profile` the job's run time in seconds (as Batsim's SWF converters
//!   name delay profiles).
//! * `success` is 1 and `final_state` `COMPLETED_SUCCESSFULLY`, or 0 and
//!   `COMPLETED_WALLTIME_REACHED` for a job killed at its estimate.
//! * `stretch` is `turnaround_time / execution_time` (Batsim's, not the
//!   bounded slowdown), empty for a job that ran 0 s; `consumed_energy`
//!   is -1 (no energy model), `metadata` empty.
//! * `allocated_resources` is an interval set of processor ids
//!   (`0-3 8 10-11`). The kernel only counts processors, so ids are given
//!   here ([`assign_processors`]): jobs in start order each take the lowest
//!   free ids, and give them back at their end (intervals are half-open).
//!   Since the kernel never runs more processors than the machine has,
//!   this always succeeds, and no id is held by two jobs at once.
//!
//! Only scheduled jobs are written (as in the plain `--jobs-out`), in trace
//! order.

use crate::error::CliError;
use crate::replay::Prepared;
use backfill_core::{JobRecord, Time};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::Write;

/// A set of processor ids as disjoint, ascending, inclusive ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IdSet(pub(crate) Vec<(u32, u32)>);

impl IdSet {
    /// How many ids.
    #[must_use]
    pub(crate) fn len(&self) -> u64 {
        self.0
            .iter()
            .map(|&(a, b)| u64::from(b) - u64::from(a) + 1)
            .sum()
    }
}

impl std::fmt::Display for IdSet {
    /// Batsim's (and `procset`'s) interval-set text: `0-3 8 10-11`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, &(a, b)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

/// The free processor ids of a machine, as ranges (start -> inclusive end),
/// and how many there are.
struct FreeIds(BTreeMap<u32, u32>, u64);

impl FreeIds {
    fn new(procs: u32) -> Self {
        let mut free = BTreeMap::new();
        if procs > 0 {
            free.insert(0, procs - 1);
        }
        Self(free, u64::from(procs))
    }

    /// Takes the `n` lowest free ids, or `None` (and takes nothing) if
    /// fewer are free.
    fn take(&mut self, n: u32) -> Option<IdSet> {
        if self.1 < u64::from(n) {
            return None;
        }
        self.1 -= u64::from(n);
        let mut taken = Vec::new();
        let mut left = n;
        while left > 0 {
            let (&a, &b) = self.0.iter().next()?;
            self.0.remove(&a);
            let here = b - a + 1;
            if here <= left {
                taken.push((a, b));
                left -= here;
            } else {
                taken.push((a, a + left - 1));
                self.0.insert(a + left, b);
                left = 0;
            }
        }
        Some(IdSet(taken))
    }

    /// Gives `ids` back, merging adjacent ranges.
    fn give(&mut self, ids: &IdSet) {
        self.1 += ids.len();
        for &(a, b) in &ids.0 {
            let (mut start, mut end) = (a, b);
            if let Some((&pa, &pb)) = self.0.range(..a).next_back() {
                if pb.checked_add(1) == Some(a) {
                    self.0.remove(&pa);
                    start = pa;
                }
            }
            if let Some(next) = b.checked_add(1) {
                if let Some(nb) = self.0.remove(&next) {
                    end = nb;
                }
            }
            self.0.insert(start, end);
        }
    }
}

/// Gives every record processor ids of a machine of `procs` processors:
/// in start order, each job takes its `procs` lowest free ids and holds
/// them over `[start, end)`. At one instant, the ids of jobs ending then
/// come back first, then jobs that run 0 s take theirs (and give them back
/// at once), then the others start, by job id. Returns the ids per record,
/// in the order of `records`.
///
/// # Errors
/// [`CliError::Io`] (a bug: the schedule uses more processors than the
/// machine has at some instant), naming the job and time.
pub(crate) fn assign_processors(records: &[JobRecord], procs: u32) -> Result<Vec<IdSet>, CliError> {
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| {
        let r = &records[i];
        (r.start(), r.end > r.start(), r.job.id)
    });
    let mut free = FreeIds::new(procs);
    let mut running: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut ids = vec![IdSet::default(); records.len()];
    for i in order {
        let r = &records[i];
        while let Some(&Reverse((end, k))) = running.peek() {
            if end > r.start() {
                break;
            }
            running.pop();
            free.give(&ids[k]);
        }
        ids[i] = free.take(r.job.procs).ok_or_else(|| {
            CliError::Io(
                "--jobs-format batsim".into(),
                std::io::Error::other(format!(
                    "job {} needs {} processors at t={} but fewer are free on a machine of {procs}",
                    r.job.id,
                    r.job.procs,
                    r.start()
                )),
            )
        })?;
        running.push(Reverse((r.end, i)));
    }
    Ok(ids)
}

/// One row of Batsim's `jobs.csv`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct BatsimRow {
    /// The trace's job number.
    pub(crate) job_id: u64,
    /// The trace's name.
    pub(crate) workload_name: String,
    /// The run time, as a delay profile's name.
    pub(crate) profile: String,
    /// Submit time (s).
    pub(crate) submission_time: Time,
    /// Processors.
    pub(crate) requested_number_of_resources: u32,
    /// The estimate the scheduler saw (s): Batsim's walltime.
    pub(crate) requested_time: Time,
    /// 1, or 0 for a job killed at its estimate.
    pub(crate) success: u8,
    /// `COMPLETED_SUCCESSFULLY` or `COMPLETED_WALLTIME_REACHED`.
    pub(crate) final_state: &'static str,
    /// Start (s).
    pub(crate) starting_time: Time,
    /// `finish_time - starting_time` (s).
    pub(crate) execution_time: Time,
    /// End (s).
    pub(crate) finish_time: Time,
    /// `starting_time - submission_time` (s).
    pub(crate) waiting_time: Time,
    /// `finish_time - submission_time` (s).
    pub(crate) turnaround_time: Time,
    /// `turnaround_time / execution_time`; empty when it ran 0 s.
    pub(crate) stretch: Option<f64>,
    /// Processor ids, e.g. `0-3 8`.
    pub(crate) allocated_resources: String,
    /// -1: no energy model.
    pub(crate) consumed_energy: i8,
    /// Empty.
    pub(crate) metadata: &'static str,
}

/// The workload name of a trace: its file name without `.gz` and `.swf`,
/// or `lublin` for the built-in workload (whose report name is a sentence).
#[must_use]
pub(crate) fn workload_name(trace: &str) -> String {
    let name = std::path::Path::new(trace)
        .file_name()
        .map_or_else(|| trace.to_owned(), |n| n.to_string_lossy().into_owned());
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let name = name.strip_suffix(".swf").unwrap_or(name);
    if trace.starts_with("built-in ") {
        "lublin".to_owned()
    } else {
        name.to_owned()
    }
}

/// Writes the records of a replay of `prepared` as Batsim's `jobs.csv`, in
/// trace order.
///
/// # Errors
/// I/O errors, and an error if processors cannot be assigned (see
/// [`assign_processors`]).
pub(crate) fn write_jobs<W: Write>(
    out: W,
    prepared: &Prepared,
    records: &[JobRecord],
) -> std::io::Result<()> {
    let ids = assign_processors(records, prepared.machine_procs)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut rows: Vec<(&JobRecord, &IdSet)> = records.iter().zip(&ids).collect();
    rows.sort_by_key(|(r, _)| r.job.id);
    let workload = workload_name(&prepared.name);
    let mut writer = csv::Writer::from_writer(out);
    for (r, ids) in rows {
        let number = prepared
            .trace_jobs
            .get(r.job.id as usize)
            .map_or(u64::from(r.job.id), |t| t.number);
        let execution = r.run();
        writer
            .serialize(BatsimRow {
                job_id: number,
                workload_name: workload.clone(),
                profile: r.runtime.to_string(),
                submission_time: r.job.submit,
                requested_number_of_resources: r.job.procs,
                requested_time: r.job.estimate,
                success: u8::from(!r.killed),
                final_state: if r.killed {
                    "COMPLETED_WALLTIME_REACHED"
                } else {
                    "COMPLETED_SUCCESSFULLY"
                },
                starting_time: r.start(),
                execution_time: execution,
                finish_time: r.end,
                waiting_time: r.wait(),
                turnaround_time: r.turnaround(),
                stretch: (execution > 0).then(|| f64::from(r.turnaround()) / f64::from(execution)),
                allocated_resources: ids.to_string(),
                consumed_energy: -1,
                metadata: "",
            })
            .map_err(crate::output::report::csv_io)?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{self, Estimates, Shaping, Window};
    use crate::workload::synth::SyntheticSpec;
    use backfill_core::{CategoryBounds, Job, Policy, Slot};

    fn record(id: u32, start: Time, end: Time, procs: u32) -> JobRecord {
        JobRecord {
            job: Job::new(id, 0, procs, end - start + 1),
            runtime: end - start,
            slot: Slot {
                start,
                machine: 0,
                duration: end - start + 1,
            },
            end,
            killed: false,
            guarantee: None,
        }
    }

    /// No processor id is held by two jobs at once, every job gets as many
    /// ids as it asked for, and all ids are on the machine.
    fn check(records: &[JobRecord], ids: &[IdSet], procs: u32) {
        let mut events: Vec<(Time, bool, usize)> = Vec::new();
        for (i, r) in records.iter().enumerate() {
            assert_eq!(ids[i].len(), u64::from(r.job.procs), "job {}", r.job.id);
            assert!(ids[i].0.iter().all(|&(a, b)| a <= b && b < procs));
            assert!(
                ids[i].0.windows(2).all(|w| w[0].1 + 1 < w[1].0),
                "{:?}",
                ids[i]
            );
            // A job of zero run time holds its ids over an empty interval.
            if r.start() < r.end {
                events.push((r.start(), true, i));
                events.push((r.end, false, i));
            }
        }
        // Ends before starts at one instant: intervals are half-open.
        events.sort_by_key(|&(t, start, i)| (t, start, i));
        let mut holder: BTreeMap<u32, usize> = BTreeMap::new();
        for (t, start, i) in events {
            for &(a, b) in &ids[i].0 {
                for id in a..=b {
                    if !start {
                        assert_eq!(holder.remove(&id), Some(i));
                    } else if let Some(other) = holder.insert(id, i) {
                        panic!("processor {id} held by jobs {other} and {i} at t={t}");
                    }
                }
            }
        }
    }

    #[test]
    fn lowest_free_ids_first_and_given_back_at_the_end() {
        // 8 processors: A 0-3 [0,10), B 4-5 [0,5), C 6-7 [2,4); at 5, B's
        // ids come back, D takes 4-5 and then the first of the ids C gave
        // back (6); E (zero run time) at 10 takes what A freed.
        let records = [
            record(0, 0, 10, 4),
            record(1, 0, 5, 2),
            record(2, 2, 4, 2),
            record(3, 5, 9, 3),
            record(4, 10, 10, 8),
        ];
        let ids = assign_processors(&records, 8).unwrap();
        let text: Vec<String> = ids.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["0-3", "4-5", "6-7", "4-6", "0-7"]);
        check(&records, &ids, 8);
        // A machine too small is an error, not an overlap.
        assert!(assign_processors(&records, 7).is_err());
    }

    #[test]
    fn jobs_of_zero_run_time_hold_their_ids_before_others_start() {
        // 4 processors: A (id 0) takes all 4 over [5, 9), Z (id 1) runs 0 s
        // at 5 on 4: Z must not wait for ids A holds.
        let records = [record(0, 5, 9, 4), record(1, 5, 5, 4)];
        let ids = assign_processors(&records, 4).unwrap();
        assert_eq!(ids[0].to_string(), "0-3");
        assert_eq!(ids[1].to_string(), "0-3");
        check(&records, &ids, 4);
    }

    #[test]
    fn replays_get_disjoint_processor_ids() {
        let window = Window::WHOLE;
        for (policy, estimates) in [
            (Policy::Easy, Estimates::User),
            (Policy::Conservative, Estimates::Exact),
            (Policy::Fcfs, Estimates::User),
        ] {
            let spec = SyntheticSpec {
                jobs: 1500,
                ..SyntheticSpec::default()
            };
            let shaping = Shaping {
                estimates,
                load: 1.3,
            };
            let prepared = replay::prepare_synthetic(&spec, &window, shaping).unwrap();
            let run = replay::run(&prepared, policy, CategoryBounds::DEFAULT, true, None).unwrap();
            let records = run.records.unwrap();
            let ids = assign_processors(&records, prepared.machine_procs).unwrap();
            check(&records, &ids, prepared.machine_procs);
        }
    }

    /// A random SWF trace on 16 processors: bursts of arrivals, run times
    /// from 0 s, and estimates that are sometimes short (killed jobs).
    fn random_trace(seed: u64, jobs: u32) -> crate::swf::LoadedTrace {
        use crate::workload::rng::Draws as _;
        let mut rng = crate::workload::rng::SplitMix64::new(seed);
        let mut text = String::from("; MaxProcs: 16\n");
        let mut submit = 0;
        for n in 1..=jobs {
            submit += rng.below_exact(3) * rng.below_exact(40);
            let run = rng.below_exact(4) * rng.below_exact(100);
            let procs = 1 + rng.below_exact(16);
            let estimate = if rng.below_exact(4) == 0 {
                run / 2
            } else {
                run + rng.below_exact(100)
            };
            text.push_str(&format!(
                "{n} {submit} 0 {run} {procs} -1 -1 {procs} {estimate} -1 1 1 1 1 1 1 -1 -1\n"
            ));
        }
        crate::swf::load_reader("random.swf", text.as_bytes()).unwrap()
    }

    #[test]
    fn random_schedules_get_disjoint_processor_ids() {
        let window = Window::WHOLE;
        let shaping = Shaping::AS_RECORDED;
        let mut killed = 0;
        for seed in 0..10 {
            let prepared = replay::prepare(&random_trace(seed, 150), &window, shaping).unwrap();
            assert_eq!(prepared.machine_procs, 16);
            for policy in [
                Policy::Fcfs,
                Policy::Easy,
                Policy::SjfEasy,
                Policy::Conservative,
            ] {
                let run =
                    replay::run(&prepared, policy, CategoryBounds::DEFAULT, true, None).unwrap();
                let records = run.records.unwrap();
                killed += records.iter().filter(|r| r.killed).count();
                let ids = assign_processors(&records, 16)
                    .unwrap_or_else(|e| panic!("seed {seed}, {policy:?}: {e}"));
                check(&records, &ids, 16);
            }
        }
        assert!(killed > 0, "the traces have killed jobs");
    }

    #[test]
    fn the_file_has_batsim_columns_and_says_which_jobs_were_killed() {
        // Job 1 runs 10 s of its 20; job 2 runs 50 s but asked for 20, so is
        // killed at 21; job 3 (4 processors) waits for both.
        let text = "; MaxProcs: 4\n\
            1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n\
            2 1 0 50 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n\
            3 2 0 5 4 -1 -1 4 10 -1 1 1 1 1 1 1 -1 -1\n";
        let trace = crate::swf::load_reader("dir/k.swf", text.as_bytes()).unwrap();
        let window = Window::WHOLE;
        let shaping = Shaping::AS_RECORDED;
        let prepared = replay::prepare(&trace, &window, shaping).unwrap();
        let run =
            replay::run(&prepared, Policy::Easy, CategoryBounds::DEFAULT, true, None).unwrap();
        let mut out = Vec::new();
        write_jobs(&mut out, &prepared, &run.records.unwrap()).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
                 requested_time,success,final_state,starting_time,execution_time,finish_time,\
                 waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,\
                 metadata",
                "1,k,10,0,1,20,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1.0,0,-1,",
                "2,k,50,1,2,20,0,COMPLETED_WALLTIME_REACHED,1,20,21,0,20,1.0,1-2,-1,",
                "3,k,5,2,4,10,1,COMPLETED_SUCCESSFULLY,21,5,26,19,24,4.8,0-3,-1,",
            ]
        );
    }

    #[test]
    fn interval_sets_read_as_batsim_writes_them() {
        assert_eq!(
            IdSet(vec![(0, 3), (8, 8), (10, 11)]).to_string(),
            "0-3 8 10-11"
        );
        assert_eq!(IdSet::default().to_string(), "");
        let mut free = FreeIds::new(10);
        let a = free.take(3).unwrap();
        let b = free.take(3).unwrap();
        free.give(&a);
        assert_eq!(free.take(4).unwrap().to_string(), "0-2 6");
        free.give(&b);
        assert_eq!(free.0.into_iter().collect::<Vec<_>>(), [(3, 5), (7, 9)]);
        assert_eq!(
            workload_name("../t/KTH-SP2-1996-2.1-cln.swf.gz"),
            "KTH-SP2-1996-2.1-cln"
        );
        let builtin = crate::workload::synth::SyntheticSpec::default().describe();
        assert_eq!(workload_name(&builtin), "lublin");
    }
}
