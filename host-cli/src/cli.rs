//! The `host-cli` command line.
//!
//! ```text
//! host-cli replay [TRACE] --policy easy --estimates user --load 1.0 --jobs-out jobs.csv
//! host-cli replay TRACE --policy selective --threshold 26.69
//! host-cli replay TRACE --policy dpsa-n --dpsa-nodes 20000
//! host-cli info TRACE --first 5000
//! host-cli thresholds TRACE --first 5000 --estimates exact
//! host-cli compare TRACE --policies conservative,easy,selective,selective-d --baseline conservative --svg fig.svg
//! host-cli sweep TRACE --loads 1.0,1.2,1.4,1.6 --csv sweep.csv --svg sweep.svg
//! host-cli fairness TRACE --policies easy,selective,selective-d,sjf-easy --svg fairness.svg
//! host-cli generate lublin --jobs 5000 --procs 128 --seed 1 -o lublin.swf
//! ```
//!
//! Without TRACE every command uses the built-in synthetic workload
//! (`--synthetic-jobs`, `--seed`). The analyses are described in
//! `docs/analyses.md` and [`crate::analysis`].
//!
//! Exit codes: 0 success, 1 a replay or output failure, 2 bad input or options.

use crate::analysis::{
    self, compare, fairness, sweep, PolicyChoice, Source, ThresholdFrom, ThresholdOptions,
};
use crate::batsim;
use crate::output::{self, OutputFiles};
use crate::progress;
use crate::replay::{self, CliError, Estimates, Prepared, Shaping, Window};
use crate::report;
use crate::stream;
use crate::swf;
use crate::synth::SyntheticSpec;
use crate::thresholds::{
    self, grid_text, parse_scale, parse_threshold, parse_thresholds, ConservativeThresholds,
};
use backfill_core::policy::Iterations;
use backfill_core::{CategoryBounds, Policy};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A trace file of at least this many bytes (about 20,000 jobs gzip'd)
/// gets a visible progress bar for a replay that runs while it is read.
const LARGE_TRACE_BYTES: u64 = 1 << 20;

/// Replay parallel-job traces through the backfill scheduling kernel.
#[derive(Debug, Parser)]
#[command(name = "host-cli", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay a trace (or the built-in synthetic workload) under one policy.
    Replay(ReplayArgs),
    /// Describe a trace: header, job counts, skip reasons, category mix.
    Info(InfoArgs),
    /// Starvation thresholds from a Conservative run (the paper's Tables 7 and 8).
    Thresholds(ThresholdsArgs),
    /// Policies against a baseline by job category (Figures 1, 2, 3, 5).
    Compare(CompareArgs),
    /// The comparison across load factors (Figures 4 and 6).
    Sweep(SweepArgs),
    /// Fairness against fair-start times (Table 9, Figure 7).
    Fairness(FairnessArgs),
    /// Write a model workload as an SWF trace.
    Generate(crate::generate::GenerateArgs),
    /// The flexible-backfilling paper's farm experiments (figures 1, 2 and its tables).
    FarmStudy(crate::farm::cli::FarmStudyArgs),
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text.
    Table,
    /// CSV rows with a header line.
    Csv,
    /// One JSON object.
    Json,
}

/// Layout of `replay --jobs-out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JobsFormat {
    /// job_id, submit, start, end, wait, run, estimate, procs,
    /// bounded_slowdown, category, killed.
    Plain,
    /// Batsim's jobs.csv, which evalys loads to draw Gantt charts: job_id,
    /// workload_name, profile, submission_time,
    /// requested_number_of_resources, requested_time, success, final_state
    /// (COMPLETED_WALLTIME_REACHED for a job killed at its estimate),
    /// starting_time, execution_time, finish_time, waiting_time,
    /// turnaround_time, stretch, allocated_resources (processor ids as an
    /// interval set, "0-3 8 10-11", given first-fit in start order, never
    /// two running jobs on one id), consumed_energy (-1), metadata.
    Batsim,
}

/// The policy names `--policy` accepts (kept for compatibility; the same as
/// [`PolicyChoice`]).
pub type PolicyArg = PolicyChoice;

/// Window and category options shared by every command.
#[derive(Clone, Debug, Args)]
pub struct WindowArgs {
    /// Take only the first N job lines (after --skip), in file order.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub first: Option<u64>,
    /// Skip the first N job lines, in file order.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub skip: u64,
    /// Machine size, overriding the header's MaxProcs.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_procs)]
    pub procs: Option<u32>,
    /// Longest run time (s) of a Short job.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub short_max: u32,
    /// Most processors of a Narrow job (the paper used 64 for LANL-CM5).
    #[arg(long, value_name = "PROCS", default_value_t = 8, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub narrow_max: u32,
}

impl WindowArgs {
    /// The window.
    #[must_use]
    pub fn window(&self) -> Window {
        Window {
            skip: self.skip,
            first: self.first,
            procs: self.procs,
        }
    }

    /// The category bounds.
    #[must_use]
    pub fn bounds(&self) -> CategoryBounds {
        CategoryBounds {
            short_max: self.short_max,
            narrow_max: self.narrow_max,
        }
    }
}

/// The synthetic workload used without TRACE.
#[derive(Clone, Debug, Args)]
pub struct SyntheticArgs {
    /// Synthetic workload (no TRACE): number of jobs.
    #[arg(long, default_value_t = SyntheticSpec::default().jobs, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub synthetic_jobs: u32,
    /// Synthetic workload (no TRACE): PRNG seed.
    #[arg(long, default_value_t = SyntheticSpec::default().seed, allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub seed: u64,
}

impl SyntheticArgs {
    fn spec(&self) -> SyntheticSpec {
        SyntheticSpec {
            jobs: self.synthetic_jobs,
            seed: self.seed,
            ..SyntheticSpec::default()
        }
    }
}

/// Estimates and load.
#[derive(Clone, Debug, Args)]
pub struct ShapeArgs {
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub estimates: Estimates,
    /// Load factor: submit times are divided by F (F > 1 is heavier).
    #[arg(long, value_name = "F", default_value_t = 1.0, allow_negative_numbers = true, value_parser = parse_load)]
    pub load: f64,
}

impl ShapeArgs {
    fn shaping(&self) -> Shaping {
        Shaping {
            estimates: self.estimates,
            load: self.load,
        }
    }
}

/// Selective thresholds. Without --threshold (Selective) or --thresholds
/// (Selective-D), they come from a Conservative run of the same trace,
/// window, estimates and load, as in the paper.
#[derive(Clone, Debug, Default, Args)]
pub struct ThresholdArgs {
    /// Selective's starvation threshold, an expansion factor (e.g. 26.69).
    #[arg(long, value_name = "X", allow_negative_numbers = true, value_parser = parse_threshold)]
    pub threshold: Option<u32>,
    /// Selective-D's thresholds for SN,SW,LN,LW (categories by --short-max / --narrow-max).
    #[arg(long, value_name = "SN,SW,LN,LW", allow_negative_numbers = true, value_parser = parse_thresholds)]
    pub thresholds: Option<[u32; 4]>,
    /// Take the thresholds a run gives: `conservative` is the mean bounded
    /// slowdown of a Conservative run (overall; per category for
    /// selective-d; with user estimates over well-estimated jobs only).
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub threshold_from: Option<ThresholdFrom>,
    /// selective-scaled: the factor applied to the running mean slowdown [default: 1.5].
    #[arg(long, value_name = "F", allow_negative_numbers = true, value_parser = parse_scale)]
    pub scale: Option<u32>,
    /// selective-adaptive / selective-scaled: average only well-estimated jobs.
    #[arg(long)]
    pub well_estimated_only: bool,
}

impl ThresholdArgs {
    /// The options in kernel units.
    #[must_use]
    pub fn options(&self) -> ThresholdOptions {
        ThresholdOptions {
            threshold: self.threshold,
            thresholds: self.thresholds,
            from: self.threshold_from,
            scale: self.scale,
            well_estimated_only: self.well_estimated_only,
        }
    }
}

/// Output options of the analyses.
#[derive(Clone, Debug, Args)]
pub struct OutputArgs {
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write the CSV rows to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub csv: Option<PathBuf>,
    /// Also draw the figure to FILE (SVG).
    #[arg(long, value_name = "FILE.svg")]
    pub svg: Option<PathBuf>,
}

/// `host-cli replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Scheduling policy.
    #[arg(long, value_enum, default_value_t = PolicyChoice::Easy)]
    pub policy: PolicyChoice,
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub estimates: Estimates,
    /// Load factor: submit times are divided by F (F > 1 is heavier).
    #[arg(long, value_name = "F", default_value_t = 1.0, allow_negative_numbers = true, value_parser = parse_load)]
    pub load: f64,
    /// Write one CSV row per scheduled job to FILE, in trace order (layout:
    /// --jobs-format).
    #[arg(long, value_name = "FILE.csv")]
    pub jobs_out: Option<PathBuf>,
    /// Layout of --jobs-out: this tool's columns, or Batsim's jobs.csv (for
    /// evalys; scripts/evalys_gantt.py draws its Gantt chart).
    #[arg(
        long,
        value_enum,
        value_name = "LAYOUT",
        default_value_t = JobsFormat::Plain,
        requires = "jobs_out"
    )]
    pub jobs_format: JobsFormat,
    /// Report format (csv: one row per set of jobs, each with the run's
    /// context, so the rows of several runs can be concatenated; json: one
    /// object, wall-clock times apart under "timings").
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Time every kernel call (two clock reads each) and report a histogram
    /// of call times with the slowest call: the worst case a firmware host
    /// must budget for. Off by default: an untimed replay reads no clock
    /// per call.
    #[arg(long)]
    pub latency: bool,
    /// Synthetic workload: number of jobs.
    #[arg(long, default_value_t = SyntheticSpec::default().jobs, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub synthetic_jobs: u32,
    /// PRNG seed: the synthetic workload's [default: 1] and, under
    /// cons-rs, the random search's [default: 0]. With the synthetic
    /// workload and cons-rs, one seed sets both.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub seed: Option<u64>,
    /// Selective thresholds.
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// dpsa-p / dpsa-n / dpsa-w: search nodes per scheduling pass (0: the
    /// greedy set, so dpsa-p is EASY) [default: 100000]. Measured in a
    /// release build on a 2-core machine shared with other replays
    /// (`scripts/dpsa.sh`): the whole of LLNL-Thunder (user estimates)
    /// replays in 0.8-1.0 s under dpsa-p/-n/-w, with 1-4% of its searches
    /// stopped by the budget (the report counts them); CEA-Curie, the
    /// heaviest trace, in 4-30 s.
    #[arg(long, value_name = "N")]
    pub dpsa_nodes: Option<u32>,
    /// cons-rs: iterations of each random search [default: 4 per queued
    /// job when the search starts, the paper's simulator's budget].
    #[arg(long, value_name = "N")]
    pub rs_iterations: Option<u32>,
    /// conservative: never compress the plan (reservations made at arrival
    /// stay where they are: the CONS+RS paper's baseline).
    #[arg(long)]
    pub no_compression: bool,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
    /// Replay a farm: FARM.toml describes machines and license pools, and
    /// TRACE is then its job list (CSV); see `docs/farm.md`.
    #[arg(long, value_name = "FARM.toml")]
    pub farm: Option<PathBuf>,
    /// Flexible-backfilling heuristics (bf-unmod, bf-mod).
    #[command(flatten)]
    pub heuristics: crate::farm::cli::HeuristicsArgs,
}

/// `host-cli info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// SWF trace, plain or gzip.
    pub trace: PathBuf,
    /// Report format (csv: one row per category, each with the trace's
    /// context; json: one object, the read time apart under "timings").
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// `host-cli thresholds`.
#[derive(Debug, Args)]
pub struct ThresholdsArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Estimates and load.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write the CSV rows to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub csv: Option<PathBuf>,
    /// Synthetic workload.
    #[command(flatten)]
    pub synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// `host-cli compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Policies to replay, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "conservative,easy,selective,selective-d"
    )]
    pub policies: Vec<PolicyChoice>,
    /// The policy the others are compared against (added to --policies if missing).
    #[arg(long, value_enum, default_value_t = PolicyChoice::Conservative)]
    pub baseline: PolicyChoice,
    /// Estimates and load.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Selective thresholds.
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Synthetic workload.
    #[command(flatten)]
    pub synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// A set of jobs for the sweep's table and figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SetArg {
    /// Every job.
    All,
    /// Short narrow.
    Sn,
    /// Short wide.
    Sw,
    /// Long narrow.
    Ln,
    /// Long wide.
    Lw,
}

impl SetArg {
    /// The report label.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Sn => "SN",
            Self::Sw => "SW",
            Self::Ln => "LN",
            Self::Lw => "LW",
        }
    }
}

/// `host-cli sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Load factors, comma-separated (submit times are divided by each).
    #[arg(
        long,
        value_name = "F,F,...",
        value_delimiter = ',',
        default_value = "1.0,1.2,1.4,1.6",
        allow_negative_numbers = true,
        value_parser = parse_load
    )]
    pub loads: Vec<f64>,
    /// Policies to replay, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "conservative,easy,selective,selective-d"
    )]
    pub policies: Vec<PolicyChoice>,
    /// The policy the others are compared against (added to --policies if missing).
    #[arg(long, value_enum, default_value_t = PolicyChoice::Conservative)]
    pub baseline: PolicyChoice,
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub estimates: Estimates,
    /// The set of jobs the table and the figure show (CSV and JSON have all).
    #[arg(long, value_enum, default_value_t = SetArg::All)]
    pub set: SetArg,
    /// Selective thresholds (derived per load when from a Conservative run).
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Synthetic workload.
    #[command(flatten)]
    pub synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// `host-cli fairness`.
#[derive(Debug, Args)]
pub struct FairnessArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Policies to judge, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "easy,selective,selective-d,sjf-easy"
    )]
    pub policies: Vec<PolicyChoice>,
    /// Estimates and load.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Selective thresholds.
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Write one CSV row per job (fair start, fair slowdown, each policy's
    /// start, bounded slowdown and bucket) to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub jobs_out: Option<PathBuf>,
    /// Synthetic workload.
    #[command(flatten)]
    pub synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// Parses a count, a whole number from 0 to `u64::MAX` (`--first`, `--skip`).
///
/// # Errors
/// A message saying what the text is not.
pub fn parse_count_u64(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

/// Parses a count, a whole number from 0 to `u32::MAX` (`--short-max`).
///
/// # Errors
/// A message saying what the text is not.
pub fn parse_count_u32(text: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u32::MAX))
}

/// Parses a machine size, a whole number from 1 to `u32::MAX` (`--procs`).
///
/// # Errors
/// A message saying what the text is not.
pub fn parse_procs(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(format!(
            "`{text}` is not a machine size (a whole number from 1 to {})",
            u32::MAX
        )),
    }
}

/// Parses a load factor: a positive finite number (`--load`, `--loads`).
///
/// # Errors
/// A message saying what the text is not.
pub fn parse_load(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(format!(
            "`{text}` is not a load factor (a positive number: submit times are divided by it, \
             so 1.2 is 20% heavier)"
        )),
    }
}

/// Entry point of the binary. Nothing here panics on an output error: a
/// closed stdout pipe ends the program quietly with status 0, any other
/// write error is one line on stderr and status 1 (see [`crate::output`]).
#[must_use]
pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    progress::show_on_terminal();
    match run(&cli.command) {
        Ok(text) => match output::write_stdout(text.as_bytes()) {
            Ok(_) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                output::warn(&format!("host-cli: error: {e}"));
                std::process::ExitCode::from(1)
            }
        },
        Err(e) => {
            output::warn(&format!("host-cli: error: {e}"));
            std::process::ExitCode::from(e.exit_code())
        }
    }
}

/// Prints clap's help, version or usage error and gives its exit status
/// (0 for help and version, 2 for usage errors); a closed pipe is ignored,
/// any other write error is status 1.
fn clap_exit(e: &clap::Error) -> std::process::ExitCode {
    match e.print() {
        Err(io) if io.kind() != std::io::ErrorKind::BrokenPipe => {
            output::warn(&format!(
                "host-cli: error: writing the message failed: {io}"
            ));
            std::process::ExitCode::from(1)
        }
        _ => std::process::ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

/// The output files named by `outputs` (option, path), checked and
/// reserved before anything runs; `trace` may not be one of them.
fn output_files(
    trace: Option<&Path>,
    outputs: &[(&'static str, Option<&Path>)],
) -> Result<OutputFiles, CliError> {
    let inputs: Vec<&Path> = trace.into_iter().collect();
    let mut files = OutputFiles::new(&inputs);
    for &(option, path) in outputs {
        files.add(option, path)?;
    }
    Ok(files)
}

/// Runs one command and returns the text to print on stdout.
///
/// # Errors
/// Any [`CliError`].
pub fn run(command: &Command) -> Result<String, CliError> {
    match command {
        Command::Replay(args) => run_replay(args),
        Command::Info(args) => run_info(args),
        Command::Thresholds(args) => run_thresholds(args),
        Command::Compare(args) => run_compare(args),
        Command::Sweep(args) => run_sweep(args),
        Command::Fairness(args) => run_fairness(args),
        Command::Generate(args) => crate::generate::run(args),
        Command::FarmStudy(args) => crate::farm::cli::run_study(args),
    }
}

/// Loads `path` and prepares it, or the synthetic workload when `None`.
///
/// # Errors
/// Reading, parsing or option errors.
pub fn load_prepared(
    trace: Option<&PathBuf>,
    window: &WindowArgs,
    shaping: Shaping,
    spec: &SyntheticSpec,
) -> Result<(Prepared, Option<swf::SwfHeader>), CliError> {
    load_prepared_tapped(trace, window, shaping, spec, None)
}

/// [`load_prepared`], passing each data line of a trace file to `tap` as
/// it is read (a replay that runs meanwhile: see [`stream`]).
///
/// # Errors
/// As [`load_prepared`].
pub fn load_prepared_tapped(
    trace: Option<&PathBuf>,
    window: &WindowArgs,
    shaping: Shaping,
    spec: &SyntheticSpec,
    tap: Option<swf::Tap>,
) -> Result<(Prepared, Option<swf::SwfHeader>), CliError> {
    match trace {
        Some(path) => {
            let loaded = swf::load_tapped(path, tap)?;
            let prepared = replay::prepare(&loaded, &window.window(), shaping)?;
            Ok((prepared, Some(loaded.header)))
        }
        None => {
            let source = Source::Synthetic(*spec);
            Ok((source.prepare(&window.window(), shaping)?, None))
        }
    }
}

/// A progress bar for `replays` replays of `prepared`'s jobs.
fn replays_bar(label: &str, replays: u64, prepared: &Prepared) -> indicatif::ProgressBar {
    progress::phase(
        &format!(
            "{label} {replays} replay{}",
            if replays == 1 { "" } else { "s" }
        ),
        replays * prepared.jobs.len() as u64,
    )
}

/// `policies` without repeats; at least one.
fn distinct(policies: &[PolicyChoice]) -> Result<Vec<PolicyChoice>, CliError> {
    let mut out: Vec<PolicyChoice> = Vec::new();
    for &p in policies {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(CliError::Usage(
            "--policies needs at least one policy".into(),
        ));
    }
    Ok(out)
}

/// Adds `baseline` in front of `policies` if missing; drops repeats.
fn with_baseline(policies: &[PolicyChoice], baseline: PolicyChoice) -> Vec<PolicyChoice> {
    let mut out = Vec::new();
    if !policies.contains(&baseline) {
        out.push(baseline);
    }
    for &p in policies {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Writes an analysis's CSV rows and figure when `--csv` / `--svg` ask for
/// them, puts every output file in place, then returns what to print in the
/// `--format` chosen.
fn emit<C: serde::Serialize>(
    output: &OutputArgs,
    mut files: OutputFiles,
    report: &impl serde::Serialize,
    rows: impl Fn() -> Vec<C>,
    table: impl FnOnce() -> String,
    svg: impl FnOnce() -> Result<String, CliError>,
) -> Result<String, CliError> {
    if files.wants("--csv") {
        files.write("--csv", analysis::csv_text(&rows())?.as_bytes())?;
    }
    if files.wants("--svg") {
        files.write("--svg", svg()?.as_bytes())?;
    }
    let text = match output.format {
        Format::Table => table(),
        Format::Csv => analysis::csv_text(&rows())?,
        Format::Json => json(report)?,
    };
    files.commit()?;
    Ok(text)
}

/// The `--csv` and `--svg` outputs of an analysis, checked before the run.
fn analysis_files(trace: Option<&Path>, output: &OutputArgs) -> Result<OutputFiles, CliError> {
    output_files(
        trace,
        &[
            ("--csv", output.csv.as_deref()),
            ("--svg", output.svg.as_deref()),
        ],
    )
}

/// `host-cli replay`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_replay(args: &ReplayArgs) -> Result<String, CliError> {
    if let Some(farm) = &args.farm {
        return run_farm_replay(args, farm);
    }
    let started = Instant::now();
    let shaping = Shaping {
        estimates: args.estimates,
        load: args.load,
    };
    let spec = SyntheticSpec {
        jobs: args.synthetic_jobs,
        seed: args.seed.unwrap_or(SyntheticSpec::default().seed),
        ..SyntheticSpec::default()
    };
    let options = args.thresholds.options();
    options.check(&[args.policy])?;
    let search = SearchOptions {
        dpsa_nodes: args.dpsa_nodes,
        rs_seed: args.seed,
        rs_iterations: args.rs_iterations,
        no_compression: args.no_compression,
    };
    search.check(args.policy)?;
    let mut files = output_files(
        args.trace.as_deref(),
        &[("--jobs-out", args.jobs_out.as_deref())],
    )?;
    // The kernel is built while the trace is read.
    replay::prebuild();
    let bounds = args.window.bounds();
    let (early, tap) = match start_early(args, &options, &search, shaping, bounds) {
        Some((streamed, tap, bar)) => (Some((streamed, bar)), Some(tap)),
        None => (None, None),
    };
    let (prepared, _) =
        load_prepared_tapped(args.trace.as_ref(), &args.window, shaping, &spec, tap)?;
    prepared.check_runnable()?;
    let read = started.elapsed().as_secs_f64();
    let mut prerun = None;
    let derived = if options.needs_conservative(&[args.policy]) {
        let prerun_started = Instant::now();
        let bar = progress::phase("Conservative pre-run", prepared.jobs.len() as u64);
        let r = replay::run(&prepared, Policy::Conservative, bounds, true, Some(&bar));
        progress::finish(&bar);
        let r = r?;
        prerun = Some(prerun_started.elapsed().as_secs_f64());
        Some(ConservativeThresholds::from_records(
            r.records.as_deref().unwrap_or_default(),
            prepared.shaping.estimates,
            bounds,
        ))
    } else {
        None
    };
    let (policy, used) = options.resolve(args.policy, bounds, derived.as_ref())?;
    let policy = search.apply(args.heuristics.apply(policy));
    let (verdict, bar) = match early {
        Some((streamed, bar)) => (streamed.finish(&prepared), bar),
        None => (
            stream::Verdict::Again { filled: false },
            progress::phase(&format!("replay {policy}"), prepared.jobs.len() as u64),
        ),
    };
    let result = verdict.into_result(
        &prepared,
        policy,
        bounds,
        args.jobs_out.is_some(),
        args.latency,
        Some(&bar),
    );
    progress::finish(&bar);
    let result = result?;
    if let Some(records) = &result.records {
        files.write_with("--jobs-out", |w| match args.jobs_format {
            JobsFormat::Plain => report::write_jobs_csv(w, &prepared, records, bounds),
            JobsFormat::Batsim => batsim::write_jobs(w, &prepared, records),
        })?;
    }
    let phases = report::Phases {
        read,
        prerun,
        total: started.elapsed().as_secs_f64(),
    };
    let mut r = report::replay_report(&prepared, &result, bounds, phases);
    if matches!(policy, Policy::Selective(_)) {
        r.thresholds = Some(used);
        r.conservative_thresholds = derived;
    }
    let text = match args.format {
        Format::Table => report::replay_table(&r),
        Format::Json => json(&r)?,
        Format::Csv => analysis::csv_text(&report::replay_csv_rows(&r))?,
    };
    files.commit()?;
    Ok(text)
}

/// Starts replaying the trace of `args` while it is read (see [`stream`]),
/// when it is a file and the policy is known before reading (not Selective
/// with thresholds from a Conservative pre-run); returns the replay, the
/// tap to read the trace through, and its progress bar.
fn start_early(
    args: &ReplayArgs,
    options: &ThresholdOptions,
    search: &SearchOptions,
    shaping: Shaping,
    bounds: CategoryBounds,
) -> Option<(stream::Streamed, swf::Tap, indicatif::ProgressBar)> {
    let path = args.trace.as_ref()?;
    if options.needs_conservative(&[args.policy]) {
        return None;
    }
    let (policy, _) = options.resolve(args.policy, bounds, None).ok()?;
    let policy = search.apply(args.heuristics.apply(policy));
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() >= LARGE_TRACE_BYTES);
    let bar = progress::growing_phase(&format!("replay {policy}"), large);
    let plan = stream::Plan {
        name: path.display().to_string(),
        window: args.window.window(),
        shaping,
        policy,
        bounds,
        keep_records: args.jobs_out.is_some(),
        latency: args.latency,
        progress: Some(bar.clone()),
    };
    let (streamed, tap) = stream::start(plan).ok()?;
    Some((streamed, tap, bar))
}

/// `host-cli replay --farm FARM.toml JOBS.csv`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
fn run_farm_replay(args: &ReplayArgs, farm: &Path) -> Result<String, CliError> {
    let options = args.thresholds.options();
    options.check(&[args.policy])?;
    let bounds = args.window.bounds();
    let (policy, _) = options.resolve(args.policy, bounds, None)?;
    let (r, files) = crate::farm::cli::run_replay(&crate::farm::cli::ReplayRequest {
        farm,
        jobs: args.trace.as_deref(),
        policy: args.heuristics.apply(policy),
        bounds,
        jobs_out: args.jobs_out.as_deref(),
    })?;
    let text = match args.format {
        Format::Table => crate::farm::report::table(&r),
        Format::Json => json(&r)?,
        Format::Csv => crate::farm::report::csv_row(&r)?,
    };
    files.commit()?;
    Ok(text)
}

/// The replay options of the search policies and of the no-compression
/// baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// `--dpsa-nodes`.
    pub dpsa_nodes: Option<u32>,
    /// `--seed`, which under cons-rs seeds the random search.
    pub rs_seed: Option<u64>,
    /// `--rs-iterations`.
    pub rs_iterations: Option<u32>,
    /// `--no-compression`.
    pub no_compression: bool,
}

impl SearchOptions {
    /// Refuses an option the policy would not use (`--seed` is also the
    /// synthetic workload's, so it is never refused).
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and the policies it applies to.
    pub fn check(&self, choice: PolicyChoice) -> Result<(), CliError> {
        let unused = |option: &str, applies: &str| {
            Err(CliError::Usage(format!(
                "{option} applies to {applies}, not {choice}"
            )))
        };
        let dpsa = matches!(
            choice,
            PolicyChoice::DpsaP | PolicyChoice::DpsaN | PolicyChoice::DpsaW
        );
        if self.dpsa_nodes.is_some() && !dpsa {
            return unused("--dpsa-nodes", "dpsa-p, dpsa-n and dpsa-w");
        }
        if self.rs_iterations.is_some() && choice != PolicyChoice::ConsRs {
            return unused("--rs-iterations", "cons-rs");
        }
        if self.no_compression && choice != PolicyChoice::Conservative {
            return unused("--no-compression", "conservative");
        }
        Ok(())
    }

    /// `policy` with these options applied (after [`SearchOptions::check`]).
    #[must_use]
    pub fn apply(&self, policy: Policy) -> Policy {
        match policy {
            Policy::Dpsa { .. } => self
                .dpsa_nodes
                .map_or(policy, |n| policy.with_dpsa_nodes(n)),
            Policy::ConsRs(mut params) => {
                if let Some(seed) = self.rs_seed {
                    params.seed = seed;
                }
                if let Some(n) = self.rs_iterations {
                    params.iterations = Iterations::Fixed(n);
                }
                Policy::ConsRs(params)
            }
            Policy::Conservative if self.no_compression => Policy::ConservativeNoCompression,
            other => other,
        }
    }
}

/// `host-cli info`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_info(args: &InfoArgs) -> Result<String, CliError> {
    let started = Instant::now();
    let shaping = Shaping {
        estimates: Estimates::User,
        load: 1.0,
    };
    let (prepared, header) = load_prepared(
        Some(&args.trace),
        &args.window,
        shaping,
        &SyntheticSpec::default(),
    )?;
    prepared.check_job_lines()?;
    let r = report::info_report(
        &prepared,
        &header.unwrap_or_default(),
        args.window.bounds(),
        started.elapsed().as_secs_f64(),
    );
    Ok(match args.format {
        Format::Table => report::info_table(&r),
        Format::Json => json(&r)?,
        Format::Csv => analysis::csv_text(&report::info_csv_rows(&r))?,
    })
}

/// What `host-cli thresholds` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThresholdsReport {
    /// What ran.
    pub scenario: analysis::Scenario,
    /// The Conservative run's means and the thresholds they give.
    pub thresholds: ConservativeThresholds,
    /// Selective's threshold (expansion factor, rounded to thousandths).
    pub selective: f64,
    /// Selective-D's thresholds, SN, SW, LN, LW.
    pub selective_d: [f64; 4],
}

/// One CSV row of `host-cli thresholds`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThresholdsCsvRow {
    /// Trace.
    pub trace: String,
    /// Window.
    pub window: String,
    /// Estimates.
    pub estimates: String,
    /// Load factor.
    pub load: f64,
    /// Offered load at that factor.
    pub offered_load: Option<f64>,
    /// `all` or a category.
    pub set: String,
    /// Jobs averaged.
    pub jobs: u64,
    /// Jobs in the set.
    pub jobs_in_set: u64,
    /// Their mean bounded slowdown.
    pub mean_bounded_slowdown: Option<f64>,
    /// The threshold used (thousandths rounded; the overall one for `all`
    /// and for an empty category).
    pub threshold: f64,
}

/// `host-cli thresholds`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_thresholds(args: &ThresholdsArgs) -> Result<String, CliError> {
    let mut files = output_files(args.trace.as_deref(), &[("--csv", args.csv.as_deref())])?;
    let source = Source::load(args.trace.as_deref(), args.synthetic.spec())?;
    let window = args.window.window();
    let bounds = args.window.bounds();
    let prepared = source.prepare(&window, args.shape.shaping())?;
    let bar = progress::phase("Conservative run", prepared.jobs.len() as u64);
    let run = replay::run(&prepared, Policy::Conservative, bounds, true, Some(&bar));
    progress::finish(&bar);
    let run = run?;
    let t = ConservativeThresholds::from_records(
        run.records.as_deref().unwrap_or_default(),
        prepared.shaping.estimates,
        bounds,
    );
    let common = analysis::common_metrics(&[&run], bounds, prepared.jobs.len());
    let scenario = analysis::Scenario::new(
        &prepared,
        &window,
        bounds,
        Some(args.shape.load),
        report::RejectedJobs::of(&run.rejected),
        &common,
    );
    let (per, _) = t.per_category();
    let report = ThresholdsReport {
        scenario,
        selective: thresholds::milli_f64(t.fixed()),
        selective_d: per.map(thresholds::milli_f64),
        thresholds: t,
    };
    let rows = || -> Vec<ThresholdsCsvRow> {
        let s = &report.scenario;
        std::iter::once((&report.thresholds.overall, report.selective))
            .chain(report.thresholds.categories.iter().zip(report.selective_d))
            .map(|(m, threshold)| ThresholdsCsvRow {
                trace: s.trace.clone(),
                window: s.window.clone(),
                estimates: s.estimates.name().to_owned(),
                load: args.shape.load,
                offered_load: s.offered_load.map(analysis::round4),
                set: m.set.clone(),
                jobs: m.jobs,
                jobs_in_set: m.jobs_in_set,
                mean_bounded_slowdown: m.mean_bounded_slowdown.map(analysis::round4),
                threshold,
            })
            .collect()
    };
    if files.wants("--csv") {
        files.write("--csv", analysis::csv_text(&rows())?.as_bytes())?;
    }
    let text = match args.format {
        Format::Table => {
            let mut out = report.scenario.text();
            out.push('\n');
            out.push_str(&grid_text(&report.thresholds));
            out
        }
        Format::Csv => analysis::csv_text(&rows())?,
        Format::Json => json(&report)?,
    };
    files.commit()?;
    Ok(text)
}

/// `host-cli compare`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_compare(args: &CompareArgs) -> Result<String, CliError> {
    let files = analysis_files(args.trace.as_deref(), &args.output)?;
    let source = Source::load(args.trace.as_deref(), args.synthetic.spec())?;
    let window = args.window.window();
    let bounds = args.window.bounds();
    let prepared = source.prepare(&window, args.shape.shaping())?;
    let choices = with_baseline(&args.policies, args.baseline);
    let options = args.thresholds.options();
    let bar = replays_bar(
        "compare",
        analysis::study_replays(&choices, &options, false),
        &prepared,
    );
    let study = analysis::run_study(&prepared, &choices, &options, bounds, None, Some(&bar));
    progress::finish(&bar);
    let report = compare::report(&prepared, &window, &study?, args.baseline, bounds)?;
    emit(
        &args.output,
        files,
        &report,
        || compare::csv_rows(&report.scenario, &report.comparison),
        || compare::table(&report),
        || compare::svg(&report),
    )
}

/// `host-cli sweep`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_sweep(args: &SweepArgs) -> Result<String, CliError> {
    let files = analysis_files(args.trace.as_deref(), &args.output)?;
    let source = Source::load(args.trace.as_deref(), args.synthetic.spec())?;
    let spec = sweep::SweepSpec {
        window: args.window.window(),
        estimates: args.estimates,
        loads: args.loads.clone(),
        choices: with_baseline(&args.policies, args.baseline),
        options: args.thresholds.options(),
        baseline: args.baseline,
        bounds: args.window.bounds(),
    };
    let per_load = analysis::study_replays(&spec.choices, &spec.options, false);
    // Every load replays the same jobs (the window does not depend on it).
    let jobs = source.prepare(
        &spec.window,
        Shaping {
            estimates: spec.estimates,
            load: 1.0,
        },
    )?;
    let bar = replays_bar("sweep", per_load * spec.loads.len() as u64, &jobs);
    let report = sweep::run(&source, &spec, Some(&bar));
    progress::finish(&bar);
    let report = report?;
    let set = args.set.label();
    emit(
        &args.output,
        files,
        &report,
        || sweep::csv_rows(&report),
        || sweep::table(&report, set),
        || sweep::svg(&report, set),
    )
}

/// `host-cli fairness`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_fairness(args: &FairnessArgs) -> Result<String, CliError> {
    let mut files = analysis_files(args.trace.as_deref(), &args.output)?;
    files.add("--jobs-out", args.jobs_out.as_deref())?;
    let source = Source::load(args.trace.as_deref(), args.synthetic.spec())?;
    let window = args.window.window();
    let bounds = args.window.bounds();
    let prepared = source.prepare(&window, args.shape.shaping())?;
    let choices = distinct(&args.policies)?;
    let options = args.thresholds.options();
    let bar = replays_bar(
        "fairness",
        analysis::study_replays(&choices, &options, true) + 1,
        &prepared,
    );
    let result = fairness::run(&prepared, &window, &choices, &options, bounds, Some(&bar));
    progress::finish(&bar);
    let (report, jobs) = result?;
    if files.wants("--jobs-out") {
        files.write(
            "--jobs-out",
            fairness::jobs_csv(&prepared, &report, &jobs)?.as_bytes(),
        )?;
    }
    emit(
        &args.output,
        files,
        &report,
        || fairness::csv_rows(&report),
        || fairness::table(&report),
        || fairness::svg(&report),
    )
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Io("json".into(), std::io::Error::other(e.to_string())))
}

/// The farm commands end to end, through the command line.
#[cfg(test)]
mod farm_tests;
/// `generate` end to end, through the command line.
#[cfg(test)]
mod generate_tests;
#[cfg(test)]
mod tests;
