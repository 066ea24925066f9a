//! Host side of the backfill kernel: SWF reading, replay driving, reports.
#![forbid(unsafe_code)]

pub mod swf;
