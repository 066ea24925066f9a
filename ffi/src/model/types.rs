//! The C structs the calls exchange, and their conversions to and from the
//! kernel's types. Every field C writes is a plain integer, so any bit
//! pattern C leaves in one is a value (never undefined behaviour); the
//! conversions check what the kernel needs.
#![forbid(unsafe_code)]
#![allow(non_camel_case_types)]

use backfill_core::policy::SlowdownAverage;
use backfill_core::{
    Cluster, ClusterError, Counters, ExpectedStart, Job, LicensePool, LicenseSet, Machine,
    MachineSet, QueuedJob, Reason, RunningJob, Slot, Step, Time, Waiting,
};

/// The most machines a cluster can have (every tier).
pub const BF_MAX_MACHINES: usize = 16;
/// The most license pools a cluster can have (every tier).
pub const BF_MAX_POOLS: usize = 8;
/// `bf_job.deadline` of a job without a deadline.
pub const BF_NO_DEADLINE: u32 = u32::MAX;
/// The speed of a reference machine (`bf_machine.speed`): a job's estimate
/// is its run time on such a machine; on a machine of speed `s` it takes
/// `ceil(estimate * 1000 / s)` seconds (`bf_machine_scale`).
pub const BF_REFERENCE_SPEED: u32 = 1000;
const _: () = assert!(BF_REFERENCE_SPEED == backfill_core::REFERENCE_SPEED);

/// The cluster type of every tier.
pub type FarmCluster = Cluster<BF_MAX_MACHINES, BF_MAX_POOLS>;

/// A job, as the scheduler sees it. Times are whole seconds on the caller's
/// clock (any origin); durations are seconds on a reference machine.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_job {
    /// The caller's id, unique among the jobs in the kernel.
    pub id: u32,
    /// When it was submitted (at most the `now` of `bf_kernel_submit`).
    pub submit: u32,
    /// Processors it needs, all on one machine (at least 1).
    pub procs: u32,
    /// Its estimate on a reference machine, seconds (at least 1); it is
    /// killed when the estimate runs out.
    pub estimate: u32,
    /// Its deadline (flexible backfilling's deadline heuristic), or
    /// `BF_NO_DEADLINE`.
    pub deadline: u32,
    /// License pools it needs one copy of each, bit `l` for pool `l`.
    pub licenses: u32,
    /// The caller's priority (kept with the job, not used by the policies).
    pub priority: i32,
    /// The caller's own value (kept with the job, never read).
    pub tag: u32,
}

impl From<bf_job> for Job {
    fn from(j: bf_job) -> Self {
        Self {
            id: j.id,
            submit: j.submit,
            procs: j.procs,
            estimate: j.estimate,
            deadline: j.deadline,
            licenses: LicenseSet(j.licenses),
            priority: j.priority,
            tag: j.tag,
        }
    }
}

impl From<&Job> for bf_job {
    fn from(j: &Job) -> Self {
        Self {
            id: j.id,
            submit: j.submit,
            procs: j.procs,
            estimate: j.estimate,
            deadline: j.deadline,
            licenses: j.licenses.0,
            priority: j.priority,
            tag: j.tag,
        }
    }
}

/// Where and when a job runs or is reserved to run.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_slot {
    /// Start time.
    pub start: u32,
    /// How long the job holds its machine (its estimate scaled by the
    /// machine's speed); it ends, or is killed, at `start + duration`.
    pub duration: u32,
    /// The machine's index in the cluster.
    pub machine: u32,
}

impl From<Slot> for bf_slot {
    fn from(s: Slot) -> Self {
        Self {
            start: s.start,
            duration: s.duration,
            machine: u32::from(s.machine),
        }
    }
}

/// A running job (`bf_kernel_complete`, `bf_kernel_running_job`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_running_job {
    /// The job.
    pub job: bf_job,
    /// Where and when it started; it must be completed by
    /// `slot.start + slot.duration`.
    pub slot: bf_slot,
    /// Whether it had a reservation while waiting (then `guarantee` is the
    /// start of its first one).
    pub has_guarantee: bool,
    /// The start its first reservation promised; 0 when `has_guarantee` is
    /// false.
    pub guarantee: u32,
}

impl From<&RunningJob> for bf_running_job {
    fn from(r: &RunningJob) -> Self {
        Self {
            job: bf_job::from(&r.job),
            slot: r.slot.into(),
            has_guarantee: r.guarantee.is_some(),
            guarantee: r.guarantee.unwrap_or(0),
        }
    }
}

/// A waiting job (`bf_kernel_queued_job`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_queued_job {
    /// The job.
    pub job: bf_job,
    /// Whether it holds a reservation now.
    pub has_reservation: bool,
    /// Its reservation; all zero when `has_reservation` is false.
    pub reservation: bf_slot,
    /// Whether it was ever given a reservation (then `guarantee` is the
    /// start of the first one, the policy's promise).
    pub has_guarantee: bool,
    /// The promised start; 0 when `has_guarantee` is false.
    pub guarantee: u32,
}

impl From<&QueuedJob> for bf_queued_job {
    fn from(q: &QueuedJob) -> Self {
        Self {
            job: bf_job::from(&q.job),
            has_reservation: q.reservation().is_some(),
            reservation: q.reservation().map(bf_slot::from).unwrap_or_default(),
            has_guarantee: q.guarantee().is_some(),
            guarantee: q.guarantee().unwrap_or(0),
        }
    }
}

/// Why a waiting job waits (`bf_waiting.reason`; `docs/design.md`,
/// "Pending reasons").
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum bf_reason {
    /// It fits now: the next pass starts it (between passes only).
    BF_REASON_PENDING = 0,
    /// Not enough processors free now; for the EASY family's head,
    /// `has_reason_time` and `reason_time` its shadow time.
    BF_REASON_PROCESSORS = 1,
    /// No copy of license pool `reason_value` free now (expected start as
    /// for `BF_REASON_PROCESSORS`).
    BF_REASON_NO_LICENSE = 2,
    /// On a farm: no machine it may use has enough processors free now
    /// (expected start as for `BF_REASON_PROCESSORS`).
    BF_REASON_NO_MACHINE = 3,
    /// FCFS: behind job `reason_job`, the queue head, which does not fit.
    BF_REASON_BEHIND = 4,
    /// It fits now but would delay job `reason_job`'s reservation at
    /// `reason_time`.
    BF_REASON_WOULD_DELAY = 5,
    /// It holds a reservation at a later time, `reason_time` (the slot is
    /// `expected_slot`).
    BF_REASON_RESERVED = 6,
    /// Selective's entry queue: promoted to a reservation at `reason_time`
    /// (`UINT32_MAX`: never under the current threshold).
    BF_REASON_NOT_PROMOTED = 7,
    /// DPSA: the subset search ran out of its `reason_value` nodes.
    BF_REASON_SEARCH_BUDGET = 8,
    /// It can never run (no pass gives it: the kernel refuses such a job).
    BF_REASON_NEVER = 9,
}

/// When a waiting job is expected to start (`bf_waiting.expected`;
/// `docs/design.md`, "Expected starts").
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum bf_expected {
    /// The policy gives it none (none is made up).
    BF_EXPECTED_NONE = 0,
    /// Its reservation, `expected_slot`.
    BF_EXPECTED_RESERVATION = 1,
    /// The EASY family's head: its shadow time, `expected_slot`.
    BF_EXPECTED_SHADOW = 2,
}

/// A waiting job as the queue stands (`bf_kernel_waiting`): its position,
/// why it waits and when it is expected to start.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_waiting {
    /// Its position in the queue, from 0 (the head).
    pub position: usize,
    /// The job.
    pub job: bf_job,
    /// Why it waits: a `bf_reason`.
    pub reason: u32,
    /// The job the reason names (`BF_REASON_BEHIND`: the head;
    /// `BF_REASON_WOULD_DELAY`: the reservation's holder); 0 otherwise.
    pub reason_job: u32,
    /// Whether `reason_time` holds a time.
    pub has_reason_time: bool,
    /// The time the reason names (see `bf_reason`); 0 when
    /// `has_reason_time` is false.
    pub reason_time: u32,
    /// The number the reason names (`BF_REASON_NO_LICENSE`: the pool;
    /// `BF_REASON_SEARCH_BUDGET`: the node budget); 0 otherwise.
    pub reason_value: u32,
    /// When it is expected to start: a `bf_expected`.
    pub expected: u32,
    /// Its reservation or shadow slot; all zero for `BF_EXPECTED_NONE`.
    pub expected_slot: bf_slot,
}

impl From<Waiting> for bf_waiting {
    fn from(w: Waiting) -> Self {
        let mut out = Self {
            position: w.position,
            job: bf_job::from(&w.job),
            ..Self::default()
        };
        let mut time = |t: Option<Time>| {
            out.has_reason_time = t.is_some();
            out.reason_time = t.unwrap_or(0);
        };
        let reason = match w.reason {
            Reason::Pending => bf_reason::BF_REASON_PENDING,
            Reason::Processors { expected } => {
                time(expected);
                bf_reason::BF_REASON_PROCESSORS
            }
            Reason::NoLicense { pool, expected } => {
                time(expected);
                out.reason_value = u32::from(pool);
                bf_reason::BF_REASON_NO_LICENSE
            }
            Reason::NoMachine { expected } => {
                time(expected);
                bf_reason::BF_REASON_NO_MACHINE
            }
            Reason::Behind { ahead } => {
                out.reason_job = ahead;
                bf_reason::BF_REASON_BEHIND
            }
            Reason::WouldDelay { holder, start } => {
                time(Some(start));
                out.reason_job = holder;
                bf_reason::BF_REASON_WOULD_DELAY
            }
            Reason::Reserved { slot } => {
                time(Some(slot.start));
                bf_reason::BF_REASON_RESERVED
            }
            Reason::NotPromoted { at } => {
                time(Some(at));
                bf_reason::BF_REASON_NOT_PROMOTED
            }
            Reason::SearchBudget { budget } => {
                out.reason_value = budget;
                bf_reason::BF_REASON_SEARCH_BUDGET
            }
            _ => bf_reason::BF_REASON_NEVER,
        };
        out.reason = reason as u32;
        let (expected, slot) = match w.expected {
            ExpectedStart::Reservation(slot) => (bf_expected::BF_EXPECTED_RESERVATION, Some(slot)),
            ExpectedStart::Shadow(slot) => (bf_expected::BF_EXPECTED_SHADOW, Some(slot)),
            _ => (bf_expected::BF_EXPECTED_NONE, None),
        };
        out.expected = expected as u32;
        out.expected_slot = slot.map(bf_slot::from).unwrap_or_default();
        out
    }
}

/// A machine of the cluster.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_machine {
    /// Processors (at least 1).
    pub cpus: u32,
    /// Speed relative to `BF_REFERENCE_SPEED` (1000); at least 1.
    pub speed: u32,
}

impl From<bf_machine> for Machine {
    fn from(m: bf_machine) -> Self {
        Self {
            cpus: m.cpus,
            speed: m.speed,
        }
    }
}

/// A floating license pool of the cluster.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_license_pool {
    /// Copies in the pool.
    pub count: u32,
    /// The machines where a copy can be used, bit `m` for machine `m`.
    pub machines: u32,
}

impl From<bf_license_pool> for LicensePool {
    fn from(p: bf_license_pool) -> Self {
        Self {
            count: p.count,
            machines: MachineSet(u128::from(p.machines)),
        }
    }
}

/// The cluster of these machines and pools (read from C), or what is wrong
/// with it.
///
/// # Errors
/// As `Cluster::new`: no machine, too many machines or pools, a machine
/// without processors or speed.
pub fn cluster_of(
    machines: &[bf_machine],
    pools: &[bf_license_pool],
) -> Result<FarmCluster, ClusterError> {
    if machines.len() > BF_MAX_MACHINES || pools.len() > BF_MAX_POOLS {
        return Err(ClusterError::TooMany);
    }
    let mut m: [Machine; BF_MAX_MACHINES] = [Machine::new(1); BF_MAX_MACHINES];
    for (to, from) in m.iter_mut().zip(machines) {
        *to = Machine::from(*from);
    }
    let mut p: [LicensePool; BF_MAX_POOLS] = [LicensePool {
        count: 0,
        machines: MachineSet(0),
    }; BF_MAX_POOLS];
    for (to, from) in p.iter_mut().zip(pools) {
        *to = LicensePool::from(*from);
    }
    Cluster::new(
        m.get(..machines.len()).unwrap_or_default(),
        p.get(..pools.len()).unwrap_or_default(),
    )
}

/// What the search-based policies did (`bf_kernel_counters`); every field
/// saturates, and a policy leaves the others' at 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_counters {
    /// DPSA: passes that ran the subset search.
    pub dpsa_searches: u64,
    /// DPSA: search nodes visited.
    pub dpsa_nodes: u64,
    /// DPSA: searches stopped by the node budget.
    pub dpsa_budget_hits: u64,
    /// DPSA: passes with more candidates than one search considers (128).
    pub dpsa_overflows: u64,
    /// CONS+RS: searches run.
    pub rs_searches: u64,
    /// CONS+RS: iterations run.
    pub rs_iterations: u64,
    /// CONS+RS: moves kept.
    pub rs_accepted: u64,
    /// CONS+RS: moves undone because a job would have passed its guarantee.
    pub rs_rejected_guarantee: u64,
    /// CONS+RS: moves undone because the objective did not improve.
    pub rs_rejected_objective: u64,
    /// CONS+RS: iterations that found no gap.
    pub rs_no_gap: u64,
    /// CONS+RS: iterations skipped because the gap's window was too crowded.
    pub rs_too_crowded: u64,
    /// BF_MOD: times the reservation passed to another job.
    pub reservation_handovers: u64,
}

impl From<&Counters> for bf_counters {
    fn from(c: &Counters) -> Self {
        Self {
            dpsa_searches: c.dpsa_searches,
            dpsa_nodes: c.dpsa_nodes,
            dpsa_budget_hits: c.dpsa_budget_hits,
            dpsa_overflows: c.dpsa_overflows,
            rs_searches: c.rs_searches,
            rs_iterations: c.rs_iterations,
            rs_accepted: c.rs_accepted,
            rs_rejected_guarantee: c.rs_rejected_guarantee,
            rs_rejected_objective: c.rs_rejected_objective,
            rs_no_gap: c.rs_no_gap,
            rs_too_crowded: c.rs_too_crowded,
            reservation_handovers: c.reservation_handovers,
        }
    }
}

/// One step of an availability profile: `free` units from `at` until the
/// next step's `at` (the last step lasts forever).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_step {
    /// Where the step begins.
    pub at: u32,
    /// Free processors (a machine) or copies (a license pool).
    pub free: u32,
}

impl From<&Step> for bf_step {
    fn from(s: &Step) -> Self {
        Self {
            at: s.at,
            free: s.free,
        }
    }
}

/// Which resource's profile `bf_kernel_plan_steps` reads.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum bf_resource {
    /// A machine's processors.
    BF_RESOURCE_MACHINE = 0,
    /// A license pool's copies.
    BF_RESOURCE_LICENSE = 1,
}

/// A kernel's capacities (`bf_kernel_capacity`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_capacity {
    /// Waiting jobs the tier holds.
    pub queued: usize,
    /// Waiting jobs `bf_kernel_submit` accepts now (`bf_kernel_set_queue_limit`).
    pub queue_limit: usize,
    /// Running jobs.
    pub running: usize,
    /// Steps of each availability profile.
    pub steps: usize,
    /// Machines of a cluster.
    pub machines: usize,
    /// License pools of a cluster.
    pub pools: usize,
}

/// The error of the kernel's latest call (`bf_kernel_last_error`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_error {
    /// Its code (a `bf_status`); `BF_OK` when the latest call succeeded.
    pub status: i32,
    /// Whether it names a job (then `job` is its id).
    pub has_job: bool,
    /// The job it names; 0 when `has_job` is false.
    pub job: u32,
    /// `BF_ERR_TIME_WENT_BACKWARDS`: the refused time (else 0).
    pub now: u32,
    /// `BF_ERR_TIME_WENT_BACKWARDS`: the kernel's time (else 0).
    pub current: u32,
}

/// Selective with an adaptive threshold: the bounded slowdowns averaged so
/// far (`bf_kernel_slowdown_average`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bf_slowdown_average {
    /// Jobs counted.
    pub count: u64,
    /// Sum of their bounded slowdowns, thousandths.
    pub sum: u64,
}

impl From<&SlowdownAverage> for bf_slowdown_average {
    fn from(a: &SlowdownAverage) -> Self {
        Self {
            count: a.count,
            sum: a.sum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_round_trip() {
        let job = Job::new(7, 3, 4, 100).with_deadline(Some(500));
        let c = bf_job::from(&job);
        assert_eq!((c.deadline, c.procs), (500, 4));
        assert_eq!(Job::from(c), job);
        assert_eq!(bf_job::from(&Job::new(1, 0, 1, 1)).deadline, BF_NO_DEADLINE);
    }

    #[test]
    fn clusters_are_checked_as_the_kernel_checks_them() {
        let m = |cpus, speed| bf_machine { cpus, speed };
        let c = cluster_of(&[m(4, 1000), m(8, 2000)], &[]).unwrap();
        assert_eq!((c.machines().len(), c.order()), (2, &[1, 0][..]));
        assert_eq!(cluster_of(&[], &[]).unwrap_err(), ClusterError::Empty);
        assert_eq!(
            cluster_of(&[m(4, 1000), m(0, 1000)], &[]).unwrap_err(),
            ClusterError::BadMachine(1)
        );
        assert_eq!(
            cluster_of(&[m(1, 1); 17], &[]).unwrap_err(),
            ClusterError::TooMany
        );
        let pool = bf_license_pool {
            count: 2,
            machines: 0b10,
        };
        assert_eq!(
            cluster_of(&[m(1, 1)], &[pool; 9]).unwrap_err(),
            ClusterError::TooMany
        );
        let c = cluster_of(&[m(4, 1000), m(4, 1000)], &[pool]).unwrap();
        let mut job = Job::new(1, 0, 2, 10);
        job.licenses = LicenseSet(1);
        assert!(!c.eligible(&job, 0) && c.eligible(&job, 1));
    }
}
