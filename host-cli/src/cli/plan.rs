//! `host-cli plan cells|run|merge|slurm`: the plans of [`crate::plan`].

use super::args::plan::{
    CellsFormat, PlanArgs, PlanCellsArgs, PlanCommand, PlanFileArgs, PlanMergeArgs, PlanRunArgs,
    PlanSlurmArgs,
};
use super::{json, output_files};
use crate::error::CliError;
use crate::output::files;
use crate::plan::run::{self as plan_run, RunOptions, Selection};
use crate::plan::spec::{Workload, PARAMETER_COLUMNS};
use crate::plan::{format, merge, slurm, Plan};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// `host-cli plan ...`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub(crate) fn run(args: &PlanArgs) -> Result<String, CliError> {
    match &args.command {
        PlanCommand::Cells(a) => cells(a),
        PlanCommand::Run(a) => run_cells(a),
        PlanCommand::Merge(a) => merge_results(a),
        PlanCommand::Slurm(a) => slurm_script(a),
    }
}

fn load(file: &PlanFileArgs) -> Result<Plan, CliError> {
    format::read(&file.plan, file.traces.as_deref())
}

/// `plan cells --format json`.
#[derive(Serialize)]
struct CellsReport<'a> {
    plan: &'a str,
    fingerprint: &'a str,
    cells: usize,
    metrics: &'a [String],
    latency: bool,
    traces_dir: Option<String>,
    list: Vec<CellEntry>,
}

#[derive(Serialize)]
struct CellEntry {
    cell: usize,
    id: String,
    parameters: crate::plan::spec::Parameters,
}

fn cells(a: &PlanCellsArgs) -> Result<String, CliError> {
    let plan = load(&a.file)?;
    if a.format == CellsFormat::Json {
        return json(&CellsReport {
            plan: &plan.name,
            fingerprint: &plan.fingerprint,
            cells: plan.cells.len(),
            metrics: &plan.metrics,
            latency: plan.latency,
            traces_dir: plan.traces_dir.as_ref().map(|d| d.display().to_string()),
            list: plan
                .cells
                .iter()
                .map(|c| CellEntry {
                    cell: c.index,
                    id: c.id.clone(),
                    parameters: c.spec.parameters(),
                })
                .collect(),
        });
    }
    let mut header = vec!["cell".to_owned(), "id".to_owned()];
    header.extend(PARAMETER_COLUMNS.map(str::to_owned));
    let rows: Vec<Vec<String>> = plan
        .cells
        .iter()
        .map(|c| {
            let mut row = vec![c.index.to_string(), c.id.clone()];
            row.extend(c.spec.parameters().values().iter().map(|v| match v {
                serde_json::Value::Null => "-".to_owned(),
                serde_json::Value::String(s) if s.is_empty() => "-".to_owned(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            }));
            row
        })
        .collect();
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(String::len)
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!(
        "plan {} (fingerprint {}): metrics {}{}\n",
        plan.name,
        plan.fingerprint,
        plan.metrics.join(", "),
        if plan.latency {
            "; kernel calls timed"
        } else {
            ""
        }
    );
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(v, &w)| format!("{v:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    let _ = writeln!(out, "{} cells", plan.cells.len());
    Ok(out)
}

fn run_cells(a: &PlanRunArgs) -> Result<String, CliError> {
    let plan = load(&a.file)?;
    let selection = match a.cell {
        Some(i) => Selection::One(i),
        None => Selection::from_env(a.index_env.as_deref(), a.count_env.as_deref(), |name| {
            std::env::var(name).ok()
        })?,
    };
    let cells = selection.cells(plan.cells.len())?;
    let jobs = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        |n| n as usize,
    );
    let task = match selection {
        Selection::Task { index, count, from } => format!(
            " (task {index}{} from {from})",
            count.map_or_else(String::new, |c| format!(" of {c}"))
        ),
        Selection::One(i) => format!(" (--cell {i})"),
        Selection::All => String::new(),
    };
    let mut text = format!(
        "plan {} (fingerprint {}): {} cells\n",
        plan.name,
        plan.fingerprint,
        plan.cells.len()
    );
    if cells.is_empty() {
        let _ = writeln!(text, "no cell for this task{task}");
        return Ok(text);
    }
    let summary = plan_run::run_cells(
        &plan,
        &cells,
        RunOptions {
            out: &a.out,
            force: a.force,
            jobs,
        },
    )?;
    let _ = writeln!(
        text,
        "{} selected{task}: {} already done, {} run, {} failed\nresults in {}",
        summary.selected,
        summary.already,
        summary.ran,
        summary.failed.len(),
        crate::plan::results::cells_dir(&a.out).display()
    );
    if summary.failed.is_empty() {
        return Ok(text);
    }
    let mut message = text.trim_end().to_owned();
    for (i, error) in &summary.failed {
        let _ = write!(message, "\n  cell {i} failed: {error}");
    }
    let _ = write!(
        message,
        "\neach failed cell has a record ID.failed.json beside the results; run the plan again \
         to retry only what is missing"
    );
    Err(CliError::Incomplete(message))
}

fn merge_results(a: &PlanMergeArgs) -> Result<String, CliError> {
    let plan = load(&a.file)?;
    if !a.dir.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: not a folder (give the --out folder of `host-cli plan run`)",
            a.dir.display()
        )));
    }
    let mut files = output_files(
        Some(&a.file.plan),
        &[("--out", a.out.as_deref()), ("--json", a.json.as_deref())],
    )?;
    let table = merge::merge(&plan, &a.dir)?;
    if !table.gaps.is_empty() {
        let list = table
            .gaps
            .iter()
            .map(|g| format!("  {g}"))
            .collect::<Vec<_>>()
            .join("\n");
        let head = format!(
            "{} of {} cells have no result in {}:\n{list}",
            table.gaps.len(),
            plan.cells.len(),
            a.dir.display()
        );
        if !a.allow_missing {
            return Err(CliError::Incomplete(format!(
                "{head}\nrun `host-cli plan run` again (it runs only what is missing), or merge \
                 with --allow-missing"
            )));
        }
        files::warn(&format!(
            "host-cli: {head}\n(--allow-missing: their rows say so in `status`)"
        ));
    }
    let csv = table.csv()?;
    if files.wants("--json") {
        files.write("--json", table.json()?.as_bytes())?;
    }
    let text = if files.wants("--out") {
        files.write("--out", csv.as_bytes())?;
        format!(
            "{} rows ({} with a result), {} columns\n",
            table.rows.len(),
            table.rows.len() - table.gaps.len(),
            table.columns.len()
        )
    } else {
        csv
    };
    files.commit()?;
    Ok(text)
}

/// A job name from the plan file's name (its folder's for a file named
/// `plan.toml`): letters, digits, `-` and `_`.
fn job_name(plan: &Path) -> String {
    let name = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let stem = match name(plan) {
        Some(s) if s == "plan" => slurm::absolute(plan)
            .ok()
            .and_then(|p| p.parent().and_then(name))
            .unwrap_or(s),
        Some(s) => s,
        None => "plan".to_owned(),
    };
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("plan-{clean}")
}

fn slurm_script(a: &PlanSlurmArgs) -> Result<String, CliError> {
    let plan = load(&a.file)?;
    let out = slurm::absolute(&a.out)?;
    let logs = out.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| CliError::Io(logs.display().to_string(), e))?;
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => {
            std::env::current_exe().map_err(|e| CliError::Io("the host-cli binary".into(), e))?
        }
    };
    let names_traces = plan
        .cells
        .iter()
        .any(|c| matches!(c.spec.workload, Workload::Trace { .. }));
    let traces = match (&plan.traces_dir, names_traces) {
        (Some(d), true) => Some(slurm::absolute(d)?),
        _ => None,
    };
    let script = slurm::Script {
        bin: slurm::absolute(&bin)?,
        plan: slurm::absolute(&a.file.plan)?,
        fingerprint: plan.fingerprint.clone(),
        cells: plan.cells.len(),
        out: out.clone(),
        traces,
        tasks: a.tasks,
        partition: a.partition.clone(),
        time: a.time.clone(),
        max_parallel: a.max_parallel,
        name: job_name(&a.file.plan),
    };
    let text = script.text()?;
    let path = out.join("plan.sbatch");
    let mut files = output_files(Some(&a.file.plan), &[("--out", Some(&path))])?;
    files.write("--out", text.as_bytes())?;
    files.commit()?;
    let tasks = script.tasks()?;
    if !a.submit {
        return Ok(format!(
            "wrote {} ({} cells in {tasks} array tasks); submit it with: sbatch {}\n",
            path.display(),
            plan.cells.len(),
            path.display()
        ));
    }
    let job = slurm::submit(&path)?;
    Ok(format!(
        "submitted job {job}: {} cells in {tasks} array tasks; results in {}, logs in {}\n",
        plan.cells.len(),
        crate::plan::results::cells_dir(&out).display(),
        logs.display()
    ))
}
