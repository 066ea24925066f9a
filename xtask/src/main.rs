//! `cargo xtask`: the project's study and documentation tool.
//!
//! ```text
//! cargo xtask study selective|cons-rs|dpsa|farm|policies [--traces DIR] [--jobs N] [--out DIR]
//! cargo xtask docs [--check]
//! cargo xtask alea --checkout PATH [--first N] [--rs-seeds K] [--traces DIR]
//! cargo xtask snapshot BIN DIR [POLICY...] [--traces DIR]
//! cargo xtask snapshot --compare DIR1 DIR2
//! cargo xtask dpsa-nodes TRACE --policy dpsa-p --nodes N
//! cargo xtask plan-timings TABLE.csv [--nodes 1,2,8] [--slowest N] [--extrapolate]
//! cargo xtask medians [CRITERION_DIR]
//! cargo xtask side-by-side N 'TRACES/*.gz' LABEL=BIN:ARGS...
//! cargo xtask latency [--bin BIN] [--traces DIR] [--budget TRACE [--first N]]
//! ```
//!
//! * `study NAME` replays what the study needs with a release `host-cli`
//!   and writes `docs/studies/NAME/{README.md, data/, figures/}` (see
//!   [`study`]). It checks its inputs first, writes into a new folder and
//!   replaces the old one only when everything is written.
//! * `docs` makes every study's README (and what else follows from its
//!   committed data without a replay) from `docs/studies/NAME/data`;
//!   `--check` writes nothing and fails naming every file that differs.
//! * `snapshot` writes every trace x policy x estimate kind's job CSV, to
//!   compare two builds byte for byte (`--compare`).
//! * `latency` prints the worst-case kernel call table of
//!   `docs/performance.md` (see [`latency`]).
//!
//! The traces folder is `--traces DIR`, else `$BACKFILL_TRACES_DIR`, else
//! `../shared/traces` beside the repository; a relative path is taken from
//! the current directory.

mod alea;
mod bench;
mod docs;
mod dpsa_nodes;
mod exec;
mod latency;
mod plan_timings;
mod repo;
mod snapshot;
mod study;
mod text;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The project's study and documentation tool.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Alea (built from a checkout) beside our Alea-flavoured variants.
    Alea(alea::Args),
    /// Run a study: replay, then write docs/studies/NAME/.
    Study {
        #[command(subcommand)]
        study: Study,
    },
    /// Make every study's generated files from its committed data.
    Docs {
        /// Write nothing; fail, naming every generated file that differs
        /// from the committed one.
        #[arg(long)]
        check: bool,
    },
    /// Write the job CSV of every trace x policy x estimate kind (or
    /// compare two such folders).
    Snapshot(SnapshotArgs),
    /// Nodes per DPSA search on one trace, by percentile.
    DpsaNodes(dpsa_nodes::Args),
    /// A merged plan table's timings: the slowest cells, and what N
    /// one-core nodes would take for the plan.
    PlanTimings(plan_timings::Args),
    /// The medians of the criterion benches.
    Medians {
        /// The criterion folder (default: target/criterion).
        dir: Option<PathBuf>,
    },
    /// The slowest kernel calls of every policy on every whole trace (or,
    /// with --budget, as a function of the search budget), as Markdown.
    Latency(latency::Args),
    /// Time whole commands side by side, interleaved; medians in ms.
    SideBySide {
        /// Runs of each command per trace.
        runs: usize,
        /// The traces: a folder and a file-name pattern ('DIR/*.gz').
        traces: String,
        /// The commands, LABEL=BIN:ARGS, `{t}` in ARGS for the trace.
        #[arg(required = true)]
        commands: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum Study {
    /// Selective reservation on CTC-SP2, SDSC-SP2 and KTH-SP2.
    Selective(study::PlanArgs<study::policies::Options>),
    /// CONS+RS against Conservative and EASY.
    ConsRs(study::PlanArgs<study::cons_rs::Options>),
    /// DPSA against EASY.
    Dpsa {
        #[command(flatten)]
        common: study::Common,
        #[command(flatten)]
        reports: study::Reports,
    },
    /// Flexible backfilling on generated farms.
    Farm {
        #[command(flatten)]
        common: study::Common,
        #[command(flatten)]
        options: study::farm::Options,
    },
    /// Every policy on every trace.
    Policies(study::PlanArgs<study::policies::Options>),
    /// Where the waiting time goes: two traces' wait split by reason under
    /// the policies study's policies (docs/studies/reasons).
    Reasons(study::PlanArgs<study::policies::Options>),
}

#[derive(Debug, clap::Args)]
struct SnapshotArgs {
    /// Compare the job CSVs of two snapshot folders instead.
    #[arg(long, num_args = 2, value_names = ["DIR1", "DIR2"], conflicts_with_all = ["bin", "dir", "policies", "traces"])]
    compare: Option<Vec<PathBuf>>,
    /// The host-cli binary.
    #[arg(required_unless_present = "compare")]
    bin: Option<PathBuf>,
    /// The folder to write the job CSVs to.
    #[arg(required_unless_present = "compare")]
    dir: Option<PathBuf>,
    /// Policies (default: all 14, plus cons-rs and cons-nc, Conservative
    /// without compression, both on each trace's first 20,000 jobs).
    policies: Vec<String>,
    /// The traces folder.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
    /// Replays at a time.
    #[arg(long, value_name = "N", default_value_t = 2)]
    jobs: usize,
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Task::Study { study } => match study {
            Study::Selective(args) => study::selective::run(&args),
            Study::ConsRs(args) => study::cons_rs::run(&args),
            Study::Dpsa { common, reports } => study::dpsa::run(&common, &reports),
            Study::Farm { common, options } => study::farm::run(&common, &options),
            Study::Policies(args) => study::policies::run(&args),
            Study::Reasons(args) => study::reasons::run(&args),
        },
        Task::Docs { check } => docs::run(check),
        Task::Alea(args) => alea::run(&args),
        Task::Snapshot(args) => match (args.compare, args.bin, args.dir) {
            (Some(dirs), _, _) => match dirs.as_slice() {
                [a, b] => snapshot::compare(a, b),
                _ => Err("--compare takes two folders".into()),
            },
            (None, Some(bin), Some(dir)) => {
                let policies = if args.policies.is_empty() {
                    snapshot::default_policies()
                } else {
                    args.policies
                };
                let traces = repo::traces_dir(args.traces.as_deref())?;
                snapshot::write(&bin, &dir, &policies, &traces, args.jobs.max(1))
            }
            _ => Err("snapshot needs BIN and DIR, or --compare DIR1 DIR2".into()),
        },
        Task::DpsaNodes(args) => dpsa_nodes::run(&args).map_err(|e| e.to_string()),
        Task::PlanTimings(args) => plan_timings::run(&args),
        Task::Latency(args) => latency::run(&args),
        Task::Medians { dir } => bench::medians(dir.as_deref()),
        Task::SideBySide {
            runs,
            traces,
            commands,
        } => bench::side_by_side(runs, &traces, &commands),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
