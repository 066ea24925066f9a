//! Heterogeneous farms: the flexible-backfilling paper's system (Baraglia,
//! Capannini, Pasquali, Puppin, Ricci and Techiouba, *Backfilling strategies
//! for scheduling streams of jobs on computational farms*, 2007).
//!
//! * [`format`](mod@format): the farm description people read and write, a TOML file of
//!   machines (CPUs, speed) and license pools (copies, eligible machines),
//!   and a CSV job list (id, submit, CPUs, estimate, run time, deadline,
//!   licenses), with errors naming file, line and field;
//! * [`generate`]: the paper's random farms and job streams, seeded
//!   (`host-cli generate farm`);
//! * [`replay`]: the farm replay driver around core's `Simulator` (jobs no
//!   machine can run are counted by reason, never dropped);
//! * [`metrics`]: the paper's metrics (system usage, deadlines missed,
//!   slowdown) and license usage;
//! * [`report`]: `host-cli replay --farm`'s report and per-job CSV;
//! * [`study`]: `host-cli farm-study`, the paper's experiment grid and its
//!   license-ratio sweep, with CSV and SVG output (drawn by
//!   [`crate::studies::plot`]).
//!
//! The farm commands' options and handlers are in [`crate::cli`].

pub mod format;
pub mod generate;
pub(crate) mod metrics;
pub mod replay;
pub(crate) mod report;
pub mod study;

use backfill_core::{
    Cluster, Job, JobId, LicensePool, LicenseSet, Machine, MachineSet, SimJob, Time,
};
use replay::{FARM_L, FARM_M};

/// One machine of a farm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarmMachine {
    /// Its name (unique in the farm).
    pub name: String,
    /// Processors.
    pub cpus: u32,
    /// Speed in thousandths of the reference machine (1000 = 1.0).
    pub speed: u32,
}

/// A pool of floating licenses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarmLicense {
    /// Its name (unique in the farm).
    pub name: String,
    /// Copies usable at once.
    pub copies: u32,
    /// Indices of the machines where a copy can be activated, ascending.
    pub machines: Vec<usize>,
}

/// Machines and license pools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Farm {
    /// Machines, by index.
    pub machines: Vec<FarmMachine>,
    /// License pools, by index.
    pub licenses: Vec<FarmLicense>,
}

/// A job of a farm's job list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarmJob {
    /// Identifier (unique in the list).
    pub id: JobId,
    /// Submit time.
    pub submit: Time,
    /// Processors, on one machine.
    pub cpus: u32,
    /// Run-time estimate on a reference-speed machine (the job is killed there).
    pub estimate: u32,
    /// Actual run time on a reference-speed machine.
    pub runtime: u32,
    /// Deadline, if any.
    pub deadline: Option<Time>,
    /// Indices of the license pools it needs one copy of each, ascending.
    pub licenses: Vec<usize>,
}

impl FarmJob {
    /// The kernel's view of the job (the replay loop adds the run time).
    #[must_use]
    pub(crate) fn job(&self) -> Job {
        let mut job = Job::new(self.id, self.submit, self.cpus, self.estimate);
        job = job.with_deadline(self.deadline);
        job.licenses = LicenseSet(
            self.licenses
                .iter()
                .filter(|&&l| l < 32)
                .fold(0, |bits, &l| bits | (1 << l)),
        );
        job
    }
}

/// Why a farm cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarmLimitError(pub(crate) String);

impl std::fmt::Display for FarmLimitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FarmLimitError {}

impl Farm {
    /// Total processors.
    #[must_use]
    pub(crate) fn total_cpus(&self) -> u64 {
        self.machines.iter().map(|m| u64::from(m.cpus)).sum()
    }

    /// The kernel's cluster.
    ///
    /// # Errors
    /// More than [`FARM_M`] machines or [`FARM_L`] license pools, or a
    /// machine without processors or speed.
    pub(crate) fn cluster(&self) -> Result<Cluster<FARM_M, FARM_L>, FarmLimitError> {
        let machines: Vec<Machine> = self
            .machines
            .iter()
            .map(|m| Machine {
                cpus: m.cpus,
                speed: m.speed,
            })
            .collect();
        let pools: Vec<LicensePool> = self
            .licenses
            .iter()
            .map(|l| LicensePool {
                count: l.copies,
                machines: MachineSet(
                    l.machines
                        .iter()
                        .filter(|&&m| m < MachineSet::CAPACITY)
                        .fold(0, |bits, &m| bits | (1 << m)),
                ),
            })
            .collect();
        if machines.len() > FARM_M || pools.len() > FARM_L {
            return Err(FarmLimitError(format!(
                "the farm has {} machines and {} license pools; at most {FARM_M} and {FARM_L} are supported",
                machines.len(),
                pools.len()
            )));
        }
        Cluster::new(&machines, &pools).map_err(|e| FarmLimitError(format!("bad farm: {e}")))
    }
}

/// A farm and its job list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FarmWorkload {
    /// The farm.
    pub(crate) farm: Farm,
    /// The jobs, in file order.
    pub(crate) jobs: Vec<FarmJob>,
}

impl FarmWorkload {
    /// The kernel's cluster ([`Farm::cluster`]).
    ///
    /// # Errors
    /// As [`Farm::cluster`].
    pub fn cluster(&self) -> Result<Cluster<FARM_M, FARM_L>, FarmLimitError> {
        self.farm.cluster()
    }

    /// Every job as replay input, sorted by `(submit, id)`.
    #[must_use]
    pub fn sim_jobs(&self) -> Vec<SimJob> {
        let mut jobs: Vec<SimJob> = self
            .jobs
            .iter()
            .map(|j| SimJob {
                job: j.job(),
                runtime: j.runtime,
            })
            .collect();
        jobs.sort_by_key(|j| (j.job.submit, j.job.id));
        jobs
    }
}
