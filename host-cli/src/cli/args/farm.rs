//! The farm commands' options: `host-cli generate farm`, `host-cli
//! farm-study`, and the flexible-backfilling heuristics shared by `replay`
//! and `farm-study`.

use crate::farm::generate::{FarmSpec, MarginKind};
use crate::numbers::parse_thousandths;
use backfill_core::policy::Heuristics;
use backfill_core::Policy;
use clap::Args;
use std::path::PathBuf;

/// `LO,HI` of whole numbers.
///
/// # Errors
/// A message when the text is not two whole numbers.
pub(crate) fn parse_range(text: &str) -> Result<(u32, u32), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("expected LO,HI, found '{text}'"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("expected a whole number, found '{s}'"))
    };
    Ok((number(lo)?, number(hi)?))
}

/// `LO,HI` of decimals, in thousandths.
///
/// # Errors
/// A message when the text is not two non-negative numbers.
pub(crate) fn parse_milli_range(text: &str) -> Result<(u32, u32), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("expected LO,HI, found '{text}'"))?;
    Ok((parse_thousandths(lo)?, parse_thousandths(hi)?))
}

/// The flexible-backfilling heuristics (bf-unmod, bf-mod): weights and
/// constants, in points (one point = 1000 of the kernel's milli-points).
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Flexible-backfilling heuristics (bf-unmod, bf-mod)")]
pub(crate) struct HeuristicsArgs {
    /// bf-unmod/bf-mod: weight of the aging heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) aging_weight: u32,
    /// bf-unmod/bf-mod: aging points per second of wait (age_factor).
    #[arg(long, value_name = "F", default_value = "0.001", value_parser = parse_thousandths)]
    pub(crate) age_factor: u32,
    /// bf-unmod/bf-mod: weight of the deadline heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) deadline_weight: u32,
    /// bf-unmod/bf-mod: deadline score far from the deadline (min).
    #[arg(long, value_name = "POINTS", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) deadline_min: u32,
    /// bf-unmod/bf-mod: deadline score at the deadline (max).
    #[arg(long, value_name = "POINTS", default_value = "10", value_parser = parse_thousandths)]
    pub(crate) deadline_max: u32,
    /// bf-unmod/bf-mod: the score rises over the last k estimates before the deadline.
    #[arg(long, value_name = "K", default_value = "2", value_parser = parse_thousandths)]
    pub(crate) deadline_k: u32,
    /// bf-unmod/bf-mod: weight of the licenses heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) license_weight: u32,
    /// bf-unmod/bf-mod: weight of the wait-minimisation heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) wait_weight: u32,
    /// bf-unmod/bf-mod: wait-minimisation score of the shortest job (priority_boost_value).
    #[arg(long, value_name = "POINTS", default_value = "1", value_parser = parse_thousandths)]
    pub(crate) boost: u32,
}

impl HeuristicsArgs {
    /// The kernel's heuristics.
    #[must_use]
    pub(crate) const fn heuristics(&self) -> Heuristics {
        Heuristics {
            aging_weight: self.aging_weight,
            age_factor: self.age_factor,
            deadline_weight: self.deadline_weight,
            deadline_min: self.deadline_min,
            deadline_max: self.deadline_max,
            deadline_k: self.deadline_k,
            license_weight: self.license_weight,
            wait_weight: self.wait_weight,
            wait_boost: self.boost,
        }
    }

    /// `policy` with these heuristics when it is BF_UNMOD or BF_MOD.
    #[must_use]
    pub(crate) const fn apply(&self, policy: Policy) -> Policy {
        match policy {
            Policy::BfUnmod(_) => Policy::BfUnmod(self.heuristics()),
            Policy::BfMod(_) => Policy::BfMod(self.heuristics()),
            other => other,
        }
    }
}

/// The generator's parameters as options; defaults are the paper's.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Farm generator")]
pub(crate) struct FarmSpecArgs {
    /// Machines.
    #[arg(long, default_value_t = FarmSpec::default().machines)]
    pub(crate) machines: u32,
    /// License pools.
    #[arg(long, default_value_t = FarmSpec::default().licenses)]
    pub(crate) licenses: u32,
    /// Jobs.
    #[arg(long, default_value_t = FarmSpec::default().jobs)]
    pub(crate) jobs: u32,
    /// Mean of the exponential inter-arrival time (the paper: 4, 6, 12, 24, 48).
    #[arg(long, value_name = "T", default_value_t = FarmSpec::default().mean_interarrival)]
    pub(crate) mean_interarrival: f64,
    /// Estimated execution time on a reference machine, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "500,3000", value_parser = parse_range)]
    pub(crate) estimate: (u32, u32),
    /// Deadline margin, uniform (see --margin-kind).
    #[arg(long, value_name = "LO,HI", default_value = "30,250", value_parser = parse_range)]
    pub(crate) margin: (u32, u32),
    /// absolute: deadline = submit + estimate + margin; percent: margin is a percentage of the estimate.
    #[arg(long, value_enum, default_value_t = MarginKind::Absolute)]
    pub(crate) margin_kind: MarginKind,
    /// CPUs of a job, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "1,8", value_parser = parse_range)]
    pub(crate) job_cpus: (u32, u32),
    /// CPUs of a machine, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "1,8", value_parser = parse_range)]
    pub(crate) machine_cpus: (u32, u32),
    /// A license's copies, percent of the machines where it is usable, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "50,70", value_parser = parse_range)]
    pub(crate) license_ratio: (u32, u32),
    /// Percent chance that a license is usable on a machine.
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().suitability)]
    pub(crate) suitability: u32,
    /// Percent chance that a job needs a license (per license).
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().needs)]
    pub(crate) needs: u32,
    /// Percent of jobs without a deadline.
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().no_deadline)]
    pub(crate) no_deadline: u32,
    /// Machine speed relative to the reference, uniform (e.g. 0.5,2).
    #[arg(long, value_name = "LO,HI", default_value = "1,1", value_parser = parse_milli_range)]
    pub(crate) speed: (u32, u32),
    /// Actual run time, percent of the estimate, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "100,100", value_parser = parse_range)]
    pub(crate) runtime_percent: (u32, u32),
    /// Seed of the pseudo-random stream.
    #[arg(long, default_value_t = FarmSpec::default().seed)]
    pub(crate) seed: u64,
}

impl FarmSpecArgs {
    /// The generator's parameters.
    #[must_use]
    pub(crate) const fn spec(&self) -> FarmSpec {
        FarmSpec {
            machines: self.machines,
            licenses: self.licenses,
            jobs: self.jobs,
            mean_interarrival: self.mean_interarrival,
            estimate: self.estimate,
            margin: self.margin,
            margin_kind: self.margin_kind,
            job_cpus: self.job_cpus,
            machine_cpus: self.machine_cpus,
            license_ratio: self.license_ratio,
            suitability: self.suitability,
            needs: self.needs,
            no_deadline: self.no_deadline,
            speed: self.speed,
            runtime_percent: self.runtime_percent,
            seed: self.seed,
        }
    }
}

/// The farm description `generate farm` writes without `--farm-out`.
pub(crate) const DEFAULT_FARM_OUT: &str = "farm.toml";
/// The job list `generate farm` writes without `--jobs-out`.
pub(crate) const DEFAULT_JOBS_OUT: &str = "jobs.csv";

/// `host-cli generate farm`.
#[derive(Debug, Args)]
pub(crate) struct GenerateFarmArgs {
    /// The farm description to write (TOML) [default: farm.toml, never
    /// replaced without --force].
    #[arg(long, value_name = "FILE.toml")]
    pub(crate) farm_out: Option<PathBuf>,
    /// The job list to write (CSV) [default: jobs.csv, never replaced
    /// without --force].
    #[arg(long, value_name = "FILE.csv")]
    pub(crate) jobs_out: Option<PathBuf>,
    /// Replace farm.toml and jobs.csv when they exist (without --farm-out
    /// and --jobs-out).
    #[arg(long)]
    pub(crate) force: bool,
    /// The generator's parameters.
    #[command(flatten)]
    pub(crate) spec: FarmSpecArgs,
}

/// `host-cli farm-study`.
#[derive(Debug, Args)]
pub(crate) struct FarmStudyArgs {
    /// Mean inter-arrival times of the grid, comma-separated.
    #[arg(
        long,
        value_name = "T,T,...",
        value_delimiter = ',',
        default_value = "4,6,12,24,48"
    )]
    pub(crate) means: Vec<f64>,
    /// Repetitions of each setting (seeds SEED, SEED+1, ...).
    #[arg(long, default_value_t = 20)]
    pub(crate) repetitions: u32,
    /// Policies, comma-separated (fcfs, easy, bf-fcfs, bf-unmod, bf-mod, ...).
    #[arg(
        long,
        value_name = "P,P,...",
        value_delimiter = ',',
        default_value = "fcfs,bf-fcfs,bf-unmod,bf-mod"
    )]
    pub(crate) policies: Vec<String>,
    /// License ratio ranges of the license sweep (LO-HI percent), comma-separated.
    #[arg(
        long,
        value_name = "LO-HI,...",
        value_delimiter = ',',
        default_value = "10-30,20-40,30-50,40-60,50-70,60-80,70-90"
    )]
    pub(crate) license_ratios: Vec<String>,
    /// Mean inter-arrival time of the license sweep.
    #[arg(long, value_name = "T", default_value_t = 12.0)]
    pub(crate) license_mean: f64,
    /// Skip the license sweep.
    #[arg(long)]
    pub(crate) no_license_sweep: bool,
    /// Directory for farm-*.csv (created if missing).
    #[arg(long, value_name = "DIR")]
    pub(crate) data_dir: Option<PathBuf>,
    /// Directory for farm-*.svg (created if missing).
    #[arg(long, value_name = "DIR")]
    pub(crate) figures_dir: Option<PathBuf>,
    /// Replace farm-*.csv and farm-*.svg files that exist in those
    /// directories.
    #[arg(long)]
    pub(crate) force: bool,
    /// The generator's other parameters (its --mean-interarrival, --license-ratio
    /// and --seed are the grid's; the seed is the first repetition's).
    #[command(flatten)]
    pub(crate) spec: FarmSpecArgs,
    /// The heuristics of bf-unmod and bf-mod.
    #[command(flatten)]
    pub(crate) heuristics: HeuristicsArgs,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The heuristics' options alone.
    #[derive(Debug, Parser)]
    struct Only {
        #[command(flatten)]
        heuristics: HeuristicsArgs,
    }

    #[test]
    fn the_options_default_to_the_kernels_heuristics() {
        let only = Only::try_parse_from(["host-cli"]).unwrap();
        assert_eq!(only.heuristics.heuristics(), Heuristics::DEFAULT);
        let only = Only::try_parse_from(["host-cli", "--age-factor", "0.5"]).unwrap();
        assert_eq!(
            only.heuristics.heuristics(),
            Heuristics {
                age_factor: 500,
                ..Heuristics::DEFAULT
            }
        );
    }
}
