//! What a checkpoint keeps of either flavour of CONS+RS beyond
//! Conservative's bookkeeping: the random generator's state and whether an
//! early completion still calls for a search (the Alea flavour adds when
//! its next periodic search is due). Everything else the engine holds is
//! its parameters (from the policy) or work saved between calls, which a
//! restored engine starts without, as [`SearchMemory::new`] builds it.

use super::SearchMemory;
use crate::rng::SplitMix64;

impl SearchMemory {
    /// The generator's state and whether a search is due.
    pub(crate) const fn search_state(&self) -> (u64, bool) {
        (self.rng.state(), self.early)
    }

    /// A restored memory: the generator continues from `rng`, and a search
    /// is due at the next settle when `early`.
    pub(crate) fn restore(&mut self, rng: u64, early: bool) {
        self.rng = SplitMix64::new(rng);
        self.early = early;
    }
}
