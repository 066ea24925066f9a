//! Host side of the backfill kernel: SWF reading, replay driving, reports.
//!
//! * [`swf`]: the Standard Workload Format reader (plain and gzip), with
//!   errors naming file, line and field, and counted skip reasons;
//! * [`synth`]: the seeded synthetic workload used when no trace is given;
//! * [`replay`]: windowing, estimates, load scaling, and the replay driver
//!   around `backfill_core::Simulator`;
//! * [`report`]: tables, JSON and the per-job CSV;
//! * [`analysis`]: the selective-reservation analyses (thresholds, category
//!   comparisons, load sweeps, fairness), run over several policies;
//! * [`plot`]: their SVG figures (plotters, SVG backend only);
//! * [`farm`]: heterogeneous farms (the flexible-backfilling paper): the
//!   TOML/CSV farm files, their generator, farm replays and metrics, and
//!   the farm study;
//! * [`cli`]: the `host-cli` command line (clap).
#![forbid(unsafe_code)]

pub mod analysis;
pub mod cli;
pub mod farm;
pub mod plot;
pub mod replay;
pub mod report;
pub mod swf;
pub mod synth;
