//! Host side of the backfill kernel: SWF reading, replay driving, reports.
//!
//! * [`swf`]: the Standard Workload Format reader (plain and gzip), with
//!   errors naming file, line and field, and counted skip reasons;
//! * [`synth`]: the seeded synthetic workload used when no trace is given;
//! * [`replay`]: windowing, estimates, load scaling, and the replay driver
//!   around `backfill_core::Simulator`;
//! * [`report`]: tables, JSON and the per-job CSV;
//! * [`cli`]: the `host-cli` command line (clap).
#![forbid(unsafe_code)]

pub mod cli;
pub mod replay;
pub mod report;
pub mod swf;
pub mod synth;
