//! `host-cli plan merge`: one table of a plan's results, one row per cell
//! in plan order: `cell`, `id`, the parameters, `status` (`ok`, or with
//! `--allow-missing` also `missing` and `failed`), the metrics the plan
//! asks for, the timings and the `host` that ran the cell. As CSV (a header
//! line, empty fields for missing values) and as JSON (an array of one
//! object per row, keys in column order): tidy data, ready for
//! `pandas.read_csv` or R's `read.csv`.
//!
//! The merge refuses, naming each file, results of another plan (another
//! fingerprint) and files whose id is not the cell's; it lists every cell
//! without a result (missing, failed with its error, or whose file is cut
//! short) and fails unless `--allow-missing`.

use super::results::{self, Stored, TIMING_COLUMNS};
use super::run::describe;
use super::spec::{Plan, PARAMETER_COLUMNS};
use crate::error::CliError;
use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::Value;
use std::path::Path;

/// The merged table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table {
    /// Column names.
    pub(crate) columns: Vec<String>,
    /// One row per cell, one value per column.
    pub(crate) rows: Vec<Vec<Value>>,
    /// Cells without a result, in words (empty when complete).
    pub(crate) gaps: Vec<String>,
}

impl Table {
    /// The table as CSV text.
    ///
    /// # Errors
    /// [`CliError::Io`] if the CSV writer fails.
    pub(crate) fn csv(&self) -> Result<String, CliError> {
        let fail = |e: String| CliError::Io("csv".into(), std::io::Error::other(e));
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.columns)
            .map_err(|e| fail(e.to_string()))?;
        for row in &self.rows {
            w.write_record(row.iter().map(cell_text))
                .map_err(|e| fail(e.to_string()))?;
        }
        let bytes = w.into_inner().map_err(|e| fail(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| fail(e.to_string()))
    }

    /// The table as JSON: an array of one object per row.
    ///
    /// # Errors
    /// [`CliError::Io`] if serialising fails.
    pub(crate) fn json(&self) -> Result<String, CliError> {
        serde_json::to_string_pretty(self)
            .map(|s| s + "\n")
            .map_err(|e| CliError::Io("json".into(), std::io::Error::other(e.to_string())))
    }
}

impl serde::Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Row<'a>(&'a [String], &'a [Value]);
        impl serde::Serialize for Row<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0.iter().zip(self.1) {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
        let mut seq = s.serialize_seq(Some(self.rows.len()))?;
        for row in &self.rows {
            seq.serialize_element(&Row(&self.columns, row))?;
        }
        seq.end()
    }
}

/// A value as a CSV field: empty for none, text as is, numbers as JSON
/// writes them.
fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads every result of `plan` in `dir` into one table.
///
/// # Errors
/// [`CliError::Usage`] naming every file that belongs to another plan or
/// whose id is not its cell's.
pub(crate) fn merge(plan: &Plan, dir: &Path) -> Result<Table, CliError> {
    let mut columns: Vec<String> = ["cell", "id"].map(str::to_owned).to_vec();
    columns.extend(PARAMETER_COLUMNS.map(str::to_owned));
    columns.push("status".to_owned());
    columns.extend(plan.metrics.iter().cloned());
    columns.extend(TIMING_COLUMNS.map(str::to_owned));
    columns.push("host".to_owned());
    let blank = plan.metrics.len() + TIMING_COLUMNS.len() + 1;
    let mut rows = Vec::with_capacity(plan.cells.len());
    let mut gaps = Vec::new();
    let mut refused = Vec::new();
    for cell in &plan.cells {
        let mut row = vec![Value::from(cell.index), Value::from(cell.id.clone())];
        row.extend(cell.spec.parameters().values());
        let missing = |status: &str, row: &mut Vec<Value>| {
            row.push(Value::from(status));
            row.extend(std::iter::repeat_n(Value::Null, blank));
        };
        match results::stored(plan, cell, dir) {
            Stored::Done(r) => {
                row.push(Value::from("ok"));
                row.extend(
                    plan.metrics
                        .iter()
                        .map(|m| r.metrics.get(m).cloned().unwrap_or(Value::Null)),
                );
                row.extend(r.timings.values());
                row.push(Value::from(r.host));
            }
            Stored::Missing => match results::failure(cell, dir) {
                Some(error) => {
                    gaps.push(format!("{}: failed: {error}", describe(cell)));
                    missing("failed", &mut row);
                }
                None => {
                    gaps.push(format!("{}: missing", describe(cell)));
                    missing("missing", &mut row);
                }
            },
            Stored::Unreadable(why) => {
                gaps.push(format!("{}: {why}", describe(cell)));
                missing("missing", &mut row);
            }
            Stored::OtherPlan(why) | Stored::WrongId(why) => refused.push(why),
        }
        rows.push(row);
    }
    if !refused.is_empty() {
        return Err(CliError::Usage(format!(
            "{} holds results that are not this plan's ({} {}): {}",
            dir.display(),
            plan.name,
            plan.fingerprint,
            refused.join("; ")
        )));
    }
    Ok(Table {
        columns,
        rows,
        gaps,
    })
}
