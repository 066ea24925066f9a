//! Plans: studies that outgrow one machine.
//!
//! A plan file (TOML, [`format`](mod@format); `docs/plans.md` has the full format) lists
//! experiments, each a cross product of traces (or the built-in workload),
//! windows, estimate kinds, policies with their options, loads and seeds.
//! It expands deterministically into numbered *cells*, one replay each
//! ([`spec`]): the index is the cell's place in the plan, its *id* a hash of
//! its parameters (so a result file never answers for another cell when a
//! plan grows and its cells are renumbered), and the plan's *fingerprint* a
//! hash of every cell and the metrics asked for (so results of two plans
//! never mix).
//!
//! * [`spec`]: plans and cells in memory, their canonical text, ids and
//!   fingerprint;
//! * [`format`](mod@format): the plan file, read with errors naming file, line and
//!   field;
//! * [`metrics`]: the metrics a plan may ask for, by name;
//! * [`run`](mod@run): running cells (one, an array task's share, or all of
//!   them in parallel), sharing loaded traces, prepared windows and the
//!   Conservative runs that Selective's thresholds come from between the
//!   cells of one process;
//! * [`results`]: the result file of a cell (parameters, metrics, timings)
//!   and the failure record of a cell that could not run, each written
//!   atomically;
//! * [`merge`]: one table of every cell's result, refusing gaps, results of
//!   another plan and files that are not what their name says;
//! * [`reports`]: the compare, sweep, fairness and thresholds reports
//!   (CSV rows and figures) of a merged table's cells, as the commands
//!   write them;
//! * [`slurm`]: the `sbatch` script of a plan's job array;
//! * [`sweep`]: `host-cli sweep`, whose loads and policies run as the cells
//!   of a plan made on the fly.

pub mod format;
pub(crate) mod merge;
pub(crate) mod metrics;
pub mod reports;
pub(crate) mod results;
pub(crate) mod run;
pub(crate) mod slurm;
pub mod spec;
pub(crate) mod sweep;

pub use metrics::WAIT_REASONS;
pub(crate) use spec::Plan;
