//! The flexible-backfilling paper's random farms and job streams.
//!
//! The paper (section 7): 100 machines, 20 software licenses, 1000 jobs;
//! exponential inter-arrival times with mean 4, 6, 12, 24 or 48 time units;
//! uniform draws of a job's estimated execution time in [500, 3000], its
//! deadline margin in [30, 250], the CPUs of a job or a machine in [1, 8],
//! a license's ratio of concurrently usable copies in [50%, 70%]; a license
//! is usable on a machine with probability 90% (suitability), a job needs a
//! license with probability 30% (needs); 30% of jobs have no deadline.
//! Every one of these is a field of [`FarmSpec`] (and an option of
//! `host-cli generate farm`), with the paper's value as default.
//!
//! Readings where the paper is silent (`docs/design.md`, "Choices where the papers are vague"), each
//! documented on its field: a license's copies are `ratio * (machines
//! where it is usable)`, rounded down, at least 1; suitability and needs
//! are drawn per (license, machine) and per (job, license) pair; the
//! deadline is `submit + estimate + margin` (margin in time units;
//! [`MarginKind::Percent`] reads it as a percentage of the estimate
//! instead); the actual run time equals the estimate (the paper only
//! generates estimates; [`FarmSpec::runtime_percent`] can draw it lower);
//! machines have the reference speed (the paper orders machines by power
//! but gives no distribution; [`FarmSpec::speed`] can draw speeds).
//!
//! Draw order, fixed so the same seed gives the same files: per machine
//! (CPUs, speed); per license (suitability for each machine, ratio); per
//! job (inter-arrival gap, CPUs, estimate, run-time share, needs for each
//! license, deadline or not, margin). One SplitMix64 stream from the seed;
//! logarithms through `libm` (bit-identical on every platform). Integer
//! draws are uniform over the inclusive range.

use super::{Farm, FarmJob, FarmLicense, FarmMachine, FarmWorkload};
use crate::workload::rng::{Draws, SplitMix64};

/// How the deadline margin is read.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum MarginKind {
    /// Time units: `deadline = submit + estimate + margin` (the literal
    /// reading, the default).
    Absolute,
    /// Percent of the estimate: `deadline = submit + estimate * (1 + margin / 100)`.
    Percent,
}

/// Every parameter of the generator; [`FarmSpec::default`] is the paper's.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FarmSpec {
    /// Machines (paper: 100).
    pub machines: u32,
    /// License pools (paper: 20).
    pub licenses: u32,
    /// Jobs (paper: 1000).
    pub jobs: u32,
    /// Mean of the exponential inter-arrival time (paper: 4, 6, 12, 24 and
    /// 48; default 12, the middle one).
    pub mean_interarrival: f64,
    /// Estimated execution time on a reference machine, uniform (paper:
    /// 500-3000).
    pub estimate: (u32, u32),
    /// Deadline margin, uniform (paper: 30-250; see [`MarginKind`]).
    pub margin: (u32, u32),
    /// How the margin is read.
    pub margin_kind: MarginKind,
    /// CPUs a job needs, uniform (paper: 1-8).
    pub job_cpus: (u32, u32),
    /// CPUs of a machine, uniform (paper: 1-8).
    pub machine_cpus: (u32, u32),
    /// A license's copies as a percentage of the machines where it is
    /// usable, uniform (paper: 50-70%).
    pub license_ratio: (u32, u32),
    /// Chance in percent that a license is usable on a machine (paper: 90).
    pub suitability: u32,
    /// Chance in percent that a job needs a license, per license (paper: 30).
    pub needs: u32,
    /// Percent of jobs without a deadline (paper: 30).
    pub no_deadline: u32,
    /// Machine speed in thousandths, uniform (paper: not given; default
    /// 1000-1000, every machine the reference).
    pub speed: (u32, u32),
    /// Actual run time as a percentage of the estimate, uniform (paper:
    /// only estimates; default 100-100).
    pub runtime_percent: (u32, u32),
    /// Seed of the pseudo-random stream.
    pub seed: u64,
}

impl Default for FarmSpec {
    fn default() -> Self {
        Self {
            machines: 100,
            licenses: 20,
            jobs: 1000,
            mean_interarrival: 12.0,
            estimate: (500, 3000),
            margin: (30, 250),
            margin_kind: MarginKind::Absolute,
            job_cpus: (1, 8),
            machine_cpus: (1, 8),
            license_ratio: (50, 70),
            suitability: 90,
            needs: 30,
            no_deadline: 30,
            speed: (1000, 1000),
            runtime_percent: (100, 100),
            seed: 1,
        }
    }
}

impl FarmSpec {
    /// Checks the ranges.
    ///
    /// # Errors
    /// A message naming the first bad parameter.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let range = |name: &str, (lo, hi): (u32, u32), min: u32| {
            if lo > hi {
                Err(format!("{name}: the range {lo}-{hi} is empty"))
            } else if lo < min {
                Err(format!("{name}: must be at least {min}, got {lo}"))
            } else {
                Ok(())
            }
        };
        let percent = |name: &str, v: u32| {
            if v > 100 {
                Err(format!("{name}: a percentage from 0 to 100, got {v}"))
            } else {
                Ok(())
            }
        };
        if self.machines == 0 || self.machines as usize > super::format::MAX_MACHINES {
            return Err(format!(
                "machines: from 1 to {}, got {}",
                super::format::MAX_MACHINES,
                self.machines
            ));
        }
        if self.licenses as usize > super::format::MAX_LICENSES {
            return Err(format!(
                "licenses: from 0 to {}, got {}",
                super::format::MAX_LICENSES,
                self.licenses
            ));
        }
        if !(self.mean_interarrival.is_finite() && self.mean_interarrival >= 0.0) {
            return Err(format!(
                "mean inter-arrival: a number >= 0, got {}",
                self.mean_interarrival
            ));
        }
        range("estimate", self.estimate, 1)?;
        range("margin", self.margin, 0)?;
        range("job CPUs", self.job_cpus, 1)?;
        range("machine CPUs", self.machine_cpus, 1)?;
        range("license ratio", self.license_ratio, 0)?;
        range("speed", self.speed, 1)?;
        range("run time percent", self.runtime_percent, 0)?;
        percent("license ratio", self.license_ratio.1)?;
        percent("run time percent", self.runtime_percent.1)?;
        percent("suitability", self.suitability)?;
        percent("needs", self.needs)?;
        percent("no deadline", self.no_deadline)?;
        Ok(())
    }

    /// The parameters as one line (for file headers).
    #[must_use]
    pub(crate) fn describe(&self) -> String {
        let margin = match self.margin_kind {
            MarginKind::Absolute => "",
            MarginKind::Percent => "% of the estimate",
        };
        format!(
            "seed {}: {} machines of {}-{} CPUs at speed {}-{}/1000, {} licenses (ratio {}-{}%, suitability {}%), {} jobs (mean inter-arrival {}, estimate {}-{}, run time {}-{}% of it, CPUs {}-{}, needs {}% per license, deadline margin {}-{}{margin}, {}% without deadline)",
            self.seed,
            self.machines,
            self.machine_cpus.0,
            self.machine_cpus.1,
            self.speed.0,
            self.speed.1,
            self.licenses,
            self.license_ratio.0,
            self.license_ratio.1,
            self.suitability,
            self.jobs,
            self.mean_interarrival,
            self.estimate.0,
            self.estimate.1,
            self.runtime_percent.0,
            self.runtime_percent.1,
            self.job_cpus.0,
            self.job_cpus.1,
            self.needs,
            self.margin.0,
            self.margin.1,
            self.no_deadline,
        )
    }
}

/// A farm and a job stream drawn from `spec`.
///
/// # Errors
/// A message naming a bad parameter ([`FarmSpec::validate`]).
pub fn generate(spec: &FarmSpec) -> Result<FarmWorkload, String> {
    spec.validate()?;
    let mut draw = SplitMix64::new(spec.seed);
    let width = |n: u32| (n.max(1) - 1).to_string().len();
    let machine_width = width(spec.machines);
    let mut farm = Farm::default();
    for m in 0..spec.machines {
        let cpus = draw.uniform(spec.machine_cpus);
        let speed = draw.uniform(spec.speed);
        farm.machines.push(FarmMachine {
            name: format!("m{m:0machine_width$}"),
            cpus,
            speed,
        });
    }
    let license_width = width(spec.licenses).max(2);
    for l in 0..spec.licenses {
        let machines: Vec<usize> = (0..farm.machines.len())
            .filter(|_| draw.chance(spec.suitability))
            .collect();
        let ratio = draw.uniform(spec.license_ratio);
        let usable = u32::try_from(machines.len()).unwrap_or(u32::MAX);
        let copies = u32::try_from(u64::from(ratio) * u64::from(usable) / 100).unwrap_or(u32::MAX);
        let copies = if usable == 0 { 0 } else { copies.max(1) };
        farm.licenses.push(FarmLicense {
            name: format!("lic{l:0license_width$}"),
            copies,
            machines,
        });
    }
    let mut clock = 0.0f64;
    let mut jobs = Vec::with_capacity(spec.jobs as usize);
    for id in 1..=spec.jobs {
        clock += draw.exponential(spec.mean_interarrival);
        let submit = if clock >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            // Non-negative and in range: whole time units, rounded down.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let t = clock.floor() as u32;
            t
        };
        let cpus = draw.uniform(spec.job_cpus);
        let estimate = draw.uniform(spec.estimate);
        let share = draw.uniform(spec.runtime_percent);
        let runtime =
            u32::try_from(u64::from(estimate) * u64::from(share) / 100).unwrap_or(u32::MAX);
        let licenses: Vec<usize> = (0..farm.licenses.len())
            .filter(|_| draw.chance(spec.needs))
            .collect();
        let has_deadline = !draw.chance(spec.no_deadline);
        let margin = draw.uniform(spec.margin);
        let deadline = has_deadline.then(|| {
            let slack = match spec.margin_kind {
                MarginKind::Absolute => u64::from(margin),
                MarginKind::Percent => u64::from(estimate) * u64::from(margin) / 100,
            };
            let at = u64::from(submit) + u64::from(estimate) + slack;
            u32::try_from(at).unwrap_or(u32::MAX)
        });
        jobs.push(FarmJob {
            id,
            submit,
            cpus,
            estimate,
            runtime,
            deadline,
            licenses,
        });
    }
    Ok(FarmWorkload { farm, jobs })
}

#[cfg(test)]
mod tests;
