//! FCFS: first come, first served, without backfilling.
//!
//! Rule (`docs/design.md`, "FCFS"): start jobs strictly in queue order
//! while the head fits now; the first job that does not fit blocks every job
//! behind it until it starts. The baseline every backfilling paper compares
//! against.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): the head is short
//! of processors (on a farm: of a machine, or of a license), with no
//! expected start; every job behind it is behind the head. Starts are in
//! order.
//!
//! [`State::start_from_head`] is also the first phase of EASY, SJF-EASY and (in the
//! DPSA family) every policy that starts from the head before backfilling.

use super::Rules;
use crate::plan::Slot;
use crate::state::{KernelError, Observer, Pass, State};
use crate::tally::Tally;

/// FCFS's memory between calls: none.
pub(crate) struct Fcfs;

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Fcfs
{
    /// One FCFS pass.
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let mut pass = Pass::default();
        st.start_from_head(observer, &mut pass)?;
        Ok(pass)
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// Starts queue heads at `now` while they fit, counting them in `pass`.
    pub(crate) fn start_from_head(
        &mut self,
        observer: &mut impl Observer,
        pass: &mut Pass,
    ) -> Result<(), KernelError> {
        let now = self.now;
        if self.tally().is_some() {
            return self.start_from_head_by_count(observer, pass);
        }
        while let Some(head) = self.queue.first().copied() {
            match self.plan.fit_now(&self.cluster, &head.job, now)? {
                Some(slot) => {
                    self.reserve_and_start(0, &head.job, slot, observer)?;
                    pass.started = pass.started.saturating_add(1);
                }
                None => break,
            }
        }
        Ok(())
    }

    /// [`State::start_from_head`] with a tally (one machine, no licenses):
    /// a head fits now exactly when it asks for no more processors than are
    /// free, since the plan holds nothing but running jobs at this point of
    /// a pass.
    fn start_from_head_by_count(
        &mut self,
        observer: &mut impl Observer,
        pass: &mut Pass,
    ) -> Result<(), KernelError> {
        let now = self.now;
        let machine = self
            .tally()
            .map(Tally::machine)
            .ok_or(KernelError::Internal("no tally"))?;
        while let Some(head) = self.queue.first().copied() {
            let free = self.tally().map_or(0, Tally::free);
            let Some(duration) = machine.scale(head.job.estimate) else {
                break;
            };
            if head.job.procs > free {
                break;
            }
            now.checked_add(duration).ok_or(KernelError::TimeOverflow)?;
            let slot = Slot {
                start: now,
                machine: 0,
                duration,
            };
            self.reserve_and_start(0, &head.job, slot, observer)?;
            pass.started = pass.started.saturating_add(1);
        }
        Ok(())
    }
}
