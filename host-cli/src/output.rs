//! Where results go and how they look.
//!
//! * [`files`]: stdout without panics, and output files checked before a
//!   run and renamed into place only when complete;
//! * [`progress`]: progress bars on stderr for the phases of a command;
//! * [`report`]: the reports of `replay` and `info`: tables, JSON, CSV rows
//!   and the per-job CSV;
//! * [`distribution`]: percentiles and spread of the per-job figures
//!   (`replay --distributions`);
//! * [`groups`]: figures per SWF user, group or queue and the fairness
//!   between them (`replay --by`);
//! * [`swf_out`]: the simulated schedule as an SWF trace
//!   (`--jobs-format swf`);
//! * [`timeseries`]: the replay's state sampled over simulated time
//!   (`--timeseries`);
//! * [`batsim`]: the per-job schedule in Batsim's `jobs.csv` layout, with
//!   processor ids assigned (for evalys and other Batsim tools).

pub(crate) mod batsim;
pub(crate) mod distribution;
pub(crate) mod files;
pub(crate) mod groups;
pub(crate) mod progress;
pub(crate) mod reasons;
pub(crate) mod report;
pub(crate) mod swf_out;
pub(crate) mod timeseries;

use crate::error::CliError;
use serde::Serialize;

/// The figures `replay --format json --distributions` prints for a replay
/// of `prepared` (its report without the wall-clock `timings`), for tests
/// that recompute them from the per-job records.
///
/// # Errors
/// [`CliError::Io`] when the report cannot be made into JSON.
pub fn replay_figures(
    prepared: &crate::replay::Prepared,
    result: &crate::replay::RunResult,
    bounds: backfill_core::CategoryBounds,
) -> Result<serde_json::Value, CliError> {
    let mut r = report::replay_report(prepared, result, bounds, report::Phases::default());
    r.distributions = result
        .records()
        .map(|records| distribution::distributions(records, &result.metrics, bounds));
    let mut value = serde_json::to_value(&r)
        .map_err(|e| CliError::Io("json".into(), std::io::Error::other(e.to_string())))?;
    if let Some(map) = value.as_object_mut() {
        map.remove("timings");
    }
    Ok(value)
}

/// Rows as CSV text with a header line (from the row type's field names).
///
/// # Errors
/// [`CliError::Io`] when a row cannot be serialised.
pub(crate) fn csv_text<T: Serialize>(rows: &[T]) -> Result<String, CliError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).map_err(csv_error)?;
    }
    csv_finish(writer)
}

/// Records of fields (the header line first) as CSV text, for files whose
/// columns are known only at run time.
///
/// # Errors
/// [`CliError::Io`] when a record cannot be written.
pub(crate) fn csv_records<R, F>(records: impl IntoIterator<Item = R>) -> Result<String, CliError>
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut writer = csv::Writer::from_writer(Vec::new());
    for record in records {
        writer.write_record(record).map_err(csv_error)?;
    }
    csv_finish(writer)
}

/// The text a CSV writer holds.
fn csv_finish(writer: csv::Writer<Vec<u8>>) -> Result<String, CliError> {
    let bytes = writer.into_inner().map_err(csv_error)?;
    String::from_utf8(bytes).map_err(csv_error)
}

/// A failure to write or read CSV text, as the commands report it.
pub(crate) fn csv_error(e: impl std::fmt::Display) -> CliError {
    CliError::Io("csv".into(), std::io::Error::other(e.to_string()))
}
