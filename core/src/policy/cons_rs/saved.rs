//! What a checkpoint keeps of CONS+RS beyond Conservative's bookkeeping:
//! the random generator's state and whether an early completion still
//! calls for a search. Everything else the engine holds is its parameters
//! (from the policy) or work saved between calls, which a restored engine
//! starts without, as [`ConsRs::new`] builds it.

use super::ConsRs;
use crate::rng::SplitMix64;

impl ConsRs {
    /// The generator's state and whether a search is due.
    pub(crate) const fn search_state(&self) -> (u64, bool) {
        (self.rng.state(), self.early)
    }

    /// A restored engine: the generator continues from `rng`, and a search
    /// follows the next compression when `early`.
    pub(crate) fn restore(&mut self, rng: u64, early: bool) {
        self.rng = SplitMix64::new(rng);
        self.early = early;
    }
}
