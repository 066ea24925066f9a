//! Value types: time, jobs, machines, license pools, the cluster, and the
//! job categories (by length and width) that metrics and Selective-D share.
//!
//! Time is an integer count of seconds ([`Time`], [`Duration`], both `u32`):
//! 136 years of range, exact arithmetic, and half the memory of `u64` in the
//! fixed-capacity tables. Every addition on times in this crate is checked;
//! overflow is reported as [`KernelError::TimeOverflow`](crate::KernelError).

use heapless::Vec;

/// An instant, in whole seconds since an origin the host chooses.
pub type Time = u32;

/// `t`, or `None` for `Time::MAX`: the "none" that [`Job`]'s deadline and
/// a queued job's guarantee keep without an `Option` tag.
pub(crate) const fn unless_max(t: Time) -> Option<Time> {
    if t == Time::MAX {
        None
    } else {
        Some(t)
    }
}
/// A length of time in whole seconds.
pub type Duration = u32;
/// A job's identifier; unique among the jobs the kernel holds.
pub type JobId = u32;
/// A processor count.
pub type Procs = u32;
/// Index of a machine in its [`Cluster`].
pub type MachineId = u8;

/// Machine speed of the reference machine, in thousandths.
///
/// A job's estimate (and run time) is stated for a machine of this speed; on
/// machine `m` it takes `ceil(estimate * 1000 / speed[m])` seconds.
pub const REFERENCE_SPEED: u32 = 1000;

/// The set of license pools a job needs one copy of each (bit `l` = pool `l`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LicenseSet(pub u32);

impl LicenseSet {
    /// No licenses.
    pub const EMPTY: Self = Self(0);

    /// Whether pool `pool` is in the set.
    #[must_use]
    pub const fn contains(self, pool: usize) -> bool {
        pool < 32 && (self.0 >> pool) & 1 == 1
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// A set of machines (bit `m` = machine `m`); at most
/// [`MachineSet::CAPACITY`] (128) machines, enough for the flexible
/// backfilling paper's 100-machine farms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MachineSet(pub u128);

impl MachineSet {
    /// Every machine.
    pub const ALL: Self = Self(u128::MAX);
    /// The most machines a set can name.
    pub const CAPACITY: usize = 128;

    /// Whether machine `machine` is in the set.
    #[must_use]
    pub const fn contains(self, machine: usize) -> bool {
        machine < Self::CAPACITY && (self.0 >> machine) & 1 == 1
    }
}

/// A job as the scheduler sees it: what it asks for, never how long it really runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    /// Unique identifier.
    pub id: JobId,
    /// When the job was submitted; wait is counted from here.
    pub submit: Time,
    /// Processors it holds on one machine for its whole run.
    pub procs: Procs,
    /// The user's run-time estimate (wall-clock limit) on a reference-speed
    /// machine; the job is killed when it is reached. At least 1.
    pub estimate: Duration,
    /// When the job should have finished; [`Job::NO_DEADLINE`] (the end of
    /// time) when it has no deadline. [`Job::deadline`] reads it as an
    /// `Option`. (A plain `Time` keeps a job at 32 bytes: `Option<Time>`
    /// takes 8.)
    pub deadline: Time,
    /// License pools it needs one copy of each.
    pub licenses: LicenseSet,
    /// User priority (larger is more urgent); used by priority-driven policies.
    pub priority: i32,
    /// A value the kernel carries and never reads. The replay loop stores the
    /// job's actual run time here; a firmware host may store a handle.
    pub tag: u32,
}

impl Job {
    /// The [`deadline`](Job::deadline) of a job that has none.
    pub const NO_DEADLINE: Time = Time::MAX;

    /// A job with no deadline, no licenses, priority 0 and tag 0.
    #[must_use]
    pub const fn new(id: JobId, submit: Time, procs: Procs, estimate: Duration) -> Self {
        Self {
            id,
            submit,
            procs,
            estimate,
            deadline: Self::NO_DEADLINE,
            licenses: LicenseSet::EMPTY,
            priority: 0,
            tag: 0,
        }
    }

    /// The deadline, if the job has one.
    #[must_use]
    pub const fn deadline(&self) -> Option<Time> {
        unless_max(self.deadline)
    }

    /// The job with `deadline` (`None`: no deadline).
    #[must_use]
    pub const fn with_deadline(self, deadline: Option<Time>) -> Self {
        Self {
            deadline: match deadline {
                Some(t) => t,
                None => Self::NO_DEADLINE,
            },
            ..self
        }
    }
}

/// One machine of a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// Processors.
    pub cpus: Procs,
    /// Speed in thousandths of the reference machine ([`REFERENCE_SPEED`] = 1.0).
    pub speed: u32,
}

impl Machine {
    /// A reference-speed machine with `cpus` processors.
    #[must_use]
    pub const fn new(cpus: Procs) -> Self {
        Self {
            cpus,
            speed: REFERENCE_SPEED,
        }
    }

    /// How long `reference` seconds of work take here, rounded up; `None` on overflow.
    #[must_use]
    #[inline]
    pub fn scale(&self, reference: Duration) -> Option<Duration> {
        if self.speed == REFERENCE_SPEED {
            return Some(reference);
        }
        let scaled = u64::from(reference)
            .checked_mul(u64::from(REFERENCE_SPEED))?
            .div_ceil(u64::from(self.speed.max(1)));
        Duration::try_from(scaled).ok()
    }
}

/// A pool of floating licenses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LicensePool {
    /// Copies usable at once.
    pub count: u32,
    /// Machines on which a copy can be activated.
    pub machines: MachineSet,
}

/// Why a cluster description was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClusterError {
    /// More machines or license pools than the capacity `M` / `L`, or more
    /// than the 128 machines / 32 pools the bit sets can name.
    TooMany,
    /// No machines at all.
    Empty,
    /// A machine with no processors or zero speed.
    BadMachine(usize),
}

impl core::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooMany => f.write_str("more machines or license pools than the capacity"),
            Self::Empty => f.write_str("a cluster needs at least one machine"),
            Self::BadMachine(m) => write!(f, "machine {m} has no processors or zero speed"),
        }
    }
}

impl core::error::Error for ClusterError {}

/// Machines and license pools, with capacities `M` machines and `L` pools.
///
/// An SWF system is one machine with `MaxProcs` processors and no pools:
/// [`Cluster::single`].
#[derive(Clone, Debug)]
pub struct Cluster<const M: usize, const L: usize> {
    machines: Vec<Machine, M>,
    pools: Vec<LicensePool, L>,
    /// Machine indices, fastest first (ties: lower index): the order in which
    /// machines are tried, so equal start times go to the most powerful.
    order: Vec<MachineId, M>,
}

impl<const M: usize, const L: usize> Cluster<M, L> {
    /// A cluster from machines and license pools.
    ///
    /// # Errors
    /// [`ClusterError`] when there are no machines, too many, or a machine
    /// without processors or speed.
    pub fn new(machines: &[Machine], pools: &[LicensePool]) -> Result<Self, ClusterError> {
        if machines.is_empty() {
            return Err(ClusterError::Empty);
        }
        if machines.len() > MachineSet::CAPACITY || pools.len() > 32 {
            return Err(ClusterError::TooMany);
        }
        let mut cluster = Self {
            machines: Vec::new(),
            pools: Vec::new(),
            order: Vec::new(),
        };
        for (index, machine) in machines.iter().enumerate() {
            if machine.cpus == 0 || machine.speed == 0 {
                return Err(ClusterError::BadMachine(index));
            }
            cluster
                .machines
                .push(*machine)
                .map_err(|_| ClusterError::TooMany)?;
            let id = MachineId::try_from(index).map_err(|_| ClusterError::TooMany)?;
            cluster.order.push(id).map_err(|_| ClusterError::TooMany)?;
        }
        for pool in pools {
            cluster
                .pools
                .push(*pool)
                .map_err(|_| ClusterError::TooMany)?;
        }
        let speeds = cluster.machines.clone();
        cluster.order.sort_unstable_by_key(|&m| {
            let speed = speeds.get(usize::from(m)).map_or(0, |x| x.speed);
            (core::cmp::Reverse(speed), m)
        });
        Ok(cluster)
    }

    /// One reference-speed machine with `cpus` processors and no licenses.
    ///
    /// # Errors
    /// [`ClusterError::BadMachine`] when `cpus` is 0; [`ClusterError::TooMany`] when `M` is 0.
    pub fn single(cpus: Procs) -> Result<Self, ClusterError> {
        Self::new(&[Machine::new(cpus)], &[])
    }

    /// The machines, by index.
    #[must_use]
    pub fn machines(&self) -> &[Machine] {
        &self.machines
    }

    /// The license pools, by index.
    #[must_use]
    pub fn pools(&self) -> &[LicensePool] {
        &self.pools
    }

    /// Machine indices, fastest first.
    #[must_use]
    pub fn order(&self) -> &[MachineId] {
        &self.order
    }

    /// Total processors over all machines.
    #[must_use]
    pub fn total_cpus(&self) -> u64 {
        self.machines.iter().map(|m| u64::from(m.cpus)).sum()
    }

    /// How long `job` runs on machine `machine`: its estimate at the
    /// machine's speed (`None` when there is no such machine or the time
    /// does not fit a [`Duration`]).
    pub(crate) fn duration_on(&self, job: &Job, machine: usize) -> Option<Duration> {
        self.machines()
            .get(machine)
            .and_then(|m| m.scale(job.estimate))
    }

    /// Whether `job` could ever run on machine `machine`: enough processors,
    /// and every license it needs can be activated there and exists.
    #[must_use]
    pub fn eligible(&self, job: &Job, machine: usize) -> bool {
        let Some(m) = self.machines.get(machine) else {
            return false;
        };
        if job.procs > m.cpus {
            return false;
        }
        let pools = u32::try_from(self.pools.len()).unwrap_or(u32::MAX);
        if job.licenses.0.checked_shr(pools).unwrap_or(0) != 0 {
            return false; // needs a pool that does not exist
        }
        self.pools.iter().enumerate().all(|(l, pool)| {
            !job.licenses.contains(l) || (pool.count > 0 && pool.machines.contains(machine))
        })
    }

    /// Whether some machine could ever run `job`.
    #[must_use]
    pub fn runnable(&self, job: &Job) -> bool {
        (0..self.machines.len()).any(|m| self.eligible(job, m))
    }
}

/// Test clusters.
#[cfg(test)]
impl<const M: usize> Cluster<M, 1> {
    /// `machines` and one license pool of `copies`, usable on every machine.
    pub(crate) fn with_one_license(machines: &[Machine], copies: u32) -> Self {
        let pool = LicensePool {
            count: copies,
            machines: MachineSet::ALL,
        };
        Self::new(machines, &[pool]).unwrap()
    }
}

/// The run-time floor of the bounded slowdown, in seconds (`docs/design.md`,
/// "Metrics").
pub const SLOWDOWN_BOUND: Duration = 10;

/// Category boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CategoryBounds {
    /// Longest run time (s) of a Short job.
    pub short_max: Duration,
    /// Most processors of a Narrow job.
    pub narrow_max: Procs,
}

impl CategoryBounds {
    /// The paper's bounds for CTC, KTH and SDSC: 1 hour, 8 processors.
    pub const DEFAULT: Self = Self {
        short_max: 3600,
        narrow_max: 8,
    };

    /// The category of a job with this actual run time and width.
    #[must_use]
    pub const fn classify(&self, runtime: Duration, procs: Procs) -> Category {
        match (runtime <= self.short_max, procs <= self.narrow_max) {
            (true, true) => Category::ShortNarrow,
            (true, false) => Category::ShortWide,
            (false, true) => Category::LongNarrow,
            (false, false) => Category::LongWide,
        }
    }
}

impl Default for CategoryBounds {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A job category by length and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Short and narrow.
    ShortNarrow,
    /// Short and wide.
    ShortWide,
    /// Long and narrow.
    LongNarrow,
    /// Long and wide.
    LongWide,
}

impl Category {
    /// All four, in the paper's order.
    pub const ALL: [Self; 4] = [
        Self::ShortNarrow,
        Self::ShortWide,
        Self::LongNarrow,
        Self::LongWide,
    ];

    /// The two-letter label (SN, SW, LN, LW).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::ShortNarrow => "SN",
            Self::ShortWide => "SW",
            Self::LongNarrow => "LN",
            Self::LongWide => "LW",
        }
    }

    /// Index into [`Category::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::{job, AtSpeed};

    /// "No deadline" is the end of time, read back as `None`.
    #[test]
    fn a_job_without_a_deadline_reads_none() {
        let job = job(1).procs(1).estimate(10).job();
        assert_eq!((job.deadline, job.deadline()), (Job::NO_DEADLINE, None));
        let due = job.with_deadline(Some(50));
        assert_eq!((due.deadline, due.deadline()), (50, Some(50)));
        assert_eq!(due.with_deadline(None), job);
        assert_eq!(core::mem::size_of::<Job>(), 32);
    }

    #[test]
    fn machines_are_ordered_fastest_first() {
        let c: Cluster<3, 0> = Cluster::new(
            &[
                Machine::new(4),
                Machine::new(4).at_speed(2000),
                Machine::new(4).at_speed(2000),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(c.order(), &[1, 2, 0]);
        assert_eq!(c.total_cpus(), 12);
    }

    #[test]
    fn eligibility_checks_procs_and_licenses() {
        let c: Cluster<2, 2> = Cluster::new(
            &[Machine::new(4), Machine::new(8)],
            &[
                LicensePool {
                    count: 1,
                    machines: MachineSet(0b01),
                },
                LicensePool {
                    count: 0,
                    machines: MachineSet::ALL,
                },
            ],
        )
        .unwrap();
        let mut job = job(1).procs(6).estimate(10).job();
        assert!(!c.eligible(&job, 0));
        assert!(c.eligible(&job, 1));
        job.licenses = LicenseSet(0b01);
        assert!(
            !c.runnable(&job),
            "pool 0 only on machine 0, which is too small"
        );
        job.procs = 2;
        assert!(c.eligible(&job, 0) && !c.eligible(&job, 1));
        job.licenses = LicenseSet(0b10);
        assert!(!c.runnable(&job), "pool 1 has no copies");
        job.licenses = LicenseSet(0b100);
        assert!(!c.runnable(&job), "pool 2 does not exist");
    }

    #[test]
    fn speed_scales_durations_up() {
        let fast = Machine::new(1).at_speed(2000);
        let slow = Machine::new(1).at_speed(300);
        assert_eq!(fast.scale(11), Some(6));
        assert_eq!(slow.scale(3), Some(10));
        assert_eq!(slow.scale(u32::MAX), None);
        assert_eq!(Machine::new(1).scale(7), Some(7));
    }

    #[test]
    fn bad_clusters_are_refused() {
        assert_eq!(
            Cluster::<1, 0>::new(&[], &[]).unwrap_err(),
            ClusterError::Empty
        );
        assert_eq!(
            Cluster::<1, 0>::single(0).unwrap_err(),
            ClusterError::BadMachine(0)
        );
        assert_eq!(
            Cluster::<1, 0>::new(&[Machine::new(1), Machine::new(1)], &[]).unwrap_err(),
            ClusterError::TooMany
        );
    }
}
