//! Where results go and how they look.
//!
//! * [`files`]: stdout without panics, and output files checked before a
//!   run and renamed into place only when complete;
//! * [`progress`]: progress bars on stderr for the phases of a command;
//! * [`report`]: the reports of `replay` and `info`: tables, JSON, CSV rows
//!   and the per-job CSV;
//! * [`batsim`]: the per-job schedule in Batsim's `jobs.csv` layout, with
//!   processor ids assigned (for evalys and other Batsim tools).

pub(crate) mod batsim;
pub(crate) mod files;
pub(crate) mod progress;
pub(crate) mod report;

use crate::error::CliError;
use serde::Serialize;

/// Rows as CSV text with a header line (from the row type's field names).
///
/// # Errors
/// [`CliError::Io`] when a row cannot be serialised.
pub(crate) fn csv_text<T: Serialize>(rows: &[T]) -> Result<String, CliError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer
            .serialize(row)
            .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))?;
    String::from_utf8(bytes)
        .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))
}
