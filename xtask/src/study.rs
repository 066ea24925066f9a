//! The studies: each replays traces (or generated farms) with `host-cli`,
//! writes its numbers to `docs/studies/NAME/data/`, and makes its document
//! (`README.md`) and figures from those numbers.
//!
//! Every study has the same layout, `docs/studies/NAME/{README.md, data/,
//! figures/}`, and two entry points: `run`, the replays (`cargo xtask
//! study NAME`), and `generate`, everything that follows from the committed
//! data without a replay (`cargo xtask docs`). A study checks its inputs
//! (the traces it needs, the binary) before it replays anything, writes into
//! a new folder beside the old one, and replaces the old one only when all
//! of it is written ([`crate::repo::StudyDir`]).

pub mod cons_rs;
pub mod dpsa;
pub mod farm;
pub mod policies;
pub mod reasons;
pub mod selective;

use crate::repo::{self, Meta, StudyDir};
use clap::Args;
use std::path::{Path, PathBuf};

/// Files a study generates: (path relative to its folder, contents).
pub type Generated = Vec<(String, String)>;

/// A study's document generator.
pub type Generator = fn(&Path) -> Result<Generated, String>;

/// Every study: its name (its folder under `docs/studies`) and generator.
pub const ALL: [(&str, Generator); 6] = [
    (selective::NAME, selective::generate),
    (cons_rs::NAME, cons_rs::generate),
    (dpsa::NAME, dpsa::generate),
    (farm::NAME, farm::generate),
    (policies::NAME, policies::generate),
    (reasons::NAME, reasons::generate),
];

/// Options every study takes.
#[derive(Clone, Debug, Args)]
pub struct Common {
    /// The folder of SWF traces (default: $BACKFILL_TRACES_DIR, else
    /// ../shared/traces beside the repository); a relative path is taken
    /// from the current directory.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Replays run at a time.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// The host-cli binary to run (default: build the release one).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    /// Write the study's folder under DIR instead of docs/studies (to look
    /// at a run without replacing the committed one).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

impl Common {
    /// The folder the study's folder goes in.
    pub fn parent(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(crate::repo::studies_dir)
    }

    /// Replays at a time.
    pub const fn jobs(&self) -> usize {
        self.jobs as usize
    }
}

/// Options of the studies made of `host-cli replay --format json` reports.
#[derive(Clone, Debug, Args)]
pub struct Reports {
    /// Keep the replay reports in DIR (created if missing); reports already
    /// there are not replayed again, so an interrupted study resumes.
    #[arg(long, value_name = "DIR")]
    pub runs: Option<PathBuf>,
}

/// The command line of a study run from its plan: the options every
/// study takes, where the replay reports go, and the study's own `O`.
#[derive(Clone, Debug, Args)]
pub struct PlanArgs<O: Args> {
    /// Options every study takes.
    #[command(flatten)]
    pub common: Common,
    /// Where the replay reports go.
    #[command(flatten)]
    pub reports: Reports,
    /// The study's own options.
    #[command(flatten)]
    pub options: O,
}

/// The host-cli binary and the new folder of study `name`, once its
/// inputs are known to be there (see [`Common`]).
pub fn begin(common: &Common, name: &str) -> Result<(PathBuf, StudyDir), String> {
    let bin = repo::host_cli(common.bin.as_deref())?;
    let study = StudyDir::new(&common.parent(), name)?;
    Ok((bin, study))
}

/// Ends a study: writes its `data` files (name, contents), its
/// `data/study.toml`, what `generate` makes of them, and puts the folder
/// in place of the old one.
pub fn finish(
    study: StudyDir,
    data: &[(&str, String)],
    meta: &Meta,
    generate: Generator,
) -> Result<(), String> {
    for (name, text) in data {
        repo::write_text(&study.path().join("data").join(name), text)?;
    }
    meta.write(study.path())?;
    for (rel, text) in generate(study.path())? {
        repo::write_text(&study.path().join(rel), &text)?;
    }
    let dir = study.commit()?;
    eprintln!("wrote {}", dir.display());
    Ok(())
}

/// A study's plan: its committed `docs/studies/NAME/plan.toml`, run with
/// `host-cli plan run` (cells whose result is in `out` are not run again,
/// so an interrupted study resumes) and read back with `host-cli plan
/// merge --json`: one JSON object per cell, in plan order.
pub struct StudyPlan<'a> {
    /// The host-cli binary.
    pub bin: &'a Path,
    /// The plan file.
    pub plan: &'a Path,
    /// The folder its relative trace names are found in.
    pub traces: &'a Path,
    /// The results folder (`plan run --out`).
    pub out: &'a Path,
    /// Cells run at a time.
    pub jobs: usize,
}

/// A merged row of a plan, by column name.
pub type PlanRow = serde_json::Map<String, serde_json::Value>;

impl StudyPlan<'_> {
    /// Runs every missing cell, then merges; an error when a cell fails or
    /// has no result.
    pub fn run(&self) -> Result<Vec<PlanRow>, String> {
        let run = |args: &[&std::ffi::OsStr]| {
            let mut command = std::process::Command::new(self.bin);
            command
                .arg("plan")
                .args(args)
                .arg("--traces")
                .arg(self.traces)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null());
            let shown = format!("{command:?}");
            let status = command.status().map_err(|e| format!("{shown}: {e}"))?;
            if status.success() {
                Ok(())
            } else {
                Err(format!("{shown} failed ({status}); its messages are above"))
            }
        };
        let jobs = self.jobs.to_string();
        run(&[
            "run".as_ref(),
            self.plan.as_os_str(),
            "--out".as_ref(),
            self.out.as_os_str(),
            "--jobs".as_ref(),
            jobs.as_ref(),
        ])?;
        let table = self.out.join("merged.json");
        run(&[
            "merge".as_ref(),
            self.plan.as_os_str(),
            self.out.as_os_str(),
            "--json".as_ref(),
            table.as_os_str(),
        ])?;
        serde_json::from_str(&repo::read_text(&table)?)
            .map_err(|e| format!("{}: {e}", table.display()))
    }
}

/// Runs study `name`'s committed plan (`docs/studies/NAME/plan.toml`) into
/// `--runs DIR` (or a temporary folder) and merges it; returns the study's
/// new folder (holding a copy of the plan), the merged rows and when the
/// study started.
pub fn run_plan(
    common: &Common,
    reports: &Reports,
    name: &str,
) -> Result<(StudyDir, Vec<PlanRow>, std::time::Instant), String> {
    let traces = repo::traces_dir(common.traces.as_deref())?;
    repo::traces_in(&traces)?;
    run_plan_with(common, reports, name, &traces)
}

/// [`run_plan`] with relative trace names looked up in `traces` (a plan
/// of generated workloads names none).
pub fn run_plan_with(
    common: &Common,
    reports: &Reports,
    name: &str,
    traces: &Path,
) -> Result<(StudyDir, Vec<PlanRow>, std::time::Instant), String> {
    let plan = repo::studies_dir().join(name).join(PLAN_FILE);
    let text = repo::read_text(&plan)?;
    let (bin, study) = begin(common, name)?;
    let runs = crate::exec::RunsDir::new(reports.runs.as_deref())?;
    eprintln!("{} into {}", plan.display(), runs.path().display());
    let started = std::time::Instant::now();
    let rows = StudyPlan {
        bin: &bin,
        plan: &plan,
        traces,
        out: runs.path(),
        jobs: common.jobs(),
    }
    .run()?;
    repo::write_text(&study.path().join(PLAN_FILE), &text)?;
    Ok((study, rows, started))
}

/// A study's plan file, in its folder.
pub const PLAN_FILE: &str = "plan.toml";

/// Column `name` of a merged plan row as `get` reads it; an error naming
/// the cell when it is empty (or not what `get` reads).
fn plan_column<T>(
    row: &PlanRow,
    name: &str,
    get: impl Fn(&serde_json::Value) -> Option<T>,
) -> Result<T, String> {
    row.get(name).and_then(get).ok_or_else(|| {
        format!(
            "plan cell {}: no {name}",
            row.get("cell").unwrap_or(&serde_json::Value::Null)
        )
    })
}

/// Column `name` of a merged plan row as a number; an error naming the
/// cell when it is empty.
pub fn plan_f64(row: &PlanRow, name: &str) -> Result<f64, String> {
    plan_column(row, name, serde_json::Value::as_f64)
}

/// Column `name` of a merged plan row as a whole number; an error naming
/// the cell when it is empty.
pub fn plan_u64(row: &PlanRow, name: &str) -> Result<u64, String> {
    plan_column(row, name, serde_json::Value::as_u64)
}

/// Column `name` of a merged plan row as text.
pub fn plan_str(row: &PlanRow, name: &str) -> Result<String, String> {
    plan_column(row, name, |v| v.as_str().map(str::to_owned))
}

/// A claim's verdict from how many cases agree out of how many.
pub const fn holds(agree: usize, of: usize) -> &'static str {
    if of == 0 {
        "no data"
    } else if agree == of {
        "holds"
    } else if agree == 0 {
        "does not hold"
    } else {
        "partly"
    }
}
