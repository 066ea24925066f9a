//! `host-cli thresholds`, `compare`, `sweep` and `fairness`: the
//! selective-reservation analyses of [`crate::studies`].

use super::args::{
    AnalysisArgs, CompareArgs, FairnessArgs, OutputArgs, ShapeArgs, SweepArgs, SyntheticArgs,
    ThresholdsArgs, WindowArgs,
};
use super::{in_format, output_files};
use crate::error::CliError;
use crate::output::csv_text;
use crate::output::files::OutputFiles;
use crate::output::progress;
use crate::plan::spec::Workload;
use crate::plan::sweep as plan_sweep;
use crate::replay;
use crate::replay::policy::PolicyChoice;
use crate::replay::{Prepared, Shaping, Window};
use crate::studies::thresholds;
use crate::studies::{self, compare, fairness, sweep, Source};
use backfill_core::{CategoryBounds, Policy};
use std::path::Path;

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
        files.write("--csv", csv_text(&rows())?.as_bytes())?;
    }
    if files.wants("--svg") {
        files.write("--svg", svg()?.as_bytes())?;
    }
    let text = in_format(output.format, report, |_| table(), |_| csv_text(&rows()))?;
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

/// The jobs an analysis replays: TRACE (or the built-in workload) in the
/// window, shaped; with the window and the category bounds.
fn prepare(
    trace: Option<&Path>,
    synthetic: &SyntheticArgs,
    window: &WindowArgs,
    shape: &ShapeArgs,
) -> Result<(Prepared, Window, CategoryBounds), CliError> {
    let source = Source::load(trace, synthetic.spec())?;
    let (window, bounds) = (window.window(), window.bounds());
    let prepared = source.prepare(&window, shape.shaping())?;
    Ok((prepared, window, bounds))
}

impl AnalysisArgs {
    /// [`prepare`] with this analysis's workload and window.
    fn prepare(
        &self,
        trace: Option<&Path>,
        shape: &ShapeArgs,
    ) -> Result<(Prepared, Window, CategoryBounds), CliError> {
        prepare(trace, &self.synthetic, &self.window, shape)
    }
}

/// `host-cli thresholds`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub(crate) fn run_thresholds(args: &ThresholdsArgs) -> Result<String, CliError> {
    let mut files = output_files(args.trace.as_deref(), &[("--csv", args.csv.as_deref())])?;
    let (prepared, window, bounds) = prepare(
        args.trace.as_deref(),
        &args.synthetic,
        &args.window,
        &args.shape,
    )?;
    let bar = progress::phase("Conservative run", prepared.jobs.len() as u64);
    let run = replay::run(&prepared, Policy::Conservative, bounds, true, Some(&bar));
    progress::finish(&bar);
    let report = thresholds::report(&prepared, &window, bounds, args.shape.load, &run?);
    if files.wants("--csv") {
        files.write(
            "--csv",
            csv_text(&thresholds::csv_rows(&report))?.as_bytes(),
        )?;
    }
    let text = in_format(args.format, &report, thresholds::table, |r| {
        csv_text(&thresholds::csv_rows(r))
    })?;
    files.commit()?;
    Ok(text)
}

/// `host-cli compare`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub(crate) fn run_compare(args: &CompareArgs) -> Result<String, CliError> {
    let files = analysis_files(args.trace.as_deref(), &args.analysis.output)?;
    let (prepared, window, bounds) = args.analysis.prepare(args.trace.as_deref(), &args.shape)?;
    let choices = with_baseline(&args.compared.policies, args.compared.baseline);
    let options = args.analysis.thresholds.options();
    let bar = replays_bar(
        "compare",
        studies::study_replays(&choices, &options, false),
        &prepared,
    );
    let study = studies::run_study(&prepared, &choices, &options, bounds, None, Some(&bar));
    progress::finish(&bar);
    let report = compare::report(&prepared, &window, &study?, args.compared.baseline, bounds)?;
    emit(
        &args.analysis.output,
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
pub(crate) fn run_sweep(args: &SweepArgs) -> Result<String, CliError> {
    let files = analysis_files(args.trace.as_deref(), &args.analysis.output)?;
    let synthetic = args.analysis.synthetic.spec();
    let source = Source::load(args.trace.as_deref(), synthetic)?;
    let workload = match &args.trace {
        Some(path) => Workload::Trace {
            name: path.display().to_string(),
            path: path.clone(),
        },
        None => Workload::Builtin {
            jobs: synthetic.jobs,
            seed: synthetic.seed,
        },
    };
    let spec = plan_sweep::SweepSpec {
        window: args.analysis.window.window(),
        estimates: args.estimates,
        loads: args.loads.clone(),
        choices: with_baseline(&args.compared.policies, args.compared.baseline),
        options: args.analysis.thresholds.options(),
        baseline: args.compared.baseline,
        bounds: args.analysis.window.bounds(),
    };
    let per_load = studies::study_replays(&spec.choices, &spec.options, false);
    // Every load replays the same jobs (the window does not depend on it).
    let jobs = source.prepare(
        &spec.window,
        Shaping {
            estimates: spec.estimates,
            load: 1.0,
        },
    )?;
    let bar = replays_bar("sweep", per_load * spec.loads.len() as u64, &jobs);
    drop(jobs);
    let report = plan_sweep::run(source, &workload, &spec, Some(&bar));
    progress::finish(&bar);
    let report = report?;
    let set = args.set.label();
    emit(
        &args.analysis.output,
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
pub(crate) fn run_fairness(args: &FairnessArgs) -> Result<String, CliError> {
    let mut files = analysis_files(args.trace.as_deref(), &args.analysis.output)?;
    files.add("--jobs-out", args.jobs_out.as_deref())?;
    let (prepared, window, bounds) = args.analysis.prepare(args.trace.as_deref(), &args.shape)?;
    let choices = distinct(&args.policies)?;
    let options = args.analysis.thresholds.options();
    let bar = replays_bar(
        "fairness",
        studies::study_replays(&choices, &options, true) + 1,
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
        &args.analysis.output,
        files,
        &report,
        || fairness::csv_rows(&report),
        || fairness::table(&report),
        || fairness::svg(&report),
    )
}
