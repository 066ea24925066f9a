//! What can go wrong on the host side, and the exit status of each.

use crate::swf;
use backfill_core::SimError;

/// Everything that can go wrong on the host side.
#[derive(Debug)]
pub enum CliError {
    /// Reading or parsing a trace.
    Swf(swf::SwfError),
    /// Writing an output file.
    Io(String, std::io::Error),
    /// The replay stopped (with the trace's job number when known).
    Replay(Box<ReplayFailure>),
    /// Bad option value.
    Usage(String),
    /// The input holds no job to run: an empty file or window, or every job
    /// of the window skipped. `why` says which.
    NothingToSchedule {
        /// Trace name.
        trace: String,
        /// Why there is nothing.
        why: String,
    },
}

impl CliError {
    /// The process exit status for this error: 2 for bad input or options
    /// (the run could not start), 1 for a replay or output failure.
    #[must_use]
    pub(crate) const fn exit_code(&self) -> u8 {
        match self {
            Self::Swf(_) | Self::Usage(_) | Self::NothingToSchedule { .. } => 2,
            Self::Io(..) | Self::Replay(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Swf(e) => write!(f, "{e}"),
            Self::Io(path, e) => write!(f, "{path}: {e}"),
            Self::Replay(failure) => write!(f, "{failure}"),
            Self::Usage(m) => f.write_str(m),
            Self::NothingToSchedule { trace, why } => {
                write!(f, "{trace}: nothing to schedule: {why}")
            }
        }
    }
}

impl std::error::Error for CliError {}

/// Why a replay stopped ([`CliError::Replay`]).
#[derive(Debug)]
pub struct ReplayFailure {
    /// Trace name.
    pub trace: String,
    /// The core error.
    pub error: SimError,
    /// The trace job number of the job concerned.
    pub number: Option<u64>,
    /// The line of that job in the trace.
    pub line: Option<u64>,
    /// What the error means here and what to do, when known.
    pub detail: Option<String>,
}

impl std::fmt::Display for ReplayFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.trace, self.error)?;
        match (self.number, self.line) {
            (Some(n), Some(l)) => write!(f, " (trace job {n}, line {l})")?,
            (Some(n), None) => write!(f, " (trace job {n})")?,
            _ => {}
        }
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

impl From<swf::SwfError> for CliError {
    fn from(e: swf::SwfError) -> Self {
        Self::Swf(e)
    }
}
