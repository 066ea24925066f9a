//! Replaying a farm's job list through core's `Simulator`.
//!
//! [`prepare`] checks each job against the farm and counts, by reason, the
//! jobs no machine can ever run (they are not submitted, as SWF jobs wider
//! than the machine are not); the others are sorted by `(submit, id)` (the
//! number out of order in the file is reported). [`run`] replays them under
//! one policy on a farm kernel of [`FARM_B`] profile steps per resource (built on a thread with a large stack) and
//! computes the standard and the farm metrics. Job ids are the file's.

use super::metrics::{self, FarmMetrics};
use super::{FarmJob, FarmWorkload};
use crate::error::{CliError, ReplayFailure};
use backfill_core::{
    CategoryBounds, Cluster, Counters, Job, JobId, JobRecord, Kernel, KernelError, Metrics,
    Outcome, Policy, SimJob, Simulator, Sink,
};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Machines a farm kernel can hold (every machine a [`MachineSet`] names).
///
/// [`MachineSet`]: backfill_core::MachineSet
pub const FARM_M: usize = backfill_core::MachineSet::CAPACITY;
/// License pools a farm kernel can hold (every pool a `LicenseSet` names).
pub const FARM_L: usize = 32;
/// Waiting jobs a farm kernel can hold.
pub(crate) const FARM_Q: usize = 1 << 16;
/// Running jobs a farm kernel can hold (at most one per CPU, so this bounds
/// the farm's CPUs that can be busy at once).
pub(crate) const FARM_R: usize = 1 << 12;
/// Profile steps per machine and per license pool. EASY-style policies need
/// at most one step per job holding the resource plus three, so this bounds
/// a machine's CPUs and a pool's copies; Conservative-style policies also
/// keep a step pair per reservation, which long queues can exceed (the
/// replay then stops with "availability profile full").
pub const FARM_B: usize = 4096;
/// Waiting jobs of the small farm kernel ([`run`] uses it when a workload
/// fits: the paper's 1000-job streams do, and a replay then touches a
/// tenth of the memory).
pub(crate) const SMALL_Q: usize = 4096;
/// Running jobs of the small farm kernel.
pub(crate) const SMALL_R: usize = 1024;
/// Profile steps of the small farm kernel (enough for EASY-style policies
/// when every machine and pool has at most `SMALL_R` holders).
pub(crate) const SMALL_B: usize = SMALL_R + 8;
/// The cluster type of the farm kernels.
pub(crate) type FarmCluster = Cluster<FARM_M, FARM_L>;

/// Why a job of the list is not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SkipReason {
    /// It asks for more CPUs than any machine has.
    TooWide,
    /// It needs a license pool without copies, or usable on no machine.
    LicenseUnavailable,
    /// Machines wide enough exist, and each license is usable somewhere,
    /// but no machine has enough CPUs and all its licenses at once.
    NoEligibleMachine,
}

impl SkipReason {
    /// Every reason, in report order.
    pub(crate) const ALL: [Self; 3] = [
        Self::TooWide,
        Self::LicenseUnavailable,
        Self::NoEligibleMachine,
    ];

    /// What the report says.
    #[must_use]
    pub(crate) const fn text(self) -> &'static str {
        match self {
            Self::TooWide => "wider than every machine",
            Self::LicenseUnavailable => "needs a license with no usable copy",
            Self::NoEligibleMachine => {
                "no machine with enough CPUs where all its licenses can be activated"
            }
        }
    }
}

/// A farm workload ready to replay.
#[derive(Clone, Debug)]
pub(crate) struct PreparedFarm {
    /// A name for reports (the file names).
    pub(crate) name: String,
    /// The workload as read.
    pub(crate) workload: FarmWorkload,
    /// The kernel's cluster.
    pub(crate) cluster: FarmCluster,
    /// Jobs not run, with the reason, in file order.
    pub(crate) skipped: Vec<(JobId, SkipReason)>,
    /// Jobs out of `(submit, id)` order in the file (now sorted).
    pub(crate) out_of_order: u64,
    /// The kernel input, sorted by `(submit, id)`.
    pub(crate) jobs: Vec<SimJob>,
}

impl PreparedFarm {
    /// How many jobs were skipped for `reason`.
    #[must_use]
    pub(crate) fn skipped_for(&self, reason: SkipReason) -> u64 {
        self.skipped.iter().filter(|(_, r)| *r == reason).count() as u64
    }
}

/// Why `job` cannot run anywhere on `cluster`, if it cannot.
#[must_use]
pub(crate) fn skip_reason(cluster: &FarmCluster, job: &FarmJob) -> Option<SkipReason> {
    let kernel_job = job.job();
    if cluster.runnable(&kernel_job) {
        return None;
    }
    if cluster.machines().iter().all(|m| m.cpus < job.cpus) {
        return Some(SkipReason::TooWide);
    }
    let pools = cluster.pools();
    let unusable = job.licenses.iter().any(|&l| {
        pools.get(l).is_none_or(|p| {
            p.count == 0 || !(0..cluster.machines().len()).any(|m| p.machines.contains(m))
        })
    });
    if unusable {
        return Some(SkipReason::LicenseUnavailable);
    }
    Some(SkipReason::NoEligibleMachine)
}

/// Checks a workload against the kernel's limits and sorts its jobs.
///
/// # Errors
/// [`CliError::Usage`] when the farm exceeds the farm kernel's capacities.
pub(crate) fn prepare(name: &str, workload: FarmWorkload) -> Result<PreparedFarm, CliError> {
    let cluster = workload
        .cluster()
        .map_err(|e| CliError::Usage(format!("{name}: {e}")))?;
    let limit = FARM_B - 8;
    if let Some(m) = workload
        .farm
        .machines
        .iter()
        .find(|m| m.cpus as usize > limit)
    {
        return Err(CliError::Usage(format!(
            "{name}: machine '{}' has {} CPUs; farm replays support at most {limit} per machine",
            m.name, m.cpus
        )));
    }
    let busy = workload.farm.total_cpus().min(workload.jobs.len() as u64);
    if busy > FARM_R as u64 {
        return Err(CliError::Usage(format!(
            "{name}: up to {busy} jobs could run at once; farm replays support at most {FARM_R}"
        )));
    }
    let mut skipped = Vec::new();
    let mut jobs = Vec::with_capacity(workload.jobs.len());
    let mut out_of_order = 0;
    let mut last: Option<(u32, u32)> = None;
    for j in &workload.jobs {
        let key = (j.submit, j.id);
        if last.is_some_and(|l| key < l) {
            out_of_order += 1;
        }
        last = Some(last.map_or(key, |l| l.max(key)));
        match skip_reason(&cluster, j) {
            Some(reason) => skipped.push((j.id, reason)),
            None => jobs.push(SimJob {
                job: j.job(),
                runtime: j.runtime,
            }),
        }
    }
    jobs.sort_by_key(|j| (j.job.submit, j.job.id));
    Ok(PreparedFarm {
        name: name.to_owned(),
        workload,
        cluster,
        skipped,
        out_of_order,
        jobs,
    })
}

/// What one farm replay produced.
#[derive(Clone, Debug)]
pub(crate) struct FarmRun {
    /// The policy.
    pub(crate) policy: Policy,
    /// Per-job records, in completion order.
    pub(crate) records: Vec<JobRecord>,
    /// Replay totals.
    pub(crate) outcome: Outcome,
    /// Jobs the kernel refused (none, after [`prepare`]'s checks).
    pub(crate) rejected: Vec<(JobId, KernelError)>,
    /// What the search and flexible policies counted (BF_MOD's hand-overs).
    pub(crate) counters: Counters,
    /// Standard metrics overall and per category.
    pub(crate) standard: Metrics,
    /// The farm metrics.
    pub(crate) metrics: FarmMetrics,
    /// Wall time of the replay.
    pub(crate) wall: Duration,
}

#[derive(Default)]
struct Collect {
    records: Vec<JobRecord>,
    rejected: Vec<(JobId, KernelError)>,
}

impl Sink for Collect {
    fn finished(&mut self, record: &JobRecord) {
        self.records.push(*record);
    }

    fn rejected(&mut self, job: &Job, error: KernelError) {
        self.rejected.push((job.id, error));
    }
}

/// Runs `f` on a thread with a 256 MB stack (the farm kernel and the
/// flexible policies' per-pass priority table live on the stack).
///
/// # Errors
/// [`CliError::Io`] when the thread cannot be started; a panic is reported
/// as [`CliError::Usage`].
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("farm-replay".into())
            .stack_size(256 << 20)
            .spawn_scoped(scope, f)
            .map_err(|e| CliError::Io("replay thread".into(), e))?;
        handle
            .join()
            .map_err(|_| CliError::Usage("the replay thread panicked".into()))
    })
}

/// Replays `prepared` under `policy` (categories by `bounds`).
///
/// # Errors
/// [`CliError::Replay`] when the kernel refuses a call (a table is full).
pub(crate) fn run(
    prepared: &PreparedFarm,
    policy: Policy,
    bounds: CategoryBounds,
) -> Result<FarmRun, CliError> {
    let farm = &prepared.workload.farm;
    let busy = farm.total_cpus().min(prepared.jobs.len() as u64);
    let small = prepared.jobs.len() <= SMALL_Q
        && busy <= SMALL_R as u64
        && farm.machines.iter().all(|m| m.cpus as usize <= SMALL_R)
        && !policy.keeps_reservations();
    if small {
        run_on::<SMALL_Q, SMALL_R, SMALL_B>(prepared, policy, bounds)
    } else {
        run_on::<FARM_Q, FARM_R, FARM_B>(prepared, policy, bounds)
    }
}

/// [`run`] on a kernel of the given capacities.
fn run_on<const Q: usize, const R: usize, const B: usize>(
    prepared: &PreparedFarm,
    policy: Policy,
    bounds: CategoryBounds,
) -> Result<FarmRun, CliError> {
    let outcome = on_big_stack(|| {
        let kernel: Kernel<Q, R, B, FARM_M, FARM_L> = Kernel::new(prepared.cluster.clone(), policy);
        let mut sim = Box::new(Simulator::new(kernel));
        let mut sink = Collect {
            records: Vec::with_capacity(prepared.jobs.len()),
            rejected: Vec::new(),
        };
        let started = Instant::now();
        let outcome = sim.run(prepared.jobs.iter().copied(), &mut sink);
        let wall = started.elapsed();
        let counters = *sim.kernel().counters();
        outcome.map(|o| (o, sink, counters, wall))
    })?;
    // The error names the job by its id, which is the file's.
    let (outcome, sink, counters, wall) = outcome.map_err(|error| {
        CliError::Replay(Box::new(ReplayFailure {
            trace: prepared.name.clone(),
            error,
            number: None,
            line: None,
            detail: None,
        }))
    })?;
    let mut standard = Metrics::new(bounds);
    for r in &sink.records {
        standard.add(r);
    }
    let copies: Vec<u32> = prepared
        .workload
        .farm
        .licenses
        .iter()
        .map(|l| l.copies)
        .collect();
    let metrics = metrics::compute(&sink.records, prepared.workload.farm.total_cpus(), &copies);
    Ok(FarmRun {
        policy,
        records: sink.records,
        outcome,
        rejected: sink.rejected,
        counters,
        standard,
        metrics,
        wall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::farm::format::{parse_farm, parse_jobs};
    use backfill_core::policy::Heuristics;

    const FARM: &str = r#"machine = [{ name = "a", cpus = 4 }, { name = "b", cpus = 2, speed = 2.0 }]
license = [{ name = "x", copies = 1, machines = ["a"] }, { name = "none", copies = 0 }, { name = "y", copies = 1, machines = ["b"] }]
"#;

    fn prepared(jobs: &str) -> PreparedFarm {
        let farm = parse_farm("f.toml", FARM).unwrap();
        let jobs = parse_jobs("j.csv", jobs.as_bytes(), &farm).unwrap();
        prepare("test", FarmWorkload { farm, jobs }).unwrap()
    }

    #[test]
    fn unrunnable_jobs_are_counted_by_reason() {
        let p = prepared(
            "id,submit,cpus,estimate,licenses\n1,0,5,10,\n2,0,1,10,none\n3,0,3,10,\n4,0,3,10,x\n5,0,4,10,x\n6,0,3,10,y\n",
        );
        assert_eq!(
            p.skipped,
            [
                (1, SkipReason::TooWide),
                (2, SkipReason::LicenseUnavailable),
                (6, SkipReason::NoEligibleMachine)
            ]
        );
        assert_eq!(p.jobs.len(), 3);
        let p = prepared("id,submit,cpus,estimate,licenses\n1,0,5,10,x\n7,0,3,10,x\n");
        assert_eq!(p.skipped_for(SkipReason::TooWide), 1);
        // Job 7: machine b is too narrow, x only on a ... which is wide
        // enough, so it runs.
        assert_eq!(p.jobs.len(), 1);
    }

    #[test]
    fn jobs_are_sorted_and_disorder_counted() {
        let p = prepared("id,submit,cpus,estimate\n3,5,1,10\n1,5,1,10\n2,0,1,10\n");
        let order: Vec<_> = p.jobs.iter().map(|j| j.job.id).collect();
        assert_eq!(order, [2, 1, 3]);
        assert_eq!(p.out_of_order, 2);
    }

    #[test]
    fn a_replay_reports_farm_metrics_and_hand_overs() {
        // Machine b (speed 2) runs the 2-CPU jobs in half the time.
        let p = prepared(
            "id,submit,cpus,estimate,runtime,deadline,licenses\n1,0,2,100,100,60,\n2,0,4,100,100,,x\n3,1,2,50,50,,\n",
        );
        for policy in [
            Policy::Fcfs,
            Policy::BfFcfs,
            Policy::BfUnmod(Heuristics::DEFAULT),
            Policy::BfMod(Heuristics::DEFAULT),
        ] {
            let r = run(&p, policy, CategoryBounds::DEFAULT).unwrap();
            assert_eq!(r.outcome.finished, 3, "{policy}");
            assert_eq!(r.metrics.jobs, 3);
            let one = r.records.iter().find(|r| r.job.id == 1).unwrap();
            assert_eq!((one.start(), one.slot.machine, one.end), (0, 1, 50));
            assert_eq!(r.metrics.missed_deadlines, 0, "job 1 ends at 50 <= 60");
            assert_eq!(r.metrics.deadline_jobs, 1);
            assert!(r.metrics.license_usage.unwrap() > 0.0);
        }
    }
}
