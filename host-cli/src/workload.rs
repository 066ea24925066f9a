//! Model workloads: what `replay` schedules when no trace is given, and what
//! `generate lublin` writes.
//!
//! * [`rng`]: the seeded generator and the distributions drawn from it;
//! * [`lublin`]: the Lublin-Feitelson batch-job model;
//! * [`estimates`]: Tsafrir-Etsion-Feitelson user estimates for its jobs;
//! * [`synth`]: the built-in synthetic workload (both models together);
//! * [`lublin_swf`]: that workload written as an SWF trace.

pub mod estimates;
pub mod lublin;
pub mod lublin_swf;
pub mod rng;
pub mod synth;
