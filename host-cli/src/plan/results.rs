//! A cell's result file and failure record, in `OUT/cells/`.
//!
//! * `ID.json`: the result, [`CellResult`]: the plan's fingerprint, the
//!   cell's index and id, its parameters, the metrics the plan asks for and
//!   the wall-clock timings;
//! * `ID.failed.json`: the failure record of a cell that could not run,
//!   [`CellFailure`], with the error; it is not a result, and a later run
//!   that succeeds removes it.
//!
//! Both are written to a temporary file in the same folder and renamed
//! into place, so a file under either name is complete: a run killed
//! mid-way leaves at most a temporary (`.ID.*.tmp`) that nothing reads.

use super::spec::{Cell, Parameters, Plan};
use crate::error::CliError;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The `format` of a result file.
pub(crate) const RESULT_FORMAT: &str = "backfill-plan-result 1";
/// The `format` of a failure record.
pub(crate) const FAILURE_FORMAT: &str = "backfill-plan-failure 1";

/// The timing columns of the merged table, in order.
pub(crate) const TIMING_COLUMNS: [&str; 5] = [
    "prepare_seconds",
    "prerun_seconds",
    "replay_seconds",
    "cell_seconds",
    "slowest_call_us",
];

/// Wall-clock times of one cell: the only part of a result that differs
/// between two runs of the same plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Timings {
    /// Getting the prepared window: reading the trace and applying the
    /// window, estimates and load, or waiting for another cell of the same
    /// process that does (s).
    pub(crate) prepare_seconds: f64,
    /// Getting the Conservative run Selective's thresholds come from (s),
    /// when the cell needs one.
    pub(crate) prerun_seconds: Option<f64>,
    /// The replay (s).
    pub(crate) replay_seconds: f64,
    /// The whole cell (s).
    pub(crate) cell_seconds: f64,
    /// The slowest kernel call (µs), when the plan times every call
    /// (`latency = true`).
    pub(crate) slowest_call_us: Option<f64>,
}

impl Timings {
    /// The values in [`TIMING_COLUMNS`] order.
    #[must_use]
    pub(crate) fn values(&self) -> Vec<serde_json::Value> {
        use serde_json::Value;
        let opt = |v: Option<f64>| v.map_or(Value::Null, Value::from);
        vec![
            Value::from(self.prepare_seconds),
            opt(self.prerun_seconds),
            Value::from(self.replay_seconds),
            Value::from(self.cell_seconds),
            opt(self.slowest_call_us),
        ]
    }
}

/// The result of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CellResult {
    /// [`RESULT_FORMAT`].
    pub(crate) format: String,
    /// The fingerprint of the plan the cell belongs to.
    pub(crate) plan: String,
    /// The cell's index in that plan.
    pub(crate) cell: usize,
    /// The cell's id.
    pub(crate) id: String,
    /// Its parameters.
    pub(crate) parameters: Parameters,
    /// The metrics the plan asks for, by name.
    pub(crate) metrics: serde_json::Map<String, serde_json::Value>,
    /// Wall-clock times.
    pub(crate) timings: Timings,
    /// The machine that ran it.
    pub(crate) host: String,
}

/// The record of a cell that could not run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CellFailure {
    /// [`FAILURE_FORMAT`].
    pub(crate) format: String,
    /// The fingerprint of the plan the cell belongs to.
    pub(crate) plan: String,
    /// The cell's index in that plan.
    pub(crate) cell: usize,
    /// The cell's id.
    pub(crate) id: String,
    /// Its parameters.
    pub(crate) parameters: Parameters,
    /// Why it could not run.
    pub(crate) error: String,
    /// The machine that tried.
    pub(crate) host: String,
}

impl CellFailure {
    /// The failure record of `cell` of `plan`.
    #[must_use]
    pub(crate) fn new(plan: &Plan, cell: &Cell, error: String) -> Self {
        Self {
            format: FAILURE_FORMAT.to_owned(),
            plan: plan.fingerprint.clone(),
            cell: cell.index,
            id: cell.id.clone(),
            parameters: cell.spec.parameters(),
            error,
            host: host(),
        }
    }
}

/// This machine's name (empty when it cannot be read).
#[must_use]
pub(crate) fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The folder of the result files under `out`.
#[must_use]
pub(crate) fn cells_dir(out: &Path) -> PathBuf {
    out.join("cells")
}

/// Where the result of cell `id` goes.
#[must_use]
pub(crate) fn result_path(out: &Path, id: &str) -> PathBuf {
    cells_dir(out).join(format!("{id}.json"))
}

/// Where the failure record of cell `id` goes.
#[must_use]
pub(crate) fn failure_path(out: &Path, id: &str) -> PathBuf {
    cells_dir(out).join(format!("{id}.failed.json"))
}

/// Writes `value` as JSON to `path` atomically: a temporary file in the
/// same folder, synced, then renamed over `path`.
///
/// # Errors
/// [`CliError::Io`] naming the path.
pub(crate) fn write_atomic<T: Serialize>(path: &Path, value: &T) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::Io(path.display().to_string(), e);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| io(std::io::Error::other(e.to_string())))?;
    temp.write_all(text.as_bytes()).map_err(io)?;
    temp.write_all(b"\n").map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// What a result file in `OUT/cells/` turned out to hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stored {
    /// No file.
    Missing,
    /// A result of this cell of this plan.
    Done(Box<CellResult>),
    /// A file that is not a complete result (cut short, or not one).
    Unreadable(String),
    /// A result of another plan (its fingerprint).
    OtherPlan(String),
    /// A result whose id is not the one its name says.
    WrongId(String),
}

/// Reads and checks the result of `cell` of `plan` in `out`.
#[must_use]
pub(crate) fn stored(plan: &Plan, cell: &Cell, out: &Path) -> Stored {
    let path = result_path(out, &cell.id);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Stored::Missing,
        Err(e) => return Stored::Unreadable(format!("{}: {e}", path.display())),
    };
    let result: CellResult = match serde_json::from_str(&text) {
        Ok(r) => r,
        Err(e) => {
            return Stored::Unreadable(format!(
                "{}: not a complete result file ({e})",
                path.display()
            ))
        }
    };
    if result.format != RESULT_FORMAT {
        return Stored::Unreadable(format!(
            "{}: format `{}`, not `{RESULT_FORMAT}`",
            path.display(),
            result.format
        ));
    }
    if result.plan != plan.fingerprint {
        return Stored::OtherPlan(format!(
            "{}: a result of another plan (fingerprint {}; this plan's is {})",
            path.display(),
            result.plan,
            plan.fingerprint
        ));
    }
    if result.id != cell.id {
        return Stored::WrongId(format!(
            "{}: holds the result of cell id {} ({}), not of cell {} (id {})",
            path.display(),
            result.id,
            result.parameters.canonical().trim_end().replace('\n', ", "),
            cell.index,
            cell.id
        ));
    }
    Stored::Done(Box::new(result))
}

/// The failure record of `cell` in `out`, when there is one (its error, or
/// why the record cannot be read).
#[must_use]
pub(crate) fn failure(cell: &Cell, out: &Path) -> Option<String> {
    let path = failure_path(out, &cell.id);
    let text = std::fs::read_to_string(&path).ok()?;
    Some(match serde_json::from_str::<CellFailure>(&text) {
        Ok(f) => f.error,
        Err(e) => format!("{}: an unreadable failure record ({e})", path.display()),
    })
}
