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
//! host-cli plan run plan.toml --out results && host-cli plan merge plan.toml results --out table.csv
//! host-cli replay TRACE --timeseries ts.csv --every 600
//! host-cli plot timeseries ts.csv -o ts.svg
//! ```
//!
//! Without TRACE every command uses the built-in synthetic workload
//! (`--synthetic-jobs`, `--seed`). The analyses are described in
//! `docs/studies/selective/analyses.md` and [`crate::studies`].
//!
//! Exit codes: 0 success, 1 a replay or output failure, 2 bad input or options.

mod analyses;
mod applies;
pub(crate) mod args;
mod farm_study;
mod generate;
mod plan;
mod plot;
mod replay;

use crate::error::CliError;
use crate::output::files::{self, OutputFiles};
use crate::output::progress;
pub(crate) use args::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use std::path::Path;

/// Entry point of the binary. Nothing here panics on an output error: a
/// closed stdout pipe ends the program quietly with status 0, any other
/// write error is one line on stderr and status 1 (see [`crate::output`]).
#[must_use]
pub fn main() -> std::process::ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return clap_exit(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    if let Err(e) = applies::check(&matches) {
        files::warn(&format!("error: {e}"));
        return std::process::ExitCode::from(e.exit_code());
    }
    progress::show_on_terminal();
    match run(&cli.command) {
        Ok(text) if files::report_to_stderr() => {
            files::write_stderr(text.as_bytes());
            std::process::ExitCode::SUCCESS
        }
        Ok(text) => match files::write_stdout(text.as_bytes()) {
            Ok(_) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                files::warn(&format!("error: {e}"));
                std::process::ExitCode::from(1)
            }
        },
        Err(e) => {
            files::warn(&format!("error: {e}"));
            std::process::ExitCode::from(e.exit_code())
        }
    }
}

/// The command line's parser, for tests that walk every command and
/// option it accepts.
#[must_use]
pub fn command() -> clap::Command {
    Cli::command()
}

/// Prints clap's help, version or usage error and gives its exit status
/// (0 for help and version, 2 for usage errors); a closed pipe is ignored,
/// any other write error is status 1.
fn clap_exit(e: &clap::Error) -> std::process::ExitCode {
    match e.print() {
        Err(io) if io.kind() != std::io::ErrorKind::BrokenPipe => {
            files::warn(&format!("error: writing the message failed: {io}"));
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
pub(crate) fn run(command: &Command) -> Result<String, CliError> {
    match command {
        Command::Replay(args) => replay::run_replay(args),
        Command::Info(args) => replay::run_info(args),
        Command::Thresholds(args) => analyses::run_thresholds(args),
        Command::Compare(args) => analyses::run_compare(args),
        Command::Sweep(args) => analyses::run_sweep(args),
        Command::Fairness(args) => analyses::run_fairness(args),
        Command::Generate(args) => generate::run(args),
        Command::FarmStudy(args) => farm_study::run_study(args),
        Command::Plan(args) => plan::run(args),
        Command::Plot(args) => match &args.what {
            args::PlotWhat::Timeseries(args) => plot::run_timeseries(args),
        },
    }
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Io("json".into(), std::io::Error::other(e.to_string())))
}

/// A report as `--format` asks: the aligned table, the CSV rows or the
/// JSON object of `report`.
fn in_format<T: serde::Serialize>(
    format: args::Format,
    report: &T,
    table: impl FnOnce(&T) -> String,
    csv: impl FnOnce(&T) -> Result<String, CliError>,
) -> Result<String, CliError> {
    match format {
        args::Format::Table => Ok(table(report)),
        args::Format::Csv => csv(report),
        args::Format::Json => json(report),
    }
}

/// The farm commands end to end, through the command line.
#[cfg(test)]
mod farm_tests;

/// `generate` end to end, through the command line.
#[cfg(test)]
mod generate_tests;

#[cfg(test)]
mod tests;
