//! Reading Standard Workload Format (SWF) traces and turning them into jobs.
//!
//! An SWF file (Parallel Workloads Archive) is text with one job per line.
//! A line whose first non-blank character is `;` is a header comment, of the
//! form `; Key: value` ([`SwfHeader`]). Every other non-blank line holds 18
//! whitespace-separated integers, `-1` meaning unknown:
//!
//! | # | field | # | field |
//! |--:|---|--:|---|
//! | 1 | job number | 10 | requested memory (KB per processor) |
//! | 2 | submit time (s from log start) | 11 | status (1 done, 0 failed, 5 cancelled, 2/3/4 partial execution) |
//! | 3 | wait time (s) | 12 | user ID |
//! | 4 | run time (s) | 13 | group ID |
//! | 5 | allocated processors | 14 | executable number |
//! | 6 | average CPU time (s per processor) | 15 | queue number |
//! | 7 | used memory (KB per processor) | 16 | partition number |
//! | 8 | requested processors | 17 | preceding job number |
//! | 9 | requested time (the user's estimate, s) | 18 | think time (s) |
//!
//! # Reading: [`load()`] / [`load_reader`] → [`LoadedTrace`]
//!
//! * Plain text or gzip, recognised by the magic bytes `1f 8b`, not by the
//!   file name. Read line by line: memory grows with the data lines only.
//! * Fields are separated by any run of spaces and tabs; `\r\n` line ends,
//!   leading and trailing blanks and a UTF-8 byte-order mark are accepted.
//!   Blank lines are counted ([`LoadedTrace::blank_lines`]) and ignored.
//! * A data line must have exactly 18 fields. Each must be an integer `>= -1`
//!   that fits in `i64`. Fields 6 and 7 (average CPU time, used memory) also
//!   accept decimals, rounded to the nearest integer, because archive logs
//!   write them so (CTC: `142.00`); a decimal anywhere else is an error.
//!   Exception: the status (field 11) is a code and accepts any integer,
//!   because the Sandia-Ross log has statuses `-2` and `-4`.
//! * Hard errors ([`SwfError`], naming file, line and field): a malformed
//!   data line, a line that is not UTF-8, a truncated or corrupt gzip stream.
//!   An empty or header-only file is a valid trace with no records. A
//!   malformed header value is not an error while reading: it is listed
//!   with its line in [`SwfHeader::invalid`], and the replay refuses the
//!   trace only if it needs that value (the machine size).
//! * [`SwfRecord`] keeps the 18 values as written; it interprets nothing.
//!
//! # Selecting: [`select()`] → [`Workload`](workload::Workload) of [`TraceJob`]s
//!
//! Following `docs/design.md`, "Replaying SWF traces":
//!
//! * **Window.** Data lines are taken in file order. Lines with status 2, 3
//!   or 4 record pieces of checkpointed or swapped jobs: they are not jobs
//!   and use no window slot. The first `skip` job lines are passed over, the
//!   next `first` job lines form the window.
//! * **Classify.** Each job line in the window either becomes a [`TraceJob`]
//!   or is counted under one [`SkipReason`], checked in this order: no submit
//!   time (field 2 = -1), no run time (field 4 = -1), no processors (neither
//!   field 8 nor field 5 positive), wider than the machine. Partial-execution
//!   lines inside the window are counted too. Nothing is dropped silently:
//!   `jobs_in_window == jobs.len() + skipped.total() - skipped.partial_execution`.
//! * **Convert.** submit = field 2; runtime = field 4; procs = field 8 if
//!   positive, else field 5; estimate = field 9 if positive, else the run
//!   time, and at least 1. A needed value above `u32::MAX` is a hard error.
//! * **Order.** Jobs are sorted stably by (submit, job number); the number of
//!   jobs that came earlier than the job before them in the file is reported
//!   ([`Workload::out_of_order`](workload::Workload::out_of_order)). Only jobs are compared: in LLNL-Thunder
//!   the 808 lines whose submit time is below the line before all have
//!   submit time `-1` (skipped as no submit time), so its jobs are in order.

// Input must never make the reader panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented
)]

mod error;
mod header;
mod reader;
mod record;
mod workload;

pub use error::SwfError;
pub use error::SwfErrorKind;
pub use header::SwfHeader;
pub use reader::load;
pub use reader::load_reader;
pub(crate) use reader::load_tapped;
pub use reader::LoadedTrace;
pub(crate) use reader::Tap;
pub(crate) use reader::Tapped;
pub use record::LineError;
pub use record::LineErrorKind;
pub use record::SwfRecord;
pub(crate) use workload::select;
pub(crate) use workload::Selector;
pub use workload::SkipCounts;
pub use workload::SkipReason;
pub use workload::TraceJob;
