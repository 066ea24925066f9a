//! Model workloads: what `replay` schedules when no trace is given, and what
//! `generate lublin` writes.
//!
//! * [`rng`]: the seeded generator and the distributions drawn from it;
//! * [`lublin`]: the Lublin-Feitelson batch-job model;
//! * [`estimates`]: Tsafrir-Etsion-Feitelson user estimates for its jobs;
//! * [`synth`]: the built-in synthetic workload (both models together);
//! * [`lublin_swf`]: that workload written as an SWF trace.

pub(crate) mod estimates;
pub(crate) mod lublin;
pub(crate) mod lublin_swf;
pub(crate) mod rng;
pub(crate) mod synth;
