//! `host-cli plan`'s options: `cells`, `run`, `merge` and `slurm`.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `host-cli plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    /// What to do with the plan.
    #[command(subcommand)]
    pub(crate) command: PlanCommand,
}

/// The plan subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PlanCommand {
    /// List the plan's cells (index, id, parameters) and count them.
    Cells(PlanCellsArgs),
    /// Run cells: one (--cell), an array task's share (from the batch
    /// system's environment), or all of them here in parallel.
    Run(PlanRunArgs),
    /// Merge the results into one table (CSV, JSON); fail listing every
    /// cell without a result.
    Merge(PlanMergeArgs),
    /// Write the sbatch script that runs the plan as a Slurm job array
    /// (and submit it with --submit).
    Slurm(PlanSlurmArgs),
}

/// The plan file and where its traces are.
#[derive(Clone, Debug, Args)]
pub(crate) struct PlanFileArgs {
    /// The plan file (TOML; docs/plans.md).
    pub(crate) plan: PathBuf,
    /// The folder relative trace names are looked up in [default:
    /// $BACKFILL_TRACES_DIR, else the plan file's folder].
    #[arg(long, value_name = "DIR")]
    pub(crate) traces: Option<PathBuf>,
}

/// How `plan cells` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum CellsFormat {
    /// Aligned text, one line per cell, then the count.
    Table,
    /// One JSON object: plan, fingerprint, count and the cells.
    Json,
}

/// `host-cli plan cells`.
#[derive(Debug, Args)]
pub(crate) struct PlanCellsArgs {
    /// The plan.
    #[command(flatten)]
    pub(crate) file: PlanFileArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CellsFormat::Table)]
    pub(crate) format: CellsFormat,
}

/// `host-cli plan run`.
#[derive(Debug, Args)]
pub(crate) struct PlanRunArgs {
    /// The plan.
    #[command(flatten)]
    pub(crate) file: PlanFileArgs,
    /// The output folder: results go to DIR/cells/ID.json.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// Run this cell only (overrides the environment).
    #[arg(long, value_name = "I", conflicts_with_all = ["index_env", "count_env"])]
    pub(crate) cell: Option<usize>,
    /// Run cells whose result is already there again, and replace results
    /// of another plan.
    #[arg(long)]
    pub(crate) force: bool,
    /// Cells run at a time [default: the processors available].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) jobs: Option<u32>,
    /// The environment variable holding this task's index, for a batch
    /// system other than Slurm (Kubernetes: JOB_COMPLETION_INDEX; PBS:
    /// PBS_ARRAY_INDEX). Without it, SLURM_ARRAY_TASK_ID is used when set.
    #[arg(long, value_name = "NAME")]
    pub(crate) index_env: Option<String>,
    /// The environment variable holding the number of tasks (with
    /// --index-env); task K then runs cells K, K+COUNT, ... Without it a
    /// task runs the one cell of its index.
    #[arg(long, value_name = "NAME", requires = "index_env")]
    pub(crate) count_env: Option<String>,
}

/// `host-cli plan merge`.
#[derive(Debug, Args)]
pub(crate) struct PlanMergeArgs {
    /// The plan.
    #[command(flatten)]
    pub(crate) file: PlanFileArgs,
    /// The folder `plan run --out` wrote to.
    pub(crate) dir: PathBuf,
    /// Write the table as CSV to FILE (default: standard output).
    #[arg(long, value_name = "FILE.csv")]
    pub(crate) out: Option<PathBuf>,
    /// Also write the table as JSON (an array of rows) to FILE.
    #[arg(long, value_name = "FILE.json")]
    pub(crate) json: Option<PathBuf>,
    /// Write the table even when cells have no result (their status says
    /// `missing` or `failed`, their metrics are empty).
    #[arg(long)]
    pub(crate) allow_missing: bool,
}

/// `host-cli plan slurm`.
#[derive(Debug, Args)]
pub(crate) struct PlanSlurmArgs {
    /// The plan.
    #[command(flatten)]
    pub(crate) file: PlanFileArgs,
    /// The output folder of the tasks (DIR/cells, DIR/logs); the script is
    /// written to DIR/plan.sbatch.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// The Slurm partition.
    #[arg(long, value_name = "P")]
    pub(crate) partition: Option<String>,
    /// Each task's time limit, in sbatch's form (e.g. 1:00:00).
    #[arg(long, value_name = "T")]
    pub(crate) time: Option<String>,
    /// At most N tasks running at once (--array=0-M%N).
    #[arg(long, value_name = "N")]
    pub(crate) max_parallel: Option<usize>,
    /// Array tasks [default: one per cell]; task K runs cells K, K+N, ...
    /// (for plans with more cells than the cluster's MaxArraySize).
    #[arg(long, value_name = "N")]
    pub(crate) tasks: Option<usize>,
    /// The host-cli binary the tasks run [default: this one].
    #[arg(long, value_name = "PATH")]
    pub(crate) bin: Option<PathBuf>,
    /// Submit the script with sbatch and print the job id.
    #[arg(long)]
    pub(crate) submit: bool,
}
