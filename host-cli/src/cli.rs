//! The `host-cli` command line.
//!
//! ```text
//! host-cli replay [TRACE] --policy easy --estimates user --load 1.0 --jobs-out jobs.csv
//! host-cli info TRACE --first 5000
//! ```
//!
//! Exit codes: 0 success, 1 a replay or output failure, 2 bad input or options.

use crate::replay::{self, CliError, Estimates, Prepared, Shaping, Window};
use crate::report;
use crate::swf;
use crate::synth::SyntheticSpec;
use backfill_core::{CategoryBounds, Policy};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

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
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text.
    Table,
    /// One JSON object.
    Json,
}

/// Policies selectable on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PolicyArg {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY backfilling.
    Easy,
    /// EASY with shortest-estimate-first order.
    SjfEasy,
    /// Conservative backfilling.
    Conservative,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Fcfs => Self::Fcfs,
            PolicyArg::Easy => Self::Easy,
            PolicyArg::SjfEasy => Self::SjfEasy,
            PolicyArg::Conservative => Self::Conservative,
        }
    }
}

/// Window and category options shared by `replay` and `info`.
#[derive(Clone, Debug, Args)]
pub struct WindowArgs {
    /// Take only the first N job lines (after --skip), in file order.
    #[arg(long, value_name = "N")]
    pub first: Option<u64>,
    /// Skip the first N job lines, in file order.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip: u64,
    /// Machine size, overriding the header's MaxProcs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Option<u32>,
    /// Longest run time (s) of a Short job.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub short_max: u32,
    /// Most processors of a Narrow job (the paper used 64 for LANL-CM5).
    #[arg(long, value_name = "PROCS", default_value_t = 8)]
    pub narrow_max: u32,
}

impl WindowArgs {
    fn window(&self) -> Window {
        Window {
            skip: self.skip,
            first: self.first,
            procs: self.procs,
        }
    }

    fn bounds(&self) -> CategoryBounds {
        CategoryBounds {
            short_max: self.short_max,
            narrow_max: self.narrow_max,
        }
    }
}

/// `host-cli replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// SWF trace, plain or gzip. Without it, the built-in synthetic workload.
    pub trace: Option<PathBuf>,
    /// Scheduling policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Easy)]
    pub policy: PolicyArg,
    /// Estimates the scheduler sees.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    pub estimates: Estimates,
    /// Load factor: submit times are divided by F (F > 1 is heavier).
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub load: f64,
    /// Write one CSV row per scheduled job to FILE.
    #[arg(long, value_name = "FILE.csv")]
    pub jobs_out: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Synthetic workload: number of jobs.
    #[arg(long, default_value_t = SyntheticSpec::default().jobs)]
    pub synthetic_jobs: u32,
    /// Synthetic workload: PRNG seed.
    #[arg(long, default_value_t = SyntheticSpec::default().seed)]
    pub seed: u64,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// `host-cli info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// SWF trace, plain or gzip.
    pub trace: PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Window and categories.
    #[command(flatten)]
    pub window: WindowArgs,
}

/// Entry point of the binary.
#[must_use]
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Replay(args) => run_replay(&args),
        Command::Info(args) => run_info(&args),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("host-cli: error: {e}");
            let code = match e {
                CliError::Swf(_) | CliError::Usage(_) => 2,
                CliError::Io(..) | CliError::Replay { .. } => 1,
            };
            std::process::ExitCode::from(code)
        }
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
    match trace {
        Some(path) => {
            let loaded = swf::load(path)?;
            let prepared = replay::prepare(&loaded, &window.window(), shaping)?;
            Ok((prepared, Some(loaded.header)))
        }
        None => {
            let spec = SyntheticSpec {
                procs: window.procs.unwrap_or(spec.procs),
                ..*spec
            };
            Ok((replay::prepare_synthetic(&spec, shaping)?, None))
        }
    }
}

/// `host-cli replay`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub fn run_replay(args: &ReplayArgs) -> Result<String, CliError> {
    let started = Instant::now();
    let shaping = Shaping {
        estimates: args.estimates,
        load: args.load,
    };
    let spec = SyntheticSpec {
        jobs: args.synthetic_jobs,
        seed: args.seed,
        ..SyntheticSpec::default()
    };
    let (prepared, _) = load_prepared(args.trace.as_ref(), &args.window, shaping, &spec)?;
    let bounds = args.window.bounds();
    let policy = Policy::from(args.policy);
    let bar = (std::io::stderr().is_terminal() && prepared.jobs.len() > 20_000).then(|| {
        let bar = indicatif::ProgressBar::new(prepared.jobs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg} [{bar:40}] {pos}/{len} jobs ({eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(format!("replaying under {policy}"));
        bar
    });
    let result = replay::run(
        &prepared,
        policy,
        bounds,
        args.jobs_out.is_some(),
        bar.as_ref(),
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let (Some(path), Some(records)) = (&args.jobs_out, &result.records) {
        let file =
            std::fs::File::create(path).map_err(|e| CliError::Io(path.display().to_string(), e))?;
        report::write_jobs_csv(std::io::BufWriter::new(file), &prepared, records, bounds).map_err(
            |e| {
                CliError::Io(
                    path.display().to_string(),
                    std::io::Error::other(e.to_string()),
                )
            },
        )?;
    }
    let r = report::replay_report(
        &prepared,
        &result,
        bounds,
        args.window.skip,
        args.window.first,
        started.elapsed().as_secs_f64(),
    );
    Ok(match args.format {
        Format::Table => report::replay_table(&r),
        Format::Json => json(&r)?,
    })
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
    let r = report::info_report(
        &prepared,
        &header.unwrap_or_default(),
        args.window.bounds(),
        args.window.skip,
        args.window.first,
        started.elapsed().as_secs_f64(),
    );
    Ok(match args.format {
        Format::Table => report::info_table(&r),
        Format::Json => json(&r)?,
    })
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Io("json".into(), std::io::Error::other(e.to_string())))
}
