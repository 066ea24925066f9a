//! The command line's options: one clap struct per command, the option
//! groups they share, and the parsers of option values. What the commands
//! do with them is in the other modules of [`crate::cli`].

pub(crate) mod farm;
pub(crate) mod plan;

use crate::error::CliError;
use crate::output::groups::GroupBy;
use crate::replay::policy::{
    CompressionMode, Flavour, PolicyChoice, ThresholdFrom, ThresholdOptions,
};
use crate::replay::steady::{parse_edge, Edge};
use crate::replay::thresholds::{parse_scale, parse_threshold, parse_thresholds};
use crate::replay::{Estimates, Shaping, Window};
use crate::workload::synth::SyntheticSpec;
use backfill_core::CategoryBounds;
use clap::{Args, Parser, Subcommand, ValueEnum};
use farm::{FarmStudyArgs, GenerateFarmArgs, HeuristicsArgs};
use plan::PlanArgs;
use std::path::PathBuf;

/// Replay parallel-job traces through the backfill scheduling kernel.
#[derive(Debug, Parser)]
#[command(name = "host-cli", version, about)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
    Generate(GenerateArgs),
    /// The flexible-backfilling paper's farm experiments (figures 1, 2 and its tables).
    FarmStudy(FarmStudyArgs),
    /// Plans: numbered cells of a study, run here, as array tasks or on
    /// Slurm, merged into one table (docs/plans.md).
    Plan(PlanArgs),
    /// Draw a file a replay wrote.
    Plot(PlotArgs),
}

/// `host-cli plot`.
#[derive(Debug, Args)]
pub(crate) struct PlotArgs {
    /// What to draw.
    #[command(subcommand)]
    pub(crate) what: PlotWhat,
}

/// The files `plot` draws.
#[derive(Debug, Subcommand)]
pub(crate) enum PlotWhat {
    /// The time series of `replay --timeseries` (SVG).
    Timeseries(PlotTimeseriesArgs),
}

/// `host-cli plot timeseries`.
#[derive(Debug, Args)]
pub(crate) struct PlotTimeseriesArgs {
    /// The CSV file `replay --timeseries` wrote.
    pub(crate) file: PathBuf,
    /// The figure to write (SVG).
    #[arg(short, long, value_name = "FILE.svg")]
    pub(crate) output: PathBuf,
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Aligned text.
    Table,
    /// CSV rows with a header line.
    Csv,
    /// One JSON object.
    Json,
}

/// Layout of `replay --jobs-out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum JobsFormat {
    /// job_id, submit, start, end, wait, run, estimate, procs,
    /// bounded_slowdown, category, killed, guarantee (the start its first
    /// reservation promised; empty without one).
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
    /// The input trace as SWF with the simulated schedule: submit (as
    /// replayed), wait, run time and allocated processors (fields 2-5)
    /// replaced, every other field kept; readable by `host-cli info` and
    /// replayable. Needs a TRACE.
    Swf,
}

/// Window and category options shared by every command.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Window and categories")]
pub(crate) struct WindowArgs {
    /// Take only the first N job lines (after --skip), in file order.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub(crate) first: Option<u64>,
    /// Skip the first N job lines, in file order.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub(crate) skip: u64,
    /// Machine size, overriding the header's MaxProcs.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_procs)]
    pub(crate) procs: Option<u32>,
    /// Longest run time (s) of a Short job.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub(crate) short_max: u32,
    /// Most processors of a Narrow job (the paper used 64 for LANL-CM5).
    #[arg(long, value_name = "PROCS", default_value_t = 8, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub(crate) narrow_max: u32,
}

impl WindowArgs {
    /// The window.
    #[must_use]
    pub(crate) fn window(&self) -> Window {
        Window {
            skip: self.skip,
            first: self.first,
            procs: self.procs,
        }
    }

    /// The category bounds.
    #[must_use]
    pub(crate) fn bounds(&self) -> CategoryBounds {
        CategoryBounds {
            short_max: self.short_max,
            narrow_max: self.narrow_max,
        }
    }
}

/// The synthetic workload used without TRACE.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Built-in workload (without TRACE)")]
pub(crate) struct SyntheticArgs {
    /// Synthetic workload (no TRACE): number of jobs.
    #[arg(long, default_value_t = SyntheticSpec::default().jobs, allow_negative_numbers = true, value_parser = parse_count_u32)]
    pub(crate) synthetic_jobs: u32,
    /// Synthetic workload (no TRACE): PRNG seed.
    #[arg(long, default_value_t = SyntheticSpec::default().seed, allow_negative_numbers = true, value_parser = parse_count_u64)]
    pub(crate) seed: u64,
}

impl SyntheticArgs {
    pub(crate) fn spec(&self) -> SyntheticSpec {
        SyntheticSpec {
            jobs: self.synthetic_jobs,
            seed: self.seed,
            ..SyntheticSpec::default()
        }
    }
}

/// Estimates and load.
#[derive(Clone, Debug, Args)]
pub(crate) struct ShapeArgs {
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub(crate) estimates: Estimates,
    /// Load factor: submit times are divided by F (F > 1 is heavier).
    #[arg(long, value_name = "F", default_value_t = 1.0, allow_negative_numbers = true, value_parser = parse_load)]
    pub(crate) load: f64,
}

impl ShapeArgs {
    pub(crate) fn shaping(&self) -> Shaping {
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
#[command(next_help_heading = "Selective thresholds")]
pub(crate) struct ThresholdArgs {
    /// Selective's starvation threshold, an expansion factor (e.g. 26.69).
    #[arg(long, value_name = "X", allow_negative_numbers = true, value_parser = parse_threshold)]
    pub(crate) threshold: Option<u32>,
    /// Selective-D's thresholds for SN,SW,LN,LW (categories by --short-max / --narrow-max).
    #[arg(long, value_name = "SN,SW,LN,LW", allow_negative_numbers = true, value_parser = parse_thresholds)]
    pub(crate) thresholds: Option<[u32; 4]>,
    /// Take the thresholds a run gives: `conservative` is the mean bounded
    /// slowdown of a Conservative run (overall; per category for
    /// selective-d; with user estimates over well-estimated jobs only)
    /// [default: conservative, for selective without --threshold and
    /// selective-d without --thresholds].
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub(crate) threshold_from: Option<ThresholdFrom>,
    /// selective-scaled: the factor applied to the running mean slowdown [default: 1.5].
    #[arg(long, value_name = "F", allow_negative_numbers = true, value_parser = parse_scale)]
    pub(crate) scale: Option<u32>,
    /// selective-adaptive / selective-scaled: average only well-estimated jobs.
    #[arg(long)]
    pub(crate) well_estimated_only: bool,
}

impl ThresholdArgs {
    /// The options in kernel units.
    #[must_use]
    pub(crate) fn options(&self) -> ThresholdOptions {
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
#[command(next_help_heading = "Output")]
pub(crate) struct OutputArgs {
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Also write the CSV rows to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub(crate) csv: Option<PathBuf>,
    /// Also draw the figure to FILE (SVG).
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) svg: Option<PathBuf>,
}

/// `host-cli replay`.
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub(crate) trace: Option<PathBuf>,
    /// Scheduling policy.
    #[arg(long, value_enum, default_value_t = PolicyChoice::EASY, help_heading = "Policy and workload")]
    pub(crate) policy: PolicyChoice,
    /// Estimates and load.
    #[command(flatten, next_help_heading = "Policy and workload")]
    pub(crate) shape: ShapeArgs,
    /// Write one CSV row per scheduled job to FILE, in trace order (layout:
    /// --jobs-format).
    #[arg(long, value_name = "FILE.csv", help_heading = "Output")]
    pub(crate) jobs_out: Option<PathBuf>,
    /// Layout of --jobs-out: this tool's columns, or Batsim's jobs.csv (for
    /// evalys; scripts/evalys_gantt.py draws its Gantt chart).
    #[arg(
        long,
        value_enum,
        value_name = "LAYOUT",
        default_value_t = JobsFormat::Plain,
        requires = "jobs_out",
        help_heading = "Output"
    )]
    pub(crate) jobs_format: JobsFormat,
    /// Report format (csv: one row per set of jobs, each with the run's
    /// context, so the rows of several runs can be concatenated; json: one
    /// object, wall-clock times apart under "timings").
    #[arg(long, value_enum, default_value_t = Format::Table, help_heading = "Output")]
    pub(crate) format: Format,
    /// Time every kernel call (two clock reads each) and report a histogram
    /// of call times with the slowest call: the worst case a firmware host
    /// must budget for. Off by default: an untimed replay reads no clock
    /// per call.
    #[arg(long, help_heading = "Output")]
    pub(crate) latency: bool,
    /// Write a checkpoint of the replay to FILE every --checkpoint-every
    /// events, each replacing the last one whole (written to a temporary
    /// file, then renamed); --resume FILE continues from it.
    #[arg(
        long,
        value_name = "FILE",
        requires = "checkpoint_every",
        help_heading = "Checkpoints"
    )]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Events between two checkpoints: job arrivals and completions in the
    /// replay (not wall time, so a command writes the same checkpoints each
    /// time); a checkpoint is taken after the instant that reaches N.
    #[arg(long, value_name = "N", requires = "checkpoint", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Checkpoints")]
    pub(crate) checkpoint_every: Option<u64>,
    /// Continue the replay from the checkpoint in FILE, written by the same
    /// command with --checkpoint: its outputs are those of a replay that
    /// never stopped. A checkpoint of another trace, window, policy or
    /// option, or a damaged one, is refused (exit status 2).
    #[arg(long, value_name = "FILE", help_heading = "Checkpoints")]
    pub(crate) resume: Option<PathBuf>,
    /// Also report the distributions of wait, bounded slowdown and
    /// turnaround per set of jobs: median, 90th, 95th and 99th percentiles
    /// (nearest rank) and maximum, the standard deviations of wait and
    /// bounded slowdown and the geometric mean of bounded slowdowns.
    #[arg(long, help_heading = "Output")]
    pub(crate) distributions: bool,
    /// Schedule the first jobs normally but leave them out of the metrics:
    /// N jobs in submit order, or those submitted within a span of the
    /// first submit (3600s, 90m, 12h, 2d).
    #[arg(long, value_name = "N|SPAN", value_parser = parse_edge, help_heading = "Output")]
    pub(crate) warmup: Option<Edge>,
    /// Schedule the last jobs normally but leave them out of the metrics:
    /// N jobs, or those submitted within a span of the last submit.
    #[arg(long, value_name = "N|SPAN", value_parser = parse_edge, help_heading = "Output")]
    pub(crate) cooldown: Option<Edge>,
    /// Also report the metrics per SWF user, group or queue and the
    /// fairness between them (mean bounded slowdown max/min, Jain index of
    /// mean wait); --jobs-out then adds user, group and queue columns.
    #[arg(long, value_enum, value_name = "OWNER", help_heading = "Output")]
    pub(crate) by: Option<GroupBy>,
    /// Write the replay's state at fixed simulated intervals to FILE
    /// (processors busy, jobs running, jobs and processor-seconds waiting,
    /// utilisation so far); `host-cli plot timeseries FILE` draws it.
    #[arg(long, value_name = "FILE.csv", help_heading = "Output")]
    pub(crate) timeseries: Option<PathBuf>,
    /// The --timeseries interval, in simulated seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600, requires = "timeseries",
          value_parser = clap::value_parser!(u64).range(1..), help_heading = "Output")]
    pub(crate) every: u64,
    /// Print one job's story instead of the report: its submit, each
    /// change of the reason it waited for (with time and detail), its
    /// start and how it was started, its end. JOB is the trace's job
    /// number (the job_id of --jobs-out).
    #[arg(long, value_name = "JOB", value_parser = parse_count_u64, help_heading = "Why jobs wait")]
    pub(crate) explain: Option<u64>,
    /// Print the wait queue at simulated time T (seconds, after --load
    /// scaling) instead of the report, as `squeue --start` does: position,
    /// job, processors, estimate, wait so far, expected start (or none,
    /// and why), reason.
    #[arg(long, value_name = "T", value_parser = parse_count_u32, help_heading = "Why jobs wait")]
    pub(crate) queue_at: Option<u32>,
    /// Write every change of every job's pending reason to FILE (CSV: job,
    /// time, reason, detail; by time, then job).
    #[arg(long, value_name = "FILE.csv", help_heading = "Why jobs wait")]
    pub(crate) reasons_out: Option<PathBuf>,
    /// Add to the report the total wait split by the reason jobs waited
    /// for, overall and per category (integer seconds that add up to the
    /// total wait).
    #[arg(long, help_heading = "Why jobs wait")]
    pub(crate) wait_by_reason: bool,
    /// Synthetic workload: number of jobs.
    #[arg(long, default_value_t = SyntheticSpec::default().jobs, allow_negative_numbers = true, value_parser = parse_count_u32, help_heading = "Built-in workload (without TRACE)")]
    pub(crate) synthetic_jobs: u32,
    /// PRNG seed: the synthetic workload's [default: 1] and, under
    /// cons-rs, the random search's [default: 0]. With the synthetic
    /// workload and cons-rs, one seed sets both.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count_u64, help_heading = "Built-in workload (without TRACE)")]
    pub(crate) seed: Option<u64>,
    /// Selective thresholds.
    #[command(flatten)]
    pub(crate) thresholds: ThresholdArgs,
    /// dpsa-p / dpsa-n / dpsa-w: search nodes per scheduling pass (0: the
    /// greedy set, so dpsa-p is EASY) [default: 100000]. The report counts
    /// the searches the budget stopped; `docs/studies/dpsa/README.md` has
    /// replay times.
    #[arg(
        long,
        value_name = "N",
        help_heading = "Search policies (DPSA, CONS+RS, Conservative)"
    )]
    pub(crate) dpsa_nodes: Option<u32>,
    /// cons-rs: iterations of each random search [default: 4 per queued
    /// job when the search starts, the paper's simulator's budget].
    #[arg(
        long,
        value_name = "N",
        help_heading = "Search policies (DPSA, CONS+RS, Conservative)"
    )]
    pub(crate) rs_iterations: Option<u32>,
    /// conservative: never compress the plan (reservations made at arrival
    /// stay where they are: the CONS+RS paper's baseline).
    #[arg(long, help_heading = "Search policies (DPSA, CONS+RS, Conservative)")]
    pub(crate) no_compression: bool,
    /// conservative: how the plan is compressed [default: queue]. queue:
    /// after every instant with a completion, each waiting job in queue
    /// order moves to its earliest start if earlier; rebuild: after an
    /// early completion only, every waiting job is put back in order of its
    /// planned start (the Alea simulator's CONS; `docs/design.md`,
    /// "Conservative").
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        help_heading = "Search policies (DPSA, CONS+RS, Conservative)"
    )]
    pub(crate) compression: Option<CompressionMode>,
    /// cons-rs: whose rules the random search follows [default: ours].
    /// alea: the Alea simulator's CONS+RS (no compression; searches after
    /// early completions and every 300 s; a random job to a random place
    /// in the plan's list; Alea's objective; no guarantee; one machine
    /// only; `docs/design.md`, "CONS+RS").
    #[arg(
        long,
        value_enum,
        help_heading = "Search policies (DPSA, CONS+RS, Conservative)"
    )]
    pub(crate) flavour: Option<Flavour>,
    /// Window and categories.
    #[command(flatten)]
    pub(crate) window: WindowArgs,
    /// Replay a farm: FARM.toml describes machines and license pools, and
    /// TRACE is then its job list (CSV); see `docs/studies/farm/README.md`.
    #[arg(long, value_name = "FARM.toml", help_heading = "Farms")]
    pub(crate) farm: Option<PathBuf>,
    /// Flexible-backfilling heuristics (bf-unmod, bf-mod).
    #[command(flatten)]
    pub(crate) heuristics: HeuristicsArgs,
}

/// `host-cli info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// SWF trace, plain or gzip.
    pub(crate) trace: PathBuf,
    /// Report format (csv: one row per category, each with the trace's
    /// context; json: one object, the read time apart under "timings").
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Window and categories.
    #[command(flatten)]
    pub(crate) window: WindowArgs,
}

/// `host-cli thresholds`.
#[derive(Debug, Args)]
pub(crate) struct ThresholdsArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub(crate) trace: Option<PathBuf>,
    /// Estimates and load.
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,
    /// Also write the CSV rows to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub(crate) csv: Option<PathBuf>,
    /// Synthetic workload.
    #[command(flatten)]
    pub(crate) synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub(crate) window: WindowArgs,
}

/// The policies `compare` and `sweep` replay, and the one the others are
/// compared against.
#[derive(Clone, Debug, Args)]
pub(crate) struct ComparedArgs {
    /// Policies to replay, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "conservative,easy,selective,selective-d"
    )]
    pub(crate) policies: Vec<PolicyChoice>,
    /// The policy the others are compared against (added to --policies if missing).
    #[arg(long, value_enum, default_value_t = PolicyChoice::CONSERVATIVE)]
    pub(crate) baseline: PolicyChoice,
}

/// The options `compare`, `sweep` and `fairness` end with.
#[derive(Clone, Debug, Args)]
pub(crate) struct AnalysisArgs {
    /// Selective thresholds.
    #[command(flatten)]
    pub(crate) thresholds: ThresholdArgs,
    /// Output.
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// Synthetic workload.
    #[command(flatten)]
    pub(crate) synthetic: SyntheticArgs,
    /// Window and categories.
    #[command(flatten)]
    pub(crate) window: WindowArgs,
}

/// `host-cli compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub(crate) trace: Option<PathBuf>,
    /// Policies and baseline.
    #[command(flatten)]
    pub(crate) compared: ComparedArgs,
    /// Estimates and load.
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// Thresholds, outputs, workload and window.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,
}

/// A set of jobs for the sweep's table and figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SetArg {
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
    pub(crate) const fn label(self) -> &'static str {
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
pub(crate) struct SweepArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub(crate) trace: Option<PathBuf>,
    /// Load factors, comma-separated (submit times are divided by each).
    #[arg(
        long,
        value_name = "F,F,...",
        value_delimiter = ',',
        default_value = "1.0,1.2,1.4,1.6",
        allow_negative_numbers = true,
        value_parser = parse_load
    )]
    pub(crate) loads: Vec<f64>,
    /// Policies and baseline.
    #[command(flatten)]
    pub(crate) compared: ComparedArgs,
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub(crate) estimates: Estimates,
    /// The set of jobs the table and the figure show (CSV and JSON have all).
    #[arg(long, value_enum, default_value_t = SetArg::All)]
    pub(crate) set: SetArg,
    /// Thresholds (derived per load when from a Conservative run), outputs,
    /// workload and window.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,
}

/// `host-cli fairness`.
#[derive(Debug, Args)]
pub(crate) struct FairnessArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub(crate) trace: Option<PathBuf>,
    /// Policies to judge, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "easy,selective,selective-d,sjf-easy"
    )]
    pub(crate) policies: Vec<PolicyChoice>,
    /// Estimates and load.
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// Thresholds, outputs, workload and window.
    #[command(flatten)]
    pub(crate) analysis: AnalysisArgs,
    /// Write one CSV row per job (fair start, fair slowdown, each policy's
    /// start, bounded slowdown and bucket) to FILE.
    #[arg(long, value_name = "FILE.csv", help_heading = "Output")]
    pub(crate) jobs_out: Option<PathBuf>,
}

/// `host-cli generate`.
#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    /// The workload model.
    #[command(subcommand)]
    pub(crate) model: GenerateModel,
}

/// The models `generate` can write.
#[derive(Debug, Subcommand)]
pub(crate) enum GenerateModel {
    /// Lublin-Feitelson batch jobs with Tsafrir-Etsion-Feitelson estimates
    /// (the built-in workload of `replay`).
    Lublin(LublinArgs),
    /// A heterogeneous farm (TOML) and its job list (CSV) from the
    /// flexible-backfilling paper's parameters (Baraglia et al. 2007).
    Farm(GenerateFarmArgs),
}

/// `host-cli generate lublin`.
#[derive(Debug, Args)]
pub(crate) struct LublinArgs {
    /// Number of jobs.
    #[arg(long, value_name = "N", default_value_t = SyntheticSpec::default().jobs)]
    pub(crate) jobs: u32,
    /// Machine size (processors).
    #[arg(long, value_name = "P", default_value_t = SyntheticSpec::default().procs,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) procs: u32,
    /// PRNG seed.
    #[arg(long, value_name = "S", default_value_t = SyntheticSpec::default().seed)]
    pub(crate) seed: u64,
    /// Arrival rate relative to the published model: inter-arrival times
    /// are divided by F (F > 1 is heavier; the day keeps 24 hours).
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub(crate) load: f64,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

impl LublinArgs {
    /// The workload these options describe.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a load that is not a positive number.
    pub(crate) fn spec(&self) -> Result<SyntheticSpec, CliError> {
        if !(self.load.is_finite() && self.load > 0.0) {
            return Err(CliError::Usage(format!(
                "--load must be a positive number, got {}",
                self.load
            )));
        }
        Ok(SyntheticSpec {
            jobs: self.jobs,
            procs: self.procs,
            load: self.load,
            seed: self.seed,
        })
    }
}

/// Parses a count, a whole number from 0 to `u64::MAX` (`--first`, `--skip`).
///
/// # Errors
/// A message saying what the text is not.
pub(crate) fn parse_count_u64(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

/// Parses a count, a whole number from 0 to `u32::MAX` (`--short-max`).
///
/// # Errors
/// A message saying what the text is not.
pub(crate) fn parse_count_u32(text: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u32::MAX))
}

/// Parses a machine size, a whole number from 1 to `u32::MAX` (`--procs`).
///
/// # Errors
/// A message saying what the text is not.
pub(crate) fn parse_procs(text: &str) -> Result<u32, String> {
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
pub(crate) fn parse_load(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(format!(
            "`{text}` is not a load factor (a positive number: submit times are divided by it, \
             so 1.2 is 20% heavier)"
        )),
    }
}
