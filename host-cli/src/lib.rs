//! Host side of the backfill kernel: SWF reading, replay driving, reports.
//!
//! Modules, bottom-up: each uses only modules listed above it (a test
//! checks the `crate::` paths of every source file against this order).
//!
//! * [`swf`]: the Standard Workload Format reader (plain and gzip), with
//!   errors naming file, line and field, and counted skip reasons;
//! * [`rng`], [`lublin`], [`estimates`]: the seeded generator, the
//!   Lublin-Feitelson job model and Tsafrir-Etsion-Feitelson user estimates
//!   drawn from it;
//! * [`synth`]: the seeded synthetic workload used when no trace is given;
//! * [`progress`]: progress bars on stderr for the phases of a command;
//! * [`replay`]: windowing, estimates, load scaling, and the replay driver
//!   around `backfill_core::Simulator`;
//! * [`stream`]: a replay that runs while its trace is read, used when it
//!   saw exactly the jobs the replay would;
//! * [`output`]: stdout without panics, and output files checked before a
//!   run and renamed into place only when complete;
//! * [`thresholds`]: Selective's starvation thresholds: parsing them,
//!   deriving them from a Conservative run, and saying which were used;
//! * [`report`]: tables, JSON and the per-job CSV;
//! * [`batsim`]: the per-job schedule in Batsim's `jobs.csv` layout, with
//!   processor ids assigned (for evalys and other Batsim tools);
//! * [`plot`]: SVG figures (plotters, SVG backend only; uses no other module);
//! * [`farm`]: heterogeneous farms (the flexible-backfilling paper): the
//!   TOML/CSV farm files, their generator, farm replays and metrics, and
//!   the farm study with its figures;
//! * [`generate`]: `host-cli generate`, the model workloads: Lublin as an
//!   SWF file, a farm as its TOML description and CSV job list;
//! * [`analysis`]: the selective-reservation analyses (category
//!   comparisons, load sweeps, fairness), run over several policies;
//! * [`cli`]: the `host-cli` command line (clap).
#![forbid(unsafe_code)]

pub mod analysis;
pub mod batsim;
pub mod cli;
pub mod estimates;
pub mod farm;
pub mod generate;
pub mod lublin;
pub mod output;
pub mod plot;
pub mod progress;
pub mod replay;
pub mod report;
pub mod rng;
pub mod stream;
pub mod swf;
pub mod synth;
pub mod thresholds;
