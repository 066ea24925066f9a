//! Host side of the backfill kernel: SWF reading, replay driving, reports.
//!
//! The folders follow the data from a trace file to a report, bottom-up:
//! each module uses only modules listed above it (a test checks the
//! `crate::` paths of every source file against this order).
//!
//! * [`numbers`]: numbers as reports print them (a leaf: it uses no other
//!   module);
//! * [`swf`]: **reading traces**: the Standard Workload Format reader (plain
//!   and gzip, whole or streamed line by line to a replay), with errors
//!   naming file, line and field, and counted skip reasons;
//! * [`error`]: [`CliError`](error::CliError), everything that can go wrong
//!   on the host side, with its exit status;
//! * [`workload`]: **workloads**: the seeded distributions, the
//!   Lublin-Feitelson job model, Tsafrir-Etsion-Feitelson user estimates,
//!   the built-in synthetic workload and its SWF file;
//! * [`replay`]: **replay**: a trace window made into kernel jobs, the
//!   policy with its thresholds and options, the kernel sizes, the replay
//!   drivers (whole, timed, observed, while reading) and the latency
//!   histogram;
//! * [`output`]: **output**: stdout without panics, output files checked
//!   before a run and renamed into place only when complete, progress bars,
//!   the reports (tables, JSON, CSV, the per-job CSV) and the Batsim
//!   `jobs.csv` layout;
//! * [`studies`]: **studies**: the selective-reservation analyses
//!   (thresholds, category comparisons, load sweeps, fairness), run over
//!   several policies, and the SVG figures;
//! * [`farm`]: heterogeneous farms (the flexible-backfilling paper): the
//!   TOML/CSV farm files, their generator, farm replays and metrics, and
//!   the farm study;
//! * [`cli`]: **the command line**: the clap options ([`cli::args`]) apart
//!   from the commands that run them.
//!
//! Only what the tests, the benches, the examples and the study tool
//! (`cargo xtask`) use is public; everything else is `pub(crate)`. The module
//! docs link to crate-private items: read them with `cargo doc -p
//! backfill-cli --document-private-items`, where every link resolves.
#![forbid(unsafe_code)]
#![allow(rustdoc::private_intra_doc_links)]

pub mod cli;
pub mod error;
pub mod farm;
pub mod numbers;
pub mod output;
pub mod replay;
pub mod studies;
pub mod swf;
pub mod workload;
