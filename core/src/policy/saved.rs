//! What a policy remembers between calls that its decisions depend on, as
//! plain values: what a checkpoint keeps of the policy's memory
//! ([`Engine::saved`]) and how an engine is set up from it
//! ([`Engine::restored`]).
//!
//! The rest of an engine's memory is its parameters, which the [`Policy`]
//! gives, and work saved between calls, each part of which the engine
//! already knows how to do without:
//!
//! * EASY's record of what its last pass looked at (so a pass with the same
//!   head looks only at new jobs): a restored engine has none, and its
//!   first pass looks at every job, as after a completion;
//! * the compression bookkeeping's freed intervals and earliest reservation
//!   start: a restored engine searches every window in its first
//!   compression pass (what the pruning would have searched is a subset)
//!   and finds the earliest start by a scan.
//!
//! Neither changes a decision; the property tests hold restored kernels to
//! the kernels that never stopped.

use super::{Engine, Policy, SlowdownAverage};
use crate::types::{Job, JobId, Time};

/// A policy's decision state: each field is read by the policies named on
/// it and is at its default for the others.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Saved {
    /// EASY, SJF-EASY, DPSA: the job holding the head reservation.
    pub(crate) reserved_head: Option<Job>,
    /// Conservative, Selective, CONS+RS: a compression pass is due;
    /// Conservative's rebuild variant: a rebuild is due.
    pub(crate) compression_due: bool,
    /// Selective: the completed jobs' bounded slowdowns (adaptive
    /// thresholds read them).
    pub(crate) average: SlowdownAverage,
    /// CONS+RS and its Alea flavour: the random generator's state.
    pub(crate) rng: u64,
    /// CONS+RS and its Alea flavour: an early completion calls for a
    /// search.
    pub(crate) search_due: bool,
    /// CONS+RS, Alea flavour: when the next periodic search is due (none
    /// before the first arrival).
    pub(crate) next_search: Option<Time>,
    /// BF_FCFS, BF_UNMOD, BF_MOD: the job that held the reservation after
    /// the last pass.
    pub(crate) holder: Option<JobId>,
}

impl Engine {
    /// The decision state of this engine.
    pub(crate) fn saved(&self) -> Saved {
        let mut saved = Saved::default();
        match self {
            Self::Fcfs => {}
            Self::Easy(e) => saved.reserved_head = e.reserved_head(),
            Self::Dpsa(d) => saved.reserved_head = d.reserved_head(),
            Self::Conservative(c) => {
                saved.compression_due = match &c.rebuild {
                    Some(rebuild) => rebuild.is_due(),
                    None => c.compression.is_due(),
                };
            }
            Self::Selective(s) => {
                saved.compression_due = s.compression.is_due();
                saved.average = s.average;
            }
            Self::ConsRs(c) => {
                saved.compression_due = c.memory.cons.compression.is_due();
                (saved.rng, saved.search_due) = c.memory.search_state();
            }
            Self::ConsRsAlea(c) => {
                (saved.rng, saved.search_due, saved.next_search) = c.search_state();
            }
            Self::Flexible(f) => saved.holder = f.holder(),
        }
        saved
    }

    /// The engine of `policy` with decision state `saved` (the fields
    /// `policy` does not read are ignored) and none of the saved work.
    pub(crate) fn restored(policy: Policy, saved: &Saved) -> Self {
        let mut engine = Self::new(policy);
        match &mut engine {
            Self::Fcfs => {}
            Self::Easy(e) => e.restore(saved.reserved_head),
            Self::Dpsa(d) => d.restore(saved.reserved_head),
            Self::Conservative(c) => {
                let due = saved.compression_due && !c.static_plan;
                match &mut c.rebuild {
                    Some(rebuild) => {
                        *rebuild = super::rebuild::Rebuild::restored(due);
                        c.compression = super::conservative::Compression::restored(false);
                    }
                    None => c.compression = super::conservative::Compression::restored(due),
                }
            }
            Self::Selective(s) => {
                s.compression = super::conservative::Compression::restored(saved.compression_due);
                // Only an adaptive threshold counts completed jobs.
                if let Policy::Selective(super::Threshold::Adaptive { .. }) = policy {
                    s.average = saved.average;
                }
            }
            Self::ConsRs(c) => {
                c.memory.cons.compression =
                    super::conservative::Compression::restored(saved.compression_due);
                c.memory.restore(saved.rng, saved.search_due);
            }
            Self::ConsRsAlea(c) => {
                c.memory.cons.compression = super::conservative::Compression::restored(false);
                c.restore(saved.rng, saved.search_due, saved.next_search);
            }
            Self::Flexible(f) => f.restore(saved.holder),
        }
        engine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{RandomSearch, Threshold};

    /// Every policy's engine gives back the decision state it was restored
    /// with (the fields it reads), and a fresh engine's state is the
    /// default but for CONS+RS's generator, which starts at the seed.
    #[test]
    fn restored_engines_save_what_they_were_given() {
        let job = Job::new(7, 3, 2, 40);
        let average = SlowdownAverage {
            count: 3,
            sum: 7500,
        };
        for policy in Policy::ALL.into_iter().chain(Policy::OPTION_VARIANTS) {
            let fresh = Engine::new(policy).saved();
            let seed = match policy {
                Policy::ConsRs(p) | Policy::ConsRsAlea(p) => p.seed,
                _ => 0,
            };
            assert_eq!(
                fresh,
                Saved {
                    rng: seed,
                    ..Saved::default()
                },
                "{policy}"
            );
            let given = Saved {
                reserved_head: Some(job),
                compression_due: true,
                average,
                rng: 99,
                search_due: true,
                next_search: Some(600),
                holder: Some(12),
            };
            let kept = Engine::restored(policy, &given).saved();
            let expected = match policy {
                Policy::Fcfs | Policy::ConservativeNoCompression => Saved::default(),
                Policy::Easy | Policy::SjfEasy | Policy::Dpsa { .. } => Saved {
                    reserved_head: Some(job),
                    ..Saved::default()
                },
                Policy::Conservative | Policy::ConservativeRebuild => Saved {
                    compression_due: true,
                    ..Saved::default()
                },
                Policy::Selective(Threshold::Adaptive { .. }) => Saved {
                    compression_due: true,
                    average,
                    ..Saved::default()
                },
                Policy::Selective(_) => Saved {
                    compression_due: true,
                    ..Saved::default()
                },
                Policy::ConsRs(_) => Saved {
                    compression_due: true,
                    rng: 99,
                    search_due: true,
                    ..Saved::default()
                },
                Policy::ConsRsAlea(_) => Saved {
                    rng: 99,
                    search_due: true,
                    next_search: Some(600),
                    ..Saved::default()
                },
                _ => Saved {
                    holder: Some(12),
                    ..Saved::default()
                },
            };
            assert_eq!(kept, expected, "{policy}");
        }
        let rs = Policy::ConsRs(RandomSearch {
            seed: 5,
            ..RandomSearch::DEFAULT
        });
        assert_eq!(Engine::new(rs).saved().rng, 5);
        let fixed = Policy::Selective(Threshold::Fixed(1500));
        assert_eq!(
            Engine::restored(fixed, &Saved::default()).saved(),
            Saved::default()
        );
    }
}
