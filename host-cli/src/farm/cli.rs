//! The farm commands' options and entry points: `host-cli generate farm`,
//! `host-cli replay --farm FARM.toml JOBS.csv`, `host-cli farm-study`, and
//! the flexible-backfilling heuristics' options shared by `replay` and
//! `farm-study`.

use super::format::{self, farm_toml, jobs_csv};
use super::generate::{generate, FarmSpec, MarginKind};
use super::replay::{self as farm_replay, PreparedFarm};
use super::report;
use super::study::{self, StudySpec};
use crate::output::OutputFiles;
use crate::replay::CliError;
use backfill_core::policy::Heuristics;
use backfill_core::{CategoryBounds, Policy};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A non-negative decimal (`1`, `0.25`) in thousandths.
///
/// # Errors
/// A message for anything else or more than 4,000,000.
pub fn parse_milli(text: &str) -> Result<u32, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, found '{text}'"))?;
    let milli = (v * 1000.0).round();
    if !(v.is_finite() && (0.0..=4e9).contains(&milli)) {
        return Err(format!(
            "expected a number from 0 to 4000000, found '{text}'"
        ));
    }
    // In range, rounded.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let milli = milli as u32;
    Ok(milli)
}

/// `LO,HI` of whole numbers.
///
/// # Errors
/// A message when the text is not two whole numbers.
pub fn parse_range(text: &str) -> Result<(u32, u32), String> {
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
pub fn parse_milli_range(text: &str) -> Result<(u32, u32), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("expected LO,HI, found '{text}'"))?;
    Ok((parse_milli(lo)?, parse_milli(hi)?))
}

/// The flexible-backfilling heuristics (bf-unmod, bf-mod): weights and
/// constants, in points (one point = 1000 of the kernel's milli-points).
#[derive(Clone, Debug, Args)]
pub struct HeuristicsArgs {
    /// bf-unmod/bf-mod: weight of the aging heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_milli)]
    pub aging_weight: u32,
    /// bf-unmod/bf-mod: aging points per second of wait (age_factor).
    #[arg(long, value_name = "F", default_value = "0.001", value_parser = parse_milli)]
    pub age_factor: u32,
    /// bf-unmod/bf-mod: weight of the deadline heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_milli)]
    pub deadline_weight: u32,
    /// bf-unmod/bf-mod: deadline score far from the deadline (min).
    #[arg(long, value_name = "POINTS", default_value = "1", value_parser = parse_milli)]
    pub deadline_min: u32,
    /// bf-unmod/bf-mod: deadline score at the deadline (max).
    #[arg(long, value_name = "POINTS", default_value = "10", value_parser = parse_milli)]
    pub deadline_max: u32,
    /// bf-unmod/bf-mod: the score rises over the last k estimates before the deadline.
    #[arg(long, value_name = "K", default_value = "2", value_parser = parse_milli)]
    pub deadline_k: u32,
    /// bf-unmod/bf-mod: weight of the licenses heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_milli)]
    pub license_weight: u32,
    /// bf-unmod/bf-mod: weight of the wait-minimisation heuristic.
    #[arg(long, value_name = "W", default_value = "1", value_parser = parse_milli)]
    pub wait_weight: u32,
    /// bf-unmod/bf-mod: wait-minimisation score of the shortest job (priority_boost_value).
    #[arg(long, value_name = "POINTS", default_value = "1", value_parser = parse_milli)]
    pub boost: u32,
}

impl Default for HeuristicsArgs {
    fn default() -> Self {
        let h = Heuristics::DEFAULT;
        Self {
            aging_weight: h.aging_weight,
            age_factor: h.age_factor,
            deadline_weight: h.deadline_weight,
            deadline_min: h.deadline_min,
            deadline_max: h.deadline_max,
            deadline_k: h.deadline_k,
            license_weight: h.license_weight,
            wait_weight: h.wait_weight,
            boost: h.wait_boost,
        }
    }
}

impl HeuristicsArgs {
    /// The kernel's heuristics.
    #[must_use]
    pub const fn heuristics(&self) -> Heuristics {
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
    pub const fn apply(&self, policy: Policy) -> Policy {
        match policy {
            Policy::BfUnmod(_) => Policy::BfUnmod(self.heuristics()),
            Policy::BfMod(_) => Policy::BfMod(self.heuristics()),
            other => other,
        }
    }
}

/// The generator's parameters as options; defaults are the paper's.
#[derive(Clone, Debug, Args)]
pub struct FarmSpecArgs {
    /// Machines.
    #[arg(long, default_value_t = FarmSpec::default().machines)]
    pub machines: u32,
    /// License pools.
    #[arg(long, default_value_t = FarmSpec::default().licenses)]
    pub licenses: u32,
    /// Jobs.
    #[arg(long, default_value_t = FarmSpec::default().jobs)]
    pub jobs: u32,
    /// Mean of the exponential inter-arrival time (the paper: 4, 6, 12, 24, 48).
    #[arg(long, value_name = "T", default_value_t = FarmSpec::default().mean_interarrival)]
    pub mean_interarrival: f64,
    /// Estimated execution time on a reference machine, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "500,3000", value_parser = parse_range)]
    pub estimate: (u32, u32),
    /// Deadline margin, uniform (see --margin-kind).
    #[arg(long, value_name = "LO,HI", default_value = "30,250", value_parser = parse_range)]
    pub margin: (u32, u32),
    /// absolute: deadline = submit + estimate + margin; percent: margin is a percentage of the estimate.
    #[arg(long, value_enum, default_value_t = MarginKind::Absolute)]
    pub margin_kind: MarginKind,
    /// CPUs of a job, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "1,8", value_parser = parse_range)]
    pub job_cpus: (u32, u32),
    /// CPUs of a machine, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "1,8", value_parser = parse_range)]
    pub machine_cpus: (u32, u32),
    /// A license's copies, percent of the machines where it is usable, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "50,70", value_parser = parse_range)]
    pub license_ratio: (u32, u32),
    /// Percent chance that a license is usable on a machine.
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().suitability)]
    pub suitability: u32,
    /// Percent chance that a job needs a license (per license).
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().needs)]
    pub needs: u32,
    /// Percent of jobs without a deadline.
    #[arg(long, value_name = "PERCENT", default_value_t = FarmSpec::default().no_deadline)]
    pub no_deadline: u32,
    /// Machine speed relative to the reference, uniform (e.g. 0.5,2).
    #[arg(long, value_name = "LO,HI", default_value = "1,1", value_parser = parse_milli_range)]
    pub speed: (u32, u32),
    /// Actual run time, percent of the estimate, uniform.
    #[arg(long, value_name = "LO,HI", default_value = "100,100", value_parser = parse_range)]
    pub runtime_percent: (u32, u32),
    /// Seed of the pseudo-random stream.
    #[arg(long, default_value_t = FarmSpec::default().seed)]
    pub seed: u64,
}

impl FarmSpecArgs {
    /// The generator's parameters.
    #[must_use]
    pub const fn spec(&self) -> FarmSpec {
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

/// `host-cli generate farm`.
#[derive(Debug, Args)]
pub struct GenerateFarmArgs {
    /// The farm description to write (TOML).
    #[arg(long, value_name = "FILE.toml", default_value = "farm.toml")]
    pub farm_out: PathBuf,
    /// The job list to write (CSV).
    #[arg(long, value_name = "FILE.csv", default_value = "jobs.csv")]
    pub jobs_out: PathBuf,
    /// The generator's parameters.
    #[command(flatten)]
    pub spec: FarmSpecArgs,
}

/// `host-cli generate farm`: writes the two files (through
/// [`OutputFiles`]: both appear only when both are complete), returns a
/// summary.
///
/// # Errors
/// Bad parameters ([`CliError::Usage`]) or a file that cannot be written.
pub fn run_generate(args: &GenerateFarmArgs) -> Result<String, CliError> {
    let spec = args.spec.spec();
    spec.validate().map_err(CliError::Usage)?;
    let mut files = OutputFiles::new(&[]);
    files.add("--farm-out", Some(&args.farm_out))?;
    files.add("--jobs-out", Some(&args.jobs_out))?;
    let workload = generate(&spec).map_err(CliError::Usage)?;
    let header = format!("Generated by host-cli generate farm, {}.", spec.describe());
    files.write("--farm-out", farm_toml(&workload.farm, &header).as_bytes())?;
    files.write(
        "--jobs-out",
        jobs_csv(&workload.farm, &workload.jobs, &header).as_bytes(),
    )?;
    files.commit()?;
    let deadlines = workload
        .jobs
        .iter()
        .filter(|j| j.deadline.is_some())
        .count();
    let last = workload.jobs.last().map_or(0, |j| j.submit);
    Ok(format!(
        "wrote {} ({} machines, {} CPUs, {} license pools) and {} ({} jobs, {} with a deadline, last submit {})\n",
        args.farm_out.display(),
        workload.farm.machines.len(),
        workload.farm.total_cpus(),
        workload.farm.licenses.len(),
        args.jobs_out.display(),
        workload.jobs.len(),
        deadlines,
        last
    ))
}

/// Reads and prepares a farm replay's input.
///
/// # Errors
/// [`CliError::Usage`] naming the file, line and field of a bad input.
pub fn load(farm: &Path, jobs: &Path) -> Result<PreparedFarm, CliError> {
    let workload = format::read_workload(farm, jobs).map_err(|e| CliError::Usage(e.to_string()))?;
    let name = format!("{} + {}", farm.display(), jobs.display());
    farm_replay::prepare(&name, workload)
}

/// What `host-cli replay --farm` does with its options.
#[derive(Clone, Debug)]
pub struct ReplayRequest<'a> {
    /// The farm description.
    pub farm: &'a Path,
    /// The job list.
    pub jobs: Option<&'a Path>,
    /// The policy (heuristics already applied).
    pub policy: Policy,
    /// Category bounds of the standard metrics.
    pub bounds: CategoryBounds,
    /// Per-job CSV output.
    pub jobs_out: Option<&'a Path>,
}

/// `host-cli replay --farm FARM.toml JOBS.csv`: replays, writes the
/// `--jobs-out` file (not yet in place) and returns the report with the
/// output files, which the caller commits once the report is rendered.
///
/// # Errors
/// Bad input, a replay error or an output file that cannot be written.
pub fn run_replay(
    request: &ReplayRequest<'_>,
) -> Result<(report::FarmReport, OutputFiles), CliError> {
    let started = Instant::now();
    let jobs = request.jobs.ok_or_else(|| {
        CliError::Usage(
            "--farm FARM.toml needs the job list: host-cli replay --farm FARM.toml JOBS.csv".into(),
        )
    })?;
    let mut files = OutputFiles::new(&[request.farm, jobs]);
    files.add("--jobs-out", request.jobs_out)?;
    let prepared = load(request.farm, jobs)?;
    if prepared.jobs.is_empty() {
        return Err(CliError::NothingToSchedule {
            trace: prepared.name.clone(),
            why: if prepared.skipped.is_empty() {
                "the job list is empty".into()
            } else {
                format!(
                    "no machine can run any of its {} jobs",
                    prepared.skipped.len()
                )
            },
        });
    }
    let bar = crate::progress::phase(
        &format!("replay {}", request.policy),
        prepared.jobs.len() as u64,
    );
    let run = farm_replay::run(&prepared, request.policy, request.bounds);
    bar.inc(prepared.jobs.len() as u64);
    crate::progress::finish(&bar);
    let run = run?;
    if files.wants("--jobs-out") {
        files.write("--jobs-out", report::jobs_csv(&prepared, &run)?.as_bytes())?;
    }
    let r = report::report(&prepared, &run, started.elapsed().as_secs_f64());
    Ok((r, files))
}

/// `host-cli farm-study`.
#[derive(Debug, Args)]
pub struct FarmStudyArgs {
    /// Mean inter-arrival times of the grid, comma-separated.
    #[arg(
        long,
        value_name = "T,T,...",
        value_delimiter = ',',
        default_value = "4,6,12,24,48"
    )]
    pub means: Vec<f64>,
    /// Repetitions of each setting (seeds SEED, SEED+1, ...).
    #[arg(long, default_value_t = 20)]
    pub repetitions: u32,
    /// Policies, comma-separated (fcfs, easy, bf-fcfs, bf-unmod, bf-mod, ...).
    #[arg(
        long,
        value_name = "P,P,...",
        value_delimiter = ',',
        default_value = "fcfs,bf-fcfs,bf-unmod,bf-mod"
    )]
    pub policies: Vec<String>,
    /// License ratio ranges of the license sweep (LO-HI percent), comma-separated.
    #[arg(
        long,
        value_name = "LO-HI,...",
        value_delimiter = ',',
        default_value = "10-30,20-40,30-50,40-60,50-70,60-80,70-90"
    )]
    pub license_ratios: Vec<String>,
    /// Mean inter-arrival time of the license sweep.
    #[arg(long, value_name = "T", default_value_t = 12.0)]
    pub license_mean: f64,
    /// Skip the license sweep.
    #[arg(long)]
    pub no_license_sweep: bool,
    /// Directory for farm-*.csv (created if missing).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Directory for farm-*.svg (created if missing).
    #[arg(long, value_name = "DIR")]
    pub figures_dir: Option<PathBuf>,
    /// The generator's other parameters (its --mean-interarrival, --license-ratio
    /// and --seed are the grid's; the seed is the first repetition's).
    #[command(flatten)]
    pub spec: FarmSpecArgs,
    /// The heuristics of bf-unmod and bf-mod.
    #[command(flatten)]
    pub heuristics: HeuristicsArgs,
}

/// Writes `made` (name, contents) to the outputs added under `option` for
/// `names`, in that order.
///
/// # Errors
/// [`CliError::Io`] when the files made are not the ones reserved (a bug)
/// or a write fails.
fn write_in_order(
    files: &mut OutputFiles,
    option: &str,
    names: &[&str],
    made: Vec<(String, String)>,
) -> Result<(), CliError> {
    let made_names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
    if made_names != names {
        return Err(CliError::Io(
            option.to_owned(),
            std::io::Error::other(format!("made {made_names:?}, reserved {names:?}")),
        ));
    }
    for (_, text) in made {
        files.write(option, text.as_bytes())?;
    }
    Ok(())
}

/// Creates `dir` (and its parents) if missing.
fn make_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Io(dir.display().to_string(), e))
}

/// `LO-HI` percent.
fn parse_ratio_range(text: &str) -> Result<(u32, u32), CliError> {
    let (lo, hi) = text.split_once('-').ok_or_else(|| {
        CliError::Usage(format!("--license-ratios: expected LO-HI, found '{text}'"))
    })?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|&v| v <= 100)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--license-ratios: expected a percentage, found '{s}'"
                ))
            })
    };
    Ok((number(lo)?, number(hi)?))
}

/// `host-cli farm-study`: runs the grid (and the license sweep), writes
/// the CSV files and figures asked for, returns the tables to print.
///
/// # Errors
/// Bad options, a replay error or a file that cannot be written.
pub fn run_study(args: &FarmStudyArgs) -> Result<String, CliError> {
    let mut policies = Vec::new();
    for name in &args.policies {
        let policy = Policy::from_name(name.trim())
            .ok_or_else(|| CliError::Usage(format!("--policies: unknown policy '{name}'")))?;
        let policy = args.heuristics.apply(policy);
        if !policies.contains(&policy) {
            policies.push(policy);
        }
    }
    if policies.is_empty() {
        return Err(CliError::Usage(
            "--policies needs at least one policy".into(),
        ));
    }
    let ratios = if args.no_license_sweep {
        Vec::new()
    } else {
        args.license_ratios
            .iter()
            .map(|r| parse_ratio_range(r))
            .collect::<Result<Vec<_>, _>>()?
    };
    let spec = StudySpec {
        base: args.spec.spec(),
        means: args.means.clone(),
        repetitions: args.repetitions,
        policies,
        license_ratios: ratios,
        license_mean: args.license_mean,
    };
    spec.base.validate().map_err(CliError::Usage)?;
    if spec.repetitions == 0 || spec.means.is_empty() {
        return Err(CliError::Usage(
            "farm-study needs at least one mean and one repetition".into(),
        ));
    }
    // Every output file is checked and reserved before the run, and put in
    // place only when all are written.
    let sweep = !spec.license_ratios.is_empty();
    let mut files = OutputFiles::new(&[]);
    if let Some(dir) = &args.data_dir {
        make_dir(dir)?;
        for name in study::csv_names(sweep) {
            files.add("--data-dir", Some(&dir.join(name)))?;
        }
    }
    if let Some(dir) = &args.figures_dir {
        make_dir(dir)?;
        for name in study::figure_names(sweep) {
            files.add("--figures-dir", Some(&dir.join(name)))?;
        }
    }
    let started = Instant::now();
    let results = study::run(&spec)?;
    let seconds = started.elapsed().as_secs_f64();
    if args.data_dir.is_some() {
        write_in_order(
            &mut files,
            "--data-dir",
            &study::csv_names(sweep),
            study::csv_files(&results)?,
        )?;
    }
    if args.figures_dir.is_some() {
        write_in_order(
            &mut files,
            "--figures-dir",
            &study::figure_names(sweep),
            study::figures(&results)?,
        )?;
    }
    files.commit()?;
    Ok(study::tables(&results, seconds))
}
